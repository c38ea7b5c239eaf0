/* batchnorm.c - BatchNorm2d (and 1d on vectors: h = w = 1).
 *
 * Modes, as PyTorch: training uses batch statistics and (when tracking)
 * updates the running ones; eval uses the running statistics. With
 * tracking off (seed 001's "BN running stats off") batch statistics are
 * used in both modes and no running statistics exist. The per-channel mean
 * and 1/std used in forward are kept in the aux arena for backward. A
 * ReLU/ReLU6 fused in (core/model/fuse.c): the output is the activation's
 * tensor, and its gradient is what backward starts from. */
#include "layers.h"

#include "../util/bn_act.h"

static bool uses_batch_stats(const Model *m) { return m->training || !m->bn_track_stats; }

size_t batchnorm_size(const Model *m, Layer *l, int max_batch, bool cache_cols)
{
    (void)max_batch;
    (void)cache_cols;
    l->aux_count = 2 * (size_t)m->tensors[l->in].shape.c; /* saved mean, 1/std */
    return 0;
}

void batchnorm_init(const Model *m, const Layer *l, float *params, float *state, uint64_t seed, uint64_t *stream)
{
    (void)m;
    (void)seed;
    init_batchnorm(params + l->param_off, state + l->state_off, (int)l->weight_count, stream);
}

void batchnorm_forward(Model *m, const Layer *l)
{
    Shape s = m->tensors[l->in].shape;
    int c = s.c, p = s.h * s.w;
    const float *gamma = m->params + l->param_off, *beta = gamma + c;
    float *save_mean = m->aux + l->aux_off, *save_invstd = save_mean + c;
    float *run_mean = m->bn_track_stats ? m->state + l->state_off : NULL;
    float *run_var = run_mean ? run_mean + c : NULL;
    const float *x = model_tensor(m, l->in);
    bool fused = m->fuse_act && l->fused_out >= 0;
    int act = fused ? l->fused_act : BN_ACT_NONE;
    float *y = model_tensor(m, fused ? l->fused_out : l->out);
    if (uses_batch_stats(m)) {
        m->be->batchnorm_forward_train(x, y, gamma, beta, m->batch, c, p, l->eps, l->momentum,
                                       m->training ? run_mean : NULL, m->training ? run_var : NULL, save_mean,
                                       save_invstd, act);
    } else {
        m->be->batchnorm_eval_stats(run_mean, run_var, c, l->eps, save_mean, save_invstd);
        m->be->batchnorm_forward_eval(x, y, gamma, beta, m->batch, c, p, l->eps, run_mean, run_var, act);
    }
}

void batchnorm_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    Shape s = m->tensors[l->in].shape;
    int c = s.c, p = s.h * s.w;
    const float *gamma = m->params + l->param_off, *beta = gamma + c;
    float *dgamma = m->grads + l->param_off, *dbeta = dgamma + c;
    const float *save_mean = m->aux + l->aux_off, *save_invstd = save_mean + c;
    bool fused = m->fuse_act && l->fused_out >= 0;
    m->be->batchnorm_backward(model_tensor(m, l->in), model_tensor_grad(m, fused ? l->fused_out : l->out),
                              need_dx ? model_tensor_grad(m, l->in) : NULL, gamma, dgamma, dbeta, m->batch, c, p,
                              save_mean, save_invstd, uses_batch_stats(m), acc_dx, beta,
                              fused ? l->fused_act : BN_ACT_NONE);
}
