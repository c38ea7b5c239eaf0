/* kernels.h - CPU reference kernels, plain C11 (the convolutions' are
 * core/conv/kernels_cpu.h), declared from the one list of a backend's
 * kernels, kernels.def (each one's contract is written there).
 *
 * Every kernel here has a CUDA twin in core/cuda/ with the same arguments
 * and a _cuda suffix (core/cuda/kernels_cuda.h, from the same list). */
#ifndef DDL_CPU_KERNELS_H
#define DDL_CPU_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every kernel of core/cpu/kernels.def, with the suffix _cpu: see there
 * for what each computes. */
#define KERNEL(name, ret, params) ret name##_cpu params;
#include "kernels.def"

/* One float rounded to the nearest binary16 value, as half_round_cpu
 * rounds an array (fp16.c): equal to half_to_float(half_from_float(x)) for
 * every non-NaN float, faster. */
float half_round(float x);

#endif
