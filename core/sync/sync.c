/* sync.c - strategy names, set-up, and the training step (see sync.h). */
#include "sync_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common.h"

static const char *const NAMES[SYNC_KIND_COUNT] = { "none", "gather_scatter", "allreduce", "allreduce_flat", "ddp", "horovod", "ps" };
static const char *const DESCRIPTIONS[SYNC_KIND_COUNT] = {
    "single process, no synchronisation",
    "per parameter: gather to rank 0, mean, scatter back (seed Listing 3)",
    "per parameter: allreduce, then divide by the rank count (seed Listing 4)",
    "one allreduce of the whole gradient after backward (fusion, no overlap)",
    "buckets in reverse layer order, allreduced during backward (fusion + overlap)",
    "Horovod: tensor fusion per cycle, ring allreduce during backward",
    "parameter server: rank 0 averages pushed gradients, applies SGD, workers pull weights",
};

const char *sync_kind_name(SyncKind k) { return k >= 0 && k < SYNC_KIND_COUNT ? NAMES[k] : "?"; }
const char *sync_kind_description(SyncKind k) { return k >= 0 && k < SYNC_KIND_COUNT ? DESCRIPTIONS[k] : "?"; }

int sync_kind_from_name(const char *name, SyncKind *out)
{
    for (int k = 0; k < SYNC_KIND_COUNT; k++)
        if (name && !strcmp(name, NAMES[k])) {
            *out = (SyncKind)k;
            return 0;
        }
    return -1;
}

SyncConfig sync_config_default(SyncKind kind)
{
    return (SyncConfig){ .kind = kind,
                         .alg = kind == SYNC_HOROVOD ? COMM_ALG_RING : COMM_ALG_MPI,
                         .first_bucket_bytes = SYNC_DEFAULT_FIRST_BUCKET_BYTES,
                         .bucket_cap_bytes = SYNC_DEFAULT_BUCKET_CAP_BYTES,
                         .broadcast_buffers = kind == SYNC_DDP,
                         .accumulate = 1,
                         .trace = false,
                         .fusion_bytes = SYNC_HOROVOD_FUSION_BYTES,
                         .cycle_ms = SYNC_HOROVOD_CYCLE_MS,
                         .fp16 = false };
}

double sync_clock(const Sync *s) { return ddl_now() - s->t_step; }

void sync_event(Sync *s, SyncTrack track, const char *name, double t0, double t1, double bytes)
{
    if (!s->cfg.trace) return;
    if (s->nevents == s->capevents) {
        s->capevents = s->capevents ? 2 * s->capevents : 256;
        s->events = realloc(s->events, sizeof *s->events * (size_t)s->capevents);
        if (!s->events) ddl_die("out of memory");
    }
    SyncEvent *e = &s->events[s->nevents++];
    e->track = track;
    ddl_strlcpy(e->name, name, sizeof e->name);
    e->t0 = t0;
    e->t1 = t1;
    e->bytes = bytes;
}

void sync_comm_event(Sync *s, const char *name, double t0, double t1, double bytes)
{
    if (s->niv == s->capiv) {
        s->capiv = s->capiv ? 2 * s->capiv : 64;
        s->iv = realloc(s->iv, sizeof *s->iv * (size_t)s->capiv);
        if (!s->iv) ddl_die("out of memory");
    }
    s->iv[s->niv][0] = t0;
    s->iv[s->niv][1] = t1;
    s->niv++;
    sync_event(s, TRACK_COMM, name, t0, t1, bytes);
}

/* MPI counts are ints: broadcast big arenas in slices. */
static void bcast_floats(float *p, size_t n, MPI_Comm comm)
{
    const size_t slice = (size_t)1 << 28;
    for (size_t lo = 0; lo < n; lo += slice) MPI_Bcast(p + lo, (int)DDL_MIN(slice, n - lo), MPI_FLOAT, 0, comm);
}

static void on_layer_done(Model *m, int layer, void *ctx)
{
    Sync *s = ctx;
    double now = sync_clock(s);
    if (s->cfg.trace) { /* names only for timelines: this runs after every layer */
        const Layer *l = &m->layers[layer];
        char name[40];
        if (l->name[0]) ddl_strlcpy(name, l->name, sizeof name);
        else snprintf(name, sizeof name, "%s %d", layer_kind_name(l->kind), layer);
        sync_event(s, TRACK_COMPUTE, name, s->t_last_hook, now, 0.0);
    }
    s->t_last_hook = now;
    if (s->syncing && s->cfg.kind == SYNC_DDP) ddp_layer_done(s, layer);
    if (s->syncing && s->cfg.kind == SYNC_HOROVOD) horovod_layer_done(s, layer);
}

