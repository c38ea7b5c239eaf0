// conv_direct.cu - the direct 3x3 convolution (stride 1, padding 1),
// twins of core/cpu/conv_direct.c, on the same padded and packed buffers
// (core/cpu/conv_direct_layout.h).
//
// pad and filter: one thread per element of the buffer they write, the
// same values as the CPU's. conv: one thread per output, running the CPU
// lane's chain exactly: acc = fmaf(w, x, acc) over (c, ki, kj) from 0,
// padding zeros included, then stored or added; so the outputs are the
// CPU's bits. filter_grad: one block per (k, c, tap) summing its products
// over the chunk's positions in double with the fixed block tree (no
// atomics, deterministic), then added to dw; equal to the CPU up to
// summation order.
#include "../cpu/conv_direct_layout.h"
#include "block_reduce.h"
#include "kernels_cuda.h"
#include "launch.h"

namespace {

struct DirectGeom {
    unsigned nb, g, C, H, W, Wp; // g: images per group of interleaved rows
    unsigned rs, gs, cs;         // floats per padded row of a group, per group, per channel
    unsigned L;                  // positions up to the last output
};

DirectGeom direct_geom(int nb, int C, int H, int W)
{
    DirectGeom g;
    g.nb = (unsigned)nb, g.C = (unsigned)C, g.H = (unsigned)H, g.W = (unsigned)W, g.Wp = (unsigned)W + 2;
    g.g = (unsigned)direct_group(nb, W);
    g.rs = g.g * g.Wp;
    g.gs = (g.H + 2) * g.rs;
    g.cs = (unsigned)direct_channel_floats(nb, H, W);
    g.L = (g.nb / g.g - 1) * g.gs + (g.H * g.g - 1) * g.Wp + g.W;
    return g;
}

// Rows interleaved in groups of images ([C][nb/g][H+2][g][W+2]): tap (ki, kj) is ki padded rows of a group down.
__device__ inline unsigned tap_off(unsigned t, unsigned rs) { return (t / 3) * rs + t % 3; }

__global__ void pad_kernel(const float *__restrict__ x, DirectGeom g, size_t total, float *__restrict__ xq)
{
    DDL_GRID_STRIDE(e, total)
    {
        float v = 0.0f;
        if (e < (size_t)g.C * g.cs) {
            unsigned c = (unsigned)e / g.cs, r = (unsigned)e % g.cs, G = r / g.gs, q = r % g.gs;
            unsigned h = q / g.rs, i = G * g.g + q % g.rs / g.Wp, w = q % g.Wp;
            if (h >= 1 && h <= g.H && w >= 1 && w <= g.W)
                v = x[(((size_t)i * g.C + c) * g.H + (h - 1)) * g.W + (w - 1)];
        }
        xq[e] = v;
    }
}

__global__ void filter_kernel(const float *__restrict__ w, unsigned K, unsigned C, bool flip, size_t total,
                              float *__restrict__ wp)
{
    unsigned outs = flip ? C : K, ins = flip ? K : C;
    DDL_GRID_STRIDE(e, total)
    {
        unsigned a = (unsigned)e % DIRECT_KB, t = (unsigned)e / DIRECT_KB % 9;
        unsigned in = (unsigned)(e / (DIRECT_KB * 9) % ins);
        unsigned out = (unsigned)(e / (DIRECT_KB * 9 * (size_t)ins)) * DIRECT_KB + a;
        float v = 0.0f;
        if (out < outs) v = flip ? w[((size_t)in * C + out) * 9 + (8 - t)] : w[((size_t)out * C + in) * 9 + t];
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
        const float *wk = wp + (size_t)(k / DIRECT_KB) * g.C * 9 * DIRECT_KB + k % DIRECT_KB;
        float s = 0.0f;
        for (unsigned c = 0; c < g.C; c++) {
            const float *xc = xq + (size_t)c * g.cs + j;
            for (unsigned tap = 0; tap < 9; tap++)
                s = fmaf(wk[((size_t)c * 9 + tap) * DIRECT_KB], xc[tap_off(tap, g.rs)], s);
        }
        y[e] = acc ? __fadd_rn(y[e], s) : s;
    }
}

// blockIdx.x = (k * C + c) * 9 + tap: dw[k][c][tap] += sum over positions
// of dy (on the padded grid, 0 where no output) times the tap's x.
__global__ void filter_grad_kernel(const float *__restrict__ xq, const float *__restrict__ dyq, DirectGeom g,
                                   float *__restrict__ dw)
{
    __shared__ double sh[DDL_BLOCK];
    unsigned tap = blockIdx.x % 9, kc = blockIdx.x / 9, c = kc % g.C, k = kc / g.C;
    const float *dy = dyq + (size_t)k * g.cs + g.rs + 1, *x = xq + (size_t)c * g.cs + tap_off(tap, g.rs);
    double s = 0.0;
    for (unsigned j = threadIdx.x; j < g.L; j += DDL_BLOCK) s += (double)__fmul_rn(dy[j], x[j]);
    s = ddl_block_sum(s, sh);
    if (threadIdx.x == 0) dw[blockIdx.x] += (float)s;
}

} // namespace

extern "C" void direct_pad_cuda(const float *x, int nb, int C, int H, int W, float *xq)
{
    size_t total = direct_padded_floats(nb, C, H, W);
    ddl_check_u32(total, "direct_pad_cuda");
    DDL_LAUNCH(pad_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(x, direct_geom(nb, C, H, W), total, xq);
    DDL_CUDA_LAUNCHED();
}

extern "C" void direct_filter_cuda(const float *w, int K, int C, bool flip, float *wp)
{
    size_t total = flip ? direct_filter_floats(C, K) : direct_filter_floats(K, C);
    if (total == 0) return;
    ddl_check_u32(total, "direct_filter_cuda");
    DDL_LAUNCH(filter_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(w, (unsigned)K, (unsigned)C, flip, total,
                                                                           wp);
    DDL_CUDA_LAUNCHED();
}

extern "C" void direct_conv_cuda(const float *xq, const float *wp, int nb, int C, int K, int H, int W, float *y,
                                 bool acc)
{
    size_t total = (size_t)nb * K * H * W;
    if (total == 0) return;
    ddl_check_u32(total, "direct_conv_cuda");
    ddl_check_u32(direct_padded_floats(nb, C, H, W), "direct_conv_cuda");
    DirectGeom g = direct_geom(nb, C, H, W);
    DDL_LAUNCH(conv_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(xq, wp, g, (unsigned)K, total, acc, y);
    DDL_CUDA_LAUNCHED();
}

extern "C" void direct_filter_grad_cuda(const float *xq, const float *dyq, int nb, int C, int K, int H, int W,
                                        float *dw)
{
    size_t blocks = (size_t)K * C * 9;
    if (blocks == 0 || nb == 0) return;
    ddl_check_u32(direct_padded_floats(nb, C > K ? C : K, H, W), "direct_filter_grad_cuda");
    DDL_LAUNCH(filter_grad_kernel, (unsigned)blocks, DDL_BLOCK, 0, ddl_stream())(xq, dyq, direct_geom(nb, C, H, W), dw);
    DDL_CUDA_LAUNCHED();
}
