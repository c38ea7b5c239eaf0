/* conv2d_pointwise.c - 1x1 convolutions (no padding, ungrouped) by the
 * pointwise kernels (core/cpu/conv_pointwise.c says why and how): the
 * forward pass, the input gradient (the same kernel with the filters
 * transposed) and the weight gradient, on the NCHW tensors as they are.
 *
 * Stride 2 (ResNet's projection shortcuts): the layer reads only x's even
 * rows and columns, so they are gathered first (pointwise_subsample) and
 * the stride-1 kernels run on them; the input gradient is theirs put back
 * at those positions, zero elsewhere (pointwise_upsample). im2col + GEMM
 * did the same gather into its column matrix, but then ran GEMMs whose
 * inner dimension is only C, and scattered the input gradient back
 * through col2im (conv2d_pick.c has the numbers).
 *
 * Scratch: the packed filters, then (stride 2) the gathered x and the
 * gathered input gradient. */
#include "conv2d_paths.h"

#include "../common.h"
#include "../cpu/conv_pointwise_layout.h"

typedef struct Dims {
    int C, K, H, W, s, P; /* input C x H x W, stride s; P: output positions per image */
} Dims;

static Dims dims(const Model *m, const Layer *l)
{
    Shape in = m->tensors[l->in].shape, out = m->tensors[l->out].shape;
    return (Dims){ in.c, l->cout, in.h, in.w, l->stride, out.h * out.w };
}

static size_t filter_floats(const Dims *d)
{
    return DDL_MAX(pointwise_filter_floats(d->K, d->C), pointwise_filter_floats(d->C, d->K));
}

/* The forward's packed filters or the input gradient's, whichever is
 * larger; with stride 2 the gathered x and input gradient of max_batch
 * images after them. */
size_t conv2d_pointwise_size(const Model *m, const Layer *l, int max_batch)
{
    Dims d = dims(m, l);
    return filter_floats(&d) + (d.s == 2 ? (size_t)2 * max_batch * d.C * d.P : 0);
}

/* The stride-1 kernels' input: x itself, or (stride 2) its even rows and
 * columns gathered into the scratch. */
static const float *input_of(Model *m, const Layer *l, const Dims *d)
{
    const float *x = model_tensor(m, l->in);
    if (d->s == 1) return x;
    float *xs = m->scratch + filter_floats(d);
    m->be->pointwise_subsample(x, m->batch, d->C, d->H, d->W, xs);
    return xs;
}

void conv2d_pointwise_forward(Model *m, const Layer *l)
{
    Dims d = dims(m, l);
    const float *x = input_of(m, l, &d);
    m->be->pointwise_filter(m->params + l->param_off, d.K, d.C, false, m->scratch);
    m->be->pointwise_conv(x, m->scratch, m->batch, d.C, d.K, d.P, model_tensor(m, l->out), false);
}

void conv2d_pointwise_backward(Model *m, const Layer *l, float *dw, float *dx, bool acc)
{
    const Backend *be = m->be;
    Dims d = dims(m, l);
    const float *dy = model_tensor_grad(m, l->out);
    be->pointwise_filter_grad(input_of(m, l, &d), dy, m->batch, d.C, d.K, d.P, dw);
    if (!dx) return;
    be->pointwise_filter(m->params + l->param_off, d.K, d.C, true, m->scratch);
    if (d.s == 1) {
        be->pointwise_conv(dy, m->scratch, m->batch, d.K, d.C, d.P, dx, acc);
        return;
    }
    float *dxs = m->scratch + filter_floats(&d) + (size_t)m->max_batch * d.C * d.P;
    be->pointwise_conv(dy, m->scratch, m->batch, d.K, d.C, d.P, dxs, false);
    be->pointwise_upsample(dxs, m->batch, d.C, d.H, d.W, dx, acc);
}
