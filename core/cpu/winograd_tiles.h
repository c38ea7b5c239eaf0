/* winograd_tiles.h - the loop that both Winograd tile transforms share
 * (winograd.c's input transform, winograd_grad.c's output-gradient
 * transform): every channel of every image, tile row by tile row, in
 * segments of at most WINOGRAD_SEG tiles, each handed to a function that
 * transforms them and writes the 16 positions `stride` floats apart.
 *
 * Segments: the tiles of one tile row handled at once. Their rows are
 * split into even and odd columns first, so the loop over tiles reads and
 * writes only contiguous runs and vectorizes (a tile-at-a-time loop
 * gathered 16 scattered values per tile and cost as much as the GEMMs).
 * A thread gets whole channels and no sum is split, so results do not
 * depend on the thread count. */
#ifndef DDL_CPU_WINOGRAD_TILES_H
#define DDL_CPU_WINOGRAD_TILES_H

#include <stddef.h>

enum { WINOGRAD_SEG = 128 };

/* Tiles [t0, t0 + n) of tile row ty of one H x W plane, into out[q *
 * stride + t] for the 16 positions q. */
typedef void (*WinogradSegment)(const float *plane, int H, int W, int ty, int t0, int n, float *out, size_t stride);

/* x[nb][C][H][W] -> v[16][C][nb*T] (T = ceil(H/2) * ceil(W/2)) through seg. */
void winograd_for_segments(const float *x, int nb, int C, int H, int W, float *v, WinogradSegment seg);

#endif
