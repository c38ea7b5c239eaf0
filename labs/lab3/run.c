/* run.c - one lab3 training run (seed 001; see lab3.h).
 *
 * Every rank trains its DistributedSampler shard of each global batch and
 * one strategy keeps the replicas equal. The first --timed steps are timed
 * on every rank (forward, backward, the sync time backward did not hide,
 * optimizer; communication and the part of it that ended before backward
 * did); the first is discarded, each rank's mean is taken, then the mean
 * over ranks, as the seed did. One step's timeline is traced. After
 * training every rank evaluates its own replica, so disagreement shows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/evaluate.h"
#include "lab3.h"

/* What one rank measured in one step, gathered to rank 0 at the end. */
enum { F_MS, F_FWD, F_BWD, F_SYNC, F_OPT, F_BUF, F_COMM, F_HIDDEN, F_DATA, F_LOSS, NF };
static const char *const FIELD[NF] = { "ms", "forward_ms", "backward_ms", "sync_ms", "optimizer_ms", "buffers_ms",
                                       "comm_ms", "hidden_ms", "data_ms", "loss" };

typedef enum { BN_TRACK, BN_OFF, BN_BROADCAST } BnMode;
static const char *const BN_NAMES[] = { "track", "off", "broadcast" };

typedef struct Run {
    const Lab3Options *o;
    Driver *d;
    SyncConfig sc;
    BnMode bn;
    int batch, timed, trace_iter, per_epoch;
    long total;
    double *mine;              /* NF x timed: this rank's steps */
    double data_ms, loss;      /* the step in progress */
    CommCounters before, after;
    Meta meta;
    Lab3Compute comp;          /* how the step's computation is timed (compute.c) */
} Run;

static SyncKind kind_of(const char *name)
{
    SyncKind k = SYNC_NONE;
    sync_kind_from_name(name, &k);
    return k;
}

int lab3_check(void *ctx, int ranks)
{
    const Lab3Options *o = ctx;
    CommAlg alg;
    if (driver_choice("sync", o->sync, lab3_sync_choices()) < 0 ||
        driver_choice("bn", o->bn, "auto|track|off|broadcast") < 0 ||
        driver_choice("augment", o->augment, "auto|on|off") < 0 ||
        driver_choice_list("series", o->series, "task|scale|buckets|custom") < 0 ||
        (*o->task && driver_choice("task", o->task, "1|2a|2b|3") < 0))
        return 2;
    if (comm_alg_from_name(o->alg, &alg) != 0) {
        char known[256];
        comm_alg_names(known, sizeof known, ", ");
        ddl_error("unknown --alg '%s' (%s)", o->alg, known);
        return 2;
    }
    /* A task is one strategy of the seed: its label on another strategy's
     * run put that run in the task's row of Table 1. */
    const char *task_sync = *o->task ? lab3_task_sync(o->task) : NULL;
    if (task_sync && strcmp(o->sync, task_sync)) {
        ddl_error("--task %s stands for --sync %s (the seed's Task %s), and this run is --sync %s: give the task of "
                  "--sync %s, or no --task",
                  o->task, task_sync, o->task, o->sync, o->sync);
        return 2;
    }
    return 0;
}

/* As the seed reported: Task 1 tracks (one process), Tasks 2a/2b ran
 * without running statistics (its fix for ranks disagreeing), DDP
 * broadcasts rank 0's buffers; the flat control does what DDP does so the
 * two differ only in bucketing and overlap. */
static BnMode bn_mode(const char *bn, SyncKind kind)
{
    if (strcmp(bn, "auto")) return !strcmp(bn, "track") ? BN_TRACK : !strcmp(bn, "off") ? BN_OFF : BN_BROADCAST;
    if (kind == SYNC_NONE) return BN_TRACK;
    return kind == SYNC_GATHER_SCATTER || kind == SYNC_ALLREDUCE ? BN_OFF : BN_BROADCAST;
}

