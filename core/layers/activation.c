/* activation.c - relu and relu6 layers (elementwise, shape-preserving).
 * A layer fused into the batch norm or add before it (core/model/fuse.c)
 * does nothing: that layer wrote its output and takes its gradient. */
#include "layers.h"

static size_t count(const Model *m, const Layer *l) { return (size_t)m->batch * shape_numel(m->tensors[l->in].shape); }

void relu_forward(Model *m, const Layer *l)
{
    if (l->fused && m->fuse_act) return;
    m->be->relu_forward(model_tensor(m, l->in), model_tensor(m, l->out), count(m, l));
}

void relu_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    if (need_dx && !(l->fused && m->fuse_act))
        m->be->relu_backward(model_tensor(m, l->in), model_tensor_grad(m, l->out), model_tensor_grad(m, l->in),
                             count(m, l), acc_dx);
}

void relu6_forward(Model *m, const Layer *l)
{
    if (l->fused && m->fuse_act) return;
    m->be->relu6_forward(model_tensor(m, l->in), model_tensor(m, l->out), count(m, l));
}

void relu6_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    if (need_dx && !(l->fused && m->fuse_act))
        m->be->relu6_backward(model_tensor(m, l->in), model_tensor_grad(m, l->out), model_tensor_grad(m, l->in),
                              count(m, l), acc_dx);
}
