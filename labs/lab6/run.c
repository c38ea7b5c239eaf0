/* run.c - one lab6 training run (see lab6.h).
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

#include "common.h"
#include "data/dataset.h"
#include "device.h"
#include "gemm.h"
#include "model/model.h"
#include "results/results.h"
#include "evaluate/evaluate.h"
#include "train/train.h"
#include "lab6.h"

Lab6Options lab6_defaults(void)
{
    Lab6Options o;
    memset(&o, 0, sizeof o);
    o.workload = "sdss_dnn-sdss";
    o.style = "horovod";
    o.batch = 64;
    o.epochs = 1;
    o.fusion_mb = 128.0f; /* Horovod 0.28: HOROVOD_FUSION_THRESHOLD 128 MiB */
    o.cycle_ms = 1.0f;    /* Horovod 0.28: HOROVOD_CYCLE_TIME 1 ms */
    o.accumulate = 1;
    o.device = getenv("DEVICE") && *getenv("DEVICE") ? getenv("DEVICE") : "cpu";
    o.lr = 0.05f;
    o.momentum = 0.9f;
    o.wd = 5e-4f;
    o.seed = 1;
    o.profile = getenv("PROFILE") && *getenv("PROFILE") ? getenv("PROFILE") : "custom";
    o.out = "results/lab6";
    o.tex = "report/tables/lab6.tex";
    return o;
}

/* Per step on one rank. */
enum { F_MS, F_FWD, F_BWD, F_OPT, F_SYNC, F_COMM, NF };

typedef struct Run {
    const Lab6Options *o;
    const Workload *w;
    Comm *c;
    SyncConfig sc;
    bool server;              /* this rank computes no gradients */
    int workers, worker;      /* worker index, -1 on the server */
    float width;
    char device_desc[256];
    Dataset train, test;
    Model m;
    Trainer t;
    Sync s;
    Meta meta;
    char tag[128];
} Run;

