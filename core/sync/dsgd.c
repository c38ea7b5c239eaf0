/* dsgd.c - the dsgd row: distributed SGD through the cloud (fed.h; seed
 * 004, 1.2.1). Every round each user uploads the gradient of one local
 * batch, the cloud averages them and steps the global model, users
 * download it. */
#include "rows.h"

#include <string.h>
#include "../util/common.h"
#include "dsgd.h"
#include "fed.h"

bool dsgd_round(FedLink *l, Mixed *mx, Sgd *opt, int batch, float *const *bufs)
{
    Model *m = mx->m;
    size_t n = m->nparams;
    fed_upload(l, FED_PAYLOAD, m->grads, bufs, n);
    float *counts = fed_upload_count(l, (float)batch);
    float flags[2] = { 0, 0 }; /* stepped, loss scale */
    if (l->cloud) {
        /* scaled FP16 gradients stay scaled through the average; a user's
         * inf makes the average inf, and the cloud skips */
        fed_aggregate_counts(l, m->grads, (const float *const *)bufs, counts, n);
        flags[0] = mixed_step(mx, opt, m->grads) ? 1.0f : 0.0f;
        flags[1] = mx->ls.scale;
        ddl_free(counts);
    }
    /* the new model: FP16 runs send the working weights (half values) */
    fed_download(l, FED_PAYLOAD, l->cloud ? m->params : mx->master, n);
    if (mx->fp16) fed_download(l, FED_CONTROL, flags, 2);
    else fed_download(l, FED_CONTROL, flags, 1);
    if (!l->cloud) {
        mixed_load(mx, mx->master);
        if (mx->fp16) mx->ls.scale = flags[1];
    }
    return flags[0] != 0.0f;
}

static int setup(Sync *s, char err[256]) { return fed_setup(s, true, true, err); }

static void round_(Sync *s, SyncRound *out)
{
    FedState *f = s->priv;
    out->examples = f->trains ? fed_local_gradient(&f->local) : 0;
    Mixed *mx = f->trains ? &f->local.mx : &f->cloud_mx;
    out->stepped = dsgd_round(&f->link, mx, f->trains ? NULL : &s->t->opt, (int)out->examples, f->bufs);
}

static int rounds_per_epoch(const Sync *s) { return ((const FedState *)s->priv)->rounds_per_epoch; }

const SyncRow SYNC_ROW_DSGD = {
    .name = "dsgd",
    .description = "users upload a local batch's gradient, the cloud averages and steps, users download the model",
    .offered_in = SYNC_LAB(5),
    FED_ROW_STATE,
    .rank0_serves = true,
    .setup = setup,
    .round = round_,
    .rounds_per_epoch = rounds_per_epoch,
};
