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
 * core/layers/conv2d_winograd.c) between these memory-bound transforms.
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
#include "kernels.h"

#include <string.h>
#include "parallel.h"
#include "winograd_tiles.h"

enum { SEG = WINOGRAD_SEG, BAND = WINOGRAD_BAND };

/* Row y of the plane (zeros outside), columns x0 - 1 .. x0 + 2n split:
 * e[k] = column x0 - 1 + 2k, o[k] = column x0 + 2k, k <= n. The row is
 * copied into a zero-padded line first, so the split loop has no bounds
 * tests and vectorizes. */
static void split_row(const float *plane, int H, int W, int y, int x0, int n, float *restrict e, float *restrict o)
{
    float line[2 * SEG + 2];
    int len = 2 * n + 2, lo = x0 - 1; /* line[j] = column lo + j */
    if (y < 0 || y >= H) {
        memset(e, 0, sizeof(float) * (size_t)(n + 1));
        memset(o, 0, sizeof(float) * (size_t)(n + 1));
        return;
    }
    int a = lo < 0 ? -lo : 0, b = W - lo < len ? W - lo : len; /* the columns inside the plane: [a, b) */
    memset(line, 0, sizeof(float) * (size_t)a);
    memcpy(line + a, plane + (size_t)y * W + lo + a, sizeof(float) * (size_t)(b - a));
    memset(line + b, 0, sizeof(float) * (size_t)(len - b));
    for (int k = 0; k <= n; k++) {
        e[k] = line[2 * k];
        o[k] = line[2 * k + 1];
    }
}

/* A block of tiles: V = B^T d B, rows first (row r of tile t is e[r][t],
 * o[r][t], e[r][t+1], o[r][t+1]), then columns, into out[16][tiles] in
 * one vectorizable loop per tile row, then copied to the 16 rows of v
 * (the block's tiles are contiguous there, see winograd_tiles.h; storing
 * straight into 16 strided rows kept the loop scalar, measured 1.5x
 * slower). */
static void input_segment(const float *plane, int H, int W, int ty0, int ty1, int t0, int n, float *v, size_t stride)
{
    float e[2 * BAND + 2][SEG + 1], o[2 * BAND + 2][SEG + 1], out[16][SEG];
    int tw = (W + 1) / 2, rows = 2 * (ty1 - ty0) + 2;
    for (int r = 0; r < rows; r++) split_row(plane, H, W, 2 * ty0 - 1 + r, 2 * t0, n, e[r], o[r]);
    for (int ty = ty0; ty < ty1; ty++) {
        const float(*er)[SEG + 1] = e + 2 * (ty - ty0), (*or)[SEG + 1] = o + 2 * (ty - ty0);
        int j0 = (ty - ty0) * n;
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
                out[0 + c][j0 + t] = a[0][c] - a[2][c];
                out[4 + c][j0 + t] = a[1][c] + a[2][c];
                out[8 + c][j0 + t] = a[2][c] - a[1][c];
                out[12 + c][j0 + t] = a[1][c] - a[3][c];
            }
        }
    }
    size_t tiles = (size_t)(ty1 - ty0) * n;
    float *vt = v + (size_t)ty0 * tw + t0;
    for (int q = 0; q < 16; q++) memcpy(vt + (size_t)q * stride, out[q], sizeof(float) * tiles);
}

void winograd_blocks(int H, int W, int *band, int *seg)
{
    int tw = (W + 1) / 2;
    *seg = tw < SEG ? tw : SEG;
    *band = tw < SEG ? SEG / tw : 1;
    if (*band > BAND) *band = BAND;
    (void)H;
}

void winograd_for_segments(const float *x, int nb, int C, int H, int W, float *v, WinogradSegment seg)
{
    int th = (H + 1) / 2, tw = (W + 1) / 2, band, cols;
    winograd_blocks(H, W, &band, &cols);
    size_t T = (size_t)th * tw, ld = (size_t)nb * T, plane = (size_t)H * W;
    size_t stride = (size_t)C * ld; /* between the 16 positions */
    PARALLEL_FOR(16 * (size_t)C * ld)
    for (int c = 0; c < C; c++)
        for (int i = 0; i < nb; i++) {
            const float *xc = x + ((size_t)i * C + c) * plane;
            float *vc = v + (size_t)c * ld + (size_t)i * T;
            for (int ty0 = 0; ty0 < th; ty0 += band)
                for (int t0 = 0; t0 < tw; t0 += cols)
                    seg(xc, H, W, ty0, th - ty0 < band ? th : ty0 + band, t0, tw - t0 < cols ? tw - t0 : cols, vc,
                        stride);
        }
}

