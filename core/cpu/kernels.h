/* kernels.h - CPU reference kernels, plain C11.
 *
 * Every kernel here has (or will have) a CUDA twin in core/cuda/ with the
 * same arguments and a _cuda suffix. Tensors are NCHW float32; `n` is the
 * number of examples in the batch. Kernels that produce an input gradient
 * take `acc`: false overwrites, true adds (a tensor read by two layers,
 * e.g. a residual branch point, receives the sum of both gradients). */
#ifndef DDL_CPU_KERNELS_H
#define DDL_CPU_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Convolution lowering of nb images x[nb][C][H][W] into the column matrix
 * col[C*k*k][nb*OH*OW] (row (c,ki,kj), image i's pixels at columns
 * [i*OH*OW, (i+1)*OH*OW)), so one GEMM covers several images. */
void im2col_cpu(const float *x, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW, float *col);
/* The adjoint: dx[nb][C][H][W] (+)= scatter-add of col. */
void col2im_cpu(const float *col, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW, float *dx,
                bool acc);

/* Winograd F(2x2,3x3) for 3x3 convolutions with stride 1 and padding 1
 * (winograd.c says why and how): the transforms around 16 GEMMs, which
 * replace im2col + one GEMM with fewer multiplications. An H x W plane has
 * T = ceil(H/2) * ceil(W/2) tiles of 2x2 outputs; "16" indexes the tile
 * positions of the 4x4 Winograd domain.
 * input:  v[16][C][nb*T] = B^T d B of x[nb][C][H][W]'s 4x4 tiles (zero
 *         padding outside the plane);
 * filter: u[16][K][C] = G g G^T of w[K][C][3][3]; with flip, the filter of
 *         the input gradient instead, u[16][C][K] from w rotated 180
 *         degrees (dx = this convolution of dy);
 * output: y[nb][K][H][W] (+)= A^T m A of m[16][K][nb*T], cropped to H x W. */
void winograd_input_cpu(const float *x, int nb, int C, int H, int W, float *v);
void winograd_filter_cpu(const float *w, int K, int C, bool flip, float *u);
void winograd_output_cpu(const float *m, int nb, int K, int H, int W, float *y, bool acc);
/* The weight gradient (winograd_grad.c): output_grad: dm[16][K][nb*T] =
 * A dy A^T of dy[nb][K][H][W]'s 2x2 tiles (0 past the plane); GEMMs give
 * du[16][K][C] = sum over tiles of dm (.) v; filter_grad: dw[K][C][3][3]
 * += G^T du G. */
void winograd_output_grad_cpu(const float *dy, int nb, int K, int H, int W, float *dm);
void winograd_filter_grad_cpu(const float *du, int K, int C, float *dw);
/* Winograd F(4x4,3x3) (winograd4.c says why and how): the same three
 * transforms with 36 positions of 6x6 tiles around 4x4 outputs, T =
 * ceil(H/4) * ceil(W/4) tiles per plane:
 * input:  v[36][C][nb*T]; filter: u[36][K][C] (flip as above);
 * output: y[nb][K][H][W] (+)= A^T m A of m[36][K][nb*T], cropped. */
void winograd4_input_cpu(const float *x, int nb, int C, int H, int W, float *v);
void winograd4_filter_cpu(const float *w, int K, int C, bool flip, float *u);
void winograd4_output_cpu(const float *m, int nb, int K, int H, int W, float *y, bool acc);

/* Direct 3x3 convolution, padding 1, stride 1 or 2 (conv_direct.c says
 * why and how; buffer layouts, phases and tap tables (modes) in
 * conv_direct_layout.h):
 * pad:         xq = x[nb][C][H][W] on zero-bordered planes [C][nb][H+2][W+2]
 *              (+ DIRECT_SLACK zeros); with stride 2, its 4 phases on planes
 *              of the output's size, [C][4][nb][Ho+2][Wo+2];
 * filter:      wp = w[K][C][3][3] packed in blocks of 8 output channels for
 *              mode's taps; the DX modes pack the input gradient's filters
 *              (C outputs from K inputs);
 * conv:        y[nb][K][H][W] (+)= the convolution of xq (C channels) by wp
 *              with mode's taps; H x W is the output's plane (a stride-2
 *              input was padded with its own size);
 * filter_grad: dw[K][C][3][3] += sum over the nb images of dy (x) x, from
 *              the padded xq (C channels, padded with this stride) and dyq
 *              (K channels of the H x W output, padded with stride 1);
 * unphase:     dx[nb][C][H][W] (+)= the 4 phases' gradients of a stride-2
 *              input, dp[4][nb][C][Ho][Wo] (DIRECT_DX_S2 + p). */
