/* sync.c - the table of synchronisation strategies, and the training step
 * and round that run a row (sync.h; what a row is: strategy.h). Nothing
 * here knows what any one strategy does: a new strategy is a file of its
 * own and one line in rows.def (README.md). */
#include "sync.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../util/common.h"
#include "rows.h"

static const SyncRow *const ROWS[SYNC_KIND_COUNT] = {
#define SYNC_ROW(NAME) [SYNC_##NAME] = &SYNC_ROW_##NAME,
#include "rows.def"
#undef SYNC_ROW
};

static const SyncRow *row_of(SyncKind k) { return k >= 0 && k < SYNC_KIND_COUNT ? ROWS[k] : NULL; }

const char *sync_kind_name(SyncKind k) { return row_of(k) ? row_of(k)->name : "?"; }
const char *sync_kind_description(SyncKind k) { return row_of(k) ? row_of(k)->description : "?"; }

int sync_kind_from_name(const char *name, SyncKind *out)
{
    for (int k = 0; k < SYNC_KIND_COUNT; k++)
        if (name && !strcmp(name, ROWS[k]->name)) {
            *out = (SyncKind)k;
            return 0;
        }
    return -1;
}

bool sync_kind_offered(SyncKind k, int lab) { return row_of(k) && (row_of(k)->offered_in & SYNC_LAB(lab)); }
bool sync_kind_one_process(SyncKind k) { return row_of(k) && row_of(k)->one_process; }
bool sync_kind_rank0_serves(SyncKind k) { return row_of(k) && row_of(k)->rank0_serves; }

const char *sync_kind_names(char *buf, size_t cap, const char *sep, int lab)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < SYNC_KIND_COUNT; k++) {
        if (!sync_kind_offered((SyncKind)k, lab)) continue;
        int w = snprintf(buf + n, cap - n, "%s%s", n ? sep : "", ROWS[k]->name);
        if (w < 0 || (size_t)w >= cap - n) ddl_die("sync_kind_names: lab%d's strategies need more than %zu bytes", lab, cap);
        n += (size_t)w;
    }
    return buf;
}

int sync_kind_name_width(int lab, int least)
{
    for (int k = 0; k < SYNC_KIND_COUNT; k++)
        if (sync_kind_offered((SyncKind)k, lab)) least = DDL_MAX(least, (int)strlen(ROWS[k]->name));
    return least;
}

SyncConfig sync_config_default(SyncKind kind)
{
    const SyncRow *r = row_of(kind);
    return (SyncConfig){ .kind = kind,
                         .alg = r ? r->default_alg : COMM_ALG_MPI,
                         .accumulate = 1,
                         .broadcast_buffers = r && r->broadcast_buffers,
                         .trace = false,
                         .ddp = { SYNC_DEFAULT_FIRST_BUCKET_BYTES, SYNC_DEFAULT_BUCKET_CAP_BYTES },
                         .horovod = { SYNC_HOROVOD_FUSION_BYTES, SYNC_HOROVOD_CYCLE_MS, false },
                         .group = { 1, true },
                         .fed = NULL };
}

size_t sync_mib_bytes(double mib) { return (size_t)(mib * 1048576.0); }

/* What no row can run with; the same answer on every rank. */
static int refuse(const SyncConfig *cfg, const SyncRow *r, const Comm *c, char err[256])
{
    if (!r) {
        snprintf(err, 256, "unknown sync strategy %d", (int)cfg->kind);
        return -1;
    }
    if (cfg->accumulate < 1) {
        snprintf(err, 256, "accumulate must be >= 1 (got %d)", cfg->accumulate);
        return -1;
    }
    if (!r->one_process && !c) {
        snprintf(err, 256, "sync %s needs a communicator", r->name);
        return -1;
    }
    if (c && !comm_alg_usable(c, cfg->alg, err)) return -1;
    if (r->one_process && c && c->size > 1) {
        snprintf(err, 256, "sync %s runs one process, not %d ranks: pick a strategy that synchronises ranks "
                           "(e.g. allreduce, ddp, horovod, ps)", r->name, c->size);
        return -1;
    }
    return 0;
}

int sync_init(Sync *s, const SyncConfig *cfg, Trainer *t, Comm *c, char err[256])
{
    memset(s, 0, sizeof *s);
    const SyncRow *r = row_of(cfg->kind);
    if (refuse(cfg, r, c, err) != 0) return -1;
    s->cfg = *cfg;
    s->row = r;
    s->t = t;
    s->c = c;
    s->rank = c ? c->rank : 0;
    s->world = c ? c->size : 1;
    sync_stage_init(s);
    /* As DDP's constructor: every replica starts from rank 0's weights and
     * buffers (they are equal anyway when seeds agree; this makes it so). */
    if (c && c->size > 1) {
        sync_stage_in(s, STAGE_PARAMS | STAGE_STATE);
        sync_bcast_floats(s->m->params, s->m->nparams, c->mpi);
        if (s->m->nstate) sync_bcast_floats(s->m->state, s->m->nstate, c->mpi);
        sync_stage_out(s, STAGE_PARAMS | STAGE_STATE);
    }
    s->priv = r->state_bytes ? ddl_calloc(r->state_bytes) : NULL;
    if (r->setup && r->setup(s, err) != 0) {
        sync_stage_free(s);
        ddl_free(s->priv);
        memset(s, 0, sizeof *s);
        return -1;
    }
    sync_own_hook(s);
    return 0;
}

