/* conv2d_pointwise.c - 1x1 convolutions (stride 1, no padding, ungrouped)
 * by the pointwise kernels (core/cpu/conv_pointwise.c says why and how):
 * the forward pass, the input gradient (the same kernel with the filters
 * transposed) and the weight gradient, on the NCHW tensors as they are.
 * The only scratch is the packed filters. */
#include "conv2d_paths.h"

#include "../common.h"
#include "../cpu/conv_pointwise_layout.h"

typedef struct Dims {
    int C, K, P;
} Dims;

static Dims dims(const Model *m, const Layer *l)
{
    Shape in = m->tensors[l->in].shape;
    return (Dims){ in.c, l->cout, in.h * in.w };
}

/* The forward's packed filters or the input gradient's, whichever is larger. */
size_t conv2d_pointwise_size(const Model *m, const Layer *l, int max_batch)
{
    (void)max_batch;
    Dims d = dims(m, l);
    return DDL_MAX(pointwise_filter_floats(d.K, d.C), pointwise_filter_floats(d.C, d.K));
}

void conv2d_pointwise_forward(Model *m, const Layer *l)
{
    Dims d = dims(m, l);
    m->be->pointwise_filter(m->params + l->param_off, d.K, d.C, false, m->scratch);
    m->be->pointwise_conv(model_tensor(m, l->in), m->scratch, m->batch, d.C, d.K, d.P, model_tensor(m, l->out), false);
}

void conv2d_pointwise_backward(Model *m, const Layer *l, float *dw, float *dx, bool acc)
{
    const Backend *be = m->be;
    Dims d = dims(m, l);
    const float *dy = model_tensor_grad(m, l->out);
    be->pointwise_filter_grad(model_tensor(m, l->in), dy, m->batch, d.C, d.K, d.P, dw);
    if (!dx) return;
    be->pointwise_filter(m->params + l->param_off, d.K, d.C, true, m->scratch);
    be->pointwise_conv(dy, m->scratch, m->batch, d.K, d.C, d.P, dx, acc);
}
