/* ddp.c - DDP-style bucketed gradient allreduce overlapped with backward.
 *
 * Buckets are launched strictly in bucket order (a ready bucket waits for
 * the ones before it), so every rank starts the same allreduces in the
 * same order whatever its timing, which the non-blocking operations need
 * to match. After every layer the hook calls comm_test on each bucket in
 * flight: that is where the messages of an allreduce get posted, received
 * and reduced while backward is still running. */
#include "sync_impl.h"

#include <stdio.h>
#include "../common.h"

int ddp_setup(Sync *s, char err[256])
{
    Model *m = s->m;
    int nb = sync_assign_buckets(m, s->cfg.first_bucket_bytes, s->cfg.bucket_cap_bytes, NULL, 0);
    if (nb == 0) {
        snprintf(err, 256, "ddp: model %s has no parameters", m->name);
        return -1;
    }
    s->buckets = ddl_alloc(sizeof *s->buckets * (size_t)nb);
    s->nbuckets = sync_assign_buckets(m, s->cfg.first_bucket_bytes, s->cfg.bucket_cap_bytes, s->buckets, nb);
    s->bs = ddl_alloc(sizeof *s->bs * (size_t)nb);
    s->layer_buckets = ddl_alloc(sizeof(int) * 2 * (size_t)m->nlayers);
    for (int i = 0; i < 2 * m->nlayers; i++) s->layer_buckets[i] = -1;
    for (int b = 0; b < nb; b++) {
        const Bucket *k = &s->buckets[b];
        s->bs[b] = (SyncBucketState){ .req = comm_request_new(s->c) };
        /* A layer holds at most two tensors (weight, bias), so it can be
         * split over at most two buckets. */
        for (int l = k->first_layer; l <= k->last_layer; l++) {
            const Layer *L = &m->layers[l];
            if (!L->param_count) continue;
            size_t lo = L->param_off, hi = L->param_off + L->param_count;
            if (hi <= k->off || lo >= k->off + k->count) continue;
            int *slot = &s->layer_buckets[2 * l];
            if (slot[0] < 0) slot[0] = b;
            else if (slot[0] != b) slot[1] = b;
            s->bs[b].layers++;
        }
    }
    return 0;
}

void ddp_teardown(Sync *s)
{
    for (int b = 0; b < s->nbuckets; b++) comm_request_free(s->bs[b].req);
    ddl_free(s->bs);
    ddl_free(s->buckets);
    ddl_free(s->layer_buckets);
    s->bs = NULL;
    s->buckets = NULL;
    s->layer_buckets = NULL;
    s->nbuckets = 0;
}

void ddp_begin_backward(Sync *s)
{
    for (int b = 0; b < s->nbuckets; b++) {
        SyncBucketState *st = &s->bs[b];
        st->pending = st->layers;
        st->launched = st->done = false;
        st->t0 = st->t1 = 0.0;
    }
    s->next_launch = 0;
}

static void launch_ready(Sync *s)
{
    while (s->next_launch < s->nbuckets && s->bs[s->next_launch].pending == 0) {
        int b = s->next_launch++;
        SyncBucketState *st = &s->bs[b];
        const Bucket *k = &s->buckets[b];
        st->t0 = sync_clock(s);
        st->launched = true;
        comm_iallreduce(st->req, s->m->grads + k->off, k->count, COMM_FP32, COMM_AVG, s->cfg.alg);
    }
}

static void bucket_done(Sync *s, int b, double t)
{
    SyncBucketState *st = &s->bs[b];
    st->done = true;
    st->t1 = t;
    char name[40];
    snprintf(name, sizeof name, "bucket %d", b);
    sync_comm_event(s, name, st->t0, st->t1, (double)s->buckets[b].count * sizeof(float));
}

static void progress(Sync *s)
{
    for (int b = 0; b < s->next_launch; b++)
        if (!s->bs[b].done && comm_test(s->bs[b].req)) bucket_done(s, b, sync_clock(s));
}

void ddp_layer_done(Sync *s, int layer)
{
    for (int k = 0; k < 2; k++) {
        int b = s->layer_buckets[2 * layer + k];
        if (b >= 0) s->bs[b].pending--;
    }
    launch_ready(s);
    progress(s);
}

void ddp_finish(Sync *s)
{
    launch_ready(s);
    if (s->next_launch != s->nbuckets)
        ddl_die("ddp: bucket %d never became ready (a layer's backward did not run?)", s->next_launch);
    /* Poll every bucket rather than waiting on each in turn, so each end
     * time is when that bucket finished, not when its turn came. */
    for (bool all = false; !all;) {
        all = true;
        for (int b = 0; b < s->nbuckets; b++) {
            if (s->bs[b].done) continue;
            if (comm_test(s->bs[b].req)) bucket_done(s, b, sync_clock(s));
            else all = false;
        }
    }
}
