// conv_direct.cu - the direct 3x3 convolution (padding 1, stride 1 or 2),
// twins of core/conv/conv_direct.c, on the same padded and packed buffers
// and tap tables (core/conv/direct_kernels.h).
//
// pad, filter and unphase: one thread per element of the buffer they
// write, the same values as the CPU's. conv: one thread per output,
// running the CPU lane's chain exactly: acc = fmaf(w, x, acc) over (c,
// tap) from 0, padding zeros included, then stored or added; so the
// outputs are the CPU's bits. filter_grad: one block per (k, c, tap) summing its products
// over the chunk's positions in double with the fixed block tree (no
// atomics, deterministic), then added to dw; equal to the CPU up to
// summation order.
#include "block_reduce.h"
#include "kernels_cuda.h"
#include "../conv/direct_kernels.h"
#include "launch.h"

namespace {

struct DirectGeom {
    unsigned nb, g, C, H, W, Wp; // the output's plane H x W; g: images per group of interleaved rows
    unsigned rs, gs, cs;         // floats per padded row of a group, per group, per channel (output's grid)
    unsigned xcs;                // floats per channel of the input: cs, or 4*cs for a stride-2 input's phases
    unsigned L;                  // positions up to the last output
    unsigned n, off[9];          // the tap table: tap i reads the input at off[i] from the output's window
};

DirectGeom direct_geom(int nb, int C, int H, int W, int mode)
{
    DirectGeom g;
    g.nb = (unsigned)nb, g.C = (unsigned)C, g.H = (unsigned)H, g.W = (unsigned)W, g.Wp = (unsigned)W + 2;
    g.g = (unsigned)direct_group(nb, W);
    g.rs = g.g * g.Wp;
    g.gs = (g.H + 2) * g.rs;
    g.cs = (unsigned)direct_channel_floats(nb, H, W);
    g.xcs = (unsigned)direct_input_planes(mode) * g.cs;
    g.L = (g.nb / g.g - 1) * g.gs + (g.H * g.g - 1) * g.Wp + g.W;
    DirectTaps d = direct_taps(mode);
    g.n = (unsigned)d.n;
    for (int t = 0; t < 9; t++)
        g.off[t] = t < d.n ? (unsigned)direct_tap_offset(&d, t, g.cs, g.rs) : 0u;
    return g;
}

// Element e of a padded input of C channels with `phases` planes each (1,
// or 4 for stride 2), on the grid of g (the output's): x's value there, or 0.
__global__ void pad_kernel(const float *__restrict__ x, DirectGeom g, unsigned H, unsigned W, unsigned stride,
                           size_t total, float *__restrict__ xq)
{
    DDL_GRID_STRIDE(e, total)
    {
        float v = 0.0f;
        if (e < (size_t)g.C * g.xcs) {
            unsigned c = (unsigned)e / g.xcs, p = (unsigned)e % g.xcs / g.cs, r = (unsigned)e % g.cs;
            unsigned G = r / g.gs, q = r % g.gs;
            unsigned h = q / g.rs, i = G * g.g + q % g.rs / g.Wp, w = q % g.Wp;
            if (h >= 1 && h <= g.H && w >= 1 && w <= g.W) {
                unsigned sh = (h - 1) * stride + (p >> 1), sw = (w - 1) * stride + (p & 1);
                if (sh < H && sw < W) v = x[(((size_t)i * g.C + c) * H + sh) * W + sw];
            }
        }
        xq[e] = v;
    }
}

__global__ void filter_kernel(const float *__restrict__ w, unsigned K, unsigned C, bool tr, DirectTaps d,
                              size_t total, float *__restrict__ wp)
{
    unsigned outs = tr ? C : K, ins = tr ? K : C, n = (unsigned)d.n;
    DDL_GRID_STRIDE(e, total)
    {
        unsigned a = (unsigned)e % DIRECT_KB, t = (unsigned)e / DIRECT_KB % n;
        unsigned in = (unsigned)(e / (DIRECT_KB * n) % ins);
        unsigned out = (unsigned)(e / (DIRECT_KB * n * (size_t)ins)) * DIRECT_KB + a;
        float v = 0.0f;
        if (out < outs) v = tr ? w[((size_t)in * C + out) * 9 + d.wt[t]] : w[((size_t)out * C + in) * 9 + d.wt[t]];
        wp[e] = v;
    }
}

// Thread e = output (image i, channel k, row oh, column ow) of y[nb][K][H][W].
__global__ void conv_kernel(const float *__restrict__ xq, const float *__restrict__ wp, DirectGeom g, unsigned K,
                            size_t total, bool acc, float *__restrict__ y)
{
    DDL_GRID_STRIDE(e, total)
    {
        unsigned ow = (unsigned)e % g.W, t = (unsigned)e / g.W, oh = t % g.H, ik = t / g.H, k = ik % K, i = ik / K;
        unsigned j = i / g.g * g.gs + (oh * g.g + i % g.g) * g.Wp + ow;
        const float *wk = wp + (size_t)(k / DIRECT_KB) * g.C * g.n * DIRECT_KB + k % DIRECT_KB;
        float s = 0.0f;
        for (unsigned c = 0; c < g.C; c++) {
            const float *xc = xq + (size_t)c * g.xcs + j;
            for (unsigned tap = 0; tap < g.n; tap++)
                s = fmaf(wk[((size_t)c * g.n + tap) * DIRECT_KB], xc[g.off[tap]], s);
        }
        y[e] = acc ? __fadd_rn(y[e], s) : s;
    }
}

// blockIdx.x = (k * C + c) * 9 + tap: dw[k][c][tap] += sum over positions
// of dy (on the padded grid, 0 where no output) times the tap's x.
__global__ void __launch_bounds__(DDL_BLOCK) filter_grad_kernel(const float *__restrict__ xq, const float *__restrict__ dyq, DirectGeom g,
                                   float *__restrict__ dw)
{
    __shared__ ddl_shared<double, DDL_BLOCK> sh;
    unsigned tap = blockIdx.x % 9, kc = blockIdx.x / 9, c = kc % g.C, k = kc / g.C;
    const float *dy = dyq + (size_t)k * g.cs + g.rs + 1, *x = xq + (size_t)c * g.xcs + g.off[tap];
    double s = 0.0;
    for (unsigned j = threadIdx.x; j < g.L; j += DDL_BLOCK) s += (double)__fmul_rn(dy[j], x[j]);
    s = ddl_block_sum(s, sh);
    if (threadIdx.x == 0) dw[blockIdx.x] += (float)s;
}

// Element e of dx[nb][C][H][W]: phase (h&1, w&1)'s gradient at (h>>1, w>>1).
__global__ void unphase_kernel(const float *__restrict__ dp, unsigned C, unsigned H, unsigned W, unsigned Ho,
                               unsigned Wo, size_t phase, size_t total, bool acc, float *__restrict__ dx)
{
    DDL_GRID_STRIDE(e, total)
    {
        unsigned w = (unsigned)(e % W), h = (unsigned)(e / W % H);
        size_t ic = e / ((size_t)H * W);
        float v = dp[(size_t)(2 * (h & 1) + (w & 1)) * phase + (ic * Ho + (h >> 1)) * Wo + (w >> 1)];
        dx[e] = acc ? __fadd_rn(dx[e], v) : v;
    }
}

} // namespace

