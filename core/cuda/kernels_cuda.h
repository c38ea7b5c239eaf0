/* kernels_cuda.h - CUDA twins of core/cpu/kernels.h, GEMM through cuBLAS,
 * FP16 casts and the loss-scale overflow check.
 *
 * Naming rule: foo_cpu(args) in core/cpu/kernels.h or core/conv/kernels_cpu.h
 * <-> foo_cuda(args) here,
 * same arguments, same semantics (see kernels.h for each one), except that
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

/* elementwise.cu */
void bias_add_cuda(float *y, const float *bias, int n, int c, int p);
void bias_grad_cuda(const float *dy, float *dbias, int n, int c, int p);
void relu_forward_cuda(const float *x, float *y, size_t count);
void relu_backward_cuda(const float *x, const float *dy, float *dx, size_t count, bool acc);
void relu6_forward_cuda(const float *x, float *y, size_t count);
void relu6_backward_cuda(const float *x, const float *dy, float *dx, size_t count, bool acc);
void mul_cuda(const float *x, const float *mask, float *y, size_t count);
void mul_backward_cuda(const float *dy, const float *mask, float *dx, size_t count, bool acc);
void add_cuda(const float *a, const float *b, float *y, size_t count);
void copy_grad_cuda(const float *dy, float *dx, size_t count, bool acc);
void add_relu_cuda(const float *a, const float *b, float *y, size_t count);
void add_relu_backward_cuda(const float *y, const float *dy, float *da, bool acc_a, float *db, bool acc_b,
                            size_t count);

/* dropout.cu: the same mask as dropout_mask_cpu, bit for bit. */
void dropout_mask_cuda(float *mask, size_t count, float p, uint64_t seed, uint64_t stream);

/* pool.cu */
void maxpool_forward_cuda(const float *x, float *y, int planes, int H, int W, int k, int stride, int pad, int OH,
                          int OW);
void maxpool_backward_cuda(const float *x, const float *dy, float *dx, int planes, int H, int W, int k, int stride,
                           int pad, int OH, int OW, bool acc);
void avgpool_forward_cuda(const float *x, float *y, int planes, int H, int W, int k, int stride, int pad, int OH,
                          int OW);
void avgpool_backward_cuda(const float *dy, float *dx, int planes, int H, int W, int k, int stride, int pad, int OH,
                           int OW, bool acc);
void global_avgpool_forward_cuda(const float *x, float *y, int planes, int p);
void global_avgpool_backward_cuda(const float *dy, float *dx, int planes, int p, bool acc);

/* batchnorm.cu */
void batchnorm_forward_train_cuda(const float *x, float *y, const float *gamma, const float *beta, int n, int c,
                                  int p, float eps, float momentum, float *running_mean, float *running_var,
                                  float *save_mean, float *save_invstd, int act);
void batchnorm_forward_eval_cuda(const float *x, float *y, const float *gamma, const float *beta, int n, int c,
                                 int p, float eps, const float *mean, const float *var, int act);
void batchnorm_backward_cuda(const float *x, const float *dy, float *dx, const float *gamma, float *dgamma,
                             float *dbeta, int n, int c, int p, const float *save_mean, const float *save_invstd,
                             bool use_batch_stats, bool acc, const float *beta, int act);

/* batchnorm_eval_stats.cu */
void batchnorm_eval_stats_cuda(const float *mean, const float *var, int c, float eps, float *save_mean,
                               float *save_invstd);

/* labels.cu: the count comes back to the host (this call waits). */
int labels_outside_cuda(const int32_t *labels, int n, int classes);

/* mixed_precision.cu: FP16 storage emulated in float, loss (un)scaling. */
void half_round_cuda(float *x, size_t count);
void scale_cuda(float *x, size_t count, float s);

/* softmax_ce.cu: labels is a device array; the summed loss and *correct
 * (a host int, may be NULL) come back to the host (this call waits). */
double softmax_ce_forward_cuda(const float *logits, const int32_t *labels, int n, int classes, float *probs,
                               int *correct);
void softmax_ce_backward_cuda(const float *probs, const int32_t *labels, int n, int classes, float scale,
                              float *dlogits);

/* sgd.cu (velocity may be NULL when momentum == 0, as on the CPU) */
void sgd_update_cuda(float *w, const float *grad, float *velocity, size_t count, float lr, float momentum,
                     float weight_decay, bool nesterov);

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

/* fp16.cu: y[i] = (half)x[i], round to nearest even (__float2half_rn):
 * overflow gives +-inf, NaN stays NaN; and the exact widening back. */
void f32_to_f16_cuda(const float *x, uint16_t *y, size_t count);
void f16_to_f32_cuda(const uint16_t *x, float *y, size_t count);
/* Loss-scale overflow check. nonfinite_flag_cuda sets the device int *flag
 * to 1 when x holds an inf or NaN and otherwise leaves it alone, so one
 * flag (zeroed by the caller) covers many arrays and one copy reads it.
 * nonfinite_cuda does one array and returns the answer (waits). */
void nonfinite_flag_cuda(const float *x, size_t count, int *flag);
bool nonfinite_cuda(const float *x, size_t count);

#ifdef __cplusplus
}
#endif

#endif
