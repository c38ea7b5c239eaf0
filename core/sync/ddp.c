/* ddp.c - the ddp row: DDP-style bucketed gradient allreduce overlapped
 * with backward (sync.h).
 *
 * The arena is cut into buckets (buckets.c) in reverse layer order; a
 * bucket is ready once every layer holding one of its tensors has run
 * backward, and buckets launch strictly in bucket order (a ready bucket
 * waits for the ones before it), so every rank starts the same allreduces
 * in the same order (inflight.h). After every layer the hook launches what
 * became ready and progresses what is in flight; the step waits for all
 * buckets before the optimizer. */
#include "rows.h"

#include <stdio.h>
#include "../util/common.h"
#include "inflight.h"

typedef struct Ddp {
    InFlight f;                /* the buckets and their allreduces */
    int *layers;               /* per bucket: distinct layers whose tensors it holds */
    int *pending;              /* per bucket: of those, layers whose backward has not run */
    int *layer_buckets;        /* per layer: up to 2 bucket ids (-1: none) */
} Ddp;

/* Which buckets each layer feeds: a layer holds at most two tensors
 * (weight, bias), so it can be split over at most two buckets. */
static void map_layers(Ddp *d, const Model *m)
{
    d->layer_buckets = ddl_alloc(sizeof(int) * 2 * (size_t)m->nlayers);
    for (int i = 0; i < 2 * m->nlayers; i++) d->layer_buckets[i] = -1;
    for (int b = 0; b < d->f.n; b++) {
        const Bucket *k = &d->f.slice[b];
        for (int l = k->first_layer; l <= k->last_layer; l++) {
            const Layer *L = &m->layers[l];
            if (!L->param_count) continue;
            size_t lo = L->param_off, hi = L->param_off + L->param_count;
            if (hi <= k->off || lo >= k->off + k->count) continue;
            int *slot = &d->layer_buckets[2 * l];
            if (slot[0] < 0) slot[0] = b;
            else if (slot[0] != b) slot[1] = b;
            d->layers[b]++;
        }
    }
}

static int setup(Sync *s, char err[256])
{
    Ddp *d = s->priv;
    Model *m = s->m;
    size_t first = s->cfg.ddp.first_bytes, cap = s->cfg.ddp.cap_bytes;
    int nb = sync_assign_buckets(m, first, cap, NULL, 0);
    if (nb == 0) {
        snprintf(err, 256, "ddp: model %s has no parameters", m->name);
        return -1;
    }
    Bucket *b = ddl_alloc(sizeof *b * (size_t)nb);
    nb = sync_assign_buckets(m, first, cap, b, nb);
    inflight_init(&d->f, s->c, b, nb, "bucket", NULL);
    d->layers = ddl_calloc(sizeof(int) * (size_t)nb);
    d->pending = ddl_calloc(sizeof(int) * (size_t)nb);
    map_layers(d, m);
    return 0;
}

static void teardown(Sync *s)
{
    Ddp *d = s->priv;
    inflight_free(&d->f);
    ddl_free(d->layers);
    ddl_free(d->pending);
    ddl_free(d->layer_buckets);
}

static void begin_backward(Sync *s)
{
    Ddp *d = s->priv;
    inflight_arm(&d->f);
    for (int b = 0; b < d->f.n; b++) d->pending[b] = d->layers[b];
}

static void launch_ready(Sync *s, Ddp *d)
{
    while (d->f.next < d->f.n && d->pending[d->f.next] == 0) inflight_launch(s, &d->f);
}

static void layer_done(Sync *s, int layer)
{
    Ddp *d = s->priv;
    for (int k = 0; k < 2; k++) {
        int b = d->layer_buckets[2 * layer + k];
        if (b >= 0) d->pending[b]--;
    }
    launch_ready(s, d);
    inflight_progress(s, &d->f);
}

static void finish(Sync *s)
{
    Ddp *d = s->priv;
    launch_ready(s, d);
    if (d->f.next != d->f.n)
        ddl_die("ddp: bucket %d never became ready (a layer's backward did not run?)", d->f.next);
    inflight_wait(s, &d->f);
}

static int groups(const Sync *s) { return ((const Ddp *)s->priv)->f.n; }

const SyncRow SYNC_ROW_DDP = {
    .name = "ddp",
    .description = "buckets in reverse layer order, allreduced during backward (fusion + overlap)",
    .offered_in = SYNC_LAB(3),
    .state_bytes = sizeof(Ddp),
    .default_alg = COMM_ALG_MPI,
    .grads_in_place = true,
    .broadcast_buffers = true,
    .setup = setup,
    .teardown = teardown,
    .begin_backward = begin_backward,
    .layer_done = layer_done,
    .finish = finish,
    .groups = groups,
};