/* The strategy, the batch per rank, the data, the model; 0 or a status. */
static int set_up(Run *r, Driver *d)
{
    const Lab3Options *o = r->o;
    if (driver_open(d)) return 2;
    SyncKind kind = kind_of(o->sync);
    if (sync_kind_one_process(kind) && d->world > 1) {
        ddl_error("--sync %s is one process; with %d ranks pick one of %s", sync_kind_name(kind), d->world,
                  lab3_multirank_syncs(", "));
        return 2;
    }
    r->sc = sync_config_default(kind);
    comm_alg_from_name(o->alg, &r->sc.alg);
    char why[256];
    if (!comm_alg_usable(&d->comm, r->sc.alg, why)) { /* as driver_sync would, before data and model */
        ddl_error("%s", why);
        return 2;
    }
    r->sc.accumulate = o->accumulate;
    r->sc.ddp.first_bytes = sync_mib_bytes(o->first_bucket_mb);
    r->sc.ddp.cap_bytes = sync_mib_bytes(o->bucket_cap_mb);
    r->bn = bn_mode(o->bn, kind);
    r->sc.broadcast_buffers = r->bn == BN_BROADCAST && d->world > 1;
    r->batch = o->run.batch > 0 ? o->run.batch : o->global_batch / (d->world * o->accumulate);
    if (r->batch < 1) {
        ddl_error("--global-batch %d is less than one example per rank and micro-batch (%d ranks x %d)",
                  o->global_batch, d->world, o->accumulate);
        return 2;
    }
    if (o->run.batch == 0 && d->rank == 0 && o->global_batch % (d->world * o->accumulate) != 0)
        ddl_warn("--global-batch %d is not a multiple of %d rank(s) x %d micro-batch(es): this run's global batch is "
                 "%d (%d per rank and micro-batch)",
                 o->global_batch, d->world, o->accumulate, r->batch * d->world * o->accumulate, r->batch);
    driver_tag(d, "%s-np%d", sync_kind_name(kind), d->world);
    driver_run_begin(d, o->run.out, (const char *const[]){ "*-iters", "*-summary", "*-trace", NULL });
    if (driver_load(d, !o->no_eval)) return 1;
    /* a shared rank's model, optimizer and strategy in memory shared by all such ranks */
    if (lab3_compute_share(&r->comp, o, d)) return 2;
    ModelConfig cfg = driver_model_config(d, o->run.model);
    cfg.bn_track_stats = r->bn != BN_OFF;
    if (driver_build(d, o->run.model, &cfg, r->batch)) return 2;
    driver_trainer(d, NULL);
    int status = driver_sync(d, &r->sc);
    lab3_compute_sharing(&r->comp, false);
    return status;
}

/* DistributedSampler: each rank its own shard of every epoch. */
static int batches(Run *r, Driver *d)
{
    const Lab3Options *o = r->o;
    bool augment = !strcmp(o->augment, "on") || (!strcmp(o->augment, "auto") && !strcmp(d->train.name, "cifar10"));
    BatcherOptions bo = { .batch = r->batch, .rank = d->rank, .world = d->world, .shuffle = true, .drop_last = true,
                          .augment = augment, .normalize = true, .seed = o->run.seed };
    driver_batches(d, &bo);
    r->per_epoch = batcher_batches(&d->b) / o->accumulate;
    r->total = o->iters > 0 ? o->iters : r->per_epoch;
    if (r->per_epoch < 1 || r->total < 1) {
        ddl_error("%d training examples give no full step of %d x %d examples per rank", d->train.n, r->batch,
                  o->accumulate);
        return 2;
    }
    r->timed = (int)DDL_MIN((long)o->timed, r->total);
    r->trace_iter = o->trace_iter >= 0 ? (int)DDL_MIN((long)o->trace_iter, r->total - 1) : r->timed / 2;
    if (o->trace_iter > r->trace_iter && d->rank == 0)
        ddl_warn("--trace-iter %d: this run has %ld iteration(s); the timeline is of its last, iteration %d",
                 o->trace_iter, r->total, r->trace_iter);
    return 0;
}

