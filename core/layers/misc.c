/* misc.c - dropout, flatten and residual add layers. */
#include "layers.h"

static size_t in_count(const Model *m, const Layer *l) { return (size_t)m->batch * shape_numel(m->tensors[l->in].shape); }

/* The mask for max_batch examples, kept from forward for backward. */
size_t dropout_size(const Model *m, Layer *l, int max_batch, bool cache_cols)
{
    (void)cache_cols;
    l->aux_count = (size_t)max_batch * shape_numel(m->tensors[l->in].shape);
    return 0;
}

/* Inverted dropout; the mask stream is (model seed, training step, layer),
 * so runs repeat bit for bit and ranks draw different masks only through
 * their different data, never through shared state. */
void dropout_forward(Model *m, const Layer *l)
{
    size_t n = in_count(m, l);
    const float *x = model_tensor(m, l->in);
    float *y = model_tensor(m, l->out);
    if (!m->training || l->p <= 0.0f) {
        m->be->copy(y, x, n * sizeof(float));
        return;
    }
    float *mask = m->aux + l->aux_off;
    m->be->dropout_mask(mask, n, l->p, m->seed, m->step * (uint64_t)m->nlayers + (uint64_t)(l - m->layers));
    m->be->mul(x, mask, y, n);
}

void dropout_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    if (!need_dx) return;
    size_t n = in_count(m, l);
    if (!m->training || l->p <= 0.0f)
        m->be->copy_grad(model_tensor_grad(m, l->out), model_tensor_grad(m, l->in), n, acc_dx);
    else
        m->be->mul_backward(model_tensor_grad(m, l->out), m->aux + l->aux_off, model_tensor_grad(m, l->in), n,
                            acc_dx);
}

void flatten_forward(Model *m, const Layer *l)
{
    m->be->copy(model_tensor(m, l->out), model_tensor(m, l->in), in_count(m, l) * sizeof(float));
}

void flatten_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    if (need_dx) m->be->copy_grad(model_tensor_grad(m, l->out), model_tensor_grad(m, l->in), in_count(m, l), acc_dx);
}

/* With the ReLU after it fused in (core/model/fuse.c), the add writes
 * relu(a + b) into the ReLU's output. */
static bool relu_fused(const Model *m, const Layer *l) { return m->fuse_act && l->fused_out >= 0; }

void add_forward(Model *m, const Layer *l)
{
    const float *a = model_tensor(m, l->in), *b = model_tensor(m, l->in2);
    if (relu_fused(m, l))
        m->be->add_relu(a, b, model_tensor(m, l->fused_out), in_count(m, l));
    else
        m->be->add(a, b, model_tensor(m, l->out), in_count(m, l));
}

/* Both inputs receive dy (fused: the ReLU's gradient where its output is
 * positive). A residual block's shortcut and the block input are one
 * tensor with two consumers, hence the adding there. Either operand may be
 * the model input, which gets no gradient; the other one still does. */
void add_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    if (!need_dx) return;
    size_t n = in_count(m, l);
    float *da = l->in != m->input ? model_tensor_grad(m, l->in) : NULL;
    float *db = l->in2 != m->input ? model_tensor_grad(m, l->in2) : NULL;
    bool acc_a = m->tensors[l->in].consumers > 1, acc_b = m->tensors[l->in2].consumers > 1;
    if (relu_fused(m, l)) {
        m->be->add_relu_backward(model_tensor(m, l->fused_out), model_tensor_grad(m, l->fused_out), da, acc_a, db,
                                 acc_b, n);
        return;
    }
    const float *dy = model_tensor_grad(m, l->out);
    if (da) m->be->copy_grad(dy, da, n, acc_a);
    if (db) m->be->copy_grad(dy, db, n, acc_b);
}
