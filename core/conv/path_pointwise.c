/* path_pointwise.c - 1x1 convolutions (no padding, ungrouped) by the
 * pointwise kernels (conv_pointwise.c says why and how): the forward
 * pass, the input gradient (the same kernel with the filters transposed)
 * and the weight gradient, on the NCHW tensors as they are.
 *
 * Stride 2 (ResNet's projection shortcuts): the layer reads only x's even
 * rows and columns, so they are gathered first (pointwise_subsample) and
 * the stride-1 kernels run on them; the input gradient is theirs put back
 * at those positions, zero elsewhere (pointwise_upsample). im2col + GEMM
 * did the same gather into its column matrix, but then ran GEMMs whose
 * inner dimension is only C, and scattered the input gradient back
 * through col2im (bench/RESULTS.md has the numbers).
 *
 * Scratch: the packed filters, then (stride 2) the gathered x and the
 * gathered input gradient. */
#include "paths.h"

#include "kernels_cpu.h"
#include "pointwise_kernels.h"

CONV_PATH_CODE(pointwise);

/* The CPU's table (conv_pointwise.c; the CUDA twin's: conv_pointwise.cu). */
const PointwiseKernels pointwise_kernels_cpu = {
    .filter = pointwise_filter_cpu, .conv = pointwise_conv_cpu, .filter_grad = pointwise_filter_grad_cpu,
    .subsample = pointwise_subsample_cpu, .upsample = pointwise_upsample_cpu,
};

#include "../util/common.h"
#include "conv_pointwise_layout.h"

typedef struct Dims {
    int C, K, H, W, s, P; /* input C x H x W, stride s; P: output positions per image */
} Dims;

bool pointwise_fits(const ConvShape *s)
{
    return s->k == 1 && s->pad == 0 && s->groups == 1 && (s->stride == 1 || s->stride == 2);
}

static Dims dims(const ConvShape *s) { return (Dims){ s->cin, s->cout, s->h, s->w, s->stride, s->oh * s->ow }; }

static size_t filter_floats(const Dims *d)
{
    return DDL_MAX(pointwise_filter_floats(d->K, d->C), pointwise_filter_floats(d->C, d->K));
}

/* The forward's packed filters or the input gradient's, whichever is
 * larger; with stride 2 the gathered x and input gradient of max_batch
 * images after them. */
size_t pointwise_scratch(const ConvKernels *k, const ConvShape *s, int max_batch)
{
    Dims d = dims(s);
    return filter_floats(&d) + (d.s == 2 ? (size_t)2 * max_batch * d.C * d.P : 0);
}

/* The stride-1 kernels' input: x itself, or (stride 2) its even rows and
 * columns gathered into the scratch. */
static const float *input_of(const ConvRun *r, const PointwiseKernels *k, const Dims *d)
{
    if (d->s == 1) return r->x;
    float *xs = r->scratch + filter_floats(d);
    k->subsample(r->x, r->batch, d->C, d->H, d->W, xs);
    return xs;
}

void pointwise_forward(const ConvRun *r)
{
    const PointwiseKernels *k = conv_path_kernels(r->k, r->path);
    Dims d = dims(&r->s);
    const float *x = input_of(r, k, &d);
    k->filter(r->w, d.K, d.C, false, r->scratch);
    k->conv(x, r->scratch, r->batch, d.C, d.K, d.P, r->y, false);
}

void pointwise_backward(const ConvRun *r)
{
    const PointwiseKernels *k = conv_path_kernels(r->k, r->path);
    Dims d = dims(&r->s);
    k->filter_grad(input_of(r, k, &d), r->dy, r->batch, d.C, d.K, d.P, r->dw);
    if (!r->dx) return;
    k->filter(r->w, d.K, d.C, true, r->scratch);
    if (d.s == 1) {
        k->conv(r->dy, r->scratch, r->batch, d.K, d.C, d.P, r->dx, r->acc);
        return;
    }
    float *dxs = r->scratch + filter_floats(&d) + (size_t)r->max_batch * d.C * d.P;
    k->conv(r->dy, r->scratch, r->batch, d.K, d.C, d.P, dxs, false);
    k->upsample(dxs, r->batch, d.C, d.H, d.W, r->dx, r->acc);
}
