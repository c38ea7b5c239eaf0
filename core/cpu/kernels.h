/* kernels.h - CPU reference kernels, plain C11 (the convolutions' are
 * core/conv/kernels_cpu.h).
 *
 * Every kernel here has a CUDA twin in core/cuda/ with the same arguments
 * and a _cuda suffix. Tensors are NCHW float32; `n` is the
 * number of examples in the batch. Kernels that produce an input gradient
 * take `acc`: false overwrites, true adds (a tensor read by two layers,
 * e.g. a residual branch point, receives the sum of both gradients). */
#ifndef DDL_CPU_KERNELS_H
#define DDL_CPU_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* y[n][c][p] (+)= bias[c]. */
void bias_add_cpu(float *y, const float *bias, int n, int c, int p);
/* dbias[c] += sum over n, p of dy[n][c][p]. */
void bias_grad_cpu(const float *dy, float *dbias, int n, int c, int p);

void relu_forward_cpu(const float *x, float *y, size_t count);
void relu_backward_cpu(const float *x, const float *dy, float *dx, size_t count, bool acc);
void relu6_forward_cpu(const float *x, float *y, size_t count);
void relu6_backward_cpu(const float *x, const float *dy, float *dx, size_t count, bool acc);

/* Pooling over n*c planes of H x W into OH x OW. Max pooling backward
 * recomputes the arg-max from x (first maximum wins, as PyTorch's CPU
 * kernel) instead of storing indices. Average pooling counts padding
 * (PyTorch's count_include_pad=True default). */
void maxpool_forward_cpu(const float *x, float *y, int planes, int H, int W, int k, int stride, int pad, int OH, int OW);
void maxpool_backward_cpu(const float *x, const float *dy, float *dx, int planes, int H, int W, int k, int stride,
                          int pad, int OH, int OW, bool acc);
void avgpool_forward_cpu(const float *x, float *y, int planes, int H, int W, int k, int stride, int pad, int OH, int OW);
void avgpool_backward_cpu(const float *dy, float *dx, int planes, int H, int W, int k, int stride, int pad, int OH,
                          int OW, bool acc);
void global_avgpool_forward_cpu(const float *x, float *y, int planes, int p);
void global_avgpool_backward_cpu(const float *dy, float *dx, int planes, int p, bool acc);

/* Batch norm over n x c x p (p = H*W). Training: batch statistics, saved
 * mean/invstd per channel for backward; running stats updated when
 * running_mean != NULL (momentum as PyTorch: r = (1-m) r + m batch, with the
 * unbiased variance). Inference: y from the given mean/var. act (core/util/bn_act.h):
 * y = act(the normalised value), the ReLU or ReLU6 that follows fused in. */
void batchnorm_forward_train_cpu(const float *x, float *y, const float *gamma, const float *beta, int n, int c,
                                 int p, float eps, float momentum, float *running_mean, float *running_var,
                                 float *save_mean, float *save_invstd, int act);
void batchnorm_forward_eval_cpu(const float *x, float *y, const float *gamma, const float *beta, int n, int c, int p,
                                float eps, const float *mean, const float *var, int act);
/* Inference statistics in the form backward reads: save_mean = mean,
 * save_invstd = 1/sqrt(var + eps), per channel. */
void batchnorm_eval_stats_cpu(const float *mean, const float *var, int c, float eps, float *save_mean,
                              float *save_invstd);
/* Backward with batch statistics (train) or fixed statistics (eval:
 * pass use_batch_stats = false and save_mean/save_invstd computed from the
 * running stats). dgamma/dbeta accumulate. act (core/util/bn_act.h): the activation
 * the forward applied to y (BN_ACT_NONE: none); dy is then the gradient of
 * act(y), masked where act passed nothing, which is recomputed from x,
 * gamma, beta and the saved statistics exactly as the forward computed it
 * (beta may be NULL when act is BN_ACT_NONE). */
void batchnorm_backward_cpu(const float *x, const float *dy, float *dx, const float *gamma, float *dgamma,
                            float *dbeta, int n, int c, int p, const float *save_mean, const float *save_invstd,
                            bool use_batch_stats, bool acc, const float *beta, int act);

/* Inverted dropout: mask holds 0 or 1/(1-p); y = x * mask. */
void dropout_mask_cpu(float *mask, size_t count, float p, uint64_t seed, uint64_t stream);
void mul_cpu(const float *x, const float *mask, float *y, size_t count);
void mul_backward_cpu(const float *dy, const float *mask, float *dx, size_t count, bool acc);

/* y = a + b; and dx (+)= dy. */
void add_cpu(const float *a, const float *b, float *y, size_t count);
void copy_grad_cpu(const float *dy, float *dx, size_t count, bool acc);
/* Residual add + ReLU (core/model/fuse.c): y = relu(a + b); its backward
 * hands g = dy * (y > 0) to da and db (each written, or added with acc_*;
 * NULL: no gradient). */
void add_relu_cpu(const float *a, const float *b, float *y, size_t count);
void add_relu_backward_cpu(const float *y, const float *dy, float *da, bool acc_a, float *db, bool acc_b,
                           size_t count);
/* x *= s (loss scaling and unscaling). */
void scale_cpu(float *x, size_t count, float s);

/* Softmax + cross-entropy, mean over the batch. Returns the summed loss
 * (double) and counts correct arg-max predictions; probs may alias nothing. */
double softmax_ce_forward_cpu(const float *logits, const int32_t *labels, int n, int classes, float *probs,
                              int *correct);
/* dlogits = (probs - onehot) * scale (scale = 1/n for the batch mean). */
void softmax_ce_backward_cpu(const float *probs, const int32_t *labels, int n, int classes, float scale,
                             float *dlogits);

/* How many labels lie outside [0, classes): a bad label would make the
 * loss read past a row of logits. */
int labels_outside_cpu(const int32_t *labels, int n, int classes);

/* SGD, PyTorch semantics (dampening 0): g = grad + wd * w; v = mu * v + g
 * (velocity starts at zero, so the first step has v = g as in PyTorch);
 * step = nesterov ? g + mu * v : v; w -= lr * step. */
void sgd_update_cpu(float *w, const float *grad, float *velocity, size_t count, float lr, float momentum,
                    float weight_decay, bool nesterov);

/* FP16 (fp16.c). half_round: x rounded to the nearest binary16 value
 * (ties to even; beyond 65504 rounds to infinity; NaN stays NaN), equal to
 * half_to_float(half_from_float(x)) for every non-NaN float, faster: this
 * is how FP16 storage is emulated on the CPU. half_round_cpu rounds an
 * array in place. f32_to_f16_cpu writes the binary16 bit patterns (the
 * CUDA twin's __half). nonfinite_cpu: true when x holds an inf or NaN (the
 * loss-scale overflow check). */
float half_round(float x);
void half_round_cpu(float *x, size_t count);
void f32_to_f16_cpu(const float *x, uint16_t *y, size_t count);
bool nonfinite_cpu(const float *x, size_t count);

#endif
