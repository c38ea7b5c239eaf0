/* run.c - one lab3 training run (see lab3.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "data/dataset.h"
#include "device.h"
#include "gemm.h"
#include "model/model.h"
#include "results/results.h"
#include "evaluate/evaluate.h"
#include "train/train.h"
#include "lab3.h"

Lab3Options lab3_defaults(void)
{
    Lab3Options o;
    memset(&o, 0, sizeof o);
    o.sync = "ddp";
    o.alg = "mpi";
    o.bn = "auto";
    o.augment = "auto";
    o.task = "";
    o.series = "custom";
    o.bucket_cap_mb = 25.0f;
    o.first_bucket_mb = 1.0f;
    o.accumulate = 1;
    o.global_batch = 256;
    o.timed = 40;
    o.trace_iter = -1;
    o.model = "vgg11";
    o.width = 1.0f;
    o.dataset = "cifar10";
    o.device = getenv("DEVICE") && *getenv("DEVICE") ? getenv("DEVICE") : "cpu";
    /* the CS744 assignment's script: SGD lr 0.1, momentum 0.9, wd 1e-4 */
    o.lr = 0.1f;
    o.momentum = 0.9f;
    o.wd = 1e-4f;
    o.seed = 1;
    o.profile = getenv("PROFILE") && *getenv("PROFILE") ? getenv("PROFILE") : "custom";
    o.out = "results/lab3";
    o.tex = "report/tables/lab3.tex";
    return o;
}

/* What one rank measured in one step, gathered to rank 0 at the end. */
enum { F_MS, F_FWD, F_BWD, F_SYNC, F_OPT, F_BUF, F_COMM, F_HIDDEN, F_DATA, F_LOSS, NF };
static const char *const FIELD[NF] = { "ms", "forward_ms", "backward_ms", "sync_ms", "optimizer_ms", "buffers_ms",
                                       "comm_ms", "hidden_ms", "data_ms", "loss" };

typedef enum { BN_TRACK, BN_OFF, BN_BROADCAST } BnMode;

static int parse_bn(const char *s, SyncKind kind, BnMode *out)
{
    if (!strcmp(s, "track")) *out = BN_TRACK;
    else if (!strcmp(s, "off")) *out = BN_OFF;
    else if (!strcmp(s, "broadcast")) *out = BN_BROADCAST;
    else if (!strcmp(s, "auto")) {
        /* As the seed reported: Task 1 tracks (one process), Tasks 2a/2b
         * ran without running statistics (its fix for ranks disagreeing),
         * DDP broadcasts rank 0's buffers; the flat control does what DDP
         * does so the two differ only in bucketing and overlap. */
        *out = kind == SYNC_NONE ? BN_TRACK
             : (kind == SYNC_GATHER_SCATTER || kind == SYNC_ALLREDUCE) ? BN_OFF
                                                                       : BN_BROADCAST;
    } else return -1;
    return 0;
}

static const char *bn_name(BnMode b) { return b == BN_TRACK ? "track" : b == BN_OFF ? "off" : "broadcast"; }

static int load(const Lab3Options *o, Split split, int limit, Dataset *d)
{
    return dataset_load_for_run(o->dataset, split, limit, o->seed, true, o->force_synthetic, d);
}

typedef struct Run {
    const Lab3Options *o;
    char device_desc[256];
    Comm *c;
    SyncConfig sc;
    BnMode bn;
    int batch;
    Dataset train, test;
    Model m;
    Trainer t;
    Sync s;
    Meta meta;
    char tag[128];
} Run;

