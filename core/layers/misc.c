/* misc.c - dropout, flatten and residual add layers. */
#include "layers.h"

#include <string.h>
#include "../cpu/kernels.h"

static size_t in_count(const Model *m, const Layer *l) { return (size_t)m->batch * shape_numel(m->tensors[l->in].shape); }

/* Inverted dropout; the mask stream is (model seed, training step, layer),
 * so runs repeat bit for bit and ranks draw different masks only through
 * their different data, never through shared state. */
void dropout_forward(Model *m, const Layer *l)
{
    size_t n = in_count(m, l);
    const float *x = model_tensor(m, l->in);
    float *y = model_tensor(m, l->out);
    if (!m->training || l->p <= 0.0f) {
        memcpy(y, x, n * sizeof(float));
        return;
    }
    float *mask = m->aux + l->aux_off;
    dropout_mask_cpu(mask, n, l->p, m->seed, m->step * (uint64_t)m->nlayers + (uint64_t)(l - m->layers));
    mul_cpu(x, mask, y, n);
}

void dropout_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    if (!need_dx) return;
    size_t n = in_count(m, l);
    if (!m->training || l->p <= 0.0f)
        copy_grad_cpu(model_tensor_grad(m, l->out), model_tensor_grad(m, l->in), n, acc_dx);
    else
        mul_backward_cpu(model_tensor_grad(m, l->out), m->aux + l->aux_off, model_tensor_grad(m, l->in), n, acc_dx);
}

void flatten_forward(Model *m, const Layer *l)
{
    memcpy(model_tensor(m, l->out), model_tensor(m, l->in), in_count(m, l) * sizeof(float));
}

void flatten_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    if (need_dx) copy_grad_cpu(model_tensor_grad(m, l->out), model_tensor_grad(m, l->in), in_count(m, l), acc_dx);
}

void add_forward(Model *m, const Layer *l)
{
    add_cpu(model_tensor(m, l->in), model_tensor(m, l->in2), model_tensor(m, l->out), in_count(m, l));
}

/* Both inputs receive dy. A residual block's shortcut and the block input
 * are one tensor with two consumers, hence acc_dx there. Either operand
 * may be the model input, which gets no gradient; the other one still does. */
void add_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    if (!need_dx) return;
    size_t n = in_count(m, l);
    const float *dy = model_tensor_grad(m, l->out);
    if (l->in != m->input)
        copy_grad_cpu(dy, model_tensor_grad(m, l->in), n, m->tensors[l->in].consumers > 1);
    if (l->in2 != m->input)
        copy_grad_cpu(dy, model_tensor_grad(m, l->in2), n, m->tensors[l->in2].consumers > 1);
}
