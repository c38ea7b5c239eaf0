// depthwise.cu - direct depthwise convolution (groups = in = out channels,
// one k x k filter per channel), twins of core/conv/path_depthwise.c.
//
// Forward and the input gradient gather: one thread per output (forward)
// or input (backward) element, walking the k x k taps in the CPU's
// (ki, kj) order with separately rounded products and sums (__fmul_rn,
// __fadd_rn; the CPU's C11 build does not contract), so both give the
// CPU's floats; taps that fall in the padding add exactly zero there and
// are skipped here. The weight gradient is one block per (channel, tap)
// summing n*OH*OW products in double with the fixed block tree: no
// atomics, deterministic, equal to the CPU up to summation order.
#include "block_reduce.h"
#include "kernels_cuda.h"
#include "../conv/depthwise_kernels.h"
#include "launch.h"

namespace {

struct DwGeom {
    int n, C, H, W, k, stride, pad, OH, OW;
};

__global__ void dw_forward_kernel(const float *__restrict__ x, const float *__restrict__ w,
                                  const float *__restrict__ bias, float *__restrict__ y, DwGeom g, size_t total)
{
    DDL_GRID_STRIDE(e, total)
    {
        unsigned ow = (unsigned)e % (unsigned)g.OW, t = (unsigned)e / (unsigned)g.OW;
        unsigned oh = t % (unsigned)g.OH, plane = t / (unsigned)g.OH; // plane = image * C + channel
        int c = (int)(plane % (unsigned)g.C);
        const float *xp = x + (size_t)plane * g.H * g.W, *wc = w + (size_t)c * g.k * g.k;
        float s = bias ? bias[c] : 0.0f;
        for (int ki = 0; ki < g.k; ki++) {
            int ih = (int)oh * g.stride - g.pad + ki;
            if (ih < 0 || ih >= g.H) continue;
            for (int kj = 0; kj < g.k; kj++) {
                int iw = (int)ow * g.stride - g.pad + kj;
                if (iw < 0 || iw >= g.W) continue;
                s = __fadd_rn(s, __fmul_rn(wc[ki * g.k + kj], xp[(size_t)ih * g.W + iw]));
            }
        }
        y[e] = s;
    }
}

// dx element (image, c, ih, iw): every output that read it through tap
// (ki, kj) has oh*stride = ih + pad - ki (and the same for columns).
__global__ void dw_input_grad_kernel(const float *__restrict__ dy, const float *__restrict__ w, float *dx, DwGeom g,
                                     size_t total, bool acc)
{
    DDL_GRID_STRIDE(e, total)
    {
        unsigned iw = (unsigned)e % (unsigned)g.W, t = (unsigned)e / (unsigned)g.W;
        unsigned ih = t % (unsigned)g.H, plane = t / (unsigned)g.H;
        int c = (int)(plane % (unsigned)g.C);
        const float *dyp = dy + (size_t)plane * g.OH * g.OW, *wc = w + (size_t)c * g.k * g.k;
        float s = 0.0f;
        for (int ki = 0; ki < g.k; ki++) {
            int a = (int)ih + g.pad - ki;
            if (a < 0 || a % g.stride) continue;
            int oh = a / g.stride;
            if (oh >= g.OH) continue;
            for (int kj = 0; kj < g.k; kj++) {
                int b = (int)iw + g.pad - kj;
                if (b < 0 || b % g.stride) continue;
                int ow = b / g.stride;
                if (ow >= g.OW) continue;
                s = __fadd_rn(s, __fmul_rn(wc[ki * g.k + kj], dyp[(size_t)oh * g.OW + ow]));
            }
        }
        dx[e] = acc ? __fadd_rn(dx[e], s) : s;
    }
}

// blockIdx.x = c * k*k + tap: sum over images and outputs of dy * x at
// that tap; dw accumulates as on the CPU.
__global__ void __launch_bounds__(DDL_BLOCK) dw_weight_grad_kernel(const float *__restrict__ x, const float *__restrict__ dy, float *dw, DwGeom g)
{
    __shared__ ddl_shared<double, DDL_BLOCK> sh;
    int kk = g.k * g.k, c = (int)blockIdx.x / kk, tap = (int)blockIdx.x % kk, ki = tap / g.k, kj = tap % g.k;
    unsigned per = (unsigned)g.OH * (unsigned)g.OW, m = (unsigned)g.n * per;
    double s = 0.0;
    for (unsigned t = threadIdx.x; t < m; t += DDL_BLOCK) {
        unsigned i = t / per, o = t % per;
        int oh = (int)(o / (unsigned)g.OW), ow = (int)(o % (unsigned)g.OW);
        int ih = oh * g.stride - g.pad + ki, iw = ow * g.stride - g.pad + kj;
        if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) continue;
        size_t plane = (size_t)i * g.C + c;
        s += (double)__fmul_rn(dy[plane * per + o], x[(plane * g.H + ih) * g.W + iw]);
    }
    s = ddl_block_sum(s, sh);
    if (threadIdx.x == 0) dw[blockIdx.x] += (float)s;
}

} // namespace

extern "C" void depthwise_forward_cuda(const float *x, const float *w, const float *bias, float *y, int n, int C,
                                       int H, int W, int k, int stride, int pad, int OH, int OW)
{
    size_t total = (size_t)n * C * OH * OW;
    if (total == 0) return;
    ddl_check_u32(total, "depthwise_forward_cuda");
    DwGeom g = { n, C, H, W, k, stride, pad, OH, OW };
    DDL_LAUNCH(dw_forward_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(x, w, bias, y, g, total);
    DDL_CUDA_LAUNCHED();
}

extern "C" void depthwise_backward_cuda(const float *x, const float *dy, const float *w, float *dw, float *dx, int n,
                                        int C, int H, int W, int k, int stride, int pad, int OH, int OW, bool acc)
{
    if ((size_t)n * C * H * W == 0) return;
    ddl_check_u32((size_t)n * C * H * W, "depthwise_backward_cuda");
    ddl_check_u32((size_t)n * C * OH * OW, "depthwise_backward_cuda");
    DwGeom g = { n, C, H, W, k, stride, pad, OH, OW };
    DDL_LAUNCH(dw_weight_grad_kernel, (unsigned)(C * k * k), DDL_BLOCK, 0, ddl_stream())(x, dy, dw, g);
    DDL_CUDA_LAUNCHED();
    if (!dx) return;
    size_t total = (size_t)n * C * H * W;
    DDL_LAUNCH(dw_input_grad_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(dy, w, dx, g, total, acc);
    DDL_CUDA_LAUNCHED();
}

// The path's CUDA table (core/conv/depthwise_kernels.h).
extern "C" const DepthwiseKernels CONV_CUDA_TABLE(depthwise_kernels) = {
    depthwise_forward_cuda,
    depthwise_backward_cuda,
};
