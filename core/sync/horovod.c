/* horovod.c - Horovod-style tensor fusion over ddlab's ring allreduce.
 *
 * Horovod (0.28, the version mimicked) runs a background loop: every cycle
 * (HOROVOD_CYCLE_TIME, default 1 ms) the ranks agree on which gradient
 * tensors are ready on all of them, pack those into a fusion buffer up to
 * HOROVOD_FUSION_THRESHOLD bytes (default 128 MiB; 0 disables fusion) and
 * allreduce each buffer, then copy the results back.
 *
 * ddlab has no background thread (sync.h), and the non-blocking allreduces
 * need every rank to start the same operations in the same order. So the
 * agreement Horovod negotiates each cycle is made once, the way Horovod's
 * response cache settles into a fixed pattern after the first steps:
 *   step 0   one cycle at the end of backward: every tensor, fused in
 *            backward order into groups of at most the threshold;
 *   step 1+  rank 0's gradient-ready times of step 0 decide the cycle of
 *            each tensor (cycle k = ready within [k, k+1) cycle times of
 *            backward's start; cycle time 0: each layer is its own cycle);
 *            tensors of one cycle are fused up to the threshold; the plan
 *            is broadcast once and used by every rank from then on.
 * A group is launched (non-blocking ring allreduce, Average) from the
 * gradient-ready hook as soon as its last tensor is ready, and progressed
 * after every later layer, as Horovod's loop does; groups start strictly
 * in plan order. Horovod would launch at the next cycle tick, up to one
 * cycle later: that delay is not added here.
 *
 * Tensors in backward order are contiguous in the gradient arena (it is in
 * forward order), so a fused group is a slice of it: the arena serves as
 * the fusion buffer and Horovod's two memcpys per group are not paid.
 * FP16 (Compression.fp16): each group is compressed into a half copy of
 * its slice at launch, allreduced as halves (accumulated in FP32 by the
 * comm layer) and decompressed when it completes. The threshold counts the
 * bytes that travel (halves when compressed), as Horovod fuses the
 * compressed tensors. */
#include "sync_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "../common.h"
#include "../half.h"

/* Fusion groups of the model's parameter tensors, walked in backward
 * order. cycle_of(layer) says which cycle a layer's gradients became ready
 * in (NULL: all in one cycle). Returns the group count; writes up to cap. */
static int plan_groups(const Model *m, const int *cycle_of, size_t threshold, size_t elem, Bucket *out, int cap)
{
    int np = model_param_list(m, NULL, 0);
    ParamInfo *p = ddl_alloc(sizeof *p * (size_t)(np > 0 ? np : 1));
    model_param_list(m, p, np);
    int n = 0, gcycle = 0;
    size_t gbytes = 0;
    for (int i = np - 1; i >= 0; i--) {
        int cyc = cycle_of ? cycle_of[p[i].layer] : 0;
        size_t bytes = p[i].count * elem;
        bool fresh = n == 0 || cyc != gcycle || threshold == 0 || gbytes + bytes > threshold;
        if (fresh) {
            if (n < cap) out[n] = (Bucket){ .off = p[i].off, .count = 0, .first_layer = p[i].layer,
                                            .last_layer = p[i].layer, .nparams = 0 };
            n++;
            gcycle = cyc;
            gbytes = 0;
        }
        if (n <= cap) {
            Bucket *g = &out[n - 1];
            g->off = p[i].off; /* walking backwards: the group starts at its latest tensor */
            g->count += p[i].count;
            g->first_layer = p[i].layer;
            g->nparams++;
        }
        gbytes += bytes;
    }
    ddl_free(p);
    return n;
}

static void install_plan(Sync *s, const int *cycle_of)
{
    size_t elem = s->cfg.fp16 ? 2 : 4;
    for (int b = 0; b < s->nbuckets; b++) comm_request_free(s->bs[b].req);
    ddl_free(s->bs);
    ddl_free(s->buckets);
    int nb = plan_groups(s->m, cycle_of, s->cfg.fusion_bytes, elem, NULL, 0);
    s->buckets = ddl_alloc(sizeof *s->buckets * (size_t)nb);
    s->nbuckets = plan_groups(s->m, cycle_of, s->cfg.fusion_bytes, elem, s->buckets, nb);
    s->bs = ddl_alloc(sizeof *s->bs * (size_t)nb);
    for (int b = 0; b < nb; b++) s->bs[b] = (SyncBucketState){ .req = comm_request_new(s->c) };
}

