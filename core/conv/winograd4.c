/* winograd4.c - the transforms of Winograd's F(4x4,3x3) convolution
 * (Lavin and Gray, 2016, with interpolation points 0, +-1, +-2), for 3x3
 * filters, stride 1, padding 1: the forward pass and the input gradient
 * (core/conv/path_winograd.c; the weight gradient stays F(2x2,3x3),
 * winograd_grad.c).
 *
 * Why a second size: F(2x2,3x3) (winograd.c) spends 16 products on 4
 * outputs, 4 per output against 9 for im2col; F(4x4,3x3) spends 36 on 16,
 * 2.25 per output, and its transformed tiles are 2.25x the input where
 * F(2x2)'s are 4x, so it also moves less memory. It pays on the deep,
 * wide layers of CIFAR models (256-512 channels on 8x8 and 4x4 planes),
 * where F(2x2) does not beat im2col (bench/RESULTS.md). The price is
 * rounding: the transforms multiply by up to 5 and 8 and divide by 6 and
 * 24, so results differ from im2col's by more than F(2x2)'s do
 * (tests/test_conv_paths.c measures and bounds it).
 *
 *   B^T = | 4  0 -5  0  1  0 |   G = |  1/4     0     0  |
 *         | 0 -4 -4  1  1  0 |       | -1/6  -1/6  -1/6  |
 *         | 0  4 -4 -1  1  0 |       | -1/6   1/6  -1/6  |
 *         | 0 -2 -1  2  1  0 |       |  1/24  1/12  1/6  |
 *         | 0  2 -1 -2  1  0 |       |  1/24 -1/12  1/6  |
 *         | 0  4  0 -5  0  1 |       |  0     0     1    |
 *
 *   A^T = | 1  1  1  1  1  0 |
 *         | 0  1 -1  2 -2  0 |
 *         | 0  1  1  4  4  0 |
 *         | 0  1 -1  8 -8  1 |
 *
 * Every product in these transforms is by a power of two (exact) or is a
 * sum's last step, never a multiply-add of an inexact product: a GPU
 * compiler fuses a*b + c into one rounding, which would differ from the
 * CPU's two wherever a*b is inexact. Written so (5x = 4x + x, 1/24 applied
 * after the sum), the CUDA twin (core/cuda/winograd4.cu) gives the same
 * bits with or without fusing. The helpers below are that shared maths;
 * the twin repeats them line for line.
 *
 * Layouts (kernels.h): an H x W plane has th = ceil(H/4) rows of tw =
 * ceil(W/4) tiles of 4x4 outputs, whose 6x6 input tiles start at row 4*ty
 * - 1, column 4*tx - 1 (zeros outside the plane); the 36 positions of the
 * Winograd domain are `stride` floats apart, tiles of nb images side by
 * side as in winograd.c. Each loop gives a thread whole channels and no
 * sum is split, so results do not depend on the thread count. */
#include "kernels_cpu.h"
#include "winograd_kernels.h"

#include <string.h>
#include "winograd_tiles.h"

/* Tiles per block and tile rows per band (winograd_tiles.h): the block's
 * split rows (6, and 4 per further tile row, 4 phases each) stay in L1. */
enum { SEG4 = 64, BAND4 = 8 };

/* B^T d for one row or column of 6. */
static inline void bt6(const float d[6], float v[6])
{
    v[0] = 4.0f * (d[0] - d[2]) + (d[4] - d[2]);
    v[1] = (d[3] + d[4]) - 4.0f * (d[1] + d[2]);
    v[2] = 4.0f * (d[1] - d[2]) + (d[4] - d[3]);
    v[3] = 2.0f * (d[3] - d[1]) + (d[4] - d[2]);
    v[4] = 2.0f * (d[1] - d[3]) + (d[4] - d[2]);
    v[5] = 4.0f * (d[1] - d[3]) + (d[5] - d[3]);
}

/* G g for one row or column of 3. */
static inline void g6(const float g[3], float t[6])
{
    t[0] = 0.25f * g[0];
    t[1] = -(g[0] + g[1] + g[2]) * (1.0f / 6.0f);
    t[2] = -(g[0] - g[1] + g[2]) * (1.0f / 6.0f);
    t[3] = (g[0] + 2.0f * g[1] + 4.0f * g[2]) * (1.0f / 24.0f);
    t[4] = (g[0] - 2.0f * g[1] + 4.0f * g[2]) * (1.0f / 24.0f);
    t[5] = g[2];
}

/* A^T m for one row or column of 6. */
static inline void at6(const float m[6], float o[4])
{
    o[0] = m[0] + m[1] + m[2] + m[3] + m[4];
    o[1] = (m[1] - m[2]) + 2.0f * (m[3] - m[4]);
    o[2] = (m[1] + m[2]) + 4.0f * (m[3] + m[4]);
    o[3] = (m[1] - m[2]) + 8.0f * (m[3] - m[4]) + m[5];
}

/* Row y of the plane (zeros outside) from column 4*t0 - 1, split into 4
 * phases: p[j][k] = column 4*(t0 + k) - 1 + j, k <= n. */
