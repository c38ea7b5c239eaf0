/* kernels_cpu.c - the CPU's convolution sub-table (kernels.h): the
 * kernels of this folder that several paths share, which the CPU backend
 * (core/backend/cpu.c) points at. */
#include "kernels.h"

#include "kernels_cpu.h"
#include "../cpu/isa.h"

/* Built once per instruction set (core/cpu/isa.h): each build's table
 * names its own device, so the paths run the same build's kernels. */
_Static_assert(CONV_ON_CPU_BUILD(DDL_ISA_PORTABLE) == CONV_ON_CPU && CONV_ON_CPU_BUILD(DDL_ISA_AVX2) == CONV_ON_CPU_AVX2 &&
                   CONV_ON_CPU_BUILD(DDL_ISA_AVX512) == CONV_ON_CPU_AVX512,
               "CONV_ON_CPU_BUILD follows DdlIsa");
const ConvKernels conv_kernels_cpu = {
    .device = CONV_ON_CPU_BUILD(DDL_ISA_BUILD),
    .im2col = im2col_cpu,
    .col2im = col2im_cpu,
    .images_to_channels = images_to_channels_cpu,
    .channels_to_images = channels_to_images_cpu,
};