static int setup(Run *r, char err[256])
{
    const Lab6Options *o = r->o;
    r->w = workload_find(o->workload);
    if (!r->w) {
        snprintf(err, 256, "unknown --workload '%s': %s", o->workload, workload_names());
        return -1;
    }
    SyncKind kind;
    if (sync_kind_from_name(o->style, &kind) != 0 || (kind != SYNC_HOROVOD && kind != SYNC_PS)) {
        snprintf(err, 256, "unknown --style '%s': horovod or ps", o->style);
        return -1;
    }
    if (kind == SYNC_PS && r->c->size < 2) {
        snprintf(err, 256, "--style ps needs a server and workers: run P+1 ranks for P workers (mpirun -np 2 for 1)");
        return -1;
    }
    r->sc = sync_config_default(kind);
    r->sc.accumulate = o->accumulate;
    r->sc.horovod.fusion_bytes = (size_t)((double)o->fusion_mb * 1048576.0);
    r->sc.horovod.cycle_ms = o->cycle_ms;
    r->sc.horovod.fp16 = o->fp16;
    if (o->fp16 && kind != SYNC_HOROVOD) {
        snprintf(err, 256, "--fp16 is Horovod's compression: --style horovod only");
        return -1;
    }
    if (o->ps_async && kind != SYNC_PS) {
        snprintf(err, 256, "--async is the parameter server's: --style ps only");
        return -1;
    }
    if (o->ps_async) r->sc.kind = SYNC_PS_ASYNC;
    r->server = kind == SYNC_PS && r->c->rank == 0;
    r->workers = kind == SYNC_PS ? r->c->size - 1 : r->c->size;
    r->worker = kind == SYNC_PS ? r->c->rank - 1 : r->c->rank;
    r->width = o->width > 0 ? o->width : r->w->quick_width;
    Device dev;
    char derr[DDL_ERRLEN];
    int local_rank = 0;
    MPI_Comm node;
    MPI_Comm_split_type(r->c->mpi, MPI_COMM_TYPE_SHARED, r->c->rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    if (device_parse(o->device, &dev, derr) != 0 ||
        device_check(dev, local_rank, r->device_desc, sizeof r->device_desc, derr) != 0) {
        snprintf(err, 256, "%s", derr);
        return -1;
    }
    return 0;
}

/* The style as outputs name it: ps_async for the asynchronous server. */
static const char *style_name(const Run *r) { return sync_kind_name(r->sc.kind); }

static void describe(Run *r, long total, int per_epoch)
{
    const Lab6Options *o = r->o;
    Meta *meta = &r->meta;
    meta_collect(meta, "lab6");
    meta_set(meta, "run", "%s", r->tag);
    meta_set(meta, "workload", "%s", r->w->name);
    meta_set(meta, "style", "%s", style_name(r));
    meta_set(meta, "style_detail", "%s", sync_kind_description(r->sc.kind));
    meta_set(meta, "workers", "%d%s", r->workers, r->workers < r->c->size ? " (+ rank 0 as the server)" : "");
    meta_set(meta, "accumulate", "%d", r->sc.accumulate);
    meta_set(meta, "model", "%s", r->w->model);
    meta_set(meta, "width", "%g", (double)r->width);
    meta_set(meta, "params", "%zu", r->m.nparams);
    /* ps moves these with the gradients (4 bytes each way per worker): the
     * closed form of its bytes needs them; horovod, as Horovod, skips them. */
    meta_set(meta, "buffers", "%zu (batch-norm running statistics; ps averages them at the server, horovod does "
             "not sync them)", r->m.nstate);
    meta_set(meta, "dataset", "%s", r->train.name);
    meta_set(meta, "data", "%s", r->train.synthetic ? "synthetic" : "real");
    meta_set(meta, "data_source", "%s", r->train.source);
    meta_set(meta, "train_examples", "%d", r->train.n);
    meta_set(meta, "test_examples", "%d", r->test.n);
    meta_set(meta, "batch_per_worker", "%d", o->batch);
    meta_set(meta, "iterations", "%ld (%d per epoch per worker)", total, per_epoch);
    meta_set(meta, "device", "%s", o->device);
    meta_set(meta, "device_detail", "%s", r->device_desc);
    meta_set(meta, "profile", "%s", o->profile);
    meta_set(meta, "seed", "%llu", (unsigned long long)o->seed);
    meta_set(meta, "optimizer", "SGD lr %g momentum %g wd %g (not scaled with workers)", (double)o->lr,
             (double)o->momentum, (double)o->wd);
    const char *yield = getenv("OMPI_MCA_mpi_yield_when_idle");
    meta_set(meta, "mpi_yield_when_idle", "%s", yield && *yield ? yield : "Open MPI default (busy polling unless "
                                                                      "it knows it is oversubscribed)");
    meta_set(meta, "blas_core", "%s", blas_core_name());
    meta_set(meta, "blas_threads", "%d (%s)", blas_threads(), blas_threading());
    meta_set(meta, "timing", "training time: wall time of the training loop between barriers (data loading in, "
                             "evaluation out); step breakdown: mean over workers of steps 1.., step 0 discarded");
}

static int write_summary(Run *r, long total, double train_s, const double *means, const double *bytes, double eval_acc,
                         double eval_loss)
{
    const Lab6Options *o = r->o;
    const int ranks = r->c->size;
    char name[192];
    snprintf(name, sizeof name, "%s-summary", r->tag);
    Table *t = table_new(name, "tag,workload,workload_label,style,workers,ranks,device,oversubscribed,data,profile,model,"
                               "width,params,train_examples,test_examples,batch_per_worker,global_batch,accumulate,"
                               "iters,train_s,iters_per_s,test_accuracy_pct,test_loss,step_ms,wall_step_ms,forward_ms,"
                               "backward_ms,optimizer_ms,compute_ms,sync_ms,comm_ms,other_ms,bytes_per_rank,"
                               "bytes_max_rank,fusion_mb,cycle_ms,fp16,groups");
    /* after training: the fusion plan of steps 1.. is known now */
    if (r->sc.kind == SYNC_HOROVOD)
        meta_set(&r->meta, "horovod", "ring allreduce (ddlab), fusion %g MiB, cycle %g ms, %s, %d fusion groups per "
                 "step after step 0 (mimics Horovod 0.28's defaults 128 MiB, 1 ms)", (double)o->fusion_mb,
                 (double)o->cycle_ms, o->fp16 ? "fp16 compression" : "fp32", sync_groups(&r->s));
    t->meta = r->meta;
    double mean_bytes = 0.0, max_bytes = 0.0;
    for (int k = 0; k < ranks; k++) {
        mean_bytes += bytes[k] / ranks;
        max_bytes = fmax(max_bytes, bytes[k]);
    }
    double wall_step = 1e3 * train_s / (double)total;
    double compute = means[F_FWD] + means[F_BWD] + means[F_OPT];
    table_set_str(t, "tag", r->tag);
    table_set_str(t, "workload", r->w->name);
    table_set_str(t, "workload_label", r->w->label);
    table_set_str(t, "style", style_name(r));
    table_set_int(t, "workers", r->workers);
    table_set_int(t, "ranks", ranks);
    table_set_str(t, "device", o->device);
    table_set_str(t, "oversubscribed", meta_get(&r->meta, "oversubscribed"));
    table_set_str(t, "data", r->train.synthetic ? "synthetic" : "real");
    table_set_str(t, "profile", o->profile);
    table_set_str(t, "model", r->w->model);
    table_set_num(t, "width", r->width, "%g");
    table_set_int(t, "params", (long long)r->m.nparams);
    table_set_int(t, "train_examples", r->train.n);
    table_set_int(t, "test_examples", r->test.n);
    table_set_int(t, "batch_per_worker", o->batch);
    table_set_int(t, "global_batch", (long long)o->batch * r->workers * o->accumulate);
    table_set_int(t, "accumulate", o->accumulate);
    table_set_int(t, "iters", total);
    table_set_num(t, "train_s", train_s, "%.4g");
    table_set_num(t, "iters_per_s", (double)total / train_s, "%.2f");
    table_set_num(t, "test_accuracy_pct", 100.0 * eval_acc, "%.1f");
    table_set_num(t, "test_loss", eval_loss, "%.4f");
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
    if (r->sc.kind == SYNC_HOROVOD) {
        table_set_num(t, "fusion_mb", o->fusion_mb, "%g");
        table_set_num(t, "cycle_ms", o->cycle_ms, "%g");
        table_set_str(t, "fp16", o->fp16 ? "yes" : "no");
        table_set_int(t, "groups", sync_groups(&r->s));
    }
    table_end_row(t);
    int status = table_write(t, o->out) ? 1 : 0;
    if (!o->quiet)
        fprintf(stderr, "lab6: %s: %.2f s, %.2f it/s, test accuracy %.1f%%; step %.1f ms (compute %.1f, exposed comm "
                        "%.1f, other %.1f); %.0f bytes/rank/step; wrote %s/%s-summary.csv\n",
                r->tag, train_s, (double)total / train_s, 100.0 * eval_acc, wall_step, compute, means[F_SYNC],
                fmax(0.0, wall_step - compute - means[F_SYNC]), mean_bytes, o->out, r->tag);
    table_free(t);
    return status;
}

static void free_run(Run *r)
{
    sync_free(&r->s);
    trainer_free(&r->t);
    model_free(&r->m);
    dataset_free(&r->train);
    dataset_free(&r->test);
}

int lab6_run(const Lab6Options *o, Comm *c)
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
    else snprintf(r.tag, sizeof r.tag, "%s-%s-w%d", r.w->name, style_name(&r), r.workers);
    bad = dataset_load_for_run(r.w->dataset, SPLIT_TRAIN, o->limit, o->seed, true, o->force_synthetic, &r.train) != 0;
    if (!bad && dataset_load_for_run(r.w->dataset, SPLIT_TEST, o->test_limit, o->seed, true, o->force_synthetic,
                                     &r.test) != 0) {
        dataset_free(&r.train);
        bad = true;
    }
    if (comm_any(c, bad)) return 1;
    ModelConfig cfg = model_config_default(r.w->model, (Shape){ r.train.c, r.train.h, r.train.w }, r.train.classes);
    cfg.width = r.width;
    bad = model_build(&r.m, r.w->model, &cfg, o->batch, o->seed, err) != 0;
    if (comm_any(c, bad)) {
        if (bad && c->rank == 0) fprintf(stderr, "error: %s\n", err);
        dataset_free(&r.train);
        dataset_free(&r.test);
        return 2;
    }
    SgdConfig sgd = { o->lr, o->momentum, o->wd, false };
    trainer_init(&r.t, &r.m, &sgd);
    if (sync_init(&r.s, &r.sc, &r.t, c, err) != 0) ddl_die("%s", err);
    /* DistributedSampler over the workers; the server shapes a batcher of
     * worker 0 only to count the steps, which padding makes equal. */
    BatcherOptions bo = { .batch = o->batch, .rank = r.server ? 0 : r.worker, .world = r.workers, .shuffle = true,
                          .drop_last = true, .augment = false, .normalize = true, .seed = o->seed };
    Batcher b;
    batcher_init(&b, &r.train, &bo);
    int per_epoch = batcher_batches(&b) / o->accumulate;
    long total = o->iters > 0 ? o->iters : (long)o->epochs * per_epoch;
    if (per_epoch < 1 || total < 2) {
        if (c->rank == 0)
            fprintf(stderr, "error: %d training examples over %d worker(s) give %ld step(s) of %d x %d examples: lab6 "
                            "needs 2 or more (raise --limit or --epochs)\n", r.train.n, r.workers, total, o->batch,
                    o->accumulate);
        batcher_free(&b);
        free_run(&r);
        return 2;
    }
    describe(&r, total, per_epoch);
    if (c->rank == 0 && !o->quiet)
        fprintf(stderr, "lab6: %s: %s, %d worker(s)%s x batch %d, %s x%g (%zu params) on %s %s (%d examples), %ld "
                        "steps\n", r.tag, style_name(&r), r.workers,
                (r.sc.kind == SYNC_PS || r.sc.kind == SYNC_PS_ASYNC) ? " + server" : "", o->batch, r.w->model, (double)r.width, r.m.nparams,
                r.train.synthetic ? "synthetic" : "real", r.train.name, r.train.n, total);

    size_t per = (size_t)r.train.c * r.train.h * r.train.w;
    float *x = ddl_alloc(sizeof(float) * per * (size_t)o->batch);
    int32_t *y = ddl_alloc(sizeof(int32_t) * (size_t)o->batch);
    double sums[NF] = { 0 };
    CommCounters before = sync_counters(&r.s);
    int epoch = 0;
    batcher_epoch(&b, epoch);
    MPI_Barrier(c->mpi);
    double t0 = ddl_now();
    for (long it = 0; it < total; it++) {
        for (int u = 0; u < o->accumulate; u++) {
            int got = o->batch;
            if (!r.server) {
                got = batcher_next(&b, x, y);
                if (got <= 0) {
                    batcher_epoch(&b, ++epoch);
                    got = batcher_next(&b, x, y);
                }
            }
            int correct;
            double loss = sync_train_step(&r.s, x, y, got, &correct, NULL);
            if (!isfinite(loss)) ddl_die("rank %d: loss became %g at step %ld: lower --lr", c->rank, loss, it);
        }
        if (it > 0) {
            const SyncTimes *t = &r.s.last;
            sums[F_MS] += t->total;
            sums[F_FWD] += t->forward;
            sums[F_BWD] += t->backward;
            sums[F_OPT] += t->optimizer;
            sums[F_SYNC] += t->sync_wait;
            sums[F_COMM] += t->comm;
        }
    }
    MPI_Barrier(c->mpi);
    double train_s = ddl_now() - t0;
    CommCounters after = sync_counters(&r.s);
    double bytes = (double)(after.bytes_sent - before.bytes_sent) / (double)total;

    /* worker means of the step breakdown; the server's optimizer time is in
     * its workers' exposed communication */
    double mine[NF + 1], all[NF + 1];
    for (int f = 0; f < NF; f++) mine[f] = r.server ? 0.0 : sums[f] / (double)(total - 1);
    mine[NF] = r.server ? 0.0 : 1.0;
    MPI_Reduce(mine, all, NF + 1, MPI_DOUBLE, MPI_SUM, 0, c->mpi);
    double *rank_bytes = c->rank == 0 ? ddl_alloc(sizeof(double) * (size_t)c->size) : NULL;
    MPI_Gather(&bytes, 1, MPI_DOUBLE, rank_bytes, 1, MPI_DOUBLE, 0, c->mpi);
    int status = 0;
    if (c->rank == 0) {
        for (int f = 0; f < NF; f++) all[f] /= all[NF];
        EvalResult e = evaluate(&r.m, &r.test, o->batch);
        status = write_summary(&r, total, train_s, all, rank_bytes, e.accuracy, e.loss);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, c->mpi);
    ddl_free(rank_bytes);
    ddl_free(x);
    ddl_free(y);
    batcher_free(&b);
    free_run(&r);
    return status;
}
