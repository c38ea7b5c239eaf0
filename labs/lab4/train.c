/* train.c - one lab4 configuration: P workers, each on its shard of the
 * training subset, take local SGD steps; after every step the scheme
 * brings them together:
 *   allreduce  one ring allreduce of the weights over all P (the seed's
 *              baseline; with SGD + momentum this is exactly Horovod's
 *              gradient allreduce, since the update is linear): the
 *              group_avg strategy with one group of P that never moves;
 *   group      one round of the group_avg strategy (groups of k+1, rotating);
 *   lga        gradients of k backward passes summed locally, then one ring
 *              allreduce of them (AVG) and one SGD step with their mean: the
 *              allreduce_flat strategy accumulating k micro-batches (DDP's
 *              no_sync, Horovod's backward_passes_per_step).
 * An iteration is steps_per_iter local steps (default: one pass over the
 * worker's shard, an epoch, as the seed's Horovod loop counted). After each
 * iteration, untimed and uncounted: Horovod-style test accuracy and the
 * consensus distance. Bytes come from ddlab's counters, and next to them
 * the closed form for the groups actually used. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "comm/monitor.h"
#include "sync/group_avg.h"
#include "lab4.h"

typedef struct Totals { unsigned long long sent, recv; } Totals;

static Totals over_ranks(uint64_t sent, uint64_t recv)
{
    unsigned long long v[2] = { sent, recv };
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return (Totals){ v[0], v[1] };
}

static double max_over_ranks(double v)
{
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return v;
}

static double mean_over_ranks(double v)
{
    int world;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return v / world;
}

/* State of one run, so the hooks below read like the method. */
typedef struct Run {
    Lab4Setup *s;
    const Lab4Config *cfg;
    Lab4Result *r;
    double *avg;               /* the workers' average model (consensus) */
    double loss_sum;           /* this iteration */
    long seen;
} Run;

/* The strategy of a configuration (see the top of this file). */
static SyncConfig strategy(const Lab4Setup *s, const Lab4Config *cfg)
{
    const int P = s->d->world;
    if (cfg->scheme == SCHEME_LGA) {
        SyncConfig sc = sync_config_default(SYNC_ALLREDUCE_FLAT);
        sc.alg = COMM_ALG_RING;
        sc.accumulate = cfg->passes;
        return sc;
    }
    SyncConfig sc = sync_config_default(SYNC_GROUP_AVG);
    sc.group.passes = cfg->scheme == SCHEME_ALLREDUCE ? P - 1 : cfg->passes;
    sc.group.rotate = cfg->scheme == SCHEME_GROUP && !s->o->no_rotate;
    return sc;
}

/* Monitoring pvars around a region with no other traffic. */
static void monitored(Run *u, bool before)
{
    CommMonitor *mon = u->s->monitor;
    if (!mon) return;
    uint64_t msgs, bytes;
    if (!comm_monitor_read(mon, &msgs, &bytes)) return;
    u->r->monitored = true;
    if (before) {
        u->r->mon_msgs -= msgs;
        u->r->mon_bytes -= bytes;
    } else {
        u->r->mon_msgs += msgs;
        u->r->mon_bytes += bytes;
    }
}

/* The batch about to run ends with an averaging round: read the pvars. */
static void before_batch(Driver *d, long index, void *ctx)
{
    if (d->sync->micro == d->sync->cfg.accumulate - 1) monitored(ctx, true);
}

/* What this rank sends and receives in the round that just ran, in closed
 * form for the group it was in. */
static void closed_form(Run *u, Driver *d, long round)
{
    const SyncConfig *sc = &d->sync->cfg;
    int P = d->world, size = P, index = d->rank;
    if (sc->kind == SYNC_GROUP_AVG) {
        GroupLayout l = group_avg_layout(P, sc->group.passes, group_avg_shift(P, sc->group.rotate, round), d->rank);
        size = l.size;
        index = l.index;
    }
    uint64_t sent, recv;
    group_avg_ring_bytes(size, index, d->m.nparams, sizeof(float), &sent, &recv);
    u->r->want_sent += sent;
    u->r->want_recv += recv;
}

static void after_batch(Driver *d, const DriverBatch *b, void *ctx)
{
    Run *u = ctx;
    u->loss_sum += b->loss * b->n;
    u->seen += b->n;
    u->r->rounds++;
    if (!b->stepped) return;
    monitored(u, false);
    u->r->sync_s += d->sync->last.sync_wait / 1e3;
    closed_form(u, d, d->sync->steps - 1);
}

