/* kernels.h - the convolution sub-table of a backend: every kernel the
 * convolution paths (paths.h) call, one table per device.
 *
 * The CPU's is conv_kernels_cpu (kernels_cpu.c: the kernels of this
 * folder, declared in kernels_cpu.h, where each one's layout is
 * described); the CUDA twins' (the same arguments, _cuda suffix, device
 * pointers) is in core/cuda/backend_cuda.cu, built once by nvcc and once
 * by the host compiler as the emulated GPU. A Backend points at its
 * device's table (Backend.conv), so the rest of core never names a
 * convolution kernel. Pointers are the backend's memory; scalars are host
 * values. Plain C: the CUDA table is defined in a .cu file. cuDNN is one
 * more entry (ConvCudnn), present only in the CUDA table of a build that
 * found cuDNN, and absent, with the reason, everywhere else. */
#ifndef DDL_CONV_KERNELS_H
#define DDL_CONV_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A layer's geometry: input cin x h x w, output cout x oh x ow, square
 * k x k filters, stride, zero padding, groups. */
typedef struct ConvShape {
    int cin, h, w, cout, oh, ow, k, stride, pad, groups;
} ConvShape;

/* cuDNN's convolutions (core/cuda/conv_cudnn.cu): NCHW FP32 tensors of n
 * images of shape s, the filters w[cout][cin/groups][k][k], as the
 * reference path keeps them. cuDNN chooses each call's algorithm by its
 * own heuristics (deterministic ones, FMA math: no TF32); the descriptors
 * and the choice are made once per shape, batch and max_batch, and kept.
 * ws: device memory of ws_bytes, at least workspace(s, max_batch). */
typedef struct ConvCudnn {
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

typedef struct ConvKernels {
    /* the reference path: im2col + GEMM (im2col.c, layout.c) */
    void (*im2col)(const float *x, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW,
                   float *col);
    void (*col2im)(const float *col, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW,
                   float *dx, bool acc);
    void (*images_to_channels)(const float *x, int nb, int c, int p, float *t);
    void (*channels_to_images)(const float *t, int nb, int c, int p, float *y);
    /* Winograd F(2x2,3x3) (winograd.c, winograd_grad.c) */
    void (*winograd_input)(const float *x, int nb, int C, int H, int W, float *v);
    void (*winograd_filter)(const float *w, int K, int C, bool flip, float *u);
    void (*winograd_output)(const float *m, int nb, int K, int H, int W, float *y, bool acc);
    void (*winograd_output_grad)(const float *dy, int nb, int K, int H, int W, float *dm);
    void (*winograd_filter_grad)(const float *du, int K, int C, float *dw);
    /* Winograd F(4x4,3x3) (winograd4.c) */
    void (*winograd4_input)(const float *x, int nb, int C, int H, int W, float *v);
    void (*winograd4_filter)(const float *w, int K, int C, bool flip, float *u);
    void (*winograd4_output)(const float *m, int nb, int K, int H, int W, float *y, bool acc);
    /* direct 3x3 (conv_direct.c) */
    void (*direct_pad)(const float *x, int nb, int C, int H, int W, int stride, float *xq);
    void (*direct_filter)(const float *w, int K, int C, int mode, float *wp);
    void (*direct_conv)(const float *xq, const float *wp, int nb, int C, int K, int H, int W, int mode, float *y,
                        bool acc);
    void (*direct_filter_grad)(const float *xq, const float *dyq, int nb, int C, int K, int H, int W, int stride,
                               float *dw);
    void (*direct_unphase)(const float *dp, int nb, int C, int H, int W, float *dx, bool acc);
    /* fused Winograd F(2x2,3x3) (conv_winofused.c) */
    void (*winofused_pad)(const float *x, int nb, int C, int H, int W, float *xq);
    void (*winofused_filter)(const float *w, int K, int C, bool flip, float *wt);
    void (*winofused_conv)(const float *xq, const float *wt, int nb, int C, int K, int H, int W, float *yq, float *y,
                           bool acc);
    /* pointwise 1x1 (conv_pointwise.c) */
    void (*pointwise_filter)(const float *w, int K, int C, bool transpose, float *wp);
    void (*pointwise_conv)(const float *x, const float *wp, int n, int I, int O, int P, float *y, bool acc);
    void (*pointwise_filter_grad)(const float *x, const float *dy, int n, int C, int K, int P, float *dw);
    void (*pointwise_subsample)(const float *x, int nb, int C, int H, int W, float *xs);
    void (*pointwise_upsample)(const float *dxs, int nb, int C, int H, int W, float *dx, bool acc);
    /* depthwise (depthwise.c) */
    void (*depthwise_forward)(const float *x, const float *w, const float *bias, float *y, int n, int C, int H,
                              int W, int k, int stride, int pad, int OH, int OW);
    void (*depthwise_backward)(const float *x, const float *dy, const float *w, float *dw, float *dx, int n, int C,
                               int H, int W, int k, int stride, int pad, int OH, int OW, bool acc);
    /* cuDNN (core/cuda/conv_cudnn.cu): NULL where it cannot run (the CPU,
     * the emulated GPU, a CUDA build without cuDNN), and cudnn_absent
     * says why, in words for an error message. */
    const ConvCudnn *cudnn;
    const char *cudnn_absent;
} ConvKernels;

/* kernels_cpu.c */
extern const ConvKernels conv_kernels_cpu;

#ifdef __cplusplus
}
#endif

#endif
