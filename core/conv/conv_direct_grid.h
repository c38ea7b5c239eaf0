/* conv_direct_grid.h - the grid of positions the direct 3x3 kernels
 * (conv_direct.c) and the fused Winograd kernels (conv_winofused.c) walk
 * on padded planes (layouts: direct_kernels.h), and how an output
 * position on it lands in an NCHW tensor.
 *
 * On the padded planes, in groups of g images with interleaved rows (a
 * group's padded row is g*(W+2) floats), output pixel (oh, ow) of image
 * i = G*g + u sits at grid position j = G*gs + (oh*g + u)*(W+2) + ow, and
 * a tap reads the input at a fixed offset from j (the tap table's). The
 * padding between rows and groups gives positions whose results are
 * thrown away (direct_scatter skips them). */
#ifndef DDL_CPU_CONV_DIRECT_GRID_H
#define DDL_CPU_CONV_DIRECT_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include "direct_kernels.h"
#include "../cpu/simd.h"

enum { BLK = VF_ROWS * VF_LANES }; /* positions per register block */

typedef struct Grid {
    int nb, g, H, W, Wp; /* the output's plane, H x W, and its padded grid */
    int rs;     /* floats per padded row of a group: g*Wp */
    size_t gs;  /* floats per group: (H+2)*rs */
    size_t cs;  /* floats per channel of a padded plane on this grid (the output's, dy's) */
    size_t xcs; /* floats per channel of the input: cs, or 4*cs for a stride-2 input's phases */
    int L;      /* positions up to the last output: that of group nb/g - 1's last row, plus W */
    int n;      /* taps (direct_taps) */
    int off[9]; /* tap i -> its input's offset from the output's window: ph*cs + dr*rs + dc */
} Grid;

/* The grid of an H x W output and the input offsets of mode's taps. */
Grid direct_grid(int nb, int H, int W, int mode);

/* Planes per input channel a position's taps read from: 4 phases with
 * stride 2, else 1. */
static inline int input_planes(const Grid *g) { return (int)(g->xcs / g->cs); }

/* Where a grid position falls: group G, row oh of the group's output rows
 * (a padding row when oh >= H), image G*g + u, column ow (padding when
 * ow >= W). direct_scatter moves it along, so the divisions run once per
 * item, not once per block. */
typedef struct Cursor {
    int G, oh, u, ow;
} Cursor;

Cursor direct_cursor_at(const Grid *g, int j);

/* The outputs among the len positions at *cur (tile[a][q]: channel k0 + a
 * at position *cur + q) into y[nb][K][H][W] (channels k0 .. k0 + kn - 1),
 * row run by row run, added when acc; *cur moves past them. */
void direct_scatter(const float tile[DIRECT_KB][BLK], const Grid *g, Cursor *cur, int len, int K, int k0, int kn,
                    float *y, bool acc);

#endif
