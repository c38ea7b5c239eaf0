/* winograd.c - the three transforms of Winograd's F(2x2,3x3) convolution
 * (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks",
 * 2016), for 3x3 filters, stride 1, padding 1.
 *
 * Why: each 2x2 block of output pixels of a 3x3 convolution needs 36
 * multiply-adds per input channel done directly (or through im2col +
 * GEMM); in the Winograd domain it needs 16. The 4x4 input tile d around
 * the block becomes V = B^T d B, the filter g becomes U = G g G^T, their
 * elementwise product summed over input channels is M, and the 2x2 output
 * is A^T M A. Summing over channels at each of the 16 tile positions is a
 * GEMM [K][C] x [C][tiles], so the work becomes 16 GEMMs (the model's,
 * core/conv/path_winograd.c) between these memory-bound transforms.
 * The price is rounding: the transforms add and subtract values before
 * the products, so results differ from im2col's in the last few bits
 * (tests/test_conv_paths.c measures how much).
 *
 *   B^T = | 1  0 -1  0 |   G = | 1    0    0  |   A^T = | 1  1  1  0 |
 *         | 0  1  1  0 |       | 1/2  1/2  1/2|         | 0  1 -1 -1 |
 *         | 0 -1  1  0 |       | 1/2 -1/2  1/2|
 *         | 0  1  0 -1 |       | 0    0    1  |
 *
 * Layouts (kernels.h): tiles of one image in row-major order, th =
 * ceil(H/2) rows of tw = ceil(W/2); with nb images the tile columns are
 * [i*th*tw, (i+1)*th*tw) as im2col's pixel columns are. Each loop gives a
 * thread whole channels, and no value is a sum split across threads, so
 * results do not depend on the thread count. */
#include "kernels_cpu.h"
#include "winograd_kernels.h"

#include <string.h>
#include "winograd_tiles.h"

/* Blocks of at most SEG tiles and BAND tile rows (winograd_tiles.h). */
enum { SEG = WINOGRAD_GROUP, BAND = 16 };

/* Row y of the plane (zeros outside), columns x0 - 1 .. x0 + 2n split:
 * e[k] = column x0 - 1 + 2k, o[k] = column x0 + 2k, k <= n. The row is
 * copied into a zero-padded line first, so the split loop has no bounds
 * tests and vectorizes. */
static void split_row(const float *plane, int H, int W, int y, int x0, int n, float *restrict e, float *restrict o)
{
    float line[2 * SEG + 2];
    winograd_padded_row(plane, H, W, y, x0 - 1, 2 * n + 2, line);
    for (int k = 0; k <= n; k++) {
        e[k] = line[2 * k];
        o[k] = line[2 * k + 1];
    }
}

/* A block of tiles: V = B^T d B, rows first (row r of tile t is e[r][t],
 * o[r][t], e[r][t+1], o[r][t+1]), then columns, into the group's staging
 * rows out[16][j0 + ...] in one vectorizable loop per tile row (storing
 * straight into v's 16 strided rows kept the loop scalar, measured 1.5x
 * slower). */
static void input_block(const float *plane, int H, int W, const WinoBlock *b, float (*out)[WINOGRAD_GROUP], int j0)
{
    float e[2 * BAND + 2][SEG + 1], o[2 * BAND + 2][SEG + 1];
    int n = b->n, rows = 2 * (b->ty1 - b->ty0) + 2;
    for (int r = 0; r < rows; r++) split_row(plane, H, W, 2 * b->ty0 - 1 + r, 2 * b->t0, n, e[r], o[r]);
    for (int ty = b->ty0; ty < b->ty1; ty++) {
        const float(*er)[SEG + 1] = e + 2 * (ty - b->ty0), (*or)[SEG + 1] = o + 2 * (ty - b->ty0);
        int j = j0 + (ty - b->ty0) * n;
        for (int t = 0; t < n; t++) {
            float a[4][4];
            for (int r = 0; r < 4; r++) {
                float d0 = er[r][t], d1 = or[r][t], d2 = er[r][t + 1], d3 = or[r][t + 1];
                a[r][0] = d0 - d2;
                a[r][1] = d1 + d2;
                a[r][2] = d2 - d1;
                a[r][3] = d1 - d3;
            }
            for (int c = 0; c < 4; c++) {
                out[0 + c][j + t] = a[0][c] - a[2][c];
                out[4 + c][j + t] = a[1][c] + a[2][c];
                out[8 + c][j + t] = a[2][c] - a[1][c];
                out[12 + c][j + t] = a[1][c] - a[3][c];
            }
        }
    }
}

