/* cpu.c - the CPU backend: host memory, core/cpu's reference kernels and
 * CBLAS. Memory operations are plain C; "device" and host are the same
 * memory, so the staging entries are NULL (batches are handed over, not
 * copied). FP16 is emulated by rounding FP32 values (gemm_f16 NULL). */
#include "backend.h"

#include <string.h>
#include "../util/common.h"
#include "../cpu/kernels.h"
#include "../cpu/parallel.h"
#include "../cpu/gemm.h"

static void *cpu_alloc(size_t bytes) { return ddl_calloc(bytes); }

static void cpu_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes) memcpy(dst, src, bytes);
}

/* Arenas are tens of MB for VGG-11 (the gradients are cleared every step):
 * cleared in 64 KiB slices on all threads, like the other memory-bound
 * kernels. */
static void cpu_zero(void *dst, size_t bytes)
{
    const size_t slice = 65536;
    long slices = (long)((bytes + slice - 1) / slice);
    PARALLEL_FOR(bytes / sizeof(float))
    for (long i = 0; i < slices; i++) {
        size_t lo = (size_t)i * slice;
        memset((char *)dst + lo, 0, DDL_MIN(slice, bytes - lo));
    }
}

static void cpu_synchronize(void) {}

/* The CPU is always here. */
static bool cpu_usable(void) { return true; }

const Backend ddl_backend_cpu = {
    .name = "cpu",
    .what = "CPU",
    .host_memory = true,
    .usable = cpu_usable,
    .alloc = cpu_alloc,
    .release = ddl_free,
    .to_device = cpu_copy,
    .to_host = cpu_copy,
    .copy = cpu_copy,
    .zero = cpu_zero,
    .host_alloc = ddl_alloc,
    .host_free = ddl_free,
    .synchronize = cpu_synchronize,
    .gemm_f32 = gemm_f32,
    .gemm_f16 = NULL,
    .conv = &conv_kernels_cpu,
    /* every kernel of the list, by name */
#define KERNEL(name, ret, params) .name = name##_cpu,
#include "../cpu/kernels.def"
};
