/* kernels_cpu.c - the CPU's convolution sub-table (kernels.h): the
 * kernels of this folder, which the CPU backend (core/backend/cpu.c)
 * points at. */
#include "kernels.h"

#include "kernels_cpu.h"

const ConvKernels conv_kernels_cpu = {
    .im2col = im2col_cpu,
    .col2im = col2im_cpu,
    .images_to_channels = images_to_channels_cpu,
    .channels_to_images = channels_to_images_cpu,
    .winograd_input = winograd_input_cpu,
    .winograd_filter = winograd_filter_cpu,
    .winograd_output = winograd_output_cpu,
    .winograd_output_grad = winograd_output_grad_cpu,
    .winograd_filter_grad = winograd_filter_grad_cpu,
    .winograd4_input = winograd4_input_cpu,
    .winograd4_filter = winograd4_filter_cpu,
    .winograd4_output = winograd4_output_cpu,
    .direct_pad = direct_pad_cpu,
    .direct_filter = direct_filter_cpu,
    .direct_conv = direct_conv_cpu,
    .direct_filter_grad = direct_filter_grad_cpu,
    .direct_unphase = direct_unphase_cpu,
    .winofused_pad = winofused_pad_cpu,
    .winofused_filter = winofused_filter_cpu,
    .winofused_conv = winofused_conv_cpu,
    .pointwise_filter = pointwise_filter_cpu,
    .pointwise_conv = pointwise_conv_cpu,
    .pointwise_filter_grad = pointwise_filter_grad_cpu,
    .pointwise_subsample = pointwise_subsample_cpu,
    .pointwise_upsample = pointwise_upsample_cpu,
    .depthwise_forward = depthwise_forward_cpu,
    .depthwise_backward = depthwise_backward_cpu,
    .cudnn = NULL,
    .cudnn_absent = "cuDNN runs on a GPU (--device cuda, in a build with cuDNN), not on the CPU",
};
