/* conv_direct_layout.h - the buffers of the direct 3x3 convolution
 * (conv_direct.c, its CUDA twin conv_direct.cu, and the layer that sizes
 * its scratch, core/layers/conv2d_direct.c), in one place so the three
 * agree.
 *
 * Padded planes ("xq"): nb images of C channels, each plane with a zero
 * border of one pixel, laid out [C][nb][H+2][W+2], then DIRECT_SLACK zero
 * floats (a register block may read a little past the last plane; what it
 * reads there only feeds outputs that are discarded).
 *
 * Packed filters ("wp"): the K x C x 3 x 3 filters of one convolution as
 * [ceil(K/8)][C][9][8]: for each block of 8 output channels, per input
 * channel and tap, the 8 weights side by side (zeros past K), which is the
 * order the kernel broadcasts them in. */
#ifndef DDL_CPU_CONV_DIRECT_LAYOUT_H
#define DDL_CPU_CONV_DIRECT_LAYOUT_H

#include <stddef.h>

enum { DIRECT_KB = 8, DIRECT_SLACK = 64 };

static inline size_t direct_plane(int H, int W) { return (size_t)(H + 2) * (size_t)(W + 2); }

/* Floats of a padded buffer of nb images of C channels. */
static inline size_t direct_padded_floats(int nb, int C, int H, int W)
{
    return (size_t)C * (size_t)nb * direct_plane(H, W) + DIRECT_SLACK;
}

/* Floats of the packed filters of a convolution with K outputs, C inputs. */
static inline size_t direct_filter_floats(int K, int C)
{
    return (size_t)((K + DIRECT_KB - 1) / DIRECT_KB) * DIRECT_KB * (size_t)C * 9;
}

#endif