/* What every output of the run says, besides the driver's provenance. */
static void describe(const Lab3Options *o, Driver *d, Meta *meta, const Run *r)
{
    driver_meta(d, meta);
    meta_set(meta, "task", "%s", o->task);
    meta_set(meta, "series", "%s", o->series);
    meta_set(meta, "sync", "%s", sync_kind_name(r->sc.kind));
    meta_set(meta, "sync_detail", "%s", sync_kind_description(r->sc.kind));
    meta_set(meta, "alg", "%s", r->sc.kind == SYNC_GATHER_SCATTER ? "linear" : comm_alg_name(r->sc.alg));
    if (r->sc.kind == SYNC_DDP)
        meta_set(meta, "buckets", "%d (first %g MiB, cap %g MiB%s), progress from the gradient-ready hook",
                 sync_groups(d->sync), (double)o->first_bucket_mb, (double)o->bucket_cap_mb,
                 o->bucket_cap_mb == 0 ? ": one per layer" : "");
    meta_set(meta, "bn_stats", "%s", BN_NAMES[r->bn]);
    meta_set(meta, "accumulate", "%d", r->sc.accumulate);
    meta_set(meta, "batch_per_rank", "%d", r->batch);
    meta_set(meta, "global_batch", "%d", r->batch * d->world * r->sc.accumulate);
    meta_set(meta, "optimizer", "SGD lr %g momentum %g wd %g", (double)o->run.lr, (double)o->run.momentum,
             (double)o->run.wd);
    meta_set(meta, "timing", "first %d steps timed (forward to optimizer, data loading apart), the first "
                             "discarded; mean per rank, then over ranks", o->timed);
    meta_set(meta, "augment", "%s", d->b.o.augment ? "pad-4 random crop + horizontal flip" : "none");
    meta_set(meta, "iterations", "%ld (%d per epoch on this shard)", r->total, r->per_epoch);
    lab3_compute_meta(&r->comp, o, d, meta);
}

static void before_batch(Driver *d, long index, void *ctx)
{
    Run *r = ctx;
    if (index % r->o->accumulate) return;
    r->data_ms = r->loss = 0.0;
    if (index / r->o->accumulate == r->trace_iter) {
        /* line the ranks up so the timeline starts together */
        MPI_Barrier(d->comm.mpi);
        d->sync->cfg.trace = true;
    }
}

static void after_batch(Driver *d, const DriverBatch *b, void *ctx)
{
    Run *r = ctx;
    r->data_ms += b->data_ms;
    r->loss += b->loss / r->o->accumulate;
    if (!b->stepped) return;
    long it = b->index / r->o->accumulate;
    if (it < r->timed) {
        const SyncTimes *t = &d->sync->last;
        double v[NF] = { t->total, t->forward, t->backward, t->sync_wait, t->optimizer, t->buffers, t->comm,
                         t->hidden, r->data_ms, r->loss };
        memcpy(r->mine + (size_t)it * NF, v, sizeof v);
        if (it == r->timed - 1) r->after = comm_counters_total(&d->comm);
    }
    if (it == r->trace_iter) {
        d->sync->cfg.trace = false;
        driver_take_trace(d);
    }
}

/* What a resumed run needs of this one: the timed steps so far, and the
 * traffic since the clock started (the world Comm counts afresh). */
static void save(Driver *d, Ckpt *c, void *ctx)
{
    Run *r = ctx;
    CommCounters since[2] = { comm_counters_minus(comm_counters_total(&d->comm), r->before),
                              comm_counters_minus(r->after, r->before) };
    ckpt_put(c, "lab.steps", r->mine, sizeof(double) * NF * (size_t)r->timed);
    ckpt_put(c, "lab.traffic", since, sizeof since);
}

