/* run.c - one lab6 training run (seed 003; see lab6.h).
 *
 * Measured as the seed did: training time = wall time of the training
 * loop (data loading included, evaluation excluded), from a barrier to a
 * barrier; iterations per second = optimizer steps / training time; test
 * accuracy of the model rank 0 holds (the server's in ps, which averages
 * the workers' batch-norm statistics; rank 0's own in horovod, which like
 * Horovod synchronises no buffers). Per-step breakdown: mean over the
 * computing ranks (the workers) of every step but the first (warm-up, and
 * horovod's fusion plan changes after it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/evaluate.h"
#include "lab6.h"

/* Per step on one rank. */
enum { F_MS, F_FWD, F_BWD, F_OPT, F_SYNC, F_COMM, NF };

typedef struct Run {
    const Lab6Options *o;
    Driver *d;
    SyncConfig sc;
    int workers;               /* computing ranks */
    long total;                /* optimizer steps */
    double sums[NF];           /* this rank's steps 1.. */
    Meta meta;
} Run;

int lab6_check(void *ctx, int ranks)
{
    Lab6Options *o = ctx;
    o->w = workload_find(o->workload);
    if (!o->w) {
        ddl_error("unknown --workload '%s': %s", o->workload, workload_names());
        return 2;
    }
    if (driver_choice("style", o->style, lab6_style_choices()) < 0) return 2;
    SyncKind kind = SYNC_NONE;
    sync_kind_from_name(o->style, &kind);
    /* the options of one style each: Horovod's, the parameter server's */
    const char *why = o->fp16 && kind != SYNC_HOROVOD ? "--fp16 is Horovod's compression: --style horovod only"
                      : o->ps_async && kind != SYNC_PS ? "--async is the parameter server's: --style ps only"
                      : strcmp(o->alg, "ring") && kind != SYNC_HOROVOD ? "--alg is Horovod's allreduce: --style horovod only"
                                                                       : NULL;
    if (sync_kind_rank0_serves(kind) && ranks < 2) {
        ddl_error("--style %s needs a server and workers: run P+1 ranks for P workers (mpirun -np 2 for 1)", o->style);
        return 2;
    }
    if (why) {
        ddl_error("%s", why);
        return 2;
    }
    if (driver_choice("lr-scale", o->lr_scale, "none|linear") < 0) return 2;
    CommAlg alg;
    if (comm_alg_from_name(o->alg, &alg) != 0) {
        char known[256];
        comm_alg_names(known, sizeof known, ", ");
        ddl_error("unknown --alg '%s' (%s)", o->alg, known);
        return 2;
    }
    o->run.model = o->w->model;
    o->run.dataset = o->w->dataset;
    if (o->run.width == 0) o->run.width = o->w->quick_width;
    return 0;
}

static SyncConfig strategy(const Lab6Options *o)
{
    SyncKind kind = SYNC_NONE;
    sync_kind_from_name(o->style, &kind);
    if (o->ps_async) kind = SYNC_PS_ASYNC; /* lab6_check: only with --style ps */
    SyncConfig sc = sync_config_default(kind);
    sc.accumulate = o->accumulate;
    sc.horovod.fusion_bytes = (size_t)((double)o->fusion_mb * 1048576.0);
    sc.horovod.cycle_ms = o->cycle_ms;
    sc.horovod.fp16 = o->fp16;
    if (kind == SYNC_HOROVOD) comm_alg_from_name(o->alg, &sc.alg);
    return sc;
}

/* The learning rate of optimizer step `step` (0..). --lr-scale none: --lr.
 * linear: Horovod's recipe (its examples' lr x size x batches per
 * allreduce; Goyal et al. 2017, "Accurate, large minibatch SGD"): P workers
 * accumulating K batches average P x K times the examples per step and
 * take 1/(P K) of an epoch's steps, so the rate is --lr x P x K, reached by
 * a linear ramp from --lr over the first --warmup steps (a large rate from
 * the first step upsets a fresh model). One worker, K = 1: --lr. */
static float lr_at(const Lab6Options *o, int workers, long step)
{
    float peak = strcmp(o->lr_scale, "linear") ? o->run.lr : o->run.lr * (float)(workers * o->accumulate);
    if (step >= o->warmup) return peak;
    return o->run.lr + (peak - o->run.lr) * (float)step / (float)o->warmup;
}

