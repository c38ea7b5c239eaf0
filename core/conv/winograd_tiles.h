/* winograd_tiles.h - how the Winograd tile transforms (winograd.c,
 * winograd_grad.c, winograd4.c) walk a channel's tiles: in blocks, and
 * blocks in groups.
 *
 * A block is tile rows [ty0, ty1) by tile columns [t0, t0 + n) of one
 * image's plane: a band of whole tile rows on planes narrower than `seg`
 * tiles, or a segment of one row on wider ones. Its plane rows are split
 * into even and odd columns (4 phases for F(4x4)) once, so the loop over
 * a tile row's tiles reads and writes contiguous runs and vectorizes (a
 * tile-at-a-time loop gathered 16 scattered values per tile and cost as
 * much as the GEMMs), and a band shares the split of the rows its tiles
 * overlap on.
 *
 * A group is consecutive blocks of one channel, at most WINOGRAD_GROUP
 * tiles in all. The tiles of one channel lie in v (and m) in the order
 * the blocks are visited (image, tile row, column), so a group is one
 * contiguous run in each of the 16 (or 36) positions' rows: it is staged
 * in a [positions][WINOGRAD_GROUP] buffer and copied in or out with one
 * copy per position. Why groups: CIFAR's deep planes are small (an 8x8
 * plane has 16 F(2x2) tiles, 4 of F(4x4); a 4x4 plane 4, or 1), and one
 * block per plane with its own 16 or 36 short copies cost more than its
 * arithmetic. A thread gets whole channels and no sum is split, so results
 * do not depend on the thread count. */
#ifndef DDL_CPU_WINOGRAD_TILES_H
#define DDL_CPU_WINOGRAD_TILES_H

#include <stdbool.h>

enum { WINOGRAD_GROUP = 128 };

typedef struct WinoBlock {
    int i, ty0, ty1, t0, n; /* image; tile rows; first tile column and count */
} WinoBlock;

/* The walkers (winograd_tiles.c), for one tile size: output tiles of
 * `side` x `side`, npos = (side + 2)^2 positions, blocks of at most
 * max_tiles tiles and max_band tile rows (what the block functions'
 * buffers hold). */
enum { WINOGRAD_MAXPOS = 36, WINOGRAD_FILTERS = 64 };
typedef struct WinoKind {
    int side, npos, max_tiles, max_band;
} WinoKind;

/* F(2x2)'s cut (winograd.c), which winograd_grad.c's transform shares. */
extern const WinoKind WINOGRAD_F2;

/* A block's transform into a group's staging rows out[q][j0 + ...]. */
typedef void (*WinogradBlockFn)(const float *plane, int H, int W, const WinoBlock *b, float (*out)[WINOGRAD_GROUP],
                                int j0);
/* A block's output transform from staging rows in[q][j0 + ...] into its
 * plane (acc: added). */
typedef void (*WinogradOutFn)(const float (*in)[WINOGRAD_GROUP], int j0, int H, int W, const WinoBlock *b,
                              float *plane, bool acc);
/* G g G^T of n filters: g[9][n] taps in, out[npos][n]. */
typedef void (*WinogradFilterFn)(const float (*g)[WINOGRAD_FILTERS], int n, float (*out)[WINOGRAD_FILTERS]);

/* line[0, len) = row y of an H x W plane from column lo on, zeros outside
 * the plane (the input transforms' padding), copied at once so that the
 * splits into phases that follow need no bounds tests and vectorize. */
void winograd_padded_row(const float *plane, int H, int W, int y, int lo, int len, float *line);

/* x[nb][C][H][W] -> v[npos][C][nb*T] (T tiles per plane) through fn,
 * group by group. */
void winograd_tiles_in(const WinoKind *k, const float *x, int nb, int C, int H, int W, float *v, WinogradBlockFn fn);
/* m[npos][K][nb*T] -> y[nb][K][H][W] (+)= through fn, group by group. */
void winograd_tiles_out(const WinoKind *k, const float *m, int nb, int K, int H, int W, float *y, bool acc,
                        WinogradOutFn fn);
/* w[K][C][3][3] -> u[npos][K][C] (flip: u[npos][C][K] from w rotated 180
 * degrees, the input gradient's filter) through fn, in blocks of
 * WINOGRAD_FILTERS filters: a filter at a time wrote npos values 4*K*C
 * bytes apart and stayed scalar (perf: 23% of a 512-channel 4x4 layer's
 * F(4x4) step). */
void winograd_filter_blocks(int npos, const float *w, int K, int C, bool flip, float *u, WinogradFilterFn fn);

#endif
