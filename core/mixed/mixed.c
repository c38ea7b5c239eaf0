/* mixed.c - see mixed.h. */
#include "mixed.h"

#include <string.h>

#include "../common.h"

/* FP16 storage: whatever a layer just wrote is rounded to half values. */
static void round_stored(Model *m, int tensor, bool is_grad, void *ctx)
{
    (void)ctx;
    size_t n = (size_t)m->batch * shape_numel(m->tensors[tensor].shape);
    half_round_array(is_grad ? model_tensor_grad(m, tensor) : model_tensor(m, tensor), n);
}

void mixed_init(Mixed *mx, Model *m, bool fp16, float initial_scale, int window)
{
    memset(mx, 0, sizeof *mx);
    mx->m = m;
    mx->fp16 = fp16;
    if (fp16) {
        loss_scaler_init(&mx->ls, initial_scale, window);
        mx->master = ddl_alloc(sizeof(float) * m->nparams);
        mixed_load(mx, m->params);
        m->storage_hook = round_stored;
        m->storage_ctx = mx;
    } else {
        loss_scaler_init(&mx->ls, 1.0f, window);
        mx->master = m->params;
    }
}

void mixed_free(Mixed *mx)
{
    if (mx->fp16) {
        ddl_free(mx->master);
        mx->m->storage_hook = NULL;
        mx->m->storage_ctx = NULL;
    }
    loss_scaler_free(&mx->ls);
    memset(mx, 0, sizeof *mx);
}

void mixed_load(Mixed *mx, const float *w)
{
    Model *m = mx->m;
    if (w != mx->master) memmove(mx->master, w, sizeof(float) * m->nparams);
    if (mx->fp16) {
        if (m->params != mx->master) memcpy(m->params, mx->master, sizeof(float) * m->nparams);
        half_round_array(m->params, m->nparams);
    } else if (m->params != mx->master) {
        memcpy(m->params, mx->master, sizeof(float) * m->nparams);
    }
}

double mixed_forward_backward(Mixed *mx, Trainer *t, const float *x, const int32_t *y, int n, int *correct)
{
    Model *m = mx->m;
    model_zero_grad(m);
    double loss = trainer_forward(t, x, y, n, correct);
    if (mx->fp16) {
        /* the scaled loss gradient is the first FP16 value of backward */
        size_t k = (size_t)n * (size_t)model_classes(m);
        for (size_t i = 0; i < k; i++) t->dlogits[i] *= mx->ls.scale;
        half_round_array(t->dlogits, k);
    }
    trainer_backward(t);
    if (mx->fp16) half_round_array(m->grads, m->nparams);
    return loss;
}

bool mixed_step(Mixed *mx, Sgd *opt, float *g)
{
    Model *m = mx->m;
    if (!mx->fp16) {
        loss_scaler_update(&mx->ls, false);
        sgd_step(opt, m->params, g);
        mx->steps++;
        return true;
    }
    /* unscale by the scale the gradients were made with: the update may
     * double it */
    float used = mx->ls.scale;
    if (!loss_scaler_update(&mx->ls, !all_finite(g, m->nparams))) return false;
    float inv = 1.0f / used;
    for (size_t i = 0; i < m->nparams; i++) g[i] *= inv;
    sgd_step(opt, mx->master, g);
    mixed_load(mx, mx->master);
    mx->steps++;
    return true;
}