static void split_row4(const float *plane, int H, int W, int y, int t0, int n, float p[4][SEG4 + 1])
{
    float line[4 * SEG4 + 4];
    winograd_padded_row(plane, H, W, y, 4 * t0 - 1, 4 * n + 4, line);
    for (int k = 0; k <= n; k++)
        for (int j = 0; j < 4; j++) p[j][k] = line[4 * k + j];
}

/* A block of tiles (winograd_tiles.h): V = B^T d B (rows, then
 * columns) into the group's staging rows out[36][j0 + ...]. */
static void input_block4(const float *plane, int H, int W, const WinoBlock *b, float (*out)[WINOGRAD_GROUP], int j0)
{
    float p[4 * BAND4 + 2][4][SEG4 + 1];
    int n = b->n, rows = 4 * (b->ty1 - b->ty0) + 2;
    for (int r = 0; r < rows; r++) split_row4(plane, H, W, 4 * b->ty0 - 1 + r, b->t0, n, p[r]);
    for (int ty = b->ty0; ty < b->ty1; ty++) {
        float(*pr)[4][SEG4 + 1] = p + 4 * (ty - b->ty0);
        int j = j0 + (ty - b->ty0) * n;
        for (int t = 0; t < n; t++) {
            float w[6][6];
            for (int r = 0; r < 6; r++) {
                float d[6] = { pr[r][0][t], pr[r][1][t], pr[r][2][t], pr[r][3][t], pr[r][0][t + 1], pr[r][1][t + 1] };
                bt6(d, w[r]);
            }
            for (int c = 0; c < 6; c++) {
                float col[6] = { w[0][c], w[1][c], w[2][c], w[3][c], w[4][c], w[5][c] }, o[6];
                bt6(col, o);
                for (int r = 0; r < 6; r++) out[r * 6 + c][j + t] = o[r];
            }
        }
    }
}

static const WinoKind F4 = { 4, 36, SEG4, BAND4 };

void winograd4_input_cpu(const float *x, int nb, int C, int H, int W, float *v)
{
    winograd_tiles_in(&F4, x, nb, C, H, W, v, input_block4);
}

/* G g G^T of a block of filters (winograd_tiles.c gathers and stores):
 * rows first, then columns, each a loop over the block. */
static void filter_transform4(const float (*g)[WINOGRAD_FILTERS], int n, float (*out)[WINOGRAD_FILTERS])
{
    float t[3][6][WINOGRAD_FILTERS];
    for (int r = 0; r < 3; r++)
        for (int b = 0; b < n; b++) {
            float row[3] = { g[3 * r][b], g[3 * r + 1][b], g[3 * r + 2][b] }, o[6];
            g6(row, o);
            for (int q = 0; q < 6; q++) t[r][q][b] = o[q];
        }
    for (int q = 0; q < 6; q++)
        for (int b = 0; b < n; b++) {
            float col[3] = { t[0][q][b], t[1][q][b], t[2][q][b] }, o[6];
            g6(col, o);
            for (int r = 0; r < 6; r++) out[r * 6 + q][b] = o[r];
        }
}

void winograd4_filter_cpu(const float *w, int K, int C, bool flip, float *u)
{
    winograd_filter_blocks(36, w, K, C, flip, u, filter_transform4);
}

/* A block of tiles of one output plane, staged at in[36][j0 + ...]:
 * A^T m A (rows, then columns) over its tiles, then each 4x4 block put
 * in place, cropped at the plane's edges. */
static void output_block4(const float (*in)[WINOGRAD_GROUP], int j0, int H, int W, const WinoBlock *b, float *plane,
                          bool acc)
{
    int n = b->n, cols = W - 4 * b->t0 < 4 * n ? W - 4 * b->t0 : 4 * n, tiles = (b->ty1 - b->ty0) * n;
    float o[16][SEG4];
    for (int t = 0; t < tiles; t++) {
        float a[6][4];
        for (int r = 0; r < 6; r++) {
            const int q = 6 * r, u = j0 + t;
            float row[6] = { in[q][u], in[q + 1][u], in[q + 2][u], in[q + 3][u], in[q + 4][u], in[q + 5][u] };
            at6(row, a[r]);
        }
        for (int c = 0; c < 4; c++) {
            float col[6] = { a[0][c], a[1][c], a[2][c], a[3][c], a[4][c], a[5][c] }, y[4];
            at6(col, y);
            for (int r = 0; r < 4; r++) o[r * 4 + c][t] = y[r];
        }
    }
    /* o[r*4 + c][j*n + t]: output row 4*(ty0 + j) + r, column 4*(t0 + t) + c */
    for (int ty = b->ty0; ty < b->ty1; ty++)
        for (int r = 0; r < 4 && 4 * ty + r < H; r++) {
            float *row = plane + (size_t)(4 * ty + r) * W + 4 * b->t0;
            int j = (ty - b->ty0) * n;
            if (acc)
                for (int x = 0; x < cols; x++) row[x] += o[r * 4 + (x & 3)][j + (x >> 2)];
            else
                for (int x = 0; x < cols; x++) row[x] = o[r * 4 + (x & 3)][j + (x >> 2)];
        }
}

void winograd4_output_cpu(const float *m, int nb, int K, int H, int W, float *y, bool acc)
{
    winograd_tiles_out(&F4, m, nb, K, H, W, y, acc, output_block4);
}
