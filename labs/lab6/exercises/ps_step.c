/* Exercise (lab6): the parameter server's update in synchronous
 * parameter-server SGD. The P workers pushed their gradients; the server
 * has summed them and now applies one SGD step to its model, which the
 * workers then pull. Replaces core/sync/ps_step.c in `make lab6
 * IMPL=student` and in `make grade` (item "ps_step"; tests: test_ps_step,
 * 1-8 workers, plain SGD, momentum, weight decay, Nesterov, several steps;
 * mpi_ps at 2 and 3 ranks: the workers end with allreduce's weights).
 *
 * What you have (core/train/optim.h): opt->n parameters, opt->cfg (lr,
 * momentum, weight_decay, nesterov), opt->velocity (the momentum buffers:
 * only the server holds them) and sgd_step(opt, params, grads), one
 * ordinary SGD step.
 *
 * Contract (core/sync/ps_step.h):
 *   - grad_sum holds the SUM over `workers` workers of their gradients
 *     (each a mean over its own examples); you may overwrite it;
 *   - afterwards params equal one SGD step (opt's lr, momentum, weight
 *     decay, Nesterov; the momentum buffers advance) on the MEAN gradient
 *     grad_sum / workers: divide by the number of workers, once;
 *   - SGD as PyTorch defines it: g = grad + weight_decay w,
 *     v = momentum v + g, w -= lr (nesterov ? g + momentum v : v);
 *   - workers >= 1; with 1 worker it is plain SGD on its gradient. */
#include <stdio.h>
#include <stdlib.h>

#include "sync/ps_step.h"

void ps_server_step(Sgd *opt, float *params, float *grad_sum, int workers)
{
    /* TODO: your code here (delete the two lines below). */
    fprintf(stderr, "exercise ps_step not implemented\n");
    abort();
}
