// conv_winofused.cu - Winograd F(2x2,3x3) on the direct kernels' grid,
// twins of core/conv/conv_winofused.c on the same buffers
// (core/conv/winofused_kernels.h): the input's 4 phases from direct_pad_cuda
// with stride 2, the packed transformed filters.
//
// filter: one thread per packed value, the transform of
// winofused_filter_tile (the one text both sides compile: the same bits).
// conv: one thread per output tile (image, channel, tile row, column):
// for each of the 16 tile positions, the chain of FMAs over the input
// channels from 0 of V times that channel's B^T d B (the CPU lane's
// operations in the CPU's order), then A^T m A, the 4 pixels stored or
// added straight into y: so the outputs are the CPU's bits. yq, the CPU's
// room for output phases, is not used.
#include "cuda_check.h"
#include "kernels_cuda.h"
#include "../conv/direct_kernels.h"
#include "../conv/winofused_kernels.h"
#include "launch.h"

namespace {

struct FusedGeom {
    unsigned nb, C, K, Ho, Wo, g, Wp; // tiles Ho x Wo; g images per group of interleaved rows
    unsigned rs, gs, cs, xcs;         // floats per padded row of a group, per group, per phase plane, per channel
    unsigned nbp;                     // batch lanes (winofused_batch_lanes): images per tile column, else 0
    unsigned off[16];                 // window value (r, c) -> its offset from the tile's position
};

FusedGeom fused_geom(int nb, int C, int K, int H, int W)
{
    FusedGeom g;
    g.nb = (unsigned)nb, g.C = (unsigned)C, g.K = (unsigned)K, g.Ho = (unsigned)H / 2, g.Wo = (unsigned)W / 2;
    g.Wp = g.Wo + 2;
    g.nbp = winofused_batch_lanes(W) ? (unsigned)winofused_nbp(nb) : 0u;
    g.g = g.nbp ? 1u : (unsigned)direct_group(nb, W / 2);
    g.rs = g.nbp ? g.Wp * g.nbp : g.g * g.Wp;
    g.gs = (g.Ho + 2) * g.rs;
    g.cs = g.nbp ? g.gs : (unsigned)direct_channel_floats(nb, H / 2, W / 2);
    g.xcs = 4 * g.cs;
    for (int t = 0; t < 16; t++) { // a column is nbp floats with batch lanes
        int r = t / 4, c = t % 4;
        g.off[t] = (unsigned)((2 * winofused_odd(r) + winofused_odd(c)) * g.cs + winofused_shift(r) * g.rs +
                              winofused_shift(c) * (g.nbp ? g.nbp : 1u));
    }
    return g;
}

// Element e of the batch lanes' input [C][4][Ho+2][Wo+2][nbp]: x's value
// there, or 0.
__global__ void pad_batch_kernel(const float *__restrict__ x, FusedGeom g, size_t total, float *__restrict__ xq)
{
    DDL_GRID_STRIDE(e, total)
    {
        unsigned i = (unsigned)(e % g.nbp), n = (unsigned)(e / g.nbp % g.Wp), m = (unsigned)(e / g.rs % (g.Ho + 2));
        unsigned p = (unsigned)(e / g.cs % 4), c = (unsigned)(e / g.xcs);
        float v = 0.0f;
        if (i < g.nb && m >= 1 && m <= g.Ho && n >= 1 && n <= g.Wo) {
            unsigned h = 2 * (m - 1) + (p >> 1), w = 2 * (n - 1) + (p & 1);
            v = x[(((size_t)i * g.C + c) * 2 * g.Ho + h) * 2 * g.Wo + w];
        }
        xq[e] = v;
    }
}

__global__ void filter_kernel(const float *__restrict__ w, int K, int C, int flip, unsigned outs, unsigned ins,
                              size_t per_pos, float *__restrict__ wt)
{
    DDL_GRID_STRIDE(e, per_pos)
    {
        unsigned a = (unsigned)e % DIRECT_KB, in = (unsigned)(e / DIRECT_KB % ins);
        unsigned out = (unsigned)(e / ((size_t)DIRECT_KB * ins)) * DIRECT_KB + a;
        float g[9] = { 0 }, v[WINOFUSED_POS];
        if (out < outs) winofused_filter_of(w, C, (int)out, (int)in, flip, g);
        winofused_filter_tile(g, v);
        for (int p = 0; p < WINOFUSED_POS; p++) wt[p * per_pos + e] = v[p];
    }
}

// Thread e = tile (image i, channel k, tile row ty, column tx).
__global__ void conv_kernel(const float *__restrict__ xq, const float *__restrict__ wt, FusedGeom g, size_t total,
                            bool acc, float *__restrict__ y)
{
    DDL_GRID_STRIDE(e, total)
    {
        unsigned tx = (unsigned)e % g.Wo, t = (unsigned)e / g.Wo, ty = t % g.Ho, ik = t / g.Ho, k = ik % g.K,
                 i = ik / g.K;
        unsigned j = g.nbp ? (ty * g.Wp + tx) * g.nbp + i : i / g.g * g.gs + (ty * g.g + i % g.g) * g.Wp + tx;
        size_t per_pos = (size_t)((g.K + DIRECT_KB - 1) / DIRECT_KB) * g.C * DIRECT_KB;
        const float *wk = wt + (size_t)(k / DIRECT_KB) * g.C * DIRECT_KB + k % DIRECT_KB;
        float m[16];
        for (int p = 0; p < 16; p++) m[p] = 0.0f;
        for (unsigned c = 0; c < g.C; c++) {
            const float *x = xq + (size_t)c * g.xcs + j;
            float e4[4][4], u[16];
            for (int q = 0; q < 4; q++) {
                float d0 = x[g.off[q]], d1 = x[g.off[4 + q]], d2 = x[g.off[8 + q]], d3 = x[g.off[12 + q]];
                e4[0][q] = d0 - d2, e4[1][q] = d1 + d2, e4[2][q] = d2 - d1, e4[3][q] = d1 - d3;
            }
            for (int r = 0; r < 4; r++) {
                u[4 * r] = e4[r][0] - e4[r][2], u[4 * r + 1] = e4[r][1] + e4[r][2];
                u[4 * r + 2] = e4[r][2] - e4[r][1], u[4 * r + 3] = e4[r][1] - e4[r][3];
            }
            for (int p = 0; p < 16; p++) m[p] = fmaf(wk[p * per_pos + (size_t)c * DIRECT_KB], u[p], m[p]);
        }
        float f[2][4];
        for (int q = 0; q < 4; q++) {
            f[0][q] = (m[q] + m[4 + q]) + m[8 + q];
            f[1][q] = (m[4 + q] - m[8 + q]) - m[12 + q];
        }
        unsigned H = 2 * g.Ho, W = 2 * g.Wo;
        float *out = y + (((size_t)i * g.K + k) * H + 2 * ty) * W + 2 * tx;
        for (int r = 0; r < 2; r++) {
            float v0 = (f[r][0] + f[r][1]) + f[r][2], v1 = (f[r][1] - f[r][2]) - f[r][3];
            float *o = out + (size_t)r * W;
            o[0] = acc ? __fadd_rn(o[0], v0) : v0;
            o[1] = acc ? __fadd_rn(o[1], v1) : v1;
        }
    }
}

} // namespace

