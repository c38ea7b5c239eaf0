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
#include "kernels_cpu.h"
#include "winograd_kernels.h"

#include <string.h>
#include "../cpu/parallel.h"
#include "winograd_tiles.h"

enum { SEG = WINOGRAD_GROUP }; /* the most tiles in a block */

/* Row y of a dy plane from column 2*t0, n tiles wide, split into even
 * (e) and odd (o) columns, 0 past the plane (an odd plane's last tile
 * hangs over its edge by one column). */
static void split_grad_row(const float *plane, int H, int W, int y, int t0, int n, float *restrict e, float *restrict o)
{
    if (y >= H) {
        memset(e, 0, sizeof(float) * (size_t)n);
        memset(o, 0, sizeof(float) * (size_t)n);
        return;
    }
    const float *row = plane + (size_t)y * W + 2 * t0;
    int full = 2 * (t0 + n) > W ? n - 1 : n; /* tiles whose odd column is inside */
    for (int t = 0; t < full; t++) {
        e[t] = row[2 * t];
        o[t] = row[2 * t + 1];
    }
    if (full < n) e[full] = row[2 * full], o[full] = 0.0f;
}

/* A block of tiles of one plane of dy: dM = A dY A^T, rows first (dY's
 * rows through A), then columns, for a tile row's tiles in one
 * vectorizable loop (even and odd columns split first), into the group's
 * staging rows out[16][j0 + ...] (winograd_tiles.h). */
static void grad_block(const float *plane, int H, int W, const WinoBlock *b, float (*out)[WINOGRAD_GROUP], int j0)
{
    int n = b->n;
    for (int ty = b->ty0; ty < b->ty1; ty++) {
        float e[2][SEG], o[2][SEG];
        for (int r = 0; r < 2; r++) split_grad_row(plane, H, W, 2 * ty + r, b->t0, n, e[r], o[r]);
        int j = j0 + (ty - b->ty0) * n;
        for (int t = 0; t < n; t++) {
            float p[2][4];
            for (int r = 0; r < 2; r++) {
                p[r][0] = e[r][t];
                p[r][1] = e[r][t] + o[r][t];
                p[r][2] = e[r][t] - o[r][t];
                p[r][3] = -o[r][t];
            }
            for (int q = 0; q < 4; q++) {
                out[0 + q][j + t] = p[0][q];
                out[4 + q][j + t] = p[0][q] + p[1][q];
                out[8 + q][j + t] = p[0][q] - p[1][q];
                out[12 + q][j + t] = -p[1][q];
            }
        }
    }
}

void winograd_output_grad_cpu(const float *dy, int nb, int K, int H, int W, float *dm)
{
    winograd_tiles_in(&WINOGRAD_F2, dy, nb, K, H, W, dm, grad_block);
}

/* One row (or column) of G^T u G: 4 values in, 3 out. */
static inline void gt4(const float u[4], float t[3])
{
    t[0] = u[0] + 0.5f * (u[1] + u[2]);
    t[1] = 0.5f * (u[1] - u[2]);
    t[2] = 0.5f * (u[1] + u[2]) + u[3];
}

/* Filters [a0, a0 + n) (at = k*C + c): their 16 positions read as
 * contiguous runs, G^T du G for all of them in loops over the block, and
 * the 9 taps added to dw. */
static void filter_grad_block(const float *du, size_t a0, int n, size_t stride, float *dw)
{
    float d[16][WINOGRAD_FILTERS], t[4][3][WINOGRAD_FILTERS];
    for (int q = 0; q < 16; q++) memcpy(d[q], du + (size_t)q * stride + a0, sizeof(float) * (size_t)n);
    for (int r = 0; r < 4; r++)
        for (int b = 0; b < n; b++) {
            float row[4] = { d[4 * r][b], d[4 * r + 1][b], d[4 * r + 2][b], d[4 * r + 3][b] }, o[3];
            gt4(row, o);
            for (int j = 0; j < 3; j++) t[r][j][b] = o[j];
        }
    for (int j = 0; j < 3; j++)
        for (int b = 0; b < n; b++) {
            float col[4] = { t[0][j][b], t[1][j][b], t[2][j][b], t[3][j][b] }, o[3];
            gt4(col, o);
            float *f = dw + (a0 + (size_t)b) * 9;
            for (int i = 0; i < 3; i++) f[i * 3 + j] += o[i];
        }
}

void winograd_filter_grad_cpu(const float *du, int K, int C, float *dw)
{
    size_t total = (size_t)K * C, blocks = (total + WINOGRAD_FILTERS - 1) / WINOGRAD_FILTERS;
    PARALLEL_FOR(16 * total)
    for (size_t bl = 0; bl < blocks; bl++) {
        size_t a0 = bl * WINOGRAD_FILTERS;
        filter_grad_block(du, a0, total - a0 < WINOGRAD_FILTERS ? (int)(total - a0) : WINOGRAD_FILTERS, total, dw);
    }
}
