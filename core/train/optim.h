/* optim.h - SGD with momentum, weight decay and optional Nesterov over the
 * model's flat parameter arena (one call updates every parameter), on the
 * backend that holds the parameters. */
#ifndef DDL_OPTIM_H
#define DDL_OPTIM_H

#include <stdbool.h>
#include <stddef.h>
#include "../backend/backend.h"

typedef struct SgdConfig {
    float lr, momentum, weight_decay;
    bool nesterov;
} SgdConfig;

typedef struct Sgd {
    SgdConfig cfg;
    const Backend *be; /* where params, grads and the velocity live */
    float *velocity;   /* momentum buffers, same layout as the parameters */
    size_t n;
    long steps;
} Sgd;

/* Parameters in be's memory (a model's: sgd_init_on(s, cfg, m->be, m->nparams)). */
void sgd_init_on(Sgd *s, const SgdConfig *cfg, const Backend *be, size_t nparams);
/* Parameters in host memory (a parameter server's, a cloud's). */
void sgd_init(Sgd *s, const SgdConfig *cfg, size_t nparams);
void sgd_step(Sgd *s, float *params, const float *grads);
void sgd_free(Sgd *s);

#endif
