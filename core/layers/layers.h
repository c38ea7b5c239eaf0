/* layers.h - what every layer kind does, and the table that holds it.
 *
 * forward reads m->batch examples of the layer's input tensor(s) and writes
 * its output tensor. backward reads the output gradient, accumulates
 * parameter gradients into m->grads, and - when need_dx - writes the input
 * gradient (acc_dx: add instead of overwrite, for tensors with several
 * consumers). Both run on the model's backend (m->be) and never name a
 * device. Beside them each kind says what memory it needs (size, columns)
 * and how its parameters start (init), so the model allocates and
 * initialises without knowing kinds. layer_* dispatch on the kind through
 * the table in dispatch.c. */
#ifndef DDL_LAYERS_H
#define DDL_LAYERS_H

#include "graph.h"

void linear_forward(Model *m, const Layer *l);
void linear_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
void conv2d_forward(Model *m, const Layer *l);
void conv2d_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
/* relu_forward, relu_backward, relu6_...: each element-wise activation of
 * the kernel list (core/cpu/kernels.def), in activation.c */
#define ACTIVATION(KIND, name)                                                 \
    void name##_forward(Model *m, const Layer *l);                             \
    void name##_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
#include "../cpu/kernels.def"
void maxpool_forward(Model *m, const Layer *l);
void maxpool_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
void avgpool_forward(Model *m, const Layer *l);
void avgpool_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
void global_avgpool_forward(Model *m, const Layer *l);
void global_avgpool_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
void batchnorm_forward(Model *m, const Layer *l);
void batchnorm_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
void dropout_forward(Model *m, const Layer *l);
void dropout_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
void flatten_forward(Model *m, const Layer *l);
void flatten_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
void add_forward(Model *m, const Layer *l);
void add_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);

/* Sizing: set l->aux_count (and whether a convolution keeps its columns,
 * cache_cols) for max_batch examples; return the scratch floats needed. */
size_t conv2d_size(const Model *m, Layer *l, int max_batch, bool cache_cols);
size_t batchnorm_size(const Model *m, Layer *l, int max_batch, bool cache_cols);
size_t dropout_size(const Model *m, Layer *l, int max_batch, bool cache_cols);
/* Floats of the whole batch's im2col columns (what caching them costs). */
size_t conv2d_columns(const Model *m, const Layer *l, int batch);
/* Initial parameters (and state) on the host: params and state are whole
 * host copies of the arenas; *stream numbers the RNG streams. */
void linear_init(const Model *m, const Layer *l, float *params, float *state, uint64_t seed, uint64_t *stream);
void conv2d_init(const Model *m, const Layer *l, float *params, float *state, uint64_t seed, uint64_t *stream);
void batchnorm_init(const Model *m, const Layer *l, float *params, float *state, uint64_t seed, uint64_t *stream);
/* FLOPs per example of one forward pass (multiply-add = 2). */
double weights_flops(const Model *m, const Layer *l);

/* How the convolutions run, for outputs (core/conv/conv.h's
 * conv_summary): "20 convolutions: 13 fused Winograd F(2x2,3x3), 4 direct
 * 3x3, 3 im2col + GEMM; 17 activations fused into batch norm or add
 * (--conv auto)". */
void conv2d_algo_summary(const Model *m, char *buf, size_t cap);

void layer_forward(Model *m, const Layer *l);
void layer_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
size_t layer_columns(const Model *m, const Layer *l, int batch);
size_t layer_size(const Model *m, Layer *l, int max_batch, bool cache_cols);
void layer_init(const Model *m, const Layer *l, float *params, float *state, uint64_t seed, uint64_t *stream);
double layer_flops(const Model *m, const Layer *l);

/* The layers' GEMM (gemm_f32's arguments, core/cpu/gemm.h): FP32 on the
 * backend, or - after model_use_fp16_gemm - FP16 operands with FP32
 * accumulation (weights from the FP16 working copy, other operands cast
 * into m->half_scratch). */
void layer_gemm(const Model *m, bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float *A,
                int lda, const float *B, int ldb, float beta, float *C, int ldc);

#endif
