/* horovod.c - the horovod row: Horovod-style tensor fusion over ddlab's
 * ring allreduce (sync.h).
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
#include "rows.h"

#include <math.h>
#include <stdio.h>
#include "../util/common.h"
#include "inflight.h"

typedef struct Horovod {
    InFlight f;                /* the fusion groups of the plan in use */
    double *layer_ready;       /* rank 0, step 0: seconds after backward began, per layer */
    uint16_t *half;            /* fp16: the compressed gradient arena */
    bool replanned;
} Horovod;

/* Fusion groups of the model's parameter tensors, walked in backward
 * order. cycle_of(layer) says which cycle a layer's gradients became ready
 * in (NULL: all in one cycle). Returns the group count; writes up to cap. */
static int plan_groups(const Model *m, const int *cycle_of, size_t threshold, size_t elem, Bucket *out, int cap)
{
    int np;
    ParamInfo *p = model_param_list_alloc(m, &np);
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

static void install_plan(Sync *s, Horovod *h, const int *cycle_of)
{
    size_t elem = s->cfg.horovod.fp16 ? 2 : 4, threshold = s->cfg.horovod.fusion_bytes;
    if (h->f.n) inflight_free(&h->f);
    int nb = plan_groups(s->m, cycle_of, threshold, elem, NULL, 0);
    Bucket *g = ddl_alloc(sizeof *g * (size_t)nb);
    nb = plan_groups(s->m, cycle_of, threshold, elem, g, nb);
    inflight_init(&h->f, s->c, g, nb, "fusion", h->half);
}

static int setup(Sync *s, char err[256])
{
    Horovod *h = s->priv;
    if (model_param_list(s->m, NULL, 0) == 0) {
        snprintf(err, 256, "horovod: model %s has no parameters", s->m->name);
        return -1;
    }
    if (!(s->cfg.horovod.cycle_ms >= 0)) {
        snprintf(err, 256, "horovod: cycle time must be >= 0 ms (got %g)", s->cfg.horovod.cycle_ms);
        return -1;
    }
    h->layer_ready = ddl_alloc(sizeof *h->layer_ready * (size_t)s->m->nlayers);
    if (s->cfg.horovod.fp16) h->half = ddl_alloc(sizeof *h->half * s->m->nparams);
    install_plan(s, h, NULL);
    return 0;
}

static void teardown(Sync *s)
{
    Horovod *h = s->priv;
    inflight_free(&h->f);
    ddl_free(h->layer_ready);
    ddl_free(h->half);
}

/* After step 0, every rank switches to the cycles rank 0 saw (collective,
 * once, at the same step on every rank). */
static void replan(Sync *s, Horovod *h)
{
    Model *m = s->m;
    int *cycle_of = ddl_alloc(sizeof *cycle_of * (size_t)m->nlayers);
    if (s->rank == 0) {
        double cyc = s->cfg.horovod.cycle_ms / 1e3;
        for (int l = 0; l < m->nlayers; l++)
            /* ranks' clocks differ: rank 0's times decide, broadcast */
            cycle_of[l] = cyc > 0 ? (int)floor(h->layer_ready[l] / cyc) : -l;
    }
    MPI_Bcast(cycle_of, m->nlayers, MPI_INT, 0, s->c->mpi);
    install_plan(s, h, cycle_of);
    ddl_free(cycle_of);
    h->replanned = true;
}

static void begin_step(Sync *s)
{
    Horovod *h = s->priv;
    if (s->steps >= 1 && !h->replanned) replan(s, h);
}

static void begin_backward(Sync *s) { inflight_arm(&((Horovod *)s->priv)->f); }

/* Layers run backward in decreasing index; a group is ready once its
 * lowest layer (first_layer) is done. */
static void layer_done(Sync *s, int layer)
{
    Horovod *h = s->priv;
    if (!h->replanned && s->rank == 0) h->layer_ready[layer] = sync_clock(s) - s->t_bwd0;
    while (h->f.next < h->f.n && h->f.slice[h->f.next].first_layer >= layer) inflight_launch(s, &h->f);
    inflight_progress(s, &h->f);
}

static void finish(Sync *s)
{
    Horovod *h = s->priv;
    while (h->f.next < h->f.n) inflight_launch(s, &h->f);
    inflight_wait(s, &h->f);
}

static int groups(const Sync *s) { return ((const Horovod *)s->priv)->f.n; }

const SyncRow SYNC_ROW_HOROVOD = {
    .name = "horovod",
    .description = "Horovod: tensor fusion per cycle, ring allreduce during backward",
    .offered_in = SYNC_LAB(6),
    .state_bytes = sizeof(Horovod),
    .default_alg = COMM_ALG_RING,
    .grads_in_place = true,
    .setup = setup,
    .teardown = teardown,
    .begin_step = begin_step,
    .begin_backward = begin_backward,
    .layer_done = layer_done,
    .finish = finish,
    .groups = groups,
};
