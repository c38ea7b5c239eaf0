/* optim.h - SGD with momentum, weight decay and optional Nesterov over the
 * model's flat parameter arena (one call updates every parameter). */
#ifndef DDL_OPTIM_H
#define DDL_OPTIM_H

#include <stdbool.h>
#include <stddef.h>

typedef struct SgdConfig {
    float lr, momentum, weight_decay;
    bool nesterov;
} SgdConfig;

typedef struct Sgd {
    SgdConfig cfg;
    float *velocity; /* momentum buffers, same layout as the parameters */
    size_t n;
    long steps;
} Sgd;

void sgd_init(Sgd *s, const SgdConfig *cfg, size_t nparams);
void sgd_step(Sgd *s, float *params, const float *grads);
void sgd_free(Sgd *s);

#endif
