/* path_depthwise.c - depthwise convolutions (groups = channels in =
 * channels out: MobileNetV2's) by the direct kernels of depthwise.c,
 * which need no columns or scratch: the reference would run one GEMM of
 * a single row per channel, far below BLAS's peak. The forward kernel
 * starts each sum from the bias. */
#include "paths.h"

#include "depthwise_kernels.h"
#include "kernels_cpu.h"

CONV_PATH_CODE(depthwise);

/* The CPU's table (depthwise.c; the CUDA twin's: depthwise.cu). */
const DepthwiseKernels depthwise_kernels_cpu = { .forward = depthwise_forward_cpu,
                                                 .backward = depthwise_backward_cpu };

static const DepthwiseKernels *kernels(const ConvRun *r) { return conv_path_kernels(r->k, r->path); }

bool depthwise_fits(const ConvShape *s) { return s->groups == s->cin && s->cout == s->cin; }

size_t depthwise_scratch(const ConvKernels *k, const ConvShape *s, int max_batch)
{
    (void)k, (void)s, (void)max_batch;
    return 0;
}

void depthwise_forward(const ConvRun *r)
{
    const ConvShape *s = &r->s;
    kernels(r)->forward(r->x, r->w, r->bias, r->y, r->batch, s->cin, s->h, s->w, s->k, s->stride, s->pad, s->oh,
                            s->ow);
}

void depthwise_backward(const ConvRun *r)
{
    const ConvShape *s = &r->s;
    kernels(r)->backward(r->x, r->dy, r->w, r->dw, r->dx, r->batch, s->cin, s->h, s->w, s->k, s->stride, s->pad,
                             s->oh, s->ow, r->acc);
}