bool sync_is_server(const Sync *s) { return s->cfg.kind == SYNC_PS && s->rank == 0; }

CommCounters sync_counters(const Sync *s)
{
    CommCounters t = s->c ? comm_counters_total(s->c) : (CommCounters){ 0 };
    t.calls += s->ps_count.calls;
    t.msgs_sent += s->ps_count.msgs_sent;
    t.bytes_sent += s->ps_count.bytes_sent;
    t.msgs_recv += s->ps_count.msgs_recv;
    t.bytes_recv += s->ps_count.bytes_recv;
    return t;
}

void sync_own_hook(Sync *s)
{
    s->m->hook = on_layer_done;
    s->m->hook_ctx = s;
}

int sync_init(Sync *s, const SyncConfig *cfg, Trainer *t, Comm *c, char err[256])
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->m = t->m;
    s->t = t;
    s->c = c;
    s->rank = c ? c->rank : 0;
    s->world = c ? c->size : 1;
    if (cfg->kind < 0 || cfg->kind >= SYNC_KIND_COUNT) {
        snprintf(err, 256, "unknown sync strategy %d", (int)cfg->kind);
        return -1;
    }
    if (cfg->accumulate < 1) {
        snprintf(err, 256, "accumulate must be >= 1 (got %d)", cfg->accumulate);
        return -1;
    }
    if (cfg->kind != SYNC_NONE && !c) {
        snprintf(err, 256, "sync %s needs a communicator", sync_kind_name(cfg->kind));
        return -1;
    }
    if (cfg->kind == SYNC_NONE && c && c->size > 1) {
        snprintf(err, 256, "sync none runs one process, not %d ranks: pick gather_scatter, allreduce, "
                           "allreduce_flat, ddp, horovod or ps", c->size);
        return -1;
    }
    /* As DDP's constructor: every replica starts from rank 0's weights and
     * buffers (they are equal anyway when seeds agree; this makes it so). */
    if (c && c->size > 1) {
        bcast_floats(s->m->params, s->m->nparams, c->mpi);
        if (s->m->nstate) bcast_floats(s->m->state, s->m->nstate, c->mpi);
    }
    if (cfg->kind == SYNC_DDP && ddp_setup(s, err) != 0) return -1;
    if (cfg->kind == SYNC_HOROVOD && horovod_setup(s, err) != 0) return -1;
    if (cfg->kind == SYNC_PS && ps_setup(s, err) != 0) return -1;
    sync_own_hook(s);
    return 0;
}

void sync_free(Sync *s)
{
    if (s->m && s->m->hook_ctx == s) {
        s->m->hook = NULL;
        s->m->hook_ctx = NULL;
    }
    if (s->cfg.kind == SYNC_HOROVOD) horovod_teardown(s);
    else if (s->buckets) ddp_teardown(s);
    if (s->cfg.kind == SYNC_PS) ps_teardown(s);
    free(s->events);
    free(s->iv);
    memset(s, 0, sizeof *s);
}

static void synchronise(Sync *s)
{
    switch (s->cfg.kind) {
    case SYNC_NONE: break;
    case SYNC_GATHER_SCATTER: sync_per_parameter(s, COMM_ALG_LINEAR); break;
    case SYNC_ALLREDUCE: sync_per_parameter(s, s->cfg.alg); break;
    case SYNC_ALLREDUCE_FLAT: {
        double t0 = sync_clock(s);
        comm_allreduce(s->c, s->m->grads, s->m->nparams, COMM_FP32, COMM_AVG, s->cfg.alg);
        sync_comm_event(s, "whole gradient", t0, sync_clock(s), (double)s->m->nparams * sizeof(float));
        break;
    }
    case SYNC_DDP: ddp_finish(s); break;
    case SYNC_HOROVOD: horovod_finish(s); break;
    default: ddl_die("sync: strategy %d", (int)s->cfg.kind);
    }
}

