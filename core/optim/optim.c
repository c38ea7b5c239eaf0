/* optim.c - see optim.h; the arithmetic is sgd_update_cpu. */
#include "optim.h"

#include "../common.h"
#include "../cpu/kernels.h"

void sgd_init(Sgd *s, const SgdConfig *cfg, size_t nparams)
{
    if (cfg->nesterov && cfg->momentum <= 0.0f) ddl_die("Nesterov momentum requires momentum > 0");
    s->cfg = *cfg;
    s->n = nparams;
    s->steps = 0;
    s->velocity = ddl_calloc(sizeof(float) * nparams);
}

void sgd_step(Sgd *s, float *params, const float *grads)
{
    sgd_update_cpu(params, grads, s->velocity, s->n, s->cfg.lr, s->cfg.momentum, s->cfg.weight_decay,
                   s->cfg.nesterov);
    s->steps++;
}

void sgd_free(Sgd *s)
{
    ddl_free(s->velocity);
    s->velocity = NULL;
}