static int load(Driver *d, const Ckpt *c, void *ctx, char err[DDL_ERRLEN])
{
    Run *r = ctx;
    CommCounters since[2];
    size_t len;
    const void *steps = ckpt_find(c, "lab.steps", &len);
    /* a shorter run timed fewer steps: those it did time are the same */
    if (!steps || len > sizeof(double) * NF * (size_t)r->timed || len % (sizeof(double) * NF))
        return ddl_errf(err, "checkpoint's timed steps do not fit this run's %d", r->timed);
    memcpy(r->mine, steps, len);
    if (ckpt_get(c, "lab.traffic", since, sizeof since, err)) return -1;
    r->before = comm_counters_minus(comm_counters_total(&d->comm), since[0]);
    r->after = r->before;
    comm_counters_add(&r->after, &since[1]);
    return 0;
}

/* Per-rank mean of steps [1, timed) of field f. */
static double rank_mean(const double *v, int timed, int f)
{
    double s = 0.0;
    int n = 0;
    for (int i = timed > 1 ? 1 : 0; i < timed; i++, n++) s += v[(size_t)i * NF + f];
    return n ? s / n : NAN;
}

static Table *iters_table(const Run *r, const double *all)
{
    char name[192];
    snprintf(name, sizeof name, "%s-iters", r->d->tag);
    Table *t = table_new(name, "iter,rank,ms,forward_ms,backward_ms,sync_ms,optimizer_ms,buffers_ms,comm_ms,"
                               "hidden_ms,data_ms,loss");
    t->meta = r->meta;
    for (int i = 0; i < r->timed; i++)
        for (int k = 0; k < r->d->world; k++) {
            const double *v = all + ((size_t)k * r->timed + i) * NF;
            table_set_int(t, "iter", i);
            table_set_int(t, "rank", k);
            for (int f = 0; f < NF; f++) table_set_num(t, FIELD[f], v[f], f == F_LOSS ? "%.6f" : "%.3f");
            table_end_row(t);
        }
    return t;
}

/* Mean per rank over the timed steps (first discarded), then over ranks. */
typedef struct Means {
    double f[NF], lo, hi, comm, hidden;
} Means;

static Means means_of(const Run *r, const double *all)
{
    Means m = { .lo = INFINITY, .hi = -INFINITY };
    const int ranks = r->d->world, timed = r->timed;
    for (int k = 0; k < ranks; k++) {
        const double *v = all + (size_t)k * timed * NF;
        for (int f = 0; f < NF; f++) m.f[f] += rank_mean(v, timed, f) / ranks;
        double ms = rank_mean(v, timed, F_MS);
        m.lo = fmin(m.lo, ms);
        m.hi = fmax(m.hi, ms);
        for (int i = 1; i < timed; i++) {
            m.comm += v[(size_t)i * NF + F_COMM];
            m.hidden += v[(size_t)i * NF + F_HIDDEN];
        }
    }
    return m;
}

/* Each rank's own test loss and accuracy, and their spread. */
static void set_evals(Table *t, const double *evals, int ranks)
{
    double lmin = INFINITY, lmax = -INFINITY, amin = INFINITY, amax = -INFINITY;
    for (int k = 0; k < ranks; k++) {
        lmin = fmin(lmin, evals[2 * k]);
        lmax = fmax(lmax, evals[2 * k]);
        amin = fmin(amin, evals[2 * k + 1]);
        amax = fmax(amax, evals[2 * k + 1]);
    }
    table_set_num(t, "test_loss", evals[0], "%.4f");
    table_set_num(t, "test_accuracy", evals[1], "%.4f");
    table_set_num(t, "test_loss_min", lmin, "%.4f");
    table_set_num(t, "test_loss_max", lmax, "%.4f");
    table_set_num(t, "test_acc_min", amin, "%.4f");
    table_set_num(t, "test_acc_max", amax, "%.4f");
}

