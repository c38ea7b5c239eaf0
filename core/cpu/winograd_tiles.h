/* winograd_tiles.h - the loop that both Winograd tile transforms share
 * (winograd.c's input transform, winograd_grad.c's output-gradient
 * transform): every channel of every image, in blocks of at most
 * WINOGRAD_SEG tiles (bands of whole tile rows on planes narrower than
 * that, at most WINOGRAD_BAND rows; segments of one row on wider ones),
 * each block handed
 * to a function that transforms its tiles and writes the 16 positions
 * `stride` floats apart.
 *
 * Blocks, not single tiles or single tile rows: the block's plane rows are
 * split into even and odd columns once, so the loop over a tile row's
 * tiles reads and writes only contiguous runs and vectorizes (a
 * tile-at-a-time loop gathered 16 scattered values per tile and cost as
 * much as the GEMMs). A band of tile rows shares that split (neighbouring
 * 4x4 tiles overlap by two rows) and one call, which matters on CIFAR's
 * small planes: an 8x8 plane has 4 tiles per row, and a call per tile row
 * with 16 short copies cost more than its arithmetic (measured: 30% of a
 * Winograd forward pass on 128 channels at 16x16, bench/RESULTS.md).
 * A thread gets whole channels and no sum is split, so results do not
 * depend on the thread count. */
#ifndef DDL_CPU_WINOGRAD_TILES_H
#define DDL_CPU_WINOGRAD_TILES_H

#include <stddef.h>

enum { WINOGRAD_SEG = 128, WINOGRAD_BAND = 16 };

/* Tile rows [ty0, ty1) and tile columns [t0, t0 + n) of one H x W plane
 * (as winograd_blocks cuts it: at most WINOGRAD_SEG tiles in all, and
 * contiguous in the tile order, a band of whole tile rows or part of one
 * row), into out[q * stride + ty * tw + t0 + t] for the 16 positions q
 * (tw = ceil(W/2)). */
typedef void (*WinogradSegment)(const float *plane, int H, int W, int ty0, int ty1, int t0, int n, float *out,
                                size_t stride);

/* How a plane is cut into blocks: tile rows per band, and tiles per row
 * segment (the whole row when it has fewer than WINOGRAD_SEG tiles). */
void winograd_blocks(int H, int W, int *band, int *seg);

/* x[nb][C][H][W] -> v[16][C][nb*T] (T = ceil(H/2) * ceil(W/2)) through seg. */
void winograd_for_segments(const float *x, int nb, int C, int H, int W, float *v, WinogradSegment seg);

#endif
