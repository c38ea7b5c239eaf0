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

/* Images per chunk of a path that keeps per-image buffers of
 * per_image floats in the scratch (the direct and fused Winograd paths):
 * as many as fit CONV_CHUNK_CAP floats (64 MiB), 1 to batch. Measured on
 * the dev VM (bin/bench/conv_algo, batch 64, 2 threads, twice), chunks of
 * 1 MiB (the L2 of a core) took 5-10% longer than the whole batch on 16
 * channels at 32x32 and 14% on 64 (more, shorter parallel regions; the
 * kernels keep their working sets in cache on their own). */
#define CONV_CHUNK_CAP ((size_t)16 << 20)
static inline int conv_chunk_images(size_t per_image, int batch)
{
    int nb = (int)(CONV_CHUNK_CAP / per_image);
    return nb < 1 ? 1 : nb < batch ? nb : batch;
}

/* conv2d_pick.c: the path a layer takes under m->conv_algo; DDL_CONV's
 * name of an algorithm. */
ConvPath conv2d_pick_path(const Model *m, const Layer *l);
const char *conv_algo_name(ConvAlgo a);


#endif
