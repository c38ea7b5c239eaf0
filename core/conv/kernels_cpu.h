/* kernels_cpu.h - the CPU's convolution kernels that several paths
 * share, plain C11: the functions behind conv_kernels_cpu (kernels.h),
 * each with a CUDA twin of the same arguments and a _cuda suffix in
 * core/cuda/kernels_cuda.h. A path's own kernels are declared in its
 * kernels header (winograd_kernels.h, ...), beside their CUDA twins.
 * Tensors are NCHW float32; `n` or `nb` is the number of images. Kernels
 * that produce an input gradient take `acc`: false overwrites, true adds
 * (a tensor read by two layers receives the sum of both gradients). */
#ifndef DDL_CONV_KERNELS_CPU_H
#define DDL_CONV_KERNELS_CPU_H

#include <stdbool.h>
#include <stddef.h>

/* Convolution lowering of nb images x[nb][C][H][W] into the column matrix
 * col[C*k*k][nb*OH*OW] (row (c,ki,kj), image i's pixels at columns
 * [i*OH*OW, (i+1)*OH*OW)), so one GEMM covers several images. */
void im2col_cpu(const float *x, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW, float *col);
/* The adjoint: dx[nb][C][H][W] (+)= scatter-add of col. */
void col2im_cpu(const float *col, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW, float *dx,
                bool acc);

/* The layout change around a GEMM over several images: x[nb][c][p]
 * (NCHW, p = H*W) <-> t[c][nb*p] (channel-major, image i's pixels at
 * columns [i*p, (i+1)*p)), which is what the GEMM reads and writes. */
void images_to_channels_cpu(const float *x, int nb, int c, int p, float *t);
void channels_to_images_cpu(const float *t, int nb, int c, int p, float *y);

#endif