/* Metrics after an iteration, one row of the per-iteration table. */
static void record(Driver *d, int iter, double seconds, void *ctx)
{
    Run *u = ctx;
    const Lab4Setup *s = u->s;
    Lab4Result *r = u->r;
    double train_loss = iter > 0 ? mean_over_ranks(u->loss_sum / (double)u->seen) : NAN;
    u->loss_sum = 0.0;
    u->seen = 0;
    CommCounters c = sync_counters(d->sync);
    Totals tot = over_ranks(c.bytes_sent, c.bytes_recv);
    lab4_eval_workers(&d->m, &d->test, &r->accuracy, &r->test_loss);
    float *w = ddl_alloc(d->m.nparams * sizeof(float));
    model_params_to_host(&d->m, w);
    lab4_consensus(w, d->m.nparams, u->avg, &r->consensus, &r->consensus_rel);
    ddl_free(w);
    r->train_loss = train_loss;
    char label[32];
    lab4_label(u->cfg, label, sizeof label);
    Table *t = s->iters;
    table_set_str(t, "scheme", lab4_scheme_name(u->cfg->scheme));
    table_set_int(t, "workers", d->world);
    table_set_int(t, "passes", u->cfg->passes);
    table_set_str(t, "label", label);
    table_set_int(t, "iteration", iter);
    table_set_int(t, "rounds", r->rounds);
    table_set_int(t, "bytes_sent", (long long)tot.sent);
    table_set_num(t, "traffic_mb", (double)(tot.sent + tot.recv) / 1e6, "%.6f");
    table_set_num(t, "accuracy", r->accuracy, "%.4f");
    table_set_num(t, "test_loss", r->test_loss, "%.5f");
    if (iter > 0) table_set_num(t, "train_loss", train_loss, "%.5f");
    table_set_num(t, "consensus", r->consensus, "%.6g");
    table_set_num(t, "consensus_rel", r->consensus_rel, "%.6g");
    table_set_num(t, "train_s", max_over_ranks(d->st.train_s), "%.4f");
    table_end_row(t);
}

/* What a resumed configuration needs: every table so far, this
 * configuration's running numbers, and the status of those before it. */
typedef struct Saved { double loss_sum; int64_t seen; int32_t status, pad; Lab4Result r; } Saved;

static void save(Driver *d, Ckpt *c, void *ctx)
{
    const Run *u = ctx;
    ckpt_put_table(c, "lab.runs", u->s->runs);
    ckpt_put_table(c, "lab.iters", u->s->iters);
    ckpt_put_table(c, "lab.ranks", u->s->ranks);
    Saved v = { u->loss_sum, u->seen, u->s->status, 0, *u->r };
    ckpt_put(c, "lab.config", &v, sizeof v);
    ckpt_put(c, "lab.average", u->avg, sizeof(double) * d->m.nparams);
}

static int load(Driver *d, const Ckpt *c, void *ctx, char err[DDL_ERRLEN])
{
    Run *u = ctx;
    Saved v;
    if (ckpt_get(c, "lab.config", &v, sizeof v, err) || ckpt_get_table(c, "lab.runs", u->s->runs, err) ||
        ckpt_get_table(c, "lab.iters", u->s->iters, err) || ckpt_get_table(c, "lab.ranks", u->s->ranks, err) ||
        ckpt_get(c, "lab.average", u->avg, sizeof(double) * d->m.nparams, err))
        return -1;
    u->loss_sum = v.loss_sum;
    u->seen = (long)v.seen;
    u->s->status = v.status;
    *u->r = v.r;
    return 0;
}

int lab4_train(Lab4Setup *s, const Lab4Config *cfg, Lab4Result *r)
{
    const Lab4Options *o = s->o;
    Driver *d = s->d;
    memset(r, 0, sizeof *r);
    model_params_from_host(&d->m, s->init);
    SgdConfig sgd = { s->lr, o->run.momentum, 0.0f, false };
    driver_trainer(d, &sgd);
    SyncConfig sc = strategy(s, cfg);
    comm_counters_reset(&d->comm);
    if (driver_sync(d, &sc)) return 2;
    BatcherOptions bo = { .batch = o->run.batch, .rank = d->rank, .world = d->world, .shuffle = true,
                          .drop_last = false, .augment = false, .normalize = true, .seed = o->run.seed };
    driver_batches(d, &bo);
    int per_iter = o->steps_per_iter > 0 ? o->steps_per_iter : batcher_batches(&d->b);
    Run u = { .s = s, .cfg = cfg, .r = r, .avg = ddl_alloc(d->m.nparams * sizeof(double)) };
    /* the metrics leave ranks apart: each iteration starts together */
    DriverLoop loop = { .batches = (long)cfg->iters * per_iter, .period = per_iter, .report_start = true,
                        .barrier_start = true };
    DriverHooks hooks = { .ctx = &u, .before_batch = before_batch, .after_batch = after_batch, .after_period = record,
                          .save = save, .load = load };
    int status = driver_train(d, &loop, &hooks);
    if (status) {
        ddl_free(u.avg);
        return status;
    }
    r->accuracy_avg_model = lab4_eval_average(&d->m, u.avg, &d->test);
    r->wall_s = max_over_ranks(d->st.train_s);
    r->sync_s = max_over_ranks(r->sync_s);
    r->ctr = sync_counters(d->sync);
    ddl_free(u.avg);
    return 0;
}
