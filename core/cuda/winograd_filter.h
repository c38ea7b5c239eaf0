// winograd_filter.h - the filter transform u = G g G^T of one 3x3 filter,
// the same in F(2x2,3x3) and F(4x4,3x3) (winograd.cu, winograd4.cu) but
// for the tile: A = m + 2 positions a side, GT the variant's transform of
// one row or column of 3 into A (g3, g6; core/conv/winograd.c and
// winograd4.c give the maths). Thread e = (output channel k, input channel
// c) of w; flip writes the filter rotated 180 degrees at (c, k), for the
// input gradient.
#ifndef DDL_CUDA_WINOGRAD_FILTER_H
#define DDL_CUDA_WINOGRAD_FILTER_H

#include <stddef.h>

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

#endif
