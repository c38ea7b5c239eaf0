/* winograd_tiles.c - the walkers that the Winograd transforms share
 * (winograd_tiles.h says how tiles are cut into blocks and groups, and
 * why). Each parallel loop gives a thread whole channels (or blocks of
 * filters) and no sum is split, so results do not depend on the thread
 * count. */
#include "winograd_tiles.h"

#include <string.h>
#include "../cpu/parallel.h"

static int tiles_along(int n, int side) { return (n + side - 1) / side; }

/* A walk over one channel's blocks: nb images of th x tw tiles, blocks of
 * at most max_tiles tiles and max_band tile rows. */
typedef struct WinoWalk {
    int nb, th, tw, band, seg; /* tile rows per band, tiles per row segment */
    int i, ty0, t0;            /* the next block */
} WinoWalk;

static WinoWalk wino_walk(int nb, int th, int tw, int max_tiles, int max_band)
{
    WinoWalk w = { nb, th, tw, 1, tw, 0, 0, 0 };
    if (tw < max_tiles) {
        w.band = max_tiles / tw;
        if (w.band > max_band) w.band = max_band;
    } else {
        w.seg = max_tiles;
    }
    return w;
}

static bool wino_next_block(WinoWalk *w, WinoBlock *b)
{
    if (w->i >= w->nb) return false;
    b->i = w->i, b->ty0 = w->ty0, b->t0 = w->t0;
    b->ty1 = w->th - w->ty0 < w->band ? w->th : w->ty0 + w->band;
    b->n = w->tw - w->t0 < w->seg ? w->tw - w->t0 : w->seg;
    if ((w->t0 += b->n) >= w->tw) { /* the next band, or the next image */
        w->t0 = 0;
        if ((w->ty0 = b->ty1) >= w->th) w->ty0 = 0, w->i++;
    }
    return true;
}

/* The next group of blocks into g[WINOGRAD_GROUP]: their count (0 at the
 * end), and their tiles in *tiles. */
static int wino_next_group(WinoWalk *w, WinoBlock *g, int *tiles)
{
    int count = 0;
    *tiles = 0;
    for (;;) {
        WinoWalk before = *w;
        WinoBlock b;
        if (!wino_next_block(w, &b)) break;
        int size = (b.ty1 - b.ty0) * b.n;
        if (count > 0 && *tiles + size > WINOGRAD_GROUP) {
            *w = before;
            break;
        }
        g[count++] = b;
        *tiles += size;
    }
    return count;
}

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

void winograd_padded_row(const float *plane, int H, int W, int y, int lo, int len, float *line)
{
    if (y < 0 || y >= H) {
        memset(line, 0, sizeof(float) * (size_t)len);
        return;
    }
    int a = lo < 0 ? -lo : 0, b = W - lo < len ? W - lo : len; /* the columns inside the plane: [a, b) */
    memset(line, 0, sizeof(float) * (size_t)a);
    memcpy(line + a, plane + (size_t)y * W + lo + a, sizeof(float) * (size_t)(b - a));
    memset(line + b, 0, sizeof(float) * (size_t)(len - b));
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
