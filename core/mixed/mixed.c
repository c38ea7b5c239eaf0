/* mixed.c - see mixed.h. */
#include "mixed.h"

#include <string.h>

#include "../util/common.h"

/* FP16 storage: whatever a layer just wrote is rounded to half values. */
static void round_stored(Model *m, int tensor, bool is_grad, void *ctx)
{
    (void)ctx;
    size_t n = (size_t)m->batch * shape_numel(m->tensors[tensor].shape);
    m->be->half_round(is_grad ? model_tensor_grad(m, tensor) : model_tensor(m, tensor), n);
}

void mixed_init(Mixed *mx, Model *m, bool fp16, float initial_scale, int window)
{
    memset(mx, 0, sizeof *mx);
    mx->m = m;
    mx->fp16 = fp16;
    if (fp16) {
        loss_scaler_init(&mx->ls, initial_scale, window);
        mx->master = m->be->alloc(sizeof(float) * m->nparams);
        mx->fp16_gemm = model_use_fp16_gemm(m);
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
        mx->m->be->release(mx->master);
        mx->m->storage_hook = NULL;
        mx->m->storage_ctx = NULL;
    }
    loss_scaler_free(&mx->ls);
    memset(mx, 0, sizeof *mx);
}

const char *mixed_kind(const Mixed *mx)
{
    if (!mx->fp16) return "fp32";
    if (!mx->fp16_gemm) return "fp16 (emulated by rounding on the CPU)";
    return strcmp(mx->m->be->what, "GPU") ? "fp16 (FP16 GEMMs, FP32 accumulation, on the emulated GPU)"
                                          : "fp16 (FP16 GEMMs, FP32 accumulation, on the GPU)";
}

void mixed_load(Mixed *mx, const float *w)
{
    Model *m = mx->m;
    const Backend *be = m->be;
    size_t bytes = sizeof(float) * m->nparams;
    if (w != mx->master) be->copy(mx->master, w, bytes);
    if (m->params != mx->master) be->copy(m->params, mx->master, bytes);
    if (!mx->fp16) return;
    be->half_round(m->params, m->nparams);
    if (m->params16) be->f32_to_f16(m->params, m->params16, m->nparams); /* exact: already half values */
}

double mixed_forward_backward(Mixed *mx, Trainer *t, const float *x, const int32_t *y, int n, int *correct)
{
    Model *m = mx->m;
    model_zero_grad(m);
    double loss = trainer_forward(t, x, y, n, correct);
    if (mx->fp16) {
        /* the scaled loss gradient is the first FP16 value of backward */
        size_t k = (size_t)n * (size_t)model_classes(m);
        m->be->scale(t->dlogits, k, mx->ls.scale);
        m->be->half_round(t->dlogits, k);
    }
    trainer_backward(t);
    if (mx->fp16) m->be->half_round(m->grads, m->nparams);
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
    if (!loss_scaler_update(&mx->ls, m->be->nonfinite(g, m->nparams))) return false;
    m->be->scale(g, m->nparams, 1.0f / used);
    sgd_step(opt, mx->master, g);
    mixed_load(mx, mx->master);
    mx->steps++;
    return true;
}