static void describe(Run *r)
{
    const Lab3Options *o = r->o;
    Meta *meta = &r->meta;
    meta_collect(meta, "lab3");
    meta_set(meta, "run", "%s", r->tag);
    meta_set(meta, "task", "%s", o->task);
    meta_set(meta, "series", "%s", o->series);
    meta_set(meta, "sync", "%s", sync_kind_name(r->sc.kind));
    meta_set(meta, "sync_detail", "%s", sync_kind_description(r->sc.kind));
    meta_set(meta, "alg", "%s", r->sc.kind == SYNC_GATHER_SCATTER ? "linear" : comm_alg_name(r->sc.alg));
    if (r->sc.kind == SYNC_DDP)
        meta_set(meta, "buckets", "%d (first %g MiB, cap %g MiB%s), progress from the gradient-ready hook",
                 sync_groups(&r->s), (double)o->first_bucket_mb, (double)o->bucket_cap_mb,
                 o->bucket_cap_mb == 0 ? ": one per layer" : "");
    meta_set(meta, "bn_stats", "%s", bn_name(r->bn));
    meta_set(meta, "accumulate", "%d", r->sc.accumulate);
    meta_set(meta, "model", "%s", o->model);
    meta_set(meta, "width", "%g", (double)o->width);
    meta_set(meta, "params", "%zu", r->m.nparams);
    meta_set(meta, "dataset", "%s", r->train.name);
    meta_set(meta, "data", "%s", r->train.synthetic ? "synthetic" : "real");
    meta_set(meta, "data_source", "%s", r->train.source);
    meta_set(meta, "train_examples", "%d", r->train.n);
    meta_set(meta, "test_examples", "%d", r->test.n);
    meta_set(meta, "batch_per_rank", "%d", r->batch);
    meta_set(meta, "global_batch", "%d", r->batch * r->c->size * r->sc.accumulate);
    meta_set(meta, "device", "%s", o->device);
    meta_set(meta, "device_detail", "%s", r->device_desc);
    meta_set(meta, "profile", "%s", o->profile);
    meta_set(meta, "seed", "%llu", (unsigned long long)o->seed);
    meta_set(meta, "optimizer", "SGD lr %g momentum %g wd %g", (double)o->lr, (double)o->momentum, (double)o->wd);
    meta_set(meta, "blas_core", "%s", blas_core_name());
    meta_set(meta, "blas_threads", "%d (%s)", blas_threads(), blas_threading());
    meta_set(meta, "timing", "first %d steps timed (forward to optimizer, data loading apart), the first "
                             "discarded; mean per rank, then over ranks", o->timed);
}

