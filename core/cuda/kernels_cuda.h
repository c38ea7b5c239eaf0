/* kernels_cuda.h - CUDA twins of core/cpu/kernels.h (both declared from
 * the one list, core/cpu/kernels.def), GEMM through cuBLAS, the FP16
 * widening and the overflow flag.
 *
 * Naming rule: foo_cpu(args) in core/cpu/kernels.h or core/conv/kernels_cpu.h
 * <-> foo_cuda(args) here,
 * same arguments, same semantics (see kernels.def for each one), except that
 * every array pointer is a DEVICE pointer; scalars (sizes, flags, seeds,
 * learning rates) stay host values. Results agree with the CPU to rounding
 * (summation order and FMA differ where stated in the .cu files);
 * dropout_mask_cuda is bit-identical to dropout_mask_cpu.
 *
 * Every call is queued on this thread's stream (ddl_cuda_stream(),
 * cudaStreamPerThread unless set) and returns at once, except the ones that
 * return a value to the host (softmax_ce_forward_cuda, nonfinite_cuda),
 * which wait for their result. CUDA and cuBLAS errors abort through ddl_die
 * with file:line, the call and the CUDA error string.
 *
 * Plain C with extern "C": C code includes it without the CUDA headers.
 * FP16 arrays are uint16_t holding IEEE binary16 bit patterns (= __half). */
#ifndef DDL_CUDA_KERNELS_H
#define DDL_CUDA_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* im2col.cu */
void im2col_cuda(const float *x, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW, float *col);
void col2im_cuda(const float *col, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW, float *dx,
                 bool acc);

/* layout.cu: x[nb][c][p] <-> t[c][nb*p] around multi-image conv GEMMs. */
void images_to_channels_cuda(const float *x, int nb, int c, int p, float *t);
void channels_to_images_cuda(const float *t, int nb, int c, int p, float *y);

/* Every kernel of core/cpu/kernels.def, with the suffix _cuda (which .cu
 * file holds each: the list's groups). The emulated GPU's build of them
 * is named name_cuda_emu (an asm label: the same source, built by the host
 * compiler, links beside nvcc's; core/cuda/emu/names.h renames the
 * functions declared by hand). */
#ifdef DDL_CUDA_EMU
#define DDL_CUDA_EMU_SYMBOL(name) __asm__(#name "_emu")
#else
#define DDL_CUDA_EMU_SYMBOL(name)
#endif
#define KERNEL(name, ret, params) ret name##_cuda params DDL_CUDA_EMU_SYMBOL(name##_cuda);
#include "../cpu/kernels.def"

/* gemm.cu: C = alpha * op(A) * op(B) + beta * C, ROW-MAJOR, exactly
 * gemm_f32's arguments (core/cpu/gemm.h); FP32 throughout (no TF32). */
void gemm_f32_cuda(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float *A, int lda,
                   const float *B, int ldb, float beta, float *C, int ldc);
/* Same with FP16 A and B, FP32 accumulation (CUBLAS_COMPUTE_32F) and FP32
 * C: the mixed-precision forward/backward GEMM. */
void gemm_f16_cuda(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const uint16_t *A, int lda,
                   const uint16_t *B, int ldb, float beta, float *C, int ldc);
/* Destroy this thread's cuBLAS handles (created lazily, one per thread and
 * device). Optional: call before a thread ends or before cudaDeviceReset. */
void ddl_cuda_blas_release(void);

/* fp16.cu: the exact widening of f32_to_f16_cuda's halves back to float. */
void f16_to_f32_cuda(const uint16_t *x, float *y, size_t count);
/* The loss-scale overflow check over many arrays: sets the device int
 * *flag to 1 when x holds an inf or NaN and otherwise leaves it alone, so
 * one flag (zeroed by the caller) covers many arrays and one copy reads
 * it (nonfinite_cuda does one array and returns the answer). */
void nonfinite_flag_cuda(const float *x, size_t count, int *flag);

#ifdef __cplusplus
}
#endif

#endif
