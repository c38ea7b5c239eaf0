/* conv.c - the table of convolution paths, and what the rest of core
 * calls (conv.h). One row per path (paths.h says what a row holds); a
 * new path is one row here, one file path_<name>.c, its kernels in the
 * backends' sub-tables (kernels.h) and a rule line in pick.c. */
#include "paths.h"

#include <stdio.h>
#include "../util/common.h"

static bool fits_any(const ConvShape *s)
{
    (void)s;
    return true;
}

const ConvPathRow CONV_PATHS[CONV_PATH_COUNT] = {
    [CONV_PATH_IM2COL] = { .name = "im2col + GEMM", .fits = fits_any, .scratch = reference_scratch,
                           .forward = reference_forward, .backward = reference_backward,
                           .cpu_kernels = "im2col.c, layout.c", .cuda_twin = "im2col.cu, layout.cu" },
    [CONV_PATH_WINOGRAD] = { .name = "Winograd F(2x2,3x3)", .fp32_only = true, .fits = winograd_fits,
                             .scratch = winograd_scratch, .forward = winograd_forward, .backward = winograd_backward,
                             .cpu_kernels = "winograd.c, winograd_grad.c, winograd_tiles.c",
                             .cuda_twin = "winograd.cu, winograd_grad.cu" },
    [CONV_PATH_WINOGRAD4] = { .name = "Winograd F(4x4,3x3)", .fp32_only = true, .fits = winograd_fits,
                              .scratch = winograd4_scratch, .forward = winograd4_forward,
                              .backward = winograd4_backward,
                              .cpu_kernels = "winograd4.c, winograd_grad.c, winograd_tiles.c",
                              .cuda_twin = "winograd4.cu, winograd_grad.cu" },
    [CONV_PATH_WINOFUSED] = { .name = "fused Winograd F(2x2,3x3)", .fp32_only = true, .fits = winofused_fits,
                              .scratch = winofused_scratch, .forward = winofused_forward,
                              .backward = winofused_backward, .cpu_kernels = "conv_winofused.c, conv_direct.c",
                              .cuda_twin = "conv_winofused.cu, conv_direct.cu" },
    [CONV_PATH_DIRECT] = { .name = "direct 3x3", .fp32_only = true, .fits = direct_fits, .scratch = direct_scratch,
                           .forward = direct_forward, .backward = direct_backward,
                           .cpu_kernels = "conv_direct.c, conv_direct_grid.c", .cuda_twin = "conv_direct.cu" },
    [CONV_PATH_POINTWISE] = { .name = "pointwise 1x1", .fp32_only = true, .fits = pointwise_fits,
                              .scratch = pointwise_scratch, .forward = pointwise_forward,
                              .backward = pointwise_backward, .cpu_kernels = "conv_pointwise.c",
                              .cuda_twin = "conv_pointwise.cu" },
    /* cuDNN's algorithms, where the device has cuDNN; FP32 only: ddlab's
     * mixed precision hands FP16 GEMM operands to cuBLAS, not cuDNN */
    [CONV_PATH_CUDNN] = { .name = "cuDNN", .fp32_only = true, .fits = cudnn_fits, .absent = cudnn_absent,
                          .scratch = cudnn_scratch, .forward = cudnn_forward, .backward = cudnn_backward,
                          .cpu_kernels = "none (cuDNN runs on a GPU only)", .cuda_twin = "conv_cudnn.cu" },
    /* the kernel starts each sum from the bias */
    [CONV_PATH_DEPTHWISE] = { .name = "depthwise", .adds_bias = true, .fits = depthwise_fits,
                              .scratch = depthwise_scratch, .forward = depthwise_forward,
                              .backward = depthwise_backward, .cpu_kernels = "depthwise.c",
                              .cuda_twin = "depthwise.cu" },
};

static const ConvPathRow *row(ConvPath p)
{
    if ((int)p < 0 || p >= CONV_PATH_COUNT) ddl_die("convolution path %d does not exist", (int)p);
    return &CONV_PATHS[p];
}

/* The paths' kernels are FP32: their transformed values are no binary16
 * values, so casting them for an FP16 GEMM would round where the CPU's
 * emulation does not. */
ConvPath conv_path_now(ConvPath picked, bool fp16_gemm)
{
    return fp16_gemm && row(picked)->fp32_only ? CONV_PATH_IM2COL : picked;
}

size_t conv_scratch(const ConvKernels *k, const ConvShape *s, ConvPath path, int max_batch)
{
    size_t need = row(path)->scratch(k, s, max_batch);
    if (row(path)->fp32_only) need = DDL_MAX(need, reference_scratch(k, s, max_batch));
    return need;
}

bool conv_adds_bias(ConvPath p) { return row(p)->adds_bias; }
const char *conv_path_name(ConvPath p) { return row(p)->name; }

void conv_forward(const ConvRun *r) { row(r->path)->forward(r); }
void conv_backward(const ConvRun *r) { row(r->path)->backward(r); }

void conv_summary(const int count[CONV_PATH_COUNT], int fused_acts, ConvAlgo algo, char *buf, size_t cap)
{
    int total = 0;
    for (int p = 0; p < CONV_PATH_COUNT; p++) total += count[p];
    size_t n = (size_t)snprintf(buf, cap, "%d convolutions:", total);
    const char *sep = " ";
    /* the reference last: "the rest" in a reader's eye */
    static const ConvPath ORDER[] = { CONV_PATH_CUDNN,     CONV_PATH_WINOFUSED, CONV_PATH_WINOGRAD4,
                                      CONV_PATH_WINOGRAD,  CONV_PATH_DIRECT,    CONV_PATH_POINTWISE,
                                      CONV_PATH_DEPTHWISE, CONV_PATH_IM2COL };
    for (size_t i = 0; i < sizeof ORDER / sizeof ORDER[0] && n < cap; i++) {
        if (!count[ORDER[i]]) continue;
        bool all = count[ORDER[i]] == total;
        n += (size_t)snprintf(buf + n, cap - n, "%s%s%d %s", sep, all ? "all " : "", count[ORDER[i]],
                              row(ORDER[i])->name);
        sep = ", ";
    }
    if (n >= cap) return;
    if (fused_acts)
        snprintf(buf + n, cap - n, "; %d activations fused into batch norm or add (--conv %s)", fused_acts,
                 conv_algo_name(algo));
    else
        snprintf(buf + n, cap - n, "; no fused activation (--conv %s)", conv_algo_name(algo));
}