/* Strategy, data, model; DistributedSampler over the workers (the server
 * shapes a batcher of worker 0 only to count the steps, which padding
 * makes equal). 0 or a status. */
static int set_up(Run *r, Driver *d)
{
    const Lab6Options *o = r->o;
    r->sc = strategy(o);
    if (driver_open(d) || driver_load(d, true) || driver_build(d, o->run.model, NULL, o->run.batch)) return 2;
    driver_trainer(d, NULL);
    if (driver_sync(d, &r->sc)) return 2;
    bool server = !sync_computes(d->sync);
    r->workers = sync_workers(d->sync);
    driver_tag(d, "%s-%s-w%d", o->w->name, sync_kind_name(r->sc.kind), r->workers);
    driver_run_begin(d, o->run.out, (const char *const[]){ "*-summary", NULL });
    BatcherOptions bo = { .batch = o->run.batch, .rank = server ? 0 : d->rank - (d->world - r->workers),
                          .world = r->workers, .shuffle = true, .drop_last = true, .augment = false,
                          .normalize = true, .seed = o->run.seed };
    driver_batches(d, &bo);
    int per_epoch = batcher_batches(&d->b) / o->accumulate;
    r->total = o->iters > 0 ? o->iters : (long)o->epochs * per_epoch;
    /* two reasons, two messages: "give 2 step(s) ... needs 2 or more" said
     * both at once when the examples did not fill one step */
    if (per_epoch < 1) {
        ddl_error("%d training examples over %d worker(s) do not fill one step of %d x %d examples on each worker "
                  "(raise --limit, or lower --batch or --accumulate)",
                  d->train.n, r->workers, o->run.batch, o->accumulate);
        return 2;
    }
    if (r->total < 2) {
        ddl_error("this run has %ld step(s) (%d per epoch): lab6 needs 2 or more (raise --iters or --epochs)", r->total,
                  per_epoch);
        return 2;
    }
    return 0;
}

/* The workload, the style and how it is timed, besides the driver's
 * provenance. */
static void describe(Run *r, Meta *meta)
{
    const Lab6Options *o = r->o;
    Driver *d = r->d;
    driver_meta(d, meta);
    meta_set(meta, "workload", "%s", o->w->name);
    meta_set(meta, "style", "%s", sync_kind_name(r->sc.kind));
    meta_set(meta, "style_detail", "%s", sync_kind_description(r->sc.kind));
    meta_set(meta, "workers", "%d%s", r->workers, r->workers < d->world ? " (+ rank 0 as the server)" : "");
    meta_set(meta, "accumulate", "%d", r->sc.accumulate);
    /* ps moves these with the gradients (4 bytes each way per worker): the
     * closed form of its bytes needs them; horovod, as Horovod, skips them. */
    meta_set(meta, "buffers", "%zu (batch-norm running statistics; ps averages them at the server, horovod does "
             "not sync them)", d->m.nstate);
    meta_set(meta, "batch_per_worker", "%d", o->run.batch);
    meta_set(meta, "iterations", "%ld (%d per epoch per worker)", r->total, batcher_batches(&d->b) / o->accumulate);
    int scale = r->workers * o->accumulate;
    if (!strcmp(o->lr_scale, "linear") && scale > 1)
        meta_set(meta, "optimizer", "SGD lr %g x %d (workers x accumulate) = %g (linear scaling, ramped up from %g "
                 "over the first %d steps) momentum %g wd %g", (double)o->run.lr, scale,
                 (double)lr_at(o, r->workers, o->warmup), (double)o->run.lr, o->warmup, (double)o->run.momentum,
                 (double)o->run.wd);
    else
        meta_set(meta, "optimizer", "SGD lr %g momentum %g wd %g (%s)", (double)o->run.lr, (double)o->run.momentum,
                 (double)o->run.wd, scale > 1 ? "not scaled with workers: --lr-scale none" : "one worker");
    const char *yield = getenv("OMPI_MCA_mpi_yield_when_idle");
    meta_set(meta, "mpi_yield_when_idle", "%s", yield && *yield ? yield : "Open MPI default (busy polling unless "
                                                                      "it knows it is oversubscribed)");
    meta_set(meta, "timing", "training time: wall time of the training loop between barriers (data loading in, "
                             "evaluation out); step breakdown: mean over workers of steps 1.., step 0 discarded");
}

