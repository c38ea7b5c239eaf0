/* flat.c - the allreduce_flat row: one allreduce of the whole flat
 * gradient arena after backward. Fusion without overlap: the control that
 * separates the two effects DDP combines (lab3's bucket sweep, the
 * bench's DDP bar). */
#include "rows.h"

static void finish(Sync *s)
{
    double t0 = sync_clock(s);
    comm_allreduce(s->c, s->m->grads, s->m->nparams, COMM_FP32, COMM_AVG, s->cfg.alg);
    sync_comm_event(s, "whole gradient", t0, sync_clock(s), (double)s->m->nparams * sizeof(float));
}

const SyncRow SYNC_ROW_ALLREDUCE_FLAT = {
    .name = "allreduce_flat",
    .description = "one allreduce of the whole gradient after backward (fusion, no overlap)",
    .default_alg = COMM_ALG_MPI,
    .grads_in_place = true,
    .broadcast_buffers = false,
    .finish = finish,
};
