/* cudnn_kernels.h - the kernel table of the cuDNN path (path_cudnn.c):
 * cuDNN's own convolutions (core/cuda/conv_cudnn.cu) on a GPU in a build
 * with cuDNN; everywhere else a table that only says why not (the CPU's
 * in path_cudnn.c, the emulated GPU's and a build without cuDNN's in
 * conv_cudnn.cu). */
#ifndef DDL_CONV_CUDNN_KERNELS_H
#define DDL_CONV_CUDNN_KERNELS_H

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cuDNN's convolutions (core/cuda/conv_cudnn.cu): NCHW FP32 tensors of n
 * images of shape s, the filters w[cout][cin/groups][k][k], as the
 * reference path keeps them. cuDNN chooses each call's algorithm by its
 * own heuristics (deterministic ones, FMA math: no TF32); the descriptors
 * and the choice are made once per shape, batch and max_batch, and kept.
 * ws: device memory of ws_bytes, at least workspace(s, max_batch). */
typedef struct ConvCudnn {
    /* NULL where cuDNN runs here; else why not, in words for an error
     * message (the CPU, the emulated GPU, a CUDA build without cuDNN), and
     * every other entry is NULL */
    const char *absent;
    /* bytes of workspace the three calls need for up to max_batch images */
    size_t (*workspace)(const ConvShape *s, int max_batch);
    /* y = conv(x, w) */
    void (*forward)(const ConvShape *s, int n, int max_batch, const float *x, const float *w, float *y, void *ws,
                    size_t ws_bytes);
    /* dx = (acc: dx +) the input gradient of dy */
    void (*backward_data)(const ConvShape *s, int n, int max_batch, const float *dy, const float *w, float *dx,
                          bool acc, void *ws, size_t ws_bytes);
    /* dw += the weight gradient of x and dy */
    void (*backward_filter)(const ConvShape *s, int n, int max_batch, const float *x, const float *dy, float *dw,
                            void *ws, size_t ws_bytes);
    /* "cuDNN 9.19.0 (built against 9.19.0)", for outputs */
    const char *(*version)(void);
    /* descriptor sets made so far on this thread (tests: one per shape and batch, not per call) */
    long (*plans_made)(void);
} ConvCudnn;

CONV_KERNEL_TABLES(ConvCudnn, cudnn_kernels);

#ifdef __cplusplus
}
#endif

#endif