static Table *summary_table(const Run *r, const Means *m, const double *evals, double bytes, double wall)
{
    const Lab3Options *o = r->o;
    const Driver *d = r->d;
    const SyncKind kind = r->sc.kind;
    char name[192];
    snprintf(name, sizeof name, "%s-summary", d->tag);
    Table *t = table_new(name, "tag,task,series,sync,alg,np,oversubscribed,batch_per_rank,global_batch,accumulate,"
                               "bucket_cap_mb,buckets,bn,model,width,params,data,train_examples,iters,timed,ms_mean,"
                               "s_per_iter,ms_rank_min,ms_rank_max,forward_ms,backward_ms,sync_ms,optimizer_ms,"
                               "buffers_ms,comm_ms,hidden_ms,hidden_frac,grad_bytes,bytes_sent_per_step,test_loss,"
                               "test_accuracy,test_loss_min,test_loss_max,test_acc_min,test_acc_max,wall_s");
    t->meta = r->meta;
    table_set_str(t, "tag", d->tag);
    table_set_str(t, "task", o->task);
    table_set_str(t, "series", o->series);
    table_set_str(t, "sync", sync_kind_name(kind));
    table_set_str(t, "alg", kind == SYNC_GATHER_SCATTER ? "linear" : kind == SYNC_NONE ? "" : comm_alg_name(r->sc.alg));
    table_set_int(t, "np", d->world);
    table_set_str(t, "oversubscribed", meta_get(&r->meta, "oversubscribed"));
    table_set_int(t, "batch_per_rank", r->batch);
    table_set_int(t, "global_batch", (long long)r->batch * d->world * r->sc.accumulate);
    table_set_int(t, "accumulate", r->sc.accumulate);
    if (kind == SYNC_DDP) {
        table_set_num(t, "bucket_cap_mb", o->bucket_cap_mb, "%g");
        table_set_int(t, "buckets", sync_groups(d->sync));
    }
    table_set_str(t, "bn", BN_NAMES[r->bn]);
    table_set_str(t, "model", o->run.model);
    table_set_num(t, "width", o->run.width, "%g");
    table_set_int(t, "params", (long long)d->m.nparams);
    table_set_str(t, "data", d->train.synthetic ? "synthetic" : "real");
    table_set_int(t, "train_examples", d->train.n);
    table_set_int(t, "iters", (long long)d->sync->steps);
    table_set_int(t, "timed", r->timed);
    table_set_num(t, "ms_mean", m->f[F_MS], "%.3f");
    table_set_num(t, "s_per_iter", m->f[F_MS] / 1e3, "%.4f");
    table_set_num(t, "ms_rank_min", m->lo, "%.3f");
    table_set_num(t, "ms_rank_max", m->hi, "%.3f");
    static const int shown[] = { F_FWD, F_BWD, F_SYNC, F_OPT, F_BUF, F_COMM, F_HIDDEN };
    for (size_t i = 0; i < sizeof shown / sizeof *shown; i++) table_set_num(t, FIELD[shown[i]], m->f[shown[i]], "%.3f");
    if (m->comm > 0) table_set_num(t, "hidden_frac", m->hidden / m->comm, "%.4f");
    table_set_int(t, "grad_bytes", (long long)(d->m.nparams * sizeof(float)));
    if (bytes >= 0) table_set_num(t, "bytes_sent_per_step", bytes, "%.0f");
    if (evals) set_evals(t, evals, d->world);
    table_set_num(t, "wall_s", wall, "%.2f");
    table_end_row(t);
    return t;
}

/* Bytes this rank sent per timed step, when ddlab's own algorithms carried
 * them (MPI_Allreduce's traffic is inside Open MPI: not counted), averaged
 * over ranks on rank 0; -1 when not counted. */
static double bytes_per_step(const Run *r)
{
    bool counted = r->sc.kind == SYNC_GATHER_SCATTER || (r->sc.kind != SYNC_NONE && r->sc.alg != COMM_ALG_MPI);
    double mine = counted ? (double)(r->after.bytes_sent - r->before.bytes_sent) / r->timed : -1.0, sum = 0.0;
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, r->d->comm.mpi);
    return counted ? sum / r->d->world : -1.0;
}

/* Every rank evaluates with its own BN statistics (after the broadcast DDP
 * would do), so disagreement between ranks shows. Rank 0 gets them all.
 * The broadcast goes through the strategy, which stages a device model's
 * statistics through host memory (MPI cannot read device memory). */
