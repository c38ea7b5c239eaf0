/* layers.h - the forward/backward pair of every layer kind.
 *
 * forward reads m->batch examples of the layer's input tensor(s) and writes
 * its output tensor. backward reads the output gradient, accumulates
 * parameter gradients into m->grads, and - when need_dx - writes the input
 * gradient (acc_dx: add instead of overwrite, for tensors with several
 * consumers). layer_forward/layer_backward dispatch on the kind. */
#ifndef DDL_LAYERS_H
#define DDL_LAYERS_H

#include "../model/model.h"

void linear_forward(Model *m, const Layer *l);
void linear_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
void conv2d_forward(Model *m, const Layer *l);
void conv2d_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
void relu_forward(Model *m, const Layer *l);
void relu_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
void relu6_forward(Model *m, const Layer *l);
void relu6_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);
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

void layer_forward(Model *m, const Layer *l);
void layer_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx);

/* Convolution chunking: how many images one im2col + GEMM covers, and the
 * scratch floats that needs (shared by forward and backward). */
int conv2d_chunk(const Model *m, const Layer *l, int batch);
size_t conv2d_scratch(const Model *m, const Layer *l, int batch);
/* Floats of the whole batch's im2col columns (what caching them costs). */
size_t conv2d_columns(const Model *m, const Layer *l, int batch);

#endif
