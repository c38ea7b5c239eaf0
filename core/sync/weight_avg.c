/* weight_avg.c - the weight_avg row: every rank takes its own SGD step on
 * its shard, then the weights are averaged over all ranks by one
 * allreduce with the configured algorithm (seed 002: Genann networks
 * averaged after every step; lab2 compares the algorithms this way). With
 * plain SGD (no momentum) that equals averaging the gradients; what it
 * adds is that each algorithm's rounding shows in the weights. */
#include "rows.h"

static void after_step(Sync *s) { sync_average_arena(s, s->m->params, "weights"); }

const SyncRow SYNC_ROW_WEIGHT_AVG = {
    .name = "weight_avg",
    .description = "after every local SGD step, the weights averaged over all ranks (one allreduce)",
    .default_alg = COMM_ALG_MPI,
    .after_step = after_step,
};
