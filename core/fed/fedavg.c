/* fedavg.c - one round of federated averaging (fed.h; seed 004, 1.2.2):
 * after their local epochs the users upload their models, the cloud
 * averages them weighted by examples (fedavg_aggregate), users download
 * the global model. */
#include <string.h>

#include "fed.h"
#include "../common.h"

static void weighted(FedLink *l, float *global, float *const *bufs, const float *counts, size_t n)
{
    int U = l->users;
        double *weights = ddl_alloc(sizeof(double) * (size_t)U);
    for (int u = 0; u < U; u++) weights[u] = counts[u];
    fedavg_aggregate(global, (const float *const *)bufs, weights, U, n);
    ddl_free(weights);
}

void fedavg_round(FedLink *l, Mixed *mx, double examples, float *const *bufs, float *const *state_bufs)
{
    Model *m = mx->m;
    size_t n = m->nparams;
    int U = l->users;
    float mine = (float)examples, *counts = NULL, **count_bufs = NULL;
    if (l->cloud) {
        counts = ddl_alloc(sizeof(float) * (size_t)U);
        count_bufs = ddl_alloc(sizeof(float *) * (size_t)U);
        for (int u = 0; u < U; u++) count_bufs[u] = counts + u;
    }
    /* a user's model is its master weights (FP16: rounded on the wire) */
    fed_upload(l, FED_PAYLOAD, mx->master, bufs, n);
    fed_upload(l, FED_CONTROL, &mine, count_bufs, 1);
    if (m->nstate) fed_upload(l, FED_STATE, m->state, state_bufs, m->nstate);
    if (l->cloud) {
        weighted(l, mx->master, bufs, counts, n);
        if (m->nstate) weighted(l, m->state, state_bufs, counts, m->nstate);
        mixed_load(mx, mx->master);
        ddl_free(counts);
        ddl_free(count_bufs);
    }
    fed_download(l, FED_PAYLOAD, mx->master, n);
    if (m->nstate) fed_download(l, FED_STATE, m->state, m->nstate);
    if (!l->cloud) mixed_load(mx, mx->master);
}
