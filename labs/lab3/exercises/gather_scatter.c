/* Exercise (lab3): per-parameter gradient synchronisation, the seed's
 * Listings 3 and 4. Replaces core/sync/gather_scatter.c in `make lab3
 * IMPL=student` and in `make grade` (item "gather_scatter"; tests:
 * mpi_sync --sync gather_scatter,allreduce at 2 and 4 ranks: 4 ranks x
 * batch 16 must train exactly what 1 rank x batch 64 trains).
 *
 * Task 2a calls sync_per_parameter(s, COMM_ALG_LINEAR): the linear
 * algorithm gathers each tensor at rank 0, which sums and divides, then
 * scatters the mean back; Task 2b passes the configured algorithm.
 *
 * What you have (core/sync/gather_scatter.h, strategy.h, model.h, layer.h,
 * comm/comm.h):
 *   s->m               the model: m->nlayers layers, m->grads the flat
 *                      gradient arena;
 *   m->layers[i]       param_off, param_count: the layer's parameters are
 *                      grads[param_off .. param_off+param_count); the first
 *                      weight_count are the weight, the rest the bias (may
 *                      be 0: then there is no bias tensor);
 *   comm_allreduce(s->c, ptr, n, COMM_FP32, COMM_AVG, alg)
 *                      in-place average over the ranks;
 *   sync_clock(s)      seconds since the step began;
 *   sync_comm_event(s, name, t0, t1, bytes)
 *                      record one communication (for the timelines).
 *
 * Contract: for every layer with parameters, in model order, average the
 * weight gradient, then the bias gradient (when there is one), each with
 * one comm_allreduce(..., COMM_FP32, COMM_AVG, alg), and record each with
 * sync_comm_event named "<layer name>.weight" / "<layer name>.bias" (bytes:
 * the tensor's size in bytes, t0/t1 from sync_clock around the call).
 * Every rank must end with the same averaged gradients. */
#include <stdio.h>
#include <stdlib.h>

#include "sync/gather_scatter.h"

void sync_per_parameter(Sync *s, CommAlg alg)
{
    /* TODO: your code here (delete the two lines below). */
    fprintf(stderr, "exercise gather_scatter not implemented\n");
    abort();
}