const WinoKind WINOGRAD_F2 = { 2, 16, SEG, BAND };

void winograd_input_cpu(const float *x, int nb, int C, int H, int W, float *v)
{
    winograd_tiles_in(&WINOGRAD_F2, x, nb, C, H, W, v, input_block);
}

/* One row (or column) of G g G^T: 3 values in, 4 out. */
static inline void g3(const float g[3], float t[4])
{
    t[0] = g[0];
    t[1] = 0.5f * (g[0] + g[1] + g[2]);
    t[2] = 0.5f * (g[0] - g[1] + g[2]);
    t[3] = g[2];
}

/* G g G^T of a block of filters (winograd_tiles.c gathers and stores):
 * rows first, then columns, each a loop over the block. */
static void filter_transform(const float (*g)[WINOGRAD_FILTERS], int n, float (*out)[WINOGRAD_FILTERS])
{
    float t[3][4][WINOGRAD_FILTERS];
    for (int r = 0; r < 3; r++)
        for (int b = 0; b < n; b++) {
            float row[3] = { g[3 * r][b], g[3 * r + 1][b], g[3 * r + 2][b] }, o[4];
            g3(row, o);
            for (int q = 0; q < 4; q++) t[r][q][b] = o[q];
        }
    for (int q = 0; q < 4; q++)
        for (int b = 0; b < n; b++) {
            float col[3] = { t[0][q][b], t[1][q][b], t[2][q][b] }, o[4];
            g3(col, o);
            for (int r = 0; r < 4; r++) out[r * 4 + q][b] = o[r];
        }
}

void winograd_filter_cpu(const float *w, int K, int C, bool flip, float *u)
{
    winograd_filter_blocks(16, w, K, C, flip, u, filter_transform);
}

/* A block of tiles of one output plane: A^T m A (rows first, then
 * columns) in one vectorizable loop over the block's tiles, staged at
 * in[16][j0 + ...], then each 2x2 block put in place (cropped: the last
 * tile row/column hangs over an odd plane). */
static void output_block(const float (*in)[WINOGRAD_GROUP], int j0, int H, int W, const WinoBlock *b, float *plane,
                         bool acc)
{
    int n = b->n, cols = W - 2 * b->t0 < 2 * n ? W - 2 * b->t0 : 2 * n, tiles = (b->ty1 - b->ty0) * n;
    float o[4][SEG];
    for (int t = 0; t < tiles; t++) {
        float a[4][2];
        for (int r = 0; r < 4; r++) {
            a[r][0] = in[4 * r][j0 + t] + in[4 * r + 1][j0 + t] + in[4 * r + 2][j0 + t];
            a[r][1] = in[4 * r + 1][j0 + t] - in[4 * r + 2][j0 + t] - in[4 * r + 3][j0 + t];
        }
        for (int c = 0; c < 2; c++) {
            o[c][t] = a[0][c] + a[1][c] + a[2][c];
            o[2 + c][t] = a[1][c] - a[2][c] - a[3][c];
        }
    }
    /* o[r*2 + c][j*n + t]: output row 2*(ty0 + j) + r, column 2*(t0 + t) + c */
    for (int ty = b->ty0; ty < b->ty1; ty++)
        for (int r = 0; r < 2 && 2 * ty + r < H; r++) {
            float *row = plane + (size_t)(2 * ty + r) * W + 2 * b->t0;
            const float *ev = o[2 * r] + (ty - b->ty0) * n, *od = o[2 * r + 1] + (ty - b->ty0) * n;
            if (acc)
                for (int x = 0; x < cols; x++) row[x] += (x & 1) ? od[x >> 1] : ev[x >> 1];
            else
                for (int x = 0; x < cols; x++) row[x] = (x & 1) ? od[x >> 1] : ev[x >> 1];
        }
}

void winograd_output_cpu(const float *m, int nb, int K, int H, int W, float *y, bool acc)
{
    winograd_tiles_out(&WINOGRAD_F2, m, nb, K, H, W, y, acc, output_block);
}
