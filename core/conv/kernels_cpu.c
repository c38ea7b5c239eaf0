/* kernels_cpu.c - the CPU's convolution sub-table (kernels.h): the
 * kernels of this folder that several paths share, which the CPU backend
 * (core/backend/cpu.c) points at. */
#include "kernels.h"

#include "kernels_cpu.h"

const ConvKernels conv_kernels_cpu = {
    .device = CONV_ON_CPU,
    .im2col = im2col_cpu,
    .col2im = col2im_cpu,
    .images_to_channels = images_to_channels_cpu,
    .channels_to_images = channels_to_images_cpu,
};