void direct_pad_cpu(const float *x, int nb, int C, int H, int W, int stride, float *xq);
void direct_filter_cpu(const float *w, int K, int C, int mode, float *wp);
void direct_conv_cpu(const float *xq, const float *wp, int nb, int C, int K, int H, int W, int mode, float *y,
                     bool acc);
void direct_filter_grad_cpu(const float *xq, const float *dyq, int nb, int C, int K, int H, int W, int stride,
                            float *dw);
void direct_unphase_cpu(const float *dp, int nb, int C, int H, int W, float *dx, bool acc);

/* Winograd F(2x2,3x3) on the direct kernels' grid, stride 1, padding 1
 * (conv_winofused.c says why and how; layouts in winofused_layout.h):
 * filter: wt = V = G g G^T of w[K][C][3][3], packed per tile position in
 *         blocks of 8 outputs; with flip, the input gradient's (C outputs
 *         from K inputs, rotated);
 * conv:    y[nb][K][H][W] (+)= the convolution of x[nb][C][H][W] (H, W
 *          even; C <= WINOFUSED_MAX_C) from its phases xq
 *          (direct_pad_cpu with stride 2) and wt; yq: room for the 4
 *          output phases on the tiles' grid, [4][K][ocs], which some
 *          planes go through (winofused_layout.h);
 * unphase: y (+)= the phases yq interleaved. */
void winofused_pad_cpu(const float *x, int nb, int C, int H, int W, float *xq);
void winofused_filter_cpu(const float *w, int K, int C, bool flip, float *wt);
void winofused_conv_cpu(const float *xq, const float *wt, int nb, int C, int K, int H, int W, float *yq, float *y,
                         bool acc);
void winofused_unphase_cpu(const float *yq, int nb, int K, int H, int W, float *y, bool acc);

/* Pointwise (1x1, stride 1) convolution, direct on NCHW (conv_pointwise.c
 * says why and how; packed filters in conv_pointwise_layout.h):
 * filter:      wp = w[K][C] packed in blocks of 8 outputs (O = K from I = C
 *              inputs); with transpose, w^T instead (O = C from I = K: the
 *              input gradient is this convolution of dy);
 * conv:        y[n][O][P] (+)= wp applied to x[n][I][P];
 * filter_grad: dw[K][C] += sum over the n images and P positions of
 *              dy[k] * x[c]. */
void pointwise_filter_cpu(const float *w, int K, int C, bool transpose, float *wp);
void pointwise_conv_cpu(const float *x, const float *wp, int n, int I, int O, int P, float *y, bool acc);
void pointwise_filter_grad_cpu(const float *x, const float *dy, int n, int C, int K, int P, float *dw);
/* Stride 2: xs[nb][C][Ho][Wo] = x's even rows and columns (Ho = ceil(H/2),
 * Wo = ceil(W/2)); dx[nb][C][H][W] (+)= dxs there, 0 elsewhere. */
void pointwise_subsample_cpu(const float *x, int nb, int C, int H, int W, float *xs);
void pointwise_upsample_cpu(const float *dxs, int nb, int C, int H, int W, float *dx, bool acc);

/* The layout change around a GEMM over several images: x[nb][c][p]
 * (NCHW, p = H*W) <-> t[c][nb*p] (channel-major, image i's pixels at
 * columns [i*p, (i+1)*p)), which is what the GEMM reads and writes. */
void images_to_channels_cpu(const float *x, int nb, int c, int p, float *t);
void channels_to_images_cpu(const float *t, int nb, int c, int p, float *y);

/* Depthwise convolution, direct (no lowering): C channels in and out, one
 * k x k filter per channel (w[C][k][k], PyTorch's [C][1][k][k]), optional
 * bias[C] (NULL: none). Backward accumulates dw (no bias: bias_grad_cpu)
 * and, when dx is not NULL, writes (acc: adds) the input gradient. */
void depthwise_forward_cpu(const float *x, const float *w, const float *bias, float *y, int n, int C, int H, int W,
                           int k, int stride, int pad, int OH, int OW);
void depthwise_backward_cpu(const float *x, const float *dy, const float *w, float *dw, float *dx, int n, int C,
                            int H, int W, int k, int stride, int pad, int OH, int OW, bool acc);

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
 * unbiased variance). Inference: y from the given mean/var. act (bn_act.h):
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
 * running stats). dgamma/dbeta accumulate. act (bn_act.h): the activation
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
