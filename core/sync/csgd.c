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
    .offered_in = SYNC_LAB(5),
    FED_ROW_STATE,
    .one_process = true,
    .setup = setup,
    .round = round_,
};
