/* strategy.c - what every strategy row shares: the step's clock, its
 * events and communication intervals, the gradient-ready hook, and the
 * parts of a step (see strategy.h). */
#include "strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../util/common.h"

double sync_clock(const Sync *s) { return ddl_now() - s->t_step; }

void sync_event(Sync *s, SyncTrack track, const char *name, double t0, double t1, double bytes)
{
    if (!s->cfg.trace) return;
    s->events = ddl_grow(s->events, s->nevents, &s->capevents, sizeof *s->events, 256, "the trace's events");
    SyncEvent *e = &s->events[s->nevents++];
    e->track = track;
    ddl_strlcpy(e->name, name, sizeof e->name);
    e->t0 = t0;
    e->t1 = t1;
    e->bytes = bytes;
}

void sync_comm_event(Sync *s, const char *name, double t0, double t1, double bytes)
{
    s->iv = ddl_grow(s->iv, s->niv, &s->capiv, sizeof *s->iv, 64, "the communication intervals");
    s->iv[s->niv][0] = t0;
    s->iv[s->niv][1] = t1;
    s->niv++;
    sync_event(s, TRACK_COMM, name, t0, t1, bytes);
}

void sync_average_arena(Sync *s, float *arena, const char *name)
{
    double t0 = sync_clock(s);
    comm_allreduce(s->c, arena, s->m->nparams, COMM_FP32, COMM_AVG, s->cfg.alg);
    sync_comm_event(s, name, t0, sync_clock(s), (double)s->m->nparams * sizeof(float));
}

void sync_bcast_floats(float *p, size_t n, MPI_Comm comm)
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
    if (s->syncing && s->row->layer_done) {
        sync_stage_layer_grads(s, layer);
        s->row->layer_done(s, layer);
    }
}

void sync_own_hook(Sync *s)
{
    Model *m = sync_device_model(s); /* the model whose backward calls it */
    m->hook = on_layer_done;
    m->hook_ctx = s;
}

void sync_step_begin(Sync *s)
{
    if (s->micro != 0) return;
    if (s->row->begin_step) s->row->begin_step(s);
    /* The hook is this strategy's for the whole step, even when several
     * Syncs take turns on one model (bench/ddp_bar.c). */
    sync_own_hook(s);
    s->t_step = ddl_now();
    s->nevents = 0;
    s->niv = 0;
    memset(&s->last, 0, sizeof s->last);
    model_zero_grad(sync_device_model(s));
}

double sync_step_forward(Sync *s, const float *x, const int32_t *y, int n, int *correct)
{
    double t0 = sync_clock(s);
    double loss = trainer_forward(s->t, x, y, n, correct);
    double t1 = sync_clock(s);
    sync_event(s, TRACK_COMPUTE, "forward", t0, t1, 0.0);
    s->last.forward += 1e3 * (t1 - t0);
    s->t_bwd0 = s->t_last_hook = t1;
    return loss;
}

void sync_step_backward(Sync *s)
{
    trainer_backward(s->t);
    s->t_bwd1 = sync_clock(s);
    s->last.backward += 1e3 * (s->t_bwd1 - s->t_bwd0);
}

void sync_step_scale_accumulated(Sync *s)
{
    if (s->cfg.accumulate <= 1) return;
    float k = 1.0f / (float)s->cfg.accumulate;
    Model *m = sync_device_model(s); /* the gradients the optimizer reads */
    m->be->scale(m->grads, m->nparams, k);
}

bool sync_step_end(Sync *s)
{
    if (s->micro < s->cfg.accumulate - 1) {
        s->micro++;
        return false;
    }
    if (s->m) s->m->be->synchronize(); /* on a GPU, the step's time includes its kernels */
    s->last.total = 1e3 * sync_clock(s);
    s->steps++;
    s->micro = 0;
    return true;
}

static int cmp_start(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Union of the intervals, and its part before backward's end (the hidden
 * part). Needs the intervals, so they are recorded even when tracing is
 * off: communication events are few. */
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

void sync_account_comm(Sync *s)
{
    if (s->niv > 1) qsort(s->iv, (size_t)s->niv, sizeof *s->iv, cmp_start); /* iv is NULL before any */
    double comm, hidden;
    comm_union((const double(*)[2])s->iv, s->niv, s->t_bwd1, &comm, &hidden);
    s->last.comm = 1e3 * comm;
    s->last.hidden = 1e3 * hidden;
}