static double *evaluate_ranks(const Run *r)
{
    Driver *d = r->d;
    if (r->o->no_eval) return NULL;
    if (r->sc.broadcast_buffers && d->has_sync) sync_broadcast_buffers(&d->own);
    EvalResult e = evaluate(&d->m, &d->test, r->batch);
    double mine[2] = { e.loss, e.accuracy };
    return driver_gather(d, mine, 2);
}

static void report(const Run *r, const Means *m, const double *evals)
{
    const Driver *d = r->d;
    fprintf(stderr, "lab3: %s: %.1f ms/iter (ranks %.1f..%.1f; fwd %.1f, bwd %.1f, exposed sync %.1f, opt %.1f; comm "
                    "%.1f of which hidden %.1f), wrote %s/%s-*\n", d->tag, m->f[F_MS], m->lo, m->hi, m->f[F_FWD],
            m->f[F_BWD], m->f[F_SYNC], m->f[F_OPT], m->f[F_COMM], m->f[F_HIDDEN], r->o->run.out, d->tag);
    if (!evals) return;
    double amin = INFINITY, amax = -INFINITY;
    for (int k = 0; k < d->world; k++) {
        amin = fmin(amin, evals[2 * k + 1]);
        amax = fmax(amax, evals[2 * k + 1]);
    }
    fprintf(stderr, "lab3: %s: test loss %.4f, accuracy %.2f%% (rank 0; all ranks %.2f%%..%.2f%%)\n", d->tag,
            evals[0], 100 * evals[1], 100 * amin, 100 * amax);
}

static int write_outputs(Run *r, double wall)
{
    Driver *d = r->d;
    double bytes = bytes_per_step(r);
    double *evals = evaluate_ranks(r);
    double *all = driver_gather(d, r->mine, NF * r->timed);
    Table *t[2] = { NULL, NULL };
    if (d->rank == 0) {
        Means m = means_of(r, all);
        t[0] = iters_table(r, all);
        t[1] = summary_table(r, &m, evals, bytes, wall);
        if (!r->o->run.quiet) report(r, &m, evals);
    }
    int status = driver_write(d, t, d->rank == 0 ? 2 : 0);
    status |= driver_write_trace(d, &r->meta);
    table_free(t[0]);
    table_free(t[1]);
    ddl_free(all);
    ddl_free(evals);
    return status;
}

int lab3_run(void *ctx, Driver *d)
{
    const Lab3Options *o = ctx;
    Run r = { .o = o, .d = d };
    int status = set_up(&r, d);
    if (status || (status = batches(&r, d)) || (status = lab3_compute_begin(&r.comp, o, d, r.batch))) return status;
    describe(o, d, &r.meta, &r);
    if (d->rank == 0 && !o->run.quiet)
        fprintf(stderr, "lab3: %s: %s, %d rank(s) x batch %d%s, %s %s (%zu params) on %s %s (%d examples), %ld steps, "
                        "BN stats %s\n", d->tag, sync_kind_name(r.sc.kind), d->world, r.batch,
                o->accumulate > 1 ? " x accumulate" : "", o->run.model, meta_get(&r.meta, "width"), d->m.nparams,
                d->train.synthetic ? "synthetic" : "real", d->train.name, d->train.n, r.total, BN_NAMES[r.bn]);
    r.mine = ddl_calloc(sizeof(double) * NF * (size_t)r.timed);
    r.before = r.after = comm_counters_total(&d->comm);
    double t_start = ddl_now();
    DriverLoop loop = { .batches = r.total * o->accumulate, .progress = "train", .progress_every = 10 };
    DriverHooks hooks = { .ctx = &r, .before_batch = before_batch, .after_batch = after_batch, .save = save,
                          .load = load };
    /* a shared rank's scratch (the allreduce's, the buckets') grows in the
     * first step: shared too */
    lab3_compute_sharing(&r.comp, true);
    status = driver_train(d, &loop, &hooks);
    lab3_compute_sharing(&r.comp, false);
    if (!status) status = write_outputs(&r, ddl_now() - t_start);
    int ended = lab3_compute_end(&r.comp, o, d, &r.meta);
    if (!status) status = ended;
    ddl_free(r.mine);
    return status;
}