void sync_free(Sync *s)
{
    Model *dm = s->m ? sync_device_model(s) : NULL;
    if (dm && dm->hook_ctx == s) {
        dm->hook = NULL;
        dm->hook_ctx = NULL;
    }
    if (s->row && s->row->teardown) s->row->teardown(s);
    sync_stage_free(s);
    ddl_free(s->priv);
    free(s->events);
    free(s->iv);
    memset(s, 0, sizeof *s);
}

void sync_broadcast_buffers(Sync *s)
{
    if (!s->c || s->world < 2 || !s->m->nstate) return;
    sync_stage_in(s, STAGE_STATE);
    sync_bcast_floats(s->m->state, s->m->nstate, s->c->mpi);
    sync_stage_out(s, STAGE_STATE);
}

static void broadcast_buffers(Sync *s)
{
    Model *m = s->m;
    double t0 = sync_clock(s);
    sync_broadcast_buffers(s);
    double t1 = sync_clock(s);
    sync_event(s, TRACK_COMM, "BN buffers", t0, t1, (double)m->nstate * sizeof(float));
    s->last.buffers += 1e3 * (t1 - t0);
}

/* The optimizer and, after it, what the row does to the weights. */
static void optimizer(Sync *s)
{
    sync_step_scale_accumulated(s);
    double t3 = sync_clock(s);
    trainer_step(s->t);
    double t4 = sync_clock(s);
    sync_event(s, TRACK_COMPUTE, "optimizer", t3, t4, 0.0);
    s->last.optimizer = 1e3 * (t4 - t3);
    if (s->row->after_step) {
        sync_stage_in(s, STAGE_PARAMS | STAGE_STATE);
        s->row->after_step(s);
        sync_stage_out(s, STAGE_PARAMS | STAGE_STATE);
        s->last.sync_wait += 1e3 * (sync_clock(s) - t4);
    }
    sync_account_comm(s);
}

double sync_train_step(Sync *s, const float *x, const int32_t *y, int n, int *correct, bool *stepped)
{
    const SyncRow *r = s->row;
    if (r->step) return r->step(s, x, y, n, correct, stepped);
    if (r->round) ddl_die("sync %s trains in rounds (sync_round), not steps", r->name);
    sync_step_begin(s);
    Model *m = s->m;
    s->syncing = s->micro == s->cfg.accumulate - 1 && !r->one_process;
    if (s->cfg.broadcast_buffers && s->world > 1 && m->nstate && m->training) broadcast_buffers(s);
    double loss = sync_step_forward(s, x, y, n, correct);
    if (s->syncing && r->begin_backward) r->begin_backward(s);
    sync_step_backward(s);
    if (s->syncing && r->finish) {
        /* A row with layer_done has had each layer's gradients as it went. */
        if (!r->layer_done) sync_stage_in(s, STAGE_GRADS);
        r->finish(s);
        sync_stage_out(s, STAGE_GRADS); /* the averaged gradients, for the optimizer on the device */
        s->last.sync_wait += 1e3 * (sync_clock(s) - s->t_bwd1);
    }
    if (s->micro == s->cfg.accumulate - 1) optimizer(s);
    bool done = sync_step_end(s);
    if (stepped) *stepped = done;
    return loss;
}

bool sync_has_rounds(const Sync *s) { return s->row->round != NULL; }

void sync_round(Sync *s, SyncRound *out)
{
    if (!s->row->round) ddl_die("sync %s trains in steps (sync_train_step), not rounds", s->row->name);
    memset(out, 0, sizeof *out);
    s->t_step = ddl_now();
    s->row->round(s, out);
    if (s->m) s->m->be->synchronize();
    s->last.total = 1e3 * sync_clock(s);
    s->steps++;
}

int sync_rounds_per_epoch(const Sync *s) { return s->row->rounds_per_epoch ? s->row->rounds_per_epoch(s) : 1; }

CommCounters sync_counters(const Sync *s)
{
    CommCounters t = s->c ? comm_counters_total(s->c) : (CommCounters){ 0 };
    if (s->row->counters) s->row->counters(s, &t);
    comm_counters_add(&t, &s->resumed);
    return t;
}

bool sync_computes(const Sync *s) { return !(s->row->rank0_serves && s->rank == 0); }
int sync_workers(const Sync *s) { return s->world - (s->row->rank0_serves ? 1 : 0); }

int sync_groups(const Sync *s) { return s->row->groups ? s->row->groups(s) : 0; }
