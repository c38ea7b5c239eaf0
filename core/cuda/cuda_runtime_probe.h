/* cuda_runtime_probe.h - C view of core/cuda/probe.cu. */
#ifndef DDL_CUDA_PROBE_H
#define DDL_CUDA_PROBE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
/* 0 and a description ("NVIDIA H200, sm_90, 139 GiB") when GPU number
 * `index % count` is usable; -1 and the CUDA error text otherwise. */
int ddl_cuda_probe(int index, char *desc, size_t cap, char *err, size_t errcap);
/* GPUs visible (0 when none or on error). */
int ddl_cuda_device_count(void);
#ifdef __cplusplus
}
#endif

#endif