static void before_batch(Driver *d, long index, void *ctx)
{
    const Run *r = ctx;
    d->t.opt.cfg.lr = lr_at(r->o, r->workers, index / r->o->accumulate);
}

static void after_batch(Driver *d, const DriverBatch *b, void *ctx)
{
    Run *r = ctx;
    if (!b->stepped || b->index < r->o->accumulate) return; /* step 0 discarded */
    const SyncTimes *t = &d->sync->last;
    double v[NF] = { t->total, t->forward, t->backward, t->optimizer, t->sync_wait, t->comm };
    for (int f = 0; f < NF; f++) r->sums[f] += v[f];
}

/* The columns that depend on the style. */
static void set_style(Table *t, const Run *r)
{
    const Lab6Options *o = r->o;
    table_set_str(t, "style", sync_kind_name(r->sc.kind));
    if (r->sc.kind != SYNC_HOROVOD) return;
    table_set_num(t, "fusion_mb", o->fusion_mb, "%g");
    table_set_num(t, "cycle_ms", o->cycle_ms, "%g");
    table_set_str(t, "fp16", o->fp16 ? "yes" : "no");
    table_set_int(t, "groups", sync_groups(r->d->sync));
}

static Table *summary(Run *r, double train_s, const double *means, const double *bytes, EvalResult e)
{
    const Lab6Options *o = r->o;
    const Driver *d = r->d;
    char name[192];
    snprintf(name, sizeof name, "%s-summary", d->tag);
    Table *t = table_new(name, "tag,workload,workload_label,style,workers,ranks,device,oversubscribed,data,profile,model,"
                               "width,params,train_examples,test_examples,batch_per_worker,global_batch,accumulate,"
                               "iters,train_s,iters_per_s,test_accuracy_pct,test_loss,step_ms,wall_step_ms,forward_ms,"
                               "backward_ms,optimizer_ms,compute_ms,sync_ms,comm_ms,other_ms,bytes_per_rank,"
                               "bytes_max_rank,fusion_mb,cycle_ms,fp16,groups");
    /* after training: the fusion plan of steps 1.. is known now */
    if (r->sc.kind == SYNC_HOROVOD)
        meta_set(&r->meta, "horovod", "%s allreduce (%s), fusion %g MiB, cycle %g ms, %s, %d fusion groups per "
                 "step after step 0 (mimics Horovod 0.28's defaults 128 MiB, 1 ms)", comm_alg_name(r->sc.alg),
                 comm_alg_description(r->sc.alg), (double)o->fusion_mb,
                 (double)o->cycle_ms, o->fp16 ? "fp16 compression" : "fp32", sync_groups(d->sync));
    t->meta = r->meta;
    double mean_bytes = 0.0, max_bytes = 0.0;
    for (int k = 0; k < d->world; k++) {
        mean_bytes += bytes[k] / d->world;
        max_bytes = fmax(max_bytes, bytes[k]);
    }
    double wall_step = 1e3 * train_s / (double)r->total, compute = means[F_FWD] + means[F_BWD] + means[F_OPT];
    table_set_str(t, "tag", d->tag);
    table_set_str(t, "workload", o->w->name);
    table_set_str(t, "workload_label", o->w->label);
    set_style(t, r);
    table_set_int(t, "workers", r->workers);
    table_set_int(t, "ranks", d->world);
    table_set_str(t, "device", o->run.device);
    table_set_str(t, "oversubscribed", meta_get(&r->meta, "oversubscribed"));
    table_set_str(t, "data", d->train.synthetic ? "synthetic" : "real");
    table_set_str(t, "profile", o->run.profile);
    table_set_str(t, "model", o->w->model);
    table_set_num(t, "width", o->run.width, "%g");
    table_set_int(t, "params", (long long)d->m.nparams);
    table_set_int(t, "train_examples", d->train.n);
    table_set_int(t, "test_examples", d->test.n);
    table_set_int(t, "batch_per_worker", o->run.batch);
    table_set_int(t, "global_batch", (long long)o->run.batch * r->workers * o->accumulate);
    table_set_int(t, "accumulate", o->accumulate);
    table_set_int(t, "iters", r->total);
    table_set_num(t, "train_s", train_s, "%.4g");
    table_set_num(t, "iters_per_s", (double)r->total / train_s, "%.2f");
    table_set_num(t, "test_accuracy_pct", 100.0 * e.accuracy, "%.1f");
    table_set_num(t, "test_loss", e.loss, "%.4f");
    table_set_num(t, "step_ms", means[F_MS], "%.3f");
    table_set_num(t, "wall_step_ms", wall_step, "%.3f");
    table_set_num(t, "forward_ms", means[F_FWD], "%.3f");
    table_set_num(t, "backward_ms", means[F_BWD], "%.3f");
    table_set_num(t, "optimizer_ms", means[F_OPT], "%.3f");
    table_set_num(t, "compute_ms", compute, "%.3f");
    table_set_num(t, "sync_ms", means[F_SYNC], "%.3f");
    table_set_num(t, "comm_ms", means[F_COMM], "%.3f");
    table_set_num(t, "other_ms", fmax(0.0, wall_step - compute - means[F_SYNC]), "%.3f");
    table_set_num(t, "bytes_per_rank", mean_bytes, "%.0f");
    table_set_num(t, "bytes_max_rank", max_bytes, "%.0f");
    table_end_row(t);
    if (!o->run.quiet)
        fprintf(stderr, "lab6: %s: %.2f s, %.2f it/s, test accuracy %.1f%%; step %.1f ms (compute %.1f, exposed comm "
                        "%.1f, other %.1f); %.0f bytes/rank/step; wrote %s/%s-summary.csv\n", d->tag, train_s,
                (double)r->total / train_s, 100.0 * e.accuracy, wall_step, compute, means[F_SYNC],
                fmax(0.0, wall_step - compute - means[F_SYNC]), mean_bytes, o->run.out, d->tag);
    return t;
}

