/* linear.c - y = x W^T + b with W as PyTorch stores it: [out][in]. The
 * input may be any shape; each example is read as a flat vector. */
#include "layers.h"

void linear_init(const Model *m, const Layer *l, float *params, float *state, uint64_t seed, uint64_t *stream)
{
    (void)state;
    init_weights(params + l->param_off, l->weight_count, l->param_count - l->weight_count, l->cout, 0,
                 m->linear_init == INIT_NORMAL_001 ? INIT_NORMAL_001 : INIT_TORCH_DEFAULT, seed, stream);
}

void linear_forward(Model *m, const Layer *l)
{
    int n = m->batch;
    int in = (int)shape_numel(m->tensors[l->in].shape), out = l->cout;
    const float *x = model_tensor(m, l->in), *w = m->params + l->param_off;
    float *y = model_tensor(m, l->out);
    layer_gemm(m, false, true, n, out, in, 1.0f, x, in, w, in, 0.0f, y, out);
    if (l->bias) m->be->bias_add(y, w + l->weight_count, n, out, 1);
}

void linear_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    int n = m->batch;
    int in = (int)shape_numel(m->tensors[l->in].shape), out = l->cout;
    const float *x = model_tensor(m, l->in), *w = m->params + l->param_off;
    const float *dy = model_tensor_grad(m, l->out);
    float *dw = m->grads + l->param_off;
    layer_gemm(m, true, false, out, in, n, 1.0f, dy, out, x, in, 1.0f, dw, in);
    if (l->bias) m->be->bias_grad(dy, dw + l->weight_count, n, out, 1);
    if (need_dx)
        layer_gemm(m, false, false, n, in, out, 1.0f, dy, out, w, in, acc_dx ? 1.0f : 0.0f,
                   model_tensor_grad(m, l->in), in);
}
