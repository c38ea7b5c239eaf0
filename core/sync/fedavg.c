/* fedavg.c - the fedavg row: federated averaging (fed.h; seed 004, 1.2.2;
 * McMahan et al. 2017). Every round each user runs E local epochs from the
 * global model and uploads its model; the cloud averages them weighted by
 * examples (fedavg_aggregate), users download the global model. */
#include "rows.h"

#include <string.h>
#include "../util/common.h"
#include "fed.h"
#include "fedavg.h"

void fedavg_round(FedLink *l, Mixed *mx, double examples, float *const *bufs, float *const *state_bufs)
{
    Model *m = mx->m;
    size_t n = m->nparams;
    /* a user's model is its master weights (FP16: rounded on the wire) */
    fed_upload(l, FED_PAYLOAD, mx->master, bufs, n);
    float *counts = fed_upload_count(l, (float)examples);
    if (m->nstate) fed_upload(l, FED_STATE, m->state, state_bufs, m->nstate);
    if (l->cloud) {
        fed_aggregate_counts(l, mx->master, (const float *const *)bufs, counts, n);
        if (m->nstate) fed_aggregate_counts(l, m->state, (const float *const *)state_bufs, counts, m->nstate);
        mixed_load(mx, mx->master);
        ddl_free(counts);
    }
    fed_download(l, FED_PAYLOAD, mx->master, n);
    if (m->nstate) fed_download(l, FED_STATE, m->state, m->nstate);
    if (!l->cloud) mixed_load(mx, mx->master);
}

static int setup(Sync *s, char err[256]) { return fed_setup(s, true, false, err); }

static void round_(Sync *s, SyncRound *out)
{
    FedState *f = s->priv;
    out->examples = f->trains ? fed_local_epochs(&f->local, s->cfg.fed->local_epochs) : 0;
    fedavg_round(&f->link, f->trains ? &f->local.mx : &f->cloud_mx, (double)out->examples, f->bufs, f->state_bufs);
    out->stepped = true;
}

const SyncRow SYNC_ROW_FEDAVG = {
    .name = "fedavg",
    .description = "users run E local epochs and upload their model, the cloud averages them weighted by examples",
    .offered_in = SYNC_LAB(5),
    FED_ROW_STATE,
    .rank0_serves = true,
    .setup = setup,
    .round = round_,
};
