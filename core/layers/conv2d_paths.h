/* conv2d_paths.h - the ways a convolution layer runs (conv2d.c's table),
 * private to core/layers.
 *
 * Each path has: size, the scratch floats it needs for max_batch examples;
 * forward, which writes the layer's output (without the bias unless
 * adds_bias); backward, which adds the weight gradient (no bias) to dw
 * and, when dx is not NULL, writes (acc: adds) the input gradient. */
#ifndef DDL_LAYERS_CONV2D_PATHS_H
#define DDL_LAYERS_CONV2D_PATHS_H

#include "layers.h"

typedef struct ConvPathOps {
    const char *name; /* for outputs */
    bool adds_bias;   /* forward adds the bias itself */
    bool fp32_only;   /* FP32 kernels: with FP16 GEMM operands the layer runs im2col instead */
    size_t (*size)(const Model *m, const Layer *l, int max_batch);
    void (*forward)(Model *m, const Layer *l);
    void (*backward)(Model *m, const Layer *l, float *dw, float *dx, bool acc);
} ConvPathOps;

/* conv2d_winograd.c: Winograd F(2x2,3x3). */
size_t conv2d_winograd_size(const Model *m, const Layer *l, int max_batch);
void conv2d_winograd_forward(Model *m, const Layer *l);
void conv2d_winograd_backward(Model *m, const Layer *l, float *dw, float *dx, bool acc);
/* The same file: Winograd F(4x4,3x3) for the forward pass and the input
 * gradient, F(2x2,3x3) for the weight gradient. */
size_t conv2d_winograd4_size(const Model *m, const Layer *l, int max_batch);
void conv2d_winograd4_forward(Model *m, const Layer *l);
void conv2d_winograd4_backward(Model *m, const Layer *l, float *dw, float *dx, bool acc);

/* conv2d_direct.c: direct 3x3 kernels. */
size_t conv2d_direct_size(const Model *m, const Layer *l, int max_batch);
void conv2d_direct_forward(Model *m, const Layer *l);
void conv2d_direct_backward(Model *m, const Layer *l, float *dw, float *dx, bool acc);

/* conv2d_winofused.c: Winograd F(2x2,3x3) with the transforms in
 * registers (forward, input gradient; the direct weight gradient). */
size_t conv2d_winofused_size(const Model *m, const Layer *l, int max_batch);
void conv2d_winofused_forward(Model *m, const Layer *l);
void conv2d_winofused_backward(Model *m, const Layer *l, float *dw, float *dx, bool acc);

/* conv2d_pointwise.c: 1x1 stride-1 kernels on NCHW. */
size_t conv2d_pointwise_size(const Model *m, const Layer *l, int max_batch);
void conv2d_pointwise_forward(Model *m, const Layer *l);
void conv2d_pointwise_backward(Model *m, const Layer *l, float *dw, float *dx, bool acc);

/* conv2d_pick.c: the path a layer takes under m->conv_algo; DDL_CONV's
 * name of an algorithm. */
ConvPath conv2d_pick_path(const Model *m, const Layer *l);
const char *conv_algo_name(ConvAlgo a);


#endif