extern "C" void direct_pad_cuda(const float *x, int nb, int C, int H, int W, int stride, float *xq)
{
    size_t total = direct_input_floats(nb, C, H, W, stride);
    ddl_check_u32(total, "direct_pad_cuda");
    DirectGeom g = direct_geom(nb, C, direct_out(H, stride), direct_out(W, stride),
                               stride == 2 ? DIRECT_FWD_S2 : DIRECT_FWD);
    DDL_LAUNCH(pad_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(x, g, (unsigned)H, (unsigned)W,
                                                                        (unsigned)stride, total, xq);
    DDL_CUDA_LAUNCHED();
}

extern "C" void direct_filter_cuda(const float *w, int K, int C, int mode, float *wp)
{
    if (mode == DIRECT_DX_S2_ALL) { // the 4 phases' filters, one after another (direct_kernels.h)
        for (int p = 0; p < 4; p++)
            direct_filter_cuda(w, K, C, DIRECT_DX_S2 + p, wp + direct_phase_filters(p, C, K));
        return;
    }
    bool tr = direct_transposed(mode);
    DirectTaps d = direct_taps(mode);
    size_t total = (tr ? direct_filter_floats(C, K) : direct_filter_floats(K, C)) / 9 * (size_t)d.n;
    if (total == 0) return;
    ddl_check_u32(total, "direct_filter_cuda");
    DDL_LAUNCH(filter_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(w, (unsigned)K, (unsigned)C, tr, d, total,
                                                                           wp);
    DDL_CUDA_LAUNCHED();
}

extern "C" void direct_conv_cuda(const float *xq, const float *wp, int nb, int C, int K, int H, int W, int mode,
                                 float *y, bool acc)
{
    size_t total = (size_t)nb * K * H * W;
    if (total == 0) return;
    if (mode == DIRECT_DX_S2_ALL) { // one launch per phase: each output has one thread either way
        for (int p = 0; p < 4; p++)
            direct_conv_cuda(xq, wp + direct_phase_filters(p, K, C), nb, C, K, H, W, DIRECT_DX_S2 + p,
                             y + (size_t)p * total, acc);
        return;
    }
    ddl_check_u32(total, "direct_conv_cuda");
    DirectGeom g = direct_geom(nb, C, H, W, mode);
    ddl_check_u32((size_t)C * g.xcs + DIRECT_SLACK, "direct_conv_cuda");
    DDL_LAUNCH(conv_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(xq, wp, g, (unsigned)K, total, acc, y);
    DDL_CUDA_LAUNCHED();
}

extern "C" void direct_filter_grad_cuda(const float *xq, const float *dyq, int nb, int C, int K, int H, int W,
                                        int stride, float *dw)
{
    size_t blocks = (size_t)K * C * 9;
    if (blocks == 0 || nb == 0) return;
    DirectGeom g = direct_geom(nb, C, H, W, stride == 2 ? DIRECT_FWD_S2 : DIRECT_FWD);
    ddl_check_u32((size_t)(C > K ? C : K) * g.xcs + DIRECT_SLACK, "direct_filter_grad_cuda");
    DDL_LAUNCH(filter_grad_kernel, (unsigned)blocks, DDL_BLOCK, 0, ddl_stream())(xq, dyq, g, dw);
    DDL_CUDA_LAUNCHED();
}

extern "C" void direct_unphase_cuda(const float *dp, int nb, int C, int H, int W, float *dx, bool acc)
{
    size_t total = (size_t)nb * C * H * W;
    if (total == 0) return;
    ddl_check_u32(4 * total, "direct_unphase_cuda");
    unsigned Ho = (unsigned)direct_out(H, 2), Wo = (unsigned)direct_out(W, 2);
    DDL_LAUNCH(unphase_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(dp, (unsigned)C, (unsigned)H, (unsigned)W,
                                                                            Ho, Wo, (size_t)nb * C * Ho * Wo, total,
                                                                            acc, dx);
    DDL_CUDA_LAUNCHED();
}

// The path's CUDA table (core/conv/direct_kernels.h).
extern "C" const DirectKernels CONV_CUDA_TABLE(direct_kernels) = {
    direct_pad_cuda, direct_filter_cuda, direct_conv_cuda, direct_filter_grad_cuda, direct_unphase_cuda,
};
