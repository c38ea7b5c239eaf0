/* ps_step.h - the parameter server's update, in a file of its own so that
 * a student skeleton can replace it (see ps_step.c for the contract). */
#ifndef DDL_PS_STEP_H
#define DDL_PS_STEP_H

#include "../train/optim.h"

/* The server's step of synchronous parameter-server SGD.
 *   grad_sum  the sum over `workers` workers of the gradients they pushed
 *             (opt->n floats, each worker's gradient being the mean over
 *             its own examples); overwritten (scratch).
 *   params    the server's model (opt->n floats), updated in place.
 * Afterwards params equal what one SGD step (opt's lr, momentum, weight
 * decay, Nesterov; opt's momentum buffers advance) on the MEAN gradient
 * grad_sum / workers gives. With workers == 1 that is plain SGD on the
 * single worker's gradient. workers >= 1. */
void ps_server_step(Sgd *opt, float *params, float *grad_sum, int workers);

#endif