static int cmp_start(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Union of the communication intervals, and its part before backward's
 * end (the hidden part). Needs the events, so it is recorded even when
 * tracing is off: communication events are few. */
static void comm_union(const double (*iv)[2], int n, double bwd_end, double *comm, double *hidden)
{
    double total = 0.0, before = 0.0, lo = 0.0, hi = -1.0;
    for (int i = 0; i <= n; i++) {
        if (i < n && iv[i][0] <= hi) {
            if (iv[i][1] > hi) hi = iv[i][1];
            continue;
        }
        if (hi > lo) {
            total += hi - lo;
            if (bwd_end > lo) before += DDL_MIN(hi, bwd_end) - lo;
        }
        if (i < n) {
            lo = iv[i][0];
            hi = iv[i][1];
        }
    }
    *comm = total;
    *hidden = before;
}

static void account_comm(Sync *s)
{
    if (s->niv > 1) qsort(s->iv, (size_t)s->niv, sizeof *s->iv, cmp_start); /* iv is NULL before any */
    double comm, hidden;
    comm_union((const double(*)[2])s->iv, s->niv, s->t_bwd1, &comm, &hidden);
    s->last.comm = 1e3 * comm;
    s->last.hidden = 1e3 * hidden;
}

double sync_train_step(Sync *s, const float *x, const int32_t *y, int n, int *correct, bool *stepped)
{
    if (s->cfg.kind == SYNC_PS) return ps_train_step(s, x, y, n, correct, stepped);
    Model *m = s->m;
    /* Horovod: after step 0, every rank switches to the cycles rank 0 saw
     * (collective, once, at the same step on every rank). */
    if (s->micro == 0 && s->cfg.kind == SYNC_HOROVOD && s->steps == 1 && !s->replanned) horovod_replan(s);
    if (s->micro == 0) {
        /* The hook is this strategy's for the whole step, even when
         * several Syncs take turns on one model (bench/ddp_bar.c). */
        sync_own_hook(s);
        s->t_step = ddl_now();
        s->nevents = 0;
        s->niv = 0;
        memset(&s->last, 0, sizeof s->last);
        model_zero_grad(m);
    }
    s->syncing = s->micro == s->cfg.accumulate - 1 && s->cfg.kind != SYNC_NONE;
    if (s->cfg.broadcast_buffers && s->world > 1 && m->nstate && m->training) {
        double t0 = sync_clock(s);
        bcast_floats(m->state, m->nstate, s->c->mpi);
        double t1 = sync_clock(s);
        sync_event(s, TRACK_COMM, "BN buffers", t0, t1, (double)m->nstate * sizeof(float));
        s->last.buffers += 1e3 * (t1 - t0);
    }
    double t0 = sync_clock(s);
    double loss = trainer_forward(s->t, x, y, n, correct);
    double t1 = sync_clock(s);
    sync_event(s, TRACK_COMPUTE, "forward", t0, t1, 0.0);
    s->last.forward += 1e3 * (t1 - t0);
    s->t_bwd0 = s->t_last_hook = t1;
    if (s->syncing && s->cfg.kind == SYNC_DDP) ddp_begin_backward(s);
    if (s->syncing && s->cfg.kind == SYNC_HOROVOD) horovod_begin_backward(s);
    trainer_backward(s->t);
    s->t_bwd1 = sync_clock(s);
    s->last.backward += 1e3 * (s->t_bwd1 - s->t_bwd0);
    if (s->syncing) {
        synchronise(s);
        s->last.sync_wait += 1e3 * (sync_clock(s) - s->t_bwd1);
    }
    bool last = s->micro == s->cfg.accumulate - 1;
    if (last) {
        if (s->cfg.accumulate > 1) {
            float k = 1.0f / (float)s->cfg.accumulate;
            for (size_t i = 0; i < m->nparams; i++) m->grads[i] *= k;
        }
        double t3 = sync_clock(s);
        trainer_step(s->t);
        double t4 = sync_clock(s);
        sync_event(s, TRACK_COMPUTE, "optimizer", t3, t4, 0.0);
        s->last.optimizer = 1e3 * (t4 - t3);
        s->last.total = 1e3 * t4;
        account_comm(s);
        s->steps++;
        s->micro = 0;
    } else {
        s->micro++;
    }
    if (stepped) *stepped = last;
    return loss;
}
