/* optim.c - see optim.h; the arithmetic is the backend's sgd_update. */
#include "optim.h"

#include "../backend/registry.h"
#include "../util/common.h"

void sgd_init_on(Sgd *s, const SgdConfig *cfg, const Backend *be, size_t nparams)
{
    if (cfg->nesterov && cfg->momentum <= 0.0f) ddl_die("Nesterov momentum requires momentum > 0");
    s->cfg = *cfg;
    s->be = be;
    s->n = nparams;
    s->steps = 0;
    s->velocity = be->alloc(sizeof(float) * nparams);
}

void sgd_init(Sgd *s, const SgdConfig *cfg, size_t nparams) { sgd_init_on(s, cfg, backend_cpu(), nparams); }

void sgd_step(Sgd *s, float *params, const float *grads)
{
    s->be->sgd_update(params, grads, s->velocity, s->n, s->cfg.lr, s->cfg.momentum, s->cfg.weight_decay,
                      s->cfg.nesterov);
    s->steps++;
}

void sgd_free(Sgd *s)
{
    if (s->be) s->be->release(s->velocity);
    s->velocity = NULL;
}
