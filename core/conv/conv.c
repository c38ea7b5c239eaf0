/* conv.c - the table of convolution paths, and what the rest of core
 * calls (conv.h). One row per path (paths.h says what a row holds): its
 * layer code and its kernel table per device, declared here from its
 * kernels header, so that a path is its CPU file, its CUDA twin, its row
 * and its test (README.md, "Adding a path"). */
#include "paths.h"

#include <stdio.h>
#include <string.h>
#include "../util/common.h"
#include "cudnn_kernels.h"
#include "depthwise_kernels.h"
#include "direct_kernels.h"
#include "pointwise_kernels.h"
#include "winofused_kernels.h"
#include "winograd_kernels.h"

CONV_PATH_CODE(winograd);
size_t winograd4_scratch(const void *kt, const ConvShape *s, int max_batch);
void winograd4_forward(const ConvRun *r, const void *kt);
void winograd4_backward(const ConvRun *r, const void *kt);
CONV_PATH_CODE(winofused);
CONV_PATH_CODE(direct);
CONV_PATH_CODE(pointwise);
CONV_PATH_CODE(depthwise);
CONV_PATH_CODE(cudnn);
const char *cudnn_absent(const void *kernels);
const char *cudnn_version(const void *kernels);

/* In the order of --conv's values after auto and reference (README.md,
 * "How a path is picked"), and of the summary line's paths, the
 * reference last there. */
const ConvPathRow CONV_PATHS[] = {
    /* the shared kernels only (kernels.h); --conv im2col: on every layer
     * a fast path could take */
    [CONV_PATH_IM2COL] = { .name = "im2col + GEMM", .key = "im2col",
                           .forces = CONV_KINDS_ALL & ~CONV_KIND(DEPTHWISE), .fits = reference_fits,
                           .scratch = reference_scratch, .forward = reference_forward,
                           .backward = reference_backward },
    { .name = "Winograd F(2x2,3x3)", .key = "winograd", .forces = CONV_KIND(3X3_S1), .fp32_only = true,
      .fits = winograd_fits, .kernels = CONV_KERNELS_OF(winograd_kernels), .scratch = winograd_scratch,
      .forward = winograd_forward, .backward = winograd_backward },
    /* F(2x2)'s fits and weight gradient. rel_error: its transforms scale
     * by up to 5 and 8 and divide by 6 and 24; measured (test_conv_paths)
     * 1.0e-5 and 1.1e-5 for the output and input gradient against im2col
     * on 128 channels at 32x32, 2e-6 to 5e-6 on 1-64 channels */
    { .name = "Winograd F(4x4,3x3)", .key = "winograd4", .forces = CONV_KIND(3X3_S1), .fp32_only = true,
      .rel_error = 1e-4,
      .fits = winograd_fits, .kernels = CONV_KERNELS_OF(winograd4_kernels), .scratch = winograd4_scratch,
      .forward = winograd4_forward, .backward = winograd4_backward },
    { .name = "fused Winograd F(2x2,3x3)", .key = "winofused", .forces = CONV_KIND(3X3_S1), .fp32_only = true,
      .fits = winofused_fits, .kernels = CONV_KERNELS_OF(winofused_kernels), .scratch = winofused_scratch,
      .forward = winofused_forward, .backward = winofused_backward },
    { .name = "direct 3x3", .key = "direct", .forces = CONV_KIND(3X3_S1) | CONV_KIND(3X3_S2), .fp32_only = true,
      .fits = direct_fits, .kernels = CONV_KERNELS_OF(direct_kernels), .scratch = direct_scratch,
      .forward = direct_forward, .backward = direct_backward },
    { .name = "pointwise 1x1", .key = "pointwise", .forces = CONV_KIND(1X1_S1) | CONV_KIND(1X1_S2),
      .fp32_only = true, .fits = pointwise_fits, .kernels = CONV_KERNELS_OF(pointwise_kernels),
      .scratch = pointwise_scratch, .forward = pointwise_forward, .backward = pointwise_backward },
    /* cuDNN's algorithms on every convolution, depthwise too, where the
     * device has cuDNN; FP32 only: ddlab's mixed precision hands FP16 GEMM
     * operands to cuBLAS, not cuDNN */
    { .name = "cuDNN", .key = "cudnn", .forces = CONV_KINDS_ALL, .fp32_only = true, .fits = cudnn_fits,
      .kernels = CONV_KERNELS_OF(cudnn_kernels), .absent = cudnn_absent, .scratch = cudnn_scratch,
      .forward = cudnn_forward, .backward = cudnn_backward },
    /* no --conv value: every value but reference and cudnn runs depthwise
     * layers here; the kernel starts each sum from the bias */
    { .name = "depthwise", .key = "depthwise", .adds_bias = true, .fits = depthwise_fits,
      .kernels = CONV_KERNELS_OF(depthwise_kernels), .scratch = depthwise_scratch,
      .forward = depthwise_forward, .backward = depthwise_backward },
};

#define ROWS ((int)(sizeof CONV_PATHS / sizeof CONV_PATHS[0]))
_Static_assert(sizeof CONV_PATHS / sizeof CONV_PATHS[0] <= CONV_PATHS_MAX, "raise CONV_PATHS_MAX (conv.h)");

int conv_path_count(void) { return ROWS; }

ConvPath conv_path_named(const char *key)
{
    for (int p = 0; key && p < ROWS; p++)
        if (!strcmp(CONV_PATHS[p].key, key)) return p;
    ddl_die("no convolution path is named %s", key ? key : "(null)");
}

static const ConvPathRow *row(ConvPath p)
{
    if (p < 0 || p >= ROWS) ddl_die("convolution path %d does not exist", (int)p);
    return &CONV_PATHS[p];
}

const void *conv_path_kernels(const ConvKernels *k, ConvPath p)
{
    const ConvPathRow *r = row(p);
    if (k->instead && k->instead[p]) return k->instead[p];
    return (int)k->device >= 0 && k->device < CONV_DEVICES ? r->kernels[k->device] : NULL;
}

/* A row without a CPU table runs on the shared kernels alone (the
 * reference): every device has them. */
const char *conv_path_absent(const ConvPathRow *p, const ConvKernels *k)
{
    if (!p->kernels[CONV_ON_CPU]) return NULL;
    const void *t = conv_path_kernels(k, (ConvPath)(p - CONV_PATHS));
    if (!t) return "this build has no kernels of that path for the device";
    return p->absent ? p->absent(t) : NULL;
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
    size_t need = row(path)->scratch(conv_path_kernels(k, path), s, max_batch);
    if (row(path)->fp32_only) need = DDL_MAX(need, reference_scratch(NULL, s, max_batch));
    return need;
}

bool conv_adds_bias(ConvPath p) { return row(p)->adds_bias; }
const char *conv_path_name(ConvPath p) { return row(p)->name; }

void conv_forward(const ConvRun *r) { row(r->path)->forward(r, conv_path_kernels(r->k, r->path)); }
void conv_backward(const ConvRun *r) { row(r->path)->backward(r, conv_path_kernels(r->k, r->path)); }

bool conv_path_usable(const ConvPathRow *p, const ConvShape *s, const ConvKernels *k)
{
    return p->fits(s) && !conv_path_absent(p, k);
}

const char *conv_cudnn_version(const ConvKernels *k)
{
    return cudnn_version(conv_path_kernels(k, conv_path_named("cudnn")));
}
