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
#if defined(DDL_HAVE_CUDA_EMU) && !defined(DDL_CUDA_EMU)
/* The emulated GPU's build of the same and of device_mem.h's device
 * selection (the names emu/names.h gives them), for the C code that picks
 * a rank's device (core/platform/device.c) and records it. They exist in
 * every build with the emulated GPU, with or without nvcc. */
int ddl_cuda_probe_emu(int index, char *desc, size_t cap, char *err, size_t errcap);
int ddl_cuda_device_count_emu(void);
void ddl_cuda_set_device_emu(int index);
int ddl_cuda_current_device_emu(void);
#endif
#ifdef __cplusplus
}
#endif

#endif
