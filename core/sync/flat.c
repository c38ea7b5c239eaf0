/* flat.c - the allreduce_flat row: one allreduce of the whole flat
 * gradient arena after backward. Fusion without overlap: the control that
 * separates the two effects DDP combines (lab3's bucket sweep, the
 * bench's DDP bar).
 *
 * Why a barrier first: the ranks leave backward a few milliseconds apart,
 * and Open MPI's allreduce of one large message entered apart runs slower
 * than the skew alone explains. Measured on 2 emulated hosts at 1 Gbit/s
 * (labs/net, TCP), 37 MB (VGG-11), 12 rounds: completed 329-332 ms after
 * the later rank entered it, against 318-321 ms for barrier + allreduce;
 * inside the training step the row's exposed sync went from 333-345 to
 * 320-324 ms. The per-parameter rows get the same alignment for free from
 * their first, 7 KB allreduce. The wait is its own trace event, so the
 * time spent waiting for the slowest rank shows apart from the transfer. */
#include "rows.h"

static void finish(Sync *s)
{
    if (s->world > 1) {
        double t0 = sync_clock(s);
        MPI_Barrier(s->c->mpi);
        sync_comm_event(s, "ranks arrive", t0, sync_clock(s), 0.0);
    }
    sync_average_arena(s, s->m->grads, "whole gradient");
}

const SyncRow SYNC_ROW_ALLREDUCE_FLAT = {
    .name = "allreduce_flat",
    .description = "a barrier, then one allreduce of the whole gradient after backward (fusion, no overlap)",
    .offered_in = SYNC_LAB(3),
    .default_alg = COMM_ALG_MPI,
    .grads_in_place = true,
    .broadcast_buffers = false,
    .finish = finish,
};
