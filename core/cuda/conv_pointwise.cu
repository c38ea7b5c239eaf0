// conv_pointwise.cu - the pointwise (1x1, stride 1) convolution on NCHW,
// twins of core/conv/path_pointwise.c, on the same packed filters
// (core/conv/pointwise_kernels.h).
//
// filter: one thread per element of the packed buffer, the CPU's values.
// conv: one thread per output, running the CPU lane's chain exactly:
// s = fmaf(w, x, s) over the inputs in order from 0, then stored or added;
// so the outputs are the CPU's bits. filter_grad: one block per (k, c)
// summing its products over the images and positions in double with the
// fixed block tree (no atomics, deterministic), then added to dw; equal to
// the CPU up to summation order. The device rule of pick.c does not
// pick this path (cuBLAS runs 1x1 convolutions well); --conv pointwise
// does, and the tests compare it with the CPU.
#include "block_reduce.h"
#include "kernels_cuda.h"
#include "../conv/pointwise_kernels.h"
#include "launch.h"

namespace {

__global__ void filter_kernel(const float *__restrict__ w, unsigned K, unsigned C, bool transpose, size_t total,
                              float *__restrict__ wp)
{
    unsigned O = transpose ? C : K, I = transpose ? K : C;
    DDL_GRID_STRIDE(e, total)
    {
        unsigned a = (unsigned)e % POINTWISE_OB, i = (unsigned)(e / POINTWISE_OB % I);
        unsigned o = (unsigned)(e / ((size_t)POINTWISE_OB * I)) * POINTWISE_OB + a;
        float v = 0.0f;
        if (o < O) v = transpose ? w[(size_t)i * C + o] : w[(size_t)o * C + i];
        wp[e] = v;
    }
}

// Thread e = output (image n, channel o, position p) of y[n][O][P].
__global__ void conv_kernel(const float *__restrict__ x, const float *__restrict__ wp, unsigned I, unsigned O,
                            unsigned P, size_t total, bool acc, float *__restrict__ y)
{
    DDL_GRID_STRIDE(e, total)
    {
        unsigned p = (unsigned)(e % P), no = (unsigned)(e / P), o = no % O, n = no / O;
        const float *wo = wp + (size_t)(o / POINTWISE_OB) * I * POINTWISE_OB + o % POINTWISE_OB;
        const float *xn = x + (size_t)n * I * P + p;
        float s = 0.0f;
        for (unsigned c = 0; c < I; c++) s = fmaf(wo[(size_t)c * POINTWISE_OB], xn[(size_t)c * P], s);
        y[e] = acc ? __fadd_rn(y[e], s) : s;
    }
}

// blockIdx.x = k * C + c: dw[k][c] += sum over images and positions of dy[k] x[c].
__global__ void __launch_bounds__(DDL_BLOCK) filter_grad_kernel(const float *__restrict__ x, const float *__restrict__ dy, unsigned n, unsigned C,
                                   unsigned K, unsigned P, float *__restrict__ dw)
{
    __shared__ ddl_shared<double, DDL_BLOCK> sh;
    unsigned c = blockIdx.x % C, k = blockIdx.x / C;
    size_t total = (size_t)n * P;
    double s = 0.0;
    for (size_t j = threadIdx.x; j < total; j += DDL_BLOCK) {
        size_t i = j / P, p = j % P;
        s += (double)__fmul_rn(dy[(i * K + k) * P + p], x[(i * C + c) * P + p]);
    }
    s = ddl_block_sum(s, sh);
    if (threadIdx.x == 0) dw[blockIdx.x] += (float)s;
}

} // namespace

