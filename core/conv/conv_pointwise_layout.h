/* conv_pointwise_layout.h - the packed filters of the pointwise (1x1,
 * stride 1) convolution kernels (conv_pointwise.c, its CUDA twin
 * conv_pointwise.cu, and the layer that sizes its scratch,
 * core/conv/path_pointwise.c), in one place so the three agree.
 *
 * Packed filters ("wp"): the weights from I inputs to O outputs as
 * [ceil(O/8)][I][8]: for each block of 8 outputs, per input, the 8 weights
 * side by side (zeros past O), the order the kernel broadcasts them in.
 * The forward pass packs w[K][C] with O = K, I = C; the input gradient
 * packs its transpose, O = C, I = K. */
#ifndef DDL_CPU_CONV_POINTWISE_LAYOUT_H
#define DDL_CPU_CONV_POINTWISE_LAYOUT_H

#include <stddef.h>

enum { POINTWISE_OB = 8 };

/* Floats of the packed filters with O outputs and I inputs. */
static inline size_t pointwise_filter_floats(int O, int I)
{
    return (size_t)((O + POINTWISE_OB - 1) / POINTWISE_OB) * POINTWISE_OB * (size_t)I;
}

#endif
