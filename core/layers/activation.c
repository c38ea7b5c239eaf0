/* activation.c - the element-wise activation layers (relu, relu6, ...:
 * each ACTIVATION of core/cpu/kernels.def), shape-preserving, each through
 * its two kernels of the backend. A layer fused into the batch norm or add
 * before it (core/model/fuse.c: relu and relu6) does nothing: that layer
 * wrote its output and takes its gradient. */
#include "layers.h"

static size_t count(const Model *m, const Layer *l) { return (size_t)m->batch * shape_numel(m->tensors[l->in].shape); }

/* Every activation runs through its own two kernels of the backend. */
static void act_forward(Model *m, const Layer *l, void (*f)(const float *x, float *y, size_t n))
{
    if (l->fused && m->fuse_act) return;
    f(model_tensor(m, l->in), model_tensor(m, l->out), count(m, l));
}

static void act_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx,
                         void (*f)(const float *x, const float *dy, float *dx, size_t n, bool acc))
{
    if (need_dx && !(l->fused && m->fuse_act))
        f(model_tensor(m, l->in), model_tensor_grad(m, l->out), model_tensor_grad(m, l->in), count(m, l), acc_dx);
}

/* relu_forward (through the backend's relu_forward), relu_backward, ...:
 * one pair per ACTIVATION of core/cpu/kernels.def. */
#define ACTIVATION(KIND, name)                                                                  \
    void name##_forward(Model *m, const Layer *l) { act_forward(m, l, m->be->name##_forward); } \
    void name##_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)                   \
    {                                                                                           \
        act_backward(m, l, need_dx, acc_dx, m->be->name##_backward);                            \
    }
#include "../cpu/kernels.def"