int horovod_setup(Sync *s, char err[256])
{
    if (model_param_list(s->m, NULL, 0) == 0) {
        snprintf(err, 256, "horovod: model %s has no parameters", s->m->name);
        return -1;
    }
    if (!(s->cfg.cycle_ms >= 0)) {
        snprintf(err, 256, "horovod: cycle time must be >= 0 ms (got %g)", s->cfg.cycle_ms);
        return -1;
    }
    s->layer_ready = ddl_alloc(sizeof *s->layer_ready * (size_t)s->m->nlayers);
    if (s->cfg.fp16) s->half = ddl_alloc(sizeof *s->half * s->m->nparams);
    install_plan(s, NULL);
    return 0;
}

void horovod_teardown(Sync *s)
{
    for (int b = 0; b < s->nbuckets; b++) comm_request_free(s->bs[b].req);
    ddl_free(s->bs);
    ddl_free(s->buckets);
    ddl_free(s->layer_ready);
    ddl_free(s->half);
    s->bs = NULL;
    s->buckets = NULL;
    s->layer_ready = NULL;
    s->half = NULL;
    s->nbuckets = 0;
}

void horovod_replan(Sync *s)
{
    Model *m = s->m;
    int *cycle_of = ddl_alloc(sizeof *cycle_of * (size_t)m->nlayers);
    if (s->rank == 0) {
        double cyc = s->cfg.cycle_ms / 1e3;
        for (int l = 0; l < m->nlayers; l++)
            /* ranks' clocks differ: rank 0's times decide, broadcast */
            cycle_of[l] = cyc > 0 ? (int)floor(s->layer_ready[l] / cyc) : -l;
    }
    MPI_Bcast(cycle_of, m->nlayers, MPI_INT, 0, s->c->mpi);
    install_plan(s, cycle_of);
    ddl_free(cycle_of);
    s->replanned = true;
}

void horovod_begin_backward(Sync *s)
{
    for (int b = 0; b < s->nbuckets; b++) {
        SyncBucketState *st = &s->bs[b];
        st->launched = st->done = false;
        st->t0 = st->t1 = 0.0;
    }
    s->next_launch = 0;
}

static void launch(Sync *s, int b)
{
    SyncBucketState *st = &s->bs[b];
    const Bucket *g = &s->buckets[b];
    st->t0 = sync_clock(s);
    st->launched = true;
    if (s->cfg.fp16) {
        half_from_float_array(s->half + g->off, s->m->grads + g->off, g->count);
        comm_iallreduce(st->req, s->half + g->off, g->count, COMM_FP16, COMM_AVG, s->cfg.alg);
    } else {
        comm_iallreduce(st->req, s->m->grads + g->off, g->count, COMM_FP32, COMM_AVG, s->cfg.alg);
    }
}

static void group_done(Sync *s, int b)
{
    SyncBucketState *st = &s->bs[b];
    const Bucket *g = &s->buckets[b];
    st->done = true;
    st->t1 = sync_clock(s);
    if (s->cfg.fp16) half_to_float_array(s->m->grads + g->off, s->half + g->off, g->count);
    char name[40];
    snprintf(name, sizeof name, "fusion %d", b);
    sync_comm_event(s, name, st->t0, st->t1, (double)g->count * (s->cfg.fp16 ? 2.0 : 4.0));
}

/* Layers run backward in decreasing index; a group is ready once its
 * lowest layer (first_layer) is done. */
void horovod_layer_done(Sync *s, int layer)
{
    if (!s->replanned && s->rank == 0) s->layer_ready[layer] = sync_clock(s) - s->t_bwd0;
    while (s->next_launch < s->nbuckets && s->buckets[s->next_launch].first_layer >= layer) launch(s, s->next_launch++);
    for (int b = 0; b < s->next_launch; b++)
        if (!s->bs[b].done && comm_test(s->bs[b].req)) group_done(s, b);
}

void horovod_finish(Sync *s)
{
    while (s->next_launch < s->nbuckets) launch(s, s->next_launch++);
    for (bool all = false; !all;) {
        all = true;
        for (int b = 0; b < s->nbuckets; b++) {
            if (s->bs[b].done) continue;
            if (comm_test(s->bs[b].req)) group_done(s, b);
            else all = false;
        }
    }
}