extern "C" void pointwise_filter_cuda(const float *w, int K, int C, bool transpose, float *wp)
{
    size_t total = transpose ? pointwise_filter_floats(C, K) : pointwise_filter_floats(K, C);
    if (total == 0) return;
    ddl_check_u32(total, "pointwise_filter_cuda");
    DDL_LAUNCH(filter_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(w, (unsigned)K, (unsigned)C, transpose,
                                                                           total, wp);
    DDL_CUDA_LAUNCHED();
}

extern "C" void pointwise_conv_cuda(const float *x, const float *wp, int n, int I, int O, int P, float *y, bool acc)
{
    size_t total = (size_t)n * O * P;
    if (total == 0) return;
    ddl_check_u32(total, "pointwise_conv_cuda");
    ddl_check_u32((size_t)n * I * P, "pointwise_conv_cuda");
    DDL_LAUNCH(conv_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(x, wp, (unsigned)I, (unsigned)O, (unsigned)P,
                                                                         total, acc, y);
    DDL_CUDA_LAUNCHED();
}

extern "C" void pointwise_filter_grad_cuda(const float *x, const float *dy, int n, int C, int K, int P, float *dw)
{
    size_t blocks = (size_t)K * C;
    if (blocks == 0 || n == 0 || P == 0) return;
    ddl_check_u32(blocks, "pointwise_filter_grad_cuda");
    DDL_LAUNCH(filter_grad_kernel, (unsigned)blocks, DDL_BLOCK, 0, ddl_stream())(x, dy, (unsigned)n, (unsigned)C,
                                                                                 (unsigned)K, (unsigned)P, dw);
    DDL_CUDA_LAUNCHED();
}

namespace {

// Element e of xs[nb*C][Ho][Wo]: x at the even row and column.
__global__ void subsample_kernel(const float *__restrict__ x, unsigned H, unsigned W, unsigned Ho, unsigned Wo,
                                 size_t total, float *__restrict__ xs)
{
    DDL_GRID_STRIDE(e, total)
    {
        unsigned w = (unsigned)(e % Wo), h = (unsigned)(e / Wo % Ho);
        size_t ic = e / ((size_t)Ho * Wo);
        xs[e] = x[(ic * H + 2 * h) * W + 2 * w];
    }
}

// Element e of dx[nb*C][H][W]: dxs there at even rows and columns, else 0
// (added with acc).
__global__ void upsample_kernel(const float *__restrict__ dxs, unsigned H, unsigned W, unsigned Ho, unsigned Wo,
                                size_t total, bool acc, float *__restrict__ dx)
{
    DDL_GRID_STRIDE(e, total)
    {
        unsigned w = (unsigned)(e % W), h = (unsigned)(e / W % H);
        size_t ic = e / ((size_t)H * W);
        float v = (h % 2 || w % 2) ? 0.0f : dxs[(ic * Ho + h / 2) * Wo + w / 2];
        dx[e] = acc ? __fadd_rn(dx[e], v) : v;
    }
}

} // namespace

extern "C" void pointwise_subsample_cuda(const float *x, int nb, int C, int H, int W, float *xs)
{
    unsigned Ho = (unsigned)(H + 1) / 2, Wo = (unsigned)(W + 1) / 2;
    size_t total = (size_t)nb * C * Ho * Wo;
    if (total == 0) return;
    ddl_check_u32((size_t)nb * C * H * W, "pointwise_subsample_cuda");
    DDL_LAUNCH(subsample_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(x, (unsigned)H, (unsigned)W, Ho, Wo,
                                                                              total, xs);
    DDL_CUDA_LAUNCHED();
}

extern "C" void pointwise_upsample_cuda(const float *dxs, int nb, int C, int H, int W, float *dx, bool acc)
{
    unsigned Ho = (unsigned)(H + 1) / 2, Wo = (unsigned)(W + 1) / 2;
    size_t total = (size_t)nb * C * H * W;
    if (total == 0) return;
    ddl_check_u32(total, "pointwise_upsample_cuda");
    DDL_LAUNCH(upsample_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(dxs, (unsigned)H, (unsigned)W, Ho, Wo,
                                                                             total, acc, dx);
    DDL_CUDA_LAUNCHED();
}

// The path's CUDA table (core/conv/pointwise_kernels.h).
extern "C" const PointwiseKernels CONV_CUDA_TABLE(pointwise_kernels) = {
    pointwise_filter_cuda, pointwise_conv_cuda, pointwise_filter_grad_cuda, pointwise_subsample_cuda,
    pointwise_upsample_cuda,
};