/* What a resumed run needs of this one: the step sums so far. */
static void save(Driver *d, Ckpt *c, void *ctx)
{
    const Run *r = ctx;
    ckpt_put(c, "lab.sums", r->sums, sizeof r->sums);
}

static int load(Driver *d, const Ckpt *c, void *ctx, char err[DDL_ERRLEN])
{
    Run *r = ctx;
    return ckpt_get(c, "lab.sums", r->sums, sizeof r->sums, err);
}

int lab6_run(void *ctx, Driver *d)
{
    const Lab6Options *o = ctx;
    Run r = { .o = o, .d = d };
    int status = set_up(&r, d);
    if (status) return status;
    describe(&r, &r.meta);
    if (d->rank == 0 && !o->run.quiet)
        fprintf(stderr, "lab6: %s: %s, %d worker(s)%s x batch %d, %s x%g (%zu params) on %s %s (%d examples), %ld "
                        "steps\n", d->tag, sync_kind_name(r.sc.kind), r.workers, r.workers < d->world ? " + server" : "",
                o->run.batch, o->w->model, (double)o->run.width, d->m.nparams, d->train.synthetic ? "synthetic" : "real",
                d->train.name, d->train.n, r.total);
    CommCounters before = sync_counters(d->sync);
    DriverLoop loop = { .batches = r.total * o->accumulate, .barrier_start = true, .barrier_end = true };
    DriverHooks hooks = { .ctx = &r, .before_batch = before_batch, .after_batch = after_batch, .save = save,
                          .load = load };
    if ((status = driver_train(d, &loop, &hooks)) != 0) return status;
    CommCounters after = sync_counters(d->sync);
    double bytes = (double)(after.bytes_sent - before.bytes_sent) / (double)r.total;
    /* worker means of the step breakdown; the server's optimizer time is in
     * its workers' exposed communication */
    bool server = !sync_computes(d->sync);
    double mine[NF + 1], all[NF + 1];
    for (int f = 0; f < NF; f++) mine[f] = server ? 0.0 : r.sums[f] / (double)(r.total - 1);
    mine[NF] = server ? 0.0 : 1.0;
    MPI_Reduce(mine, all, NF + 1, MPI_DOUBLE, MPI_SUM, 0, d->comm.mpi);
    double *rank_bytes = driver_gather(d, &bytes, 1);
    Table *t = NULL;
    if (d->rank == 0) {
        for (int f = 0; f < NF; f++) all[f] /= all[NF];
        t = summary(&r, d->st.train_s, all, rank_bytes, evaluate(&d->m, &d->test, o->run.batch));
    }
    status = driver_write(d, &t, t ? 1 : 0);
    table_free(t);
    ddl_free(rank_bytes);
    return status;
}
