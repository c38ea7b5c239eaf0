/* device.h - where a model runs: "cpu", "cuda" or "cuda-emu".
 *
 * DEVICE=cuda must fail clearly when it cannot work: a build without nvcc,
 * a machine without a GPU (cudaGetDeviceCount fails, e.g. error 35 "CUDA
 * driver version is insufficient" / no driver), or kernels not available
 * in this build. It never silently runs on the CPU instead. */
#ifndef DDL_DEVICE_H
#define DDL_DEVICE_H

#include <stddef.h>
#include "../util/common.h"

/* DEVICE_CUDA_EMU: the CUDA backend's very kernels, compiled by the host
 * C++ compiler and run on the CPU (core/cuda/emu), for CI and for students
 * without a GPU. */
typedef enum Device { DEVICE_CPU = 0, DEVICE_CUDA = 1, DEVICE_CUDA_EMU = 2 } Device;

int device_parse(const char *s, Device *out, char err[DDL_ERRLEN]);
/* 0 when d can run this program's models; desc gets e.g. "cpu (AMD EPYC
 * 9B14, 2 cores, OpenBLAS SkylakeX)" or "cuda (NVIDIA H200, sm_90)".
 * local_rank, of the local_ranks ranks on this node, picks the GPU: GPU
 * local_rank % count, one rank per GPU; with fewer GPUs than ranks the
 * ranks share them, and desc says so. */
int device_check(Device d, int local_rank, int local_ranks, char *desc, size_t cap, char err[DDL_ERRLEN]);
/* The same checks for a program whose model, trainer and data all run on
 * the device's backend (core/backend; every lab, bench/train_step): cuda is
 * accepted where a GPU answers. device_check still refuses cuda after
 * finding the GPU, for programs that read gradients or weights on the host
 * between steps (bench/ddp_bar). On success with cuda, that GPU is made
 * current (ddl_cuda_set_device) before any memory is allocated. */
int device_check_backend(Device d, int local_rank, int local_ranks, char *desc, size_t cap, char err[DDL_ERRLEN]);

#endif
