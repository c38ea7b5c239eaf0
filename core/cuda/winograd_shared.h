// winograd_shared.h - what F(2x2,3x3) and F(4x4,3x3) (winograd.cu,
// winograd4.cu) share but for the tile: the tile grid of a batch, the
// filter transform u = G g G^T of one 3x3 filter and the output transform
// of one tile. M is the output tile's side, A = M + 2 the transformed
// tile's; GT and AT are the variant's transforms of one row or column (3
// into A, A into M: g3, at4; g6, at6; core/conv/winograd.c and
// winograd4.c give the maths).
#ifndef DDL_CUDA_WINOGRAD_SHARED_H
#define DDL_CUDA_WINOGRAD_SHARED_H

#include <stddef.h>

// The tiles of nb images of C planes H x W: tw a row, T per image, ld = nb * T.
struct WinoTiles {
    unsigned nb, C, H, W, tw, T, ld;
};

template <int M> inline WinoTiles wino_tiles(int nb, int C, int H, int W)
{
    unsigned tw = (unsigned)(W + M - 1) / M, T = (unsigned)((H + M - 1) / M) * tw;
    return WinoTiles{ (unsigned)nb, (unsigned)C, (unsigned)H, (unsigned)W, tw, T, (unsigned)nb * T };
}

// Thread e = (output channel k, column q = image * T + tile) of m's rows:
// y's M x M tile (+)= A^T m A, cropped to the plane.
template <int M, void (*AT)(const float *, float *)>
__device__ inline void winograd_output_one(const float *__restrict__ m, const WinoTiles &g, size_t total, size_t e,
                                           bool acc, float *__restrict__ y)
{
    constexpr int A = M + 2;
    unsigned k = (unsigned)e / g.ld, q = (unsigned)e % g.ld, i = q / g.T, j = q % g.T;
    unsigned y0 = M * (j / g.tw), x0 = M * (j % g.tw);
    float *plane = y + ((size_t)i * g.C + k) * g.H * g.W;
    float a[A][M];
    for (int r = 0; r < A; r++) {
        float row[A];
        for (int s = 0; s < A; s++) row[s] = m[(size_t)(r * A + s) * total + e];
        AT(row, a[r]);
    }
    for (int s = 0; s < M; s++) {
        float col[A], o[M];
        for (int r = 0; r < A; r++) col[r] = a[r][s];
        AT(col, o);
        for (int r = 0; r < M; r++) {
            unsigned py = y0 + r, px = x0 + s;
            if (py >= g.H || px >= g.W) continue;
            float *p = plane + (size_t)py * g.W + px;
            *p = acc ? *p + o[r] : o[r];
        }
    }
}

// Thread e = (output channel k, input channel c) of w; flip writes the
// filter rotated 180 degrees at (c, k), for the input gradient.
template <int A, void (*GT)(const float *, float *)>
__device__ inline void winograd_filter_one(const float *__restrict__ w, unsigned K, unsigned C, bool flip,
                                           size_t total, size_t e, float *__restrict__ u)
{
    unsigned k = (unsigned)e / C, c = (unsigned)e % C;
    const float *f = w + e * 9;
    float g[3][3], t[3][A], col[3], out[A];
    for (int r = 0; r < 9; r++) g[r / 3][r % 3] = flip ? f[8 - r] : f[r];
    for (int r = 0; r < 3; r++) GT(g[r], t[r]);
    size_t at = flip ? (size_t)c * K + k : e;
    for (int q = 0; q < A; q++) {
        for (int r = 0; r < 3; r++) col[r] = t[r][q];
        GT(col, out);
        for (int r = 0; r < A; r++) u[(size_t)(r * A + q) * total + at] = out[r];
    }
}

// A variant's filter and output kernels, and its three extern "C"
// launches, <prefix>_input_cuda, _filter_cuda and _output_cuda
// (winograd_kernels.h), one thread per tile or per filter: the same for
// both variants but for the tile (M), the input kernel and the one-row
// transforms (GT: 3 into M + 2; AT: M + 2 into M). A macro, not a
// template, so that each launch names its own kernel (DDL_LAUNCH spells
// the name for the emulated GPU's messages).
#define WINOGRAD_TRANSFORMS(prefix, M, input, GT, AT)                                                          \
    /* Thread e = (output channel k, input channel c) of w. */                                                 \
    static __global__ void prefix##_filter_kernel(const float *__restrict__ w, unsigned K, unsigned C, bool flip, \
                                                  size_t total, float *__restrict__ u)                         \
    {                                                                                                           \
        DDL_GRID_STRIDE(e, total) { winograd_filter_one<M + 2, GT>(w, K, C, flip, total, e, u); }               \
    }                                                                                                           \
    /* Thread e = (output channel k, column q = image * T + tile) of m's rows. */                               \
    static __global__ void prefix##_output_kernel(const float *__restrict__ m, WinoTiles g, size_t total, bool acc, \
                                                  float *__restrict__ y)                                        \
    {                                                                                                           \
        DDL_GRID_STRIDE(e, total) { winograd_output_one<M, AT>(m, g, total, e, acc, y); }                       \
    }                                                                                                           \
    extern "C" void prefix##_input_cuda(const float *x, int nb, int C, int H, int W, float *v)                  \
    {                                                                                                           \
        WinoTiles g = wino_tiles<M>(nb, C, H, W);                                                               \
        size_t total = (size_t)C * g.ld;                                                                        \
        if (total == 0) return;                                                                                 \
        ddl_check_u32((M + 2) * (M + 2) * total, #prefix "_input_cuda");                                        \
        DDL_LAUNCH(input, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(x, g, total, v);                         \
        DDL_CUDA_LAUNCHED();                                                                                    \
    }                                                                                                           \
    extern "C" void prefix##_filter_cuda(const float *w, int K, int C, bool flip, float *u)                     \
    {                                                                                                           \
        size_t total = (size_t)K * C;                                                                           \
        if (total == 0) return;                                                                                 \
        ddl_check_u32((M + 2) * (M + 2) * total, #prefix "_filter_cuda");                                       \
        DDL_LAUNCH(prefix##_filter_kernel, ddl_grid(total), DDL_BLOCK, 0,                                       \
                   ddl_stream())(w, (unsigned)K, (unsigned)C, flip, total, u);                                  \
        DDL_CUDA_LAUNCHED();                                                                                    \
    }                                                                                                           \
    extern "C" void prefix##_output_cuda(const float *m, int nb, int K, int H, int W, float *y, bool acc)       \
    {                                                                                                           \
        WinoTiles g = wino_tiles<M>(nb, K, H, W);                                                               \
        size_t total = (size_t)K * g.ld;                                                                        \
        if (total == 0) return;                                                                                 \
        ddl_check_u32((M + 2) * (M + 2) * total, #prefix "_output_cuda");                                       \
        DDL_LAUNCH(prefix##_output_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(m, g, total, acc, y);   \
        DDL_CUDA_LAUNCHED();                                                                                    \
    }

#endif
