/* dsgd.h - one round of distributed SGD through the cloud (seed 004,
 * 1.2.1; fed.h): the dsgd row's round. */
#ifndef DDL_SYNC_DSGD_H
#define DDL_SYNC_DSGD_H

#include <stdbool.h>
#include "../mixed/mixed.h"
#include "../train/optim.h"
#include "fed_link.h"

/* One D-SGD round. Users: m->grads holds the scaled gradient of `batch`
 * examples (fed_local_gradient); they upload it and the batch size, then
 * download the new global model (and, FP16, the loss scale) into mx.
 * Cloud: mx/opt are the global model's; bufs holds U arrays of params
 * floats; it averages the gradients weighted by batch size, steps
 * (mixed_step: an FP16 overflow halves the scale and skips) and sends the
 * model down. Returns, on every rank, whether the cloud stepped. */
bool dsgd_round(FedLink *l, Mixed *mx, Sgd *opt, int batch, float *const *bufs);

#endif
