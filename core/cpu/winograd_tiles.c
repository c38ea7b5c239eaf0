/* winograd_tiles.c - the walkers that the Winograd transforms share
 * (winograd_tiles.h says how tiles are cut into blocks and groups, and
 * why). Each parallel loop gives a thread whole channels (or blocks of
 * filters) and no sum is split, so results do not depend on the thread
 * count. */
#include "winograd_tiles.h"

#include <string.h>
#include "parallel.h"

static int tiles_along(int n, int side) { return (n + side - 1) / side; }

void winograd_tiles_in(const WinoKind *k, const float *x, int nb, int C, int H, int W, float *v, WinogradBlockFn fn)
{
    int th = tiles_along(H, k->side), tw = tiles_along(W, k->side);
    size_t ld = (size_t)nb * th * tw, plane = (size_t)H * W;
    size_t stride = (size_t)C * ld; /* between the positions */
    PARALLEL_FOR((size_t)k->npos * C * ld)
    for (int c = 0; c < C; c++) {
        float out[WINOGRAD_MAXPOS][WINOGRAD_GROUP];
        WinoBlock g[WINOGRAD_GROUP];
        WinoWalk walk = wino_walk(nb, th, tw, k->max_tiles, k->max_band);
        size_t at = (size_t)c * ld; /* the group's first tile in v's rows */
        int count, tiles;
        while ((count = wino_next_group(&walk, g, &tiles)) > 0) {
            for (int b = 0, j = 0; b < count; j += (g[b].ty1 - g[b].ty0) * g[b].n, b++)
                fn(x + ((size_t)g[b].i * C + c) * plane, H, W, &g[b], out, j);
            for (int q = 0; q < k->npos; q++)
                memcpy(v + (size_t)q * stride + at, out[q], sizeof(float) * (size_t)tiles);
            at += (size_t)tiles;
        }
    }
}

void winograd_tiles_out(const WinoKind *k, const float *m, int nb, int K, int H, int W, float *y, bool acc,
                        WinogradOutFn fn)
{
    int th = tiles_along(H, k->side), tw = tiles_along(W, k->side);
    size_t ld = (size_t)nb * th * tw, plane = (size_t)H * W;
    size_t stride = (size_t)K * ld;
    PARALLEL_FOR((size_t)k->npos * K * ld)
    for (int o = 0; o < K; o++) {
        float in[WINOGRAD_MAXPOS][WINOGRAD_GROUP];
        WinoBlock g[WINOGRAD_GROUP];
        WinoWalk walk = wino_walk(nb, th, tw, k->max_tiles, k->max_band);
        size_t at = (size_t)o * ld;
        int count, tiles;
        while ((count = wino_next_group(&walk, g, &tiles)) > 0) {
            for (int q = 0; q < k->npos; q++)
                memcpy(in[q], m + (size_t)q * stride + at, sizeof(float) * (size_t)tiles);
            for (int b = 0, j = 0; b < count; j += (g[b].ty1 - g[b].ty0) * g[b].n, b++)
                fn((const float(*)[WINOGRAD_GROUP])in, j, H, W, &g[b], y + ((size_t)g[b].i * K + o) * plane, acc);
            at += (size_t)tiles;
        }
    }
}

/* Filters [a0, a0 + n) in u's order (at = k*C + c, or c*K + k with flip):
 * their 9 taps gathered (rotated with flip), transformed together, and
 * each position stored as one contiguous run. */
static void filter_block(int npos, const float *w, int K, int C, bool flip, size_t a0, int n, float *u,
                         WinogradFilterFn fn)
{
    float g[9][WINOGRAD_FILTERS], out[WINOGRAD_MAXPOS][WINOGRAD_FILTERS];
    for (int b = 0; b < n; b++) {
        size_t at = a0 + (size_t)b;
        size_t f = flip ? ((at % (size_t)K) * C + at / (size_t)K) * 9 : at * 9;
        for (int r = 0; r < 9; r++) g[r][b] = w[f + (size_t)(flip ? 8 - r : r)];
    }
    fn((const float(*)[WINOGRAD_FILTERS])g, n, out);
    size_t stride = (size_t)K * C;
    for (int q = 0; q < npos; q++) memcpy(u + (size_t)q * stride + a0, out[q], sizeof(float) * (size_t)n);
}

void winograd_filter_blocks(int npos, const float *w, int K, int C, bool flip, float *u, WinogradFilterFn fn)
{
    size_t total = (size_t)K * C, blocks = (total + WINOGRAD_FILTERS - 1) / WINOGRAD_FILTERS;
    PARALLEL_FOR((size_t)npos * total)
    for (size_t bl = 0; bl < blocks; bl++) {
        size_t a0 = bl * WINOGRAD_FILTERS;
        int n = total - a0 < WINOGRAD_FILTERS ? (int)(total - a0) : WINOGRAD_FILTERS;
        filter_block(npos, w, K, C, flip, a0, n, u, fn);
    }
}
