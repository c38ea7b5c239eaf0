/* per_parameter.c - the gather_scatter and allreduce rows: after
 * backward, one blocking allreduce per parameter tensor in model order, as
 * the seed's loops over model.parameters() (lab3 Tasks 2a and 2b). 2a
 * gathers each tensor at rank 0, which sums, divides and scatters the mean
 * back: the comm layer's linear algorithm, whatever SyncConfig.alg says. */
#include "rows.h"

#include "gather_scatter.h"

static void finish_linear(Sync *s) { sync_per_parameter(s, COMM_ALG_LINEAR); }
static void finish_alg(Sync *s) { sync_per_parameter(s, s->cfg.alg); }

const SyncRow SYNC_ROW_GATHER_SCATTER = {
    .name = "gather_scatter",
    .description = "per parameter: gather to rank 0, mean, scatter back (seed Listing 3)",
    .offered_in = SYNC_LAB(3),
    .default_alg = COMM_ALG_MPI,
    .finish = finish_linear,
};

const SyncRow SYNC_ROW_ALLREDUCE = {
    .name = "allreduce",
    .description = "per parameter: allreduce, then divide by the rank count (seed Listing 4)",
    .offered_in = SYNC_LAB(3),
    .default_alg = COMM_ALG_MPI,
    .grads_in_place = true,
    .finish = finish_alg,
};
