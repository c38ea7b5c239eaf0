/* conv_direct_layout.h - the buffers of the direct 3x3 convolution
 * (conv_direct.c, its CUDA twin conv_direct.cu, and the layer that sizes
 * its scratch, core/layers/conv2d_direct.c), in one place so the three
 * agree.
 *
 * Padded planes ("xq"): nb images of C channels, each plane with a zero
 * border of one pixel, in groups of g images whose padded rows are
 * interleaved: [C][nb/g][H+2][g][W+2] (padded row 0 of each image of the
 * group, then row 1 of each, ...), then DIRECT_SLACK zero floats (a
 * register block may read a little past the last plane; what it reads
 * there only feeds outputs that are discarded). The kernels walk runs of
 * positions through a group's rows, computing and throwing away the
 * padding they cross: with g = nb only the 2 padding columns of each row
 * (W/(W+2) of the work is useful: 80% on 8x8 planes), with g = 1 also the
 * 2 padding rows of each image (HW/((H+2)(W+2)): 64% on 8x8). But with
 * g = nb the 3 rows a tap reads are nb*(W+2) floats apart instead of W+2,
 * three cache streams per channel instead of one: on 32x32 planes with 16
 * channels that made the forward pass 1.3-1.45x slower on the dev VM
 * (bin/bench/conv_algo), where the saving is only 6%. So small planes
 * interleave all images, large ones none (direct_group). (The CPU's
 * forward skips the padding altogether where a row is half a vector, one
 * or two: conv_direct.c's row-exact blocks, on the same layout.)
 *
 * Packed filters ("wp"): the K x C x 3 x 3 filters of one convolution as
 * [ceil(K/8)][C][9][8]: for each block of 8 output channels, per input
 * channel and tap, the 8 weights side by side (zeros past K), which is the
 * order the kernel broadcasts them in. */
#ifndef DDL_CPU_CONV_DIRECT_LAYOUT_H
#define DDL_CPU_CONV_DIRECT_LAYOUT_H

#include <stddef.h>

enum { DIRECT_KB = 8, DIRECT_SLACK = 64 };

/* Images per group of interleaved rows: all of them on planes up to 16
 * wide (measured on 8x8 and 16x16: above), else one. */
static inline int direct_group(int nb, int W) { return W <= 16 ? nb : 1; }

/* Floats of one channel's padded planes (nb of them, whatever the grouping). */
static inline size_t direct_channel_floats(int nb, int H, int W)
{
    return (size_t)(H + 2) * (size_t)nb * (size_t)(W + 2);
}

/* Floats of a padded buffer of nb images of C channels. */
static inline size_t direct_padded_floats(int nb, int C, int H, int W)
{
    return (size_t)C * direct_channel_floats(nb, H, W) + DIRECT_SLACK;
}

/* Floats of the packed filters of a convolution with K outputs, C inputs. */
static inline size_t direct_filter_floats(int K, int C)
{
    return (size_t)((K + DIRECT_KB - 1) / DIRECT_KB) * DIRECT_KB * (size_t)C * 9;
}

#endif