void winograd_input_cpu(const float *x, int nb, int C, int H, int W, float *v)
{
    winograd_for_segments(x, nb, C, H, W, v, input_segment);
}

/* One row (or column) of G g G^T: 3 values in, 4 out. */
static inline void g3(const float g[3], float t[4])
{
    t[0] = g[0];
    t[1] = 0.5f * (g[0] + g[1] + g[2]);
    t[2] = 0.5f * (g[0] - g[1] + g[2]);
    t[3] = g[2];
}

void winograd_filter_cpu(const float *w, int K, int C, bool flip, float *u)
{
    size_t stride = (size_t)K * C;
    PARALLEL_FOR(16 * stride)
    for (int k = 0; k < K; k++)
        for (int c = 0; c < C; c++) {
            const float *f = w + ((size_t)k * C + c) * 9;
            float g[3][3], t[3][4], col[3], out[4];
            /* flip: the filter of the input gradient, w rotated by 180
             * degrees, with input and output channels swapped. */
            for (int r = 0; r < 9; r++) g[r / 3][r % 3] = flip ? f[8 - r] : f[r];
            for (int r = 0; r < 3; r++) g3(g[r], t[r]);
            size_t at = flip ? (size_t)c * K + k : (size_t)k * C + c;
            for (int q = 0; q < 4; q++) {
                for (int r = 0; r < 3; r++) col[r] = t[r][q];
                g3(col, out);
                for (int r = 0; r < 4; r++) u[(size_t)(r * 4 + q) * stride + at] = out[r];
            }
        }
}

/* A block of tiles of one output plane: A^T m A (rows first, then
 * columns) in one vectorizable loop over the block's tiles, which are
 * contiguous in m's 16 rows, then each 2x2 block put in place (cropped:
 * the last tile row/column hangs over an odd plane). */
static void output_segment(const float *m, size_t stride, int H, int W, int ty0, int ty1, int t0, int n, float *plane,
                           bool acc)
{
    int tw = (W + 1) / 2, cols = W - 2 * t0 < 2 * n ? W - 2 * t0 : 2 * n, tiles = (ty1 - ty0) * n;
    const float *mt = m + (size_t)ty0 * tw + t0;
    float in[16][SEG], o[4][SEG];
    for (int q = 0; q < 16; q++) memcpy(in[q], mt + (size_t)q * stride, sizeof(float) * (size_t)tiles);
    for (int t = 0; t < tiles; t++) {
        float a[4][2];
        for (int r = 0; r < 4; r++) {
            a[r][0] = in[4 * r][t] + in[4 * r + 1][t] + in[4 * r + 2][t];
            a[r][1] = in[4 * r + 1][t] - in[4 * r + 2][t] - in[4 * r + 3][t];
        }
        for (int c = 0; c < 2; c++) {
            o[c][t] = a[0][c] + a[1][c] + a[2][c];
            o[2 + c][t] = a[1][c] - a[2][c] - a[3][c];
        }
    }
    /* o[r*2 + c][j*n + t]: output row 2*(ty0 + j) + r, column 2*(t0 + t) + c */
    for (int ty = ty0; ty < ty1; ty++)
        for (int r = 0; r < 2 && 2 * ty + r < H; r++) {
            float *row = plane + (size_t)(2 * ty + r) * W + 2 * t0;
            const float *ev = o[2 * r] + (ty - ty0) * n, *od = o[2 * r + 1] + (ty - ty0) * n;
            if (acc)
                for (int x = 0; x < cols; x++) row[x] += (x & 1) ? od[x >> 1] : ev[x >> 1];
            else
                for (int x = 0; x < cols; x++) row[x] = (x & 1) ? od[x >> 1] : ev[x >> 1];
        }
}

void winograd_output_cpu(const float *m, int nb, int K, int H, int W, float *y, bool acc)
{
    int th = (H + 1) / 2, tw = (W + 1) / 2, band, cols;
    winograd_blocks(H, W, &band, &cols);
    size_t T = (size_t)th * tw, ld = (size_t)nb * T, plane = (size_t)H * W;
    size_t stride = (size_t)K * ld;
    PARALLEL_FOR(16 * (size_t)K * ld)
    for (int k = 0; k < K; k++)
        for (int i = 0; i < nb; i++) {
            const float *mk = m + (size_t)k * ld + (size_t)i * T;
            float *yk = y + ((size_t)i * K + k) * plane;
            for (int ty0 = 0; ty0 < th; ty0 += band)
                for (int t0 = 0; t0 < tw; t0 += cols)
                    output_segment(mk, stride, H, W, ty0, th - ty0 < band ? th : ty0 + band, t0,
                                   tw - t0 < cols ? tw - t0 : cols, yk, acc);
        }
}
