/* ps_step.c - the parameter server's update (contract in ps_step.h).
 *
 * Average first, then one ordinary SGD step: the server is the only holder
 * of the optimizer state (momentum buffers), so the workers never need it.
 * Dividing by the worker count once (not each worker's share separately)
 * rounds like an allreduce with Average, so 2 workers give the same bits
 * as data parallelism over 2 ranks. */
#include "ps_step.h"

void ps_server_step(Sgd *opt, float *params, float *grad_sum, int workers)
{
    const float p = (float)workers;
    for (size_t i = 0; i < opt->n; i++) grad_sum[i] /= p;
    sgd_step(opt, params, grad_sum);
}
