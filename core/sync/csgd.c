/* csgd.c - the csgd row: centralized SGD, the baseline of seed 004 (fed.h):
 * one process, plain SGD (FP32 or FP16 mixed precision) on the whole
 * training set; a round is one epoch. No link, no bytes. */
#include "rows.h"

#include "fed.h"

static int setup(Sync *s, char err[256]) { return fed_setup(s, false, false, err); }

static void round_(Sync *s, SyncRound *out)
{
    FedState *f = s->priv;
    out->examples = fed_local_epochs(&f->local, 1);
    out->stepped = true;
}

const SyncRow SYNC_ROW_CSGD = {
    .name = "csgd",
    .description = "one process: SGD on the whole training set (the baseline)",
    .state_bytes = sizeof(FedState),
    .default_alg = COMM_ALG_MPI,
    .one_process = true,
    .setup = setup,
    .teardown = fed_teardown,
    .save = fed_save,
    .load = fed_load,
    .round = round_,
};
