/* winograd_grad.c - the weight gradient of Winograd F(2x2,3x3) convolution
 * (winograd.c has the forward maths and the layouts).
 *
 * Why: im2col's weight gradient is the GEMM dy [K][pixels] x col^T
 * [pixels][9C], 9 multiply-adds per input channel and output pixel. With
 * y = A^T M A per tile and M = sum over channels of U (.) V, the chain rule
 * gives dM = A dy A^T per tile (4x4 from the tile's 2x2 output gradient),
 * dU = the sum over tiles of dM (.) V, which is 16 GEMMs [K][tiles] x
 * [tiles][C] (4 multiply-adds per output pixel, and long inner dimensions
 * that BLAS runs near peak), and dw = G^T dU G (3x3 from 4x4). Output
 * pixels past an odd plane's edge get no gradient (their dy reads 0).
 *
 *   A = | 1  0 |   G^T = | 1  1/2  1/2  0 |
 *       | 1  1 |         | 0  1/2 -1/2  0 |
 *       | 1 -1 |         | 0  1/2  1/2  1 |
 *       | 0 -1 |
 *
 * Each loop gives a thread whole channels (output grad) or filters (filter
 * grad) and no sum is split, so results do not depend on the thread
 * count. */
#include "kernels.h"

#include <string.h>
#include "parallel.h"
#include "winograd_tiles.h"

enum { SEG = WINOGRAD_SEG };

/* Tiles [t0, t0 + n) of tile row ty of one plane of dy: dM = A dY A^T,
 * rows first (dY's rows through A), then columns, for all tiles in one
 * vectorizable loop (even and odd columns split first), then copied to
 * the 16 rows of dm. */
static void grad_segment(const float *plane, int H, int W, int ty, int t0, int n, float *dm, size_t stride)
{
    float e[2][SEG], o[2][SEG], out[16][SEG];
    for (int r = 0; r < 2; r++) {
        int y = 2 * ty + r;
        for (int t = 0; t < n; t++) {
            int x = 2 * (t0 + t);
            e[r][t] = y < H ? plane[(size_t)y * W + x] : 0.0f;
            o[r][t] = y < H && x + 1 < W ? plane[(size_t)y * W + x + 1] : 0.0f;
        }
    }
    for (int t = 0; t < n; t++) {
        float p[2][4];
        for (int r = 0; r < 2; r++) {
            p[r][0] = e[r][t];
            p[r][1] = e[r][t] + o[r][t];
            p[r][2] = e[r][t] - o[r][t];
            p[r][3] = -o[r][t];
        }
        for (int q = 0; q < 4; q++) {
            out[0 + q][t] = p[0][q];
            out[4 + q][t] = p[0][q] + p[1][q];
            out[8 + q][t] = p[0][q] - p[1][q];
            out[12 + q][t] = -p[1][q];
        }
    }
    for (int q = 0; q < 16; q++) memcpy(dm + (size_t)q * stride, out[q], sizeof(float) * n);
}

void winograd_output_grad_cpu(const float *dy, int nb, int K, int H, int W, float *dm)
{
    winograd_for_segments(dy, nb, K, H, W, dm, grad_segment);
}

/* One row (or column) of G^T u G: 4 values in, 3 out. */
static inline void gt4(const float u[4], float t[3])
{
    t[0] = u[0] + 0.5f * (u[1] + u[2]);
    t[1] = 0.5f * (u[1] - u[2]);
    t[2] = 0.5f * (u[1] + u[2]) + u[3];
}

void winograd_filter_grad_cpu(const float *du, int K, int C, float *dw)
{
    size_t stride = (size_t)K * C;
    PARALLEL_FOR(16 * stride)
    for (int k = 0; k < K; k++)
        for (int c = 0; c < C; c++) {
            size_t at = (size_t)k * C + c;
            float d[4][4], t[4][3], col[4], out[3];
            for (int q = 0; q < 16; q++) d[q / 4][q % 4] = du[(size_t)q * stride + at];
            for (int r = 0; r < 4; r++) gt4(d[r], t[r]);
            float *f = dw + at * 9;
            for (int j = 0; j < 3; j++) {
                for (int r = 0; r < 4; r++) col[r] = t[r][j];
                gt4(col, out);
                for (int i = 0; i < 3; i++) f[i * 3 + j] += out[i];
            }
        }
}