static int setup(Run *r, char err[256])
{
    const Lab3Options *o = r->o;
    Comm *c = r->c;
    SyncKind kind;
    if (sync_kind_from_name(o->sync, &kind) != 0) {
        snprintf(err, 256, "unknown --sync '%s': none, gather_scatter, allreduce, allreduce_flat, ddp", o->sync);
        return -1;
    }
    r->sc = sync_config_default(kind);
    r->sc.accumulate = o->accumulate;
    r->sc.ddp.first_bytes = (size_t)((double)o->first_bucket_mb * 1048576.0);
    r->sc.ddp.cap_bytes = (size_t)((double)o->bucket_cap_mb * 1048576.0);
    if (comm_alg_from_name(o->alg, &r->sc.alg) != 0) {
        snprintf(err, 256, "unknown --alg '%s' (mpi, linear, tree, recdoubling, rabenseifner, ring, ring_async)",
                 o->alg);
        return -1;
    }
    if (parse_bn(o->bn, kind, &r->bn) != 0) {
        snprintf(err, 256, "unknown --bn '%s': auto, track, off, broadcast", o->bn);
        return -1;
    }
    r->sc.broadcast_buffers = r->bn == BN_BROADCAST && c->size > 1;
    if (kind == SYNC_NONE && c->size > 1) {
        snprintf(err, 256, "--sync none is one process; with %d ranks pick gather_scatter, allreduce, "
                           "allreduce_flat or ddp", c->size);
        return -1;
    }
    Device dev;
    char derr[DDL_ERRLEN];
    int local_rank = 0;
    MPI_Comm node;
    MPI_Comm_split_type(c->mpi, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    if (device_parse(o->device, &dev, derr) != 0 ||
        device_check(dev, local_rank, r->device_desc, sizeof r->device_desc, derr) != 0) {
        snprintf(err, 256, "%s", derr);
        return -1;
    }
    r->batch = o->batch > 0 ? o->batch : o->global_batch / (c->size * o->accumulate);
    if (r->batch < 1) {
        snprintf(err, 256, "--global-batch %d is less than one example per rank and micro-batch (%d ranks x %d)",
                 o->global_batch, c->size, o->accumulate);
        return -1;
    }
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

static int write_outputs(Run *r, const double *all, int timed, int ranks, const double *evals,
                         const SyncEvent *ev, const int *ev_ranks, int nev, double bytes_per_step, double wall)
{
    const Lab3Options *o = r->o;
    char name[192];
    int status = 0;
    /* per step and rank */
    snprintf(name, sizeof name, "%s-iters", r->tag);
    Table *ti = table_new(name, "iter,rank,ms,forward_ms,backward_ms,sync_ms,optimizer_ms,buffers_ms,comm_ms,"
                                "hidden_ms,data_ms,loss");
    ti->meta = r->meta;
    for (int i = 0; i < timed; i++)
        for (int k = 0; k < ranks; k++) {
            const double *v = all + ((size_t)k * timed + i) * NF;
            table_set_int(ti, "iter", i);
            table_set_int(ti, "rank", k);
            for (int f = 0; f < NF; f++) table_set_num(ti, FIELD[f], v[f], f == F_LOSS ? "%.6f" : "%.3f");
            table_end_row(ti);
        }
    /* summary: mean per rank over the timed steps (first discarded), then
     * the mean over ranks, as the seed */
    double mean[NF] = { 0 }, lo = INFINITY, hi = -INFINITY;
    double comm_sum = 0.0, hidden_sum = 0.0;
    for (int k = 0; k < ranks; k++) {
        const double *v = all + (size_t)k * timed * NF;
        for (int f = 0; f < NF; f++) mean[f] += rank_mean(v, timed, f) / ranks;
        double ms = rank_mean(v, timed, F_MS);
        lo = fmin(lo, ms);
        hi = fmax(hi, ms);
        for (int i = 1; i < timed; i++) {
            comm_sum += v[(size_t)i * NF + F_COMM];
            hidden_sum += v[(size_t)i * NF + F_HIDDEN];
        }
    }
    snprintf(name, sizeof name, "%s-summary", r->tag);
    Table *ts = table_new(name, "tag,task,series,sync,alg,np,oversubscribed,batch_per_rank,global_batch,accumulate,"
                                "bucket_cap_mb,buckets,bn,model,width,params,data,train_examples,iters,timed,ms_mean,"
                                "s_per_iter,ms_rank_min,ms_rank_max,forward_ms,backward_ms,sync_ms,optimizer_ms,"
                                "buffers_ms,comm_ms,hidden_ms,hidden_frac,grad_bytes,bytes_sent_per_step,test_loss,"
                                "test_accuracy,test_loss_min,test_loss_max,test_acc_min,test_acc_max,wall_s");
    ts->meta = r->meta;
    table_set_str(ts, "tag", r->tag);
    table_set_str(ts, "task", o->task);
    table_set_str(ts, "series", o->series);
    table_set_str(ts, "sync", sync_kind_name(r->sc.kind));
    table_set_str(ts, "alg", r->sc.kind == SYNC_GATHER_SCATTER ? "linear"
                           : r->sc.kind == SYNC_NONE           ? ""
                                                               : comm_alg_name(r->sc.alg));
    table_set_int(ts, "np", ranks);
    table_set_str(ts, "oversubscribed", meta_get(&r->meta, "oversubscribed"));
    table_set_int(ts, "batch_per_rank", r->batch);
    table_set_int(ts, "global_batch", (long long)r->batch * ranks * r->sc.accumulate);
    table_set_int(ts, "accumulate", r->sc.accumulate);
    if (r->sc.kind == SYNC_DDP) {
        table_set_num(ts, "bucket_cap_mb", o->bucket_cap_mb, "%g");
        table_set_int(ts, "buckets", sync_groups(&r->s));
    }
    table_set_str(ts, "bn", bn_name(r->bn));
    table_set_str(ts, "model", o->model);
    table_set_num(ts, "width", o->width, "%g");
    table_set_int(ts, "params", (long long)r->m.nparams);
    table_set_str(ts, "data", r->train.synthetic ? "synthetic" : "real");
    table_set_int(ts, "train_examples", r->train.n);
    table_set_int(ts, "iters", (long long)r->s.steps);
    table_set_int(ts, "timed", timed);
    table_set_num(ts, "ms_mean", mean[F_MS], "%.3f");
    table_set_num(ts, "s_per_iter", mean[F_MS] / 1e3, "%.4f");
    table_set_num(ts, "ms_rank_min", lo, "%.3f");
    table_set_num(ts, "ms_rank_max", hi, "%.3f");
    static const int shown[] = { F_FWD, F_BWD, F_SYNC, F_OPT, F_BUF, F_COMM, F_HIDDEN };
    for (size_t i = 0; i < sizeof shown / sizeof *shown; i++)
        table_set_num(ts, FIELD[shown[i]], mean[shown[i]], "%.3f");
    if (comm_sum > 0) table_set_num(ts, "hidden_frac", hidden_sum / comm_sum, "%.4f");
    table_set_int(ts, "grad_bytes", (long long)(r->m.nparams * sizeof(float)));
    if (bytes_per_step >= 0) table_set_num(ts, "bytes_sent_per_step", bytes_per_step, "%.0f");
    if (evals) {
        double lmin = INFINITY, lmax = -INFINITY, amin = INFINITY, amax = -INFINITY;
        for (int k = 0; k < ranks; k++) {
            lmin = fmin(lmin, evals[2 * k]);
            lmax = fmax(lmax, evals[2 * k]);
            amin = fmin(amin, evals[2 * k + 1]);
            amax = fmax(amax, evals[2 * k + 1]);
        }
        table_set_num(ts, "test_loss", evals[0], "%.4f");
        table_set_num(ts, "test_accuracy", evals[1], "%.4f");
        table_set_num(ts, "test_loss_min", lmin, "%.4f");
        table_set_num(ts, "test_loss_max", lmax, "%.4f");
        table_set_num(ts, "test_acc_min", amin, "%.4f");
        table_set_num(ts, "test_acc_max", amax, "%.4f");
    }
    table_set_num(ts, "wall_s", wall, "%.2f");
    table_end_row(ts);
    /* the timeline of one step */
    snprintf(name, sizeof name, "%s-trace", r->tag);
    Table *tt = table_new(name, "rank,track,name,start_ms,end_ms,bytes");
    tt->meta = r->meta;
    for (int i = 0; i < nev; i++) {
        table_set_int(tt, "rank", ev_ranks[i]);
        table_set_str(tt, "track", ev[i].track == TRACK_COMM ? "comm" : "compute");
        table_set_str(tt, "name", ev[i].name);
        table_set_num(tt, "start_ms", 1e3 * ev[i].t0, "%.4f");
        table_set_num(tt, "end_ms", 1e3 * ev[i].t1, "%.4f");
        table_set_num(tt, "bytes", ev[i].bytes, "%.0f");
        table_end_row(tt);
    }
    if (table_write(ti, o->out) || table_write(ts, o->out) || table_write(tt, o->out)) status = 1;
    char path[1024], about[512];
    meta_summary(&r->meta, about, sizeof about);
    snprintf(path, sizeof path, "%s/%s-trace.json", o->out, r->tag);
    if (sync_write_chrome_trace(path, ev, ev_ranks, nev, about) != 0) status = 1;
    if (!o->quiet)
        fprintf(stderr, "lab3: %s: %.1f ms/iter (ranks %.1f..%.1f; fwd %.1f, bwd %.1f, exposed sync %.1f, opt %.1f; "
                        "comm %.1f of which hidden %.1f)%s%s, wrote %s/%s-*\n",
                r->tag, mean[F_MS], lo, hi, mean[F_FWD], mean[F_BWD], mean[F_SYNC], mean[F_OPT], mean[F_COMM],
                mean[F_HIDDEN], "", "", o->out, r->tag);
    if (!o->quiet && evals) {
        double amin = INFINITY, amax = -INFINITY;
        for (int k = 0; k < ranks; k++) {
            amin = fmin(amin, evals[2 * k + 1]);
            amax = fmax(amax, evals[2 * k + 1]);
        }
        fprintf(stderr, "lab3: %s: test loss %.4f, accuracy %.2f%% (rank 0; all ranks %.2f%%..%.2f%%)\n", r->tag,
                evals[0], 100 * evals[1], 100 * amin, 100 * amax);
    }
    table_free(ti);
    table_free(ts);
    table_free(tt);
    return status;
}

int lab3_run(const Lab3Options *o, Comm *c)
{
    Run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.c = c;
    char err[256] = "";
    bool bad = setup(&r, err) != 0;
    if (comm_any(c, bad)) {
        if (bad && c->rank == 0) fprintf(stderr, "error: %s\n", err);
        return 2;
    }
    if (o->tag) ddl_strlcpy(r.tag, o->tag, sizeof r.tag);
    else snprintf(r.tag, sizeof r.tag, "%s-np%d", sync_kind_name(r.sc.kind), c->size);
    bad = load(o, SPLIT_TRAIN, o->limit, &r.train) != 0;
    if (!bad && !o->no_eval && load(o, SPLIT_TEST, o->test_limit, &r.test) != 0) {
        dataset_free(&r.train);
        bad = true;
    }
    if (comm_any(c, bad)) return 1;
    ModelConfig cfg = model_config_default(o->model, (Shape){ r.train.c, r.train.h, r.train.w }, r.train.classes);
    cfg.width = o->width;
    cfg.bn_track_stats = r.bn != BN_OFF;
    bad = model_build(&r.m, o->model, &cfg, r.batch, o->seed, err) != 0;
    if (comm_any(c, bad)) {
        if (bad && c->rank == 0) fprintf(stderr, "error: %s\n", err);
        dataset_free(&r.train);
        dataset_free(&r.test);
        return 2;
    }
    SgdConfig sgd = { o->lr, o->momentum, o->wd, false };
    trainer_init(&r.t, &r.m, &sgd);
    if (sync_init(&r.s, &r.sc, &r.t, r.sc.kind == SYNC_NONE ? NULL : c, err) != 0) ddl_die("%s", err);
    bool augment = !strcmp(o->augment, "on") || (!strcmp(o->augment, "auto") && !strcmp(r.train.name, "cifar10"));
    /* DistributedSampler: each rank its own shard of every epoch */
    BatcherOptions bo = { .batch = r.batch, .rank = c->rank, .world = c->size, .shuffle = true, .drop_last = true,
                          .augment = augment, .normalize = true, .seed = o->seed };
    Batcher b;
    batcher_init(&b, &r.train, &bo);
    int per_epoch = batcher_batches(&b) / o->accumulate;
    long total = o->iters > 0 ? o->iters : per_epoch;
    if (per_epoch < 1 || total < 1) {
        if (c->rank == 0)
            fprintf(stderr, "error: %d training examples give no full step of %d x %d examples per rank\n", r.train.n,
                    r.batch, o->accumulate);
        batcher_free(&b);
        sync_free(&r.s);
        trainer_free(&r.t);
        model_free(&r.m);
        dataset_free(&r.train);
        dataset_free(&r.test);
        return 2;
    }
    int timed = (int)DDL_MIN((long)o->timed, total);
    int trace_iter = o->trace_iter >= 0 ? (int)DDL_MIN((long)o->trace_iter, total - 1) : timed / 2;
    describe(&r);
    meta_set(&r.meta, "augment", "%s", augment ? "pad-4 random crop + horizontal flip" : "none");
    meta_set(&r.meta, "iterations", "%ld (%d per epoch on this shard)", total, per_epoch);
    if (c->rank == 0 && !o->quiet)
        fprintf(stderr, "lab3: %s: %s, %d rank(s) x batch %d%s, %s %s (%zu params) on %s %s (%d examples), %ld steps, "
                        "BN stats %s\n",
                r.tag, sync_kind_name(r.sc.kind), c->size, r.batch,
                o->accumulate > 1 ? " x accumulate" : "", o->model, meta_get(&r.meta, "width"), r.m.nparams,
                r.train.synthetic ? "synthetic" : "real", r.train.name, r.train.n, total, bn_name(r.bn));

    size_t per = (size_t)r.train.c * r.train.h * r.train.w;
    float *x = ddl_alloc(sizeof(float) * per * (size_t)r.batch);
    int32_t *y = ddl_alloc(sizeof(int32_t) * (size_t)r.batch);
    double *mine = ddl_alloc(sizeof(double) * NF * (size_t)timed);
    SyncEvent *ev = NULL;
    int *ev_ranks = NULL, nev = 0;
    CommCounters before = comm_counters_total(c), after = before;
    Progress pr;
    progress_init(&pr, "train", 10);
    double t_start = ddl_now();
    int epoch = 0;
    batcher_epoch(&b, epoch);
    for (long it = 0; it < total; it++) {
        if (it == trace_iter) {
            /* line the ranks up so the timeline starts together */
            MPI_Barrier(c->mpi);
            r.s.cfg.trace = true;
        }
        double data_ms = 0.0, loss = 0.0;
        for (int u = 0; u < o->accumulate; u++) {
            double t0 = ddl_now();
            int got = batcher_next(&b, x, y);
            if (got <= 0) {
                batcher_epoch(&b, ++epoch);
                got = batcher_next(&b, x, y);
            }
            data_ms += 1e3 * (ddl_now() - t0);
            int correct;
            loss += sync_train_step(&r.s, x, y, got, &correct, NULL) / o->accumulate;
        }
        if (!isfinite(loss)) ddl_die("rank %d: loss became %g at step %ld: lower --lr", c->rank, loss, it);
        if (it < timed) {
            double *v = mine + (size_t)it * NF;
            const SyncTimes *t = &r.s.last;
            v[F_MS] = t->total;
            v[F_FWD] = t->forward;
            v[F_BWD] = t->backward;
            v[F_SYNC] = t->sync_wait;
            v[F_OPT] = t->optimizer;
            v[F_BUF] = t->buffers;
            v[F_COMM] = t->comm;
            v[F_HIDDEN] = t->hidden;
            v[F_DATA] = data_ms;
            v[F_LOSS] = loss;
            if (it == timed - 1) after = comm_counters_total(c);
        }
        if (it == trace_iter) {
            r.s.cfg.trace = false;
            sync_gather_events(&r.s, &ev, &ev_ranks, &nev);
        }
        if (c->rank == 0 && !o->quiet) progress_update(&pr, it + 1, total, "loss %.4f", loss);
    }
    if (c->rank == 0 && !o->quiet) progress_end(&pr);
    double wall = ddl_now() - t_start;
    /* Bytes this rank sent per step, when ddlab's own algorithms carried
     * them (MPI_Allreduce's traffic is inside Open MPI: not counted). */
    double bytes = -1.0;
    bool counted = r.sc.kind == SYNC_GATHER_SCATTER ||
                   (r.sc.kind != SYNC_NONE && r.sc.alg != COMM_ALG_MPI);
    if (counted) bytes = (double)(after.bytes_sent - before.bytes_sent) / timed;
    double rank_bytes = 0.0;
    MPI_Reduce(&bytes, &rank_bytes, 1, MPI_DOUBLE, MPI_SUM, 0, c->mpi);

    /* Evaluate on every rank with its own BN statistics (after the
     * broadcast DDP would do), so disagreement between ranks shows. */
    double ev2[2] = { NAN, NAN }, *evals = NULL;
    if (!o->no_eval) {
        if (r.sc.broadcast_buffers && r.m.nstate) MPI_Bcast(r.m.state, (int)r.m.nstate, MPI_FLOAT, 0, c->mpi);
        EvalResult e = evaluate(&r.m, &r.test, r.batch);
        ev2[0] = e.loss;
        ev2[1] = e.accuracy;
        if (c->rank == 0) evals = ddl_alloc(sizeof(double) * 2 * (size_t)c->size);
        MPI_Gather(ev2, 2, MPI_DOUBLE, evals, 2, MPI_DOUBLE, 0, c->mpi);
    }
    double *all = c->rank == 0 ? ddl_alloc(sizeof(double) * NF * (size_t)timed * (size_t)c->size) : NULL;
    MPI_Gather(mine, NF * timed, MPI_DOUBLE, all, NF * timed, MPI_DOUBLE, 0, c->mpi);
    int status = 0;
    if (c->rank == 0)
        status = write_outputs(&r, all, timed, c->size, evals, ev, ev_ranks, nev,
                               counted ? rank_bytes / c->size : -1.0, wall);
    MPI_Bcast(&status, 1, MPI_INT, 0, c->mpi);
    ddl_free(all);
    ddl_free(evals);
    free(ev);
    free(ev_ranks);
    ddl_free(mine);
    ddl_free(x);
    ddl_free(y);
    batcher_free(&b);
    sync_free(&r.s);
    trainer_free(&r.t);
    model_free(&r.m);
    dataset_free(&r.train);
    if (!o->no_eval) dataset_free(&r.test);
    return status;
}