extern "C" void winofused_pad_cuda(const float *x, int nb, int C, int H, int W, float *xq)
{
    if (!winofused_batch_lanes(W)) {
        direct_pad_cuda(x, nb, C, H, W, 2, xq);
        return;
    }
    size_t total = winofused_input_floats(nb, C, H, W);
    if (total == 0) return;
    ddl_check_u32(total, "winofused_pad_cuda");
    FusedGeom g = fused_geom(nb, C, C, H, W);
    DDL_LAUNCH(pad_batch_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(x, g, total, xq);
    DDL_CUDA_LAUNCHED();
}

extern "C" void winofused_filter_cuda(const float *w, int K, int C, bool flip, float *wt)
{
    unsigned outs = (unsigned)(flip ? C : K), ins = (unsigned)(flip ? K : C);
    size_t per_pos = winofused_filter_floats((int)outs, (int)ins) / WINOFUSED_POS;
    if (per_pos == 0) return;
    ddl_check_u32(per_pos * WINOFUSED_POS, "winofused_filter_cuda");
    DDL_LAUNCH(filter_kernel, ddl_grid(per_pos), DDL_BLOCK, 0, ddl_stream())(w, K, C, flip ? 1 : 0, outs, ins,
                                                                             per_pos, wt);
    DDL_CUDA_LAUNCHED();
}

extern "C" void winofused_conv_cuda(const float *xq, const float *wt, int nb, int C, int K, int H, int W, float *yq,
                                    float *y, bool acc)
{
    (void)yq;
    size_t total = (size_t)nb * K * (H / 2) * (W / 2);
    if (total == 0) return;
    ddl_check_u32(total, "winofused_conv_cuda");
    FusedGeom g = fused_geom(nb, C, K, H, W);
    ddl_check_u32(winofused_input_floats(nb, C, H, W) + DIRECT_SLACK, "winofused_conv_cuda");
    DDL_LAUNCH(conv_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(xq, wt, g, total, acc, y);
    DDL_CUDA_LAUNCHED();
}

// The path's CUDA table (core/conv/winofused_kernels.h), with the direct
// kernels' weight gradient (conv_direct.cu).
extern "C" const WinofusedKernels CONV_CUDA_TABLE(winofused_kernels) = {
    winofused_pad_cuda, winofused_filter_cuda, winofused_conv_cuda, direct_pad_cuda, direct_filter_grad_cuda,
};
