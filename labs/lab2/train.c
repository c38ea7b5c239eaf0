/* train.c - lab2 train: the seed's experiment, done so that it can
 * answer the seed's question.
 *
 * A 4-layer MLP (784 -> h1 -> H -> 10, ReLU; Genann-like: plain SGD) on
 * MNIST, data-parallel: each rank takes its DistributedSampler shard, and
 * after every SGD step the weights are averaged across ranks with one
 * allreduce algorithm. The second hidden width H sets the message size.
 * Every algorithm starts from the same initial weights (same seed) and
 * sees the same batches in the same order, so the runs differ only in how
 * each allreduce brackets its sums. We record, per algorithm and H, the
 * training time, the time inside the allreduce, the final test accuracy,
 * whether all replicas hold bit-identical weights, and the largest
 * weight difference from the MPI_Allreduce run after the first step and
 * at the end: rounding-level after one step, then however far chaotic
 * training carries it. The seed saw the ring 7-10% less accurate; here the
 * accuracies are compared number for number. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "data/dataset.h"
#include "model/model.h"
#include "evaluate/evaluate.h"
#include "train/train.h"
#include "lab2.h"

typedef struct RunResult {
    double elapsed_s, comm_s, accuracy, loss;
    long steps;
    bool identical;
} RunResult;

typedef struct Setup {
    const Lab2Options *o;
    Comm *c;
    const Dataset *train, *test;
} Setup;

static double max_over_ranks(double v, MPI_Comm comm)
{
    double m = v;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    return m;
}

/* Do all replicas hold the same bits? Compare a hash (FNV-1a) of them. */
static bool replicas_identical(const float *p, size_t n, MPI_Comm comm)
{
    uint64_t h = 0xCBF29CE484222325ULL;
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n * sizeof(float); i++) h = (h ^ b[i]) * 0x100000001B3ULL;
    unsigned long long lo = h, hi = h, mine = h;
    MPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm);
    MPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    return lo == hi;
}

static double max_abs_diff(const float *a, const float *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= m)) m = d; /* NaN propagates as the maximum */
    }
    return m;
}

static RunResult train_one(const Setup *s, Model *m, const float *init, CommAlg alg, float *after_first_step)
{
    const Lab2Options *o = s->o;
    Comm *c = s->c;
    memcpy(m->params, init, m->nparams * sizeof(float));
    SgdConfig sc = { o->lr, 0.0f, 0.0f, false };
    Trainer t;
    trainer_init(&t, m, &sc);
    BatcherOptions bo = { .batch = o->batch, .rank = c->rank, .world = c->size, .shuffle = true,
                          .drop_last = false, .augment = false, .normalize = true, .seed = o->seed };
    Batcher b;
    batcher_init(&b, s->train, &bo);
    size_t per = (size_t)s->train->c * s->train->h * s->train->w;
    float *x = ddl_alloc(sizeof(float) * per * (size_t)o->batch);
    int32_t *y = ddl_alloc(sizeof(int32_t) * (size_t)o->batch);

    RunResult r = { 0, 0, NAN, NAN, 0, false };
    MPI_Barrier(c->mpi);
    double t0 = ddl_now();
    for (int e = 0; e < o->epochs; e++) {
        batcher_epoch(&b, e);
        int got, correct;
        while ((got = batcher_next(&b, x, y)) > 0) {
            double loss = trainer_forward_backward(&t, x, y, got, &correct);
            if (!isfinite(loss)) ddl_die("loss became %g with %s: lower --lr", loss, comm_alg_name(alg));
            trainer_step(&t);
            double tc = ddl_now();
            comm_allreduce(c, m->params, m->nparams, COMM_FP32, COMM_AVG, alg);
            r.comm_s += ddl_now() - tc;
            if (r.steps == 0 && after_first_step) memcpy(after_first_step, m->params, m->nparams * sizeof(float));
            r.steps++;
        }
    }
    r.elapsed_s = max_over_ranks(ddl_now() - t0, c->mpi);
    r.comm_s = max_over_ranks(r.comm_s, c->mpi);
    r.identical = replicas_identical(m->params, m->nparams, c->mpi);
    /* Every rank holds the same weights (checked just above), so rank 0
     * evaluates for all: the other ranks would only repeat it (80 times
     * over in a simulated 80-rank run, where ranks take turns on one core). */
    double acc_loss[2] = { 0, 0 };
    if (c->rank == 0) {
        EvalResult ev = evaluate(m, s->test, 256);
        acc_loss[0] = ev.accuracy;
        acc_loss[1] = ev.loss;
    }
    MPI_Bcast(acc_loss, 2, MPI_DOUBLE, 0, c->mpi);
    r.accuracy = acc_loss[0];
    r.loss = acc_loss[1];
    ddl_free(x);
    ddl_free(y);
    batcher_free(&b);
    trainer_free(&t);
    return r;
}

static int parse_hidden(const char *list, int *h, int cap)
{
    char buf[256];
    ddl_strlcpy(buf, list, sizeof buf);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && n < cap; tok = strtok_r(NULL, ",", &save)) {
        h[n] = atoi(tok);
        if (h[n] < 1) {
            fprintf(stderr, "error: --hidden: '%s' is not a width\n", tok);
            return -1;
        }
        n++;
    }
    return n;
}

static int load(const Lab2Options *o, Split split, int limit, Dataset *d)
{
    return dataset_load_for_run(o->dataset, split, limit, o->seed, true, o->force_synthetic, d);
}

int lab2_train(const Lab2Options *o, Comm *c)
{
    CommAlg algs[COMM_ALG_COUNT];
    int hidden[16];
    int nalgs = lab2_parse_algs(o->algs, algs), nh = parse_hidden(o->hidden, hidden, 16);
    if (nalgs <= 0 || nh <= 0) return 2;
    /* Differences are measured against MPI_Allreduce's run (the seed's
     * "allreduce"), or the first algorithm when MPI is not in the list. */
    int ref = 0;
    for (int a = 0; a < nalgs; a++)
        if (algs[a] == COMM_ALG_MPI) ref = a;
    Dataset train, test;
    if (load(o, SPLIT_TRAIN, o->limit, &train) != 0) return 1;
    if (load(o, SPLIT_TEST, o->test_limit, &test) != 0) return 1;
    char tag[64];
    if (o->tag && o->tag[0]) ddl_strlcpy(tag, o->tag, sizeof tag);
    else snprintf(tag, sizeof tag, "np%d", c->size);
    if (c->rank == 0 && results_run_begin(o->out, tag, (const char *const[]){ "train-*", NULL }) != 0)
        ddl_die("lab2 train '%s' not started", tag);

    Meta meta;
    lab2_meta(&meta, o, c, "seed 002 training: MLP weights averaged after every step");
    meta_set(&meta, "dataset", "%s", train.name);
    meta_set(&meta, "data", "%s", train.synthetic ? "synthetic" : "real");
    meta_set(&meta, "data_source", "%s", train.source);
    meta_set(&meta, "train_examples", "%d", train.n);
    meta_set(&meta, "test_examples", "%d", test.n);
    meta_set(&meta, "model", "mlp 784-%d-H-10, ReLU", o->h1);
    meta_set(&meta, "optimizer", "plain SGD lr %g, batch %d per rank (%d in all)", (double)o->lr, o->batch,
             o->batch * c->size);
    meta_set(&meta, "epochs", "%d", o->epochs);
    meta_set(&meta, "sync", "after every step: weights = allreduce(weights, AVG) with the row's algorithm");
    meta_set(&meta, "reference", "%s", comm_alg_name(algs[ref]));
    char name[128];
    snprintf(name, sizeof name, "train-%s", tag);
    Table *t = table_new(name, "alg,hidden,params,message_bytes,ranks,epochs,steps,elapsed_s,comm_s,comm_fraction,"
                               "test_accuracy,test_loss,replicas_identical,maxdiff_first_step,maxdiff_final,"
                               "accuracy_minus_reference");
    t->meta = meta;
    if (c->rank == 0 && !o->quiet)
        fprintf(stderr, "lab2 train: %d ranks, %s %s (%d train / %d test), %d epoch(s), H in {%s}\n", c->size,
                train.synthetic ? "synthetic" : "real", train.name, train.n, test.n, o->epochs, o->hidden);

    int status = 0;
    for (int h = 0; h < nh; h++) {
        ModelConfig cfg = model_config_default("mlp", (Shape){ train.c, train.h, train.w }, train.classes);
        cfg.hidden[0] = o->h1;
        cfg.hidden[1] = hidden[h];
        cfg.hidden[2] = 0;
        Model m;
        char err[256];
        if (model_build(&m, "mlp", &cfg, DDL_MAX(o->batch, 256), o->seed, err) != 0) {
            fprintf(stderr, "error: %s\n", err);
            status = 2;
            break;
        }
        size_t n = m.nparams;
        float *init = ddl_alloc(n * sizeof(float));
        /* Every rank's weights are the same (checked): only rank 0, which
         * writes the table, keeps each algorithm's weights to compare
         * (at 80 simulated ranks in one process the copies add up). */
        float *first = c->rank == 0 ? ddl_alloc((size_t)nalgs * n * sizeof(float)) : NULL;
        float *final = c->rank == 0 ? ddl_alloc((size_t)nalgs * n * sizeof(float)) : NULL;
        memcpy(init, m.params, n * sizeof(float));
        RunResult res[COMM_ALG_COUNT];
        Setup s = { o, c, &train, &test };
        for (int a = 0; a < nalgs; a++) {
            res[a] = train_one(&s, &m, init, algs[a], first ? first + (size_t)a * n : NULL);
            if (final) memcpy(final + (size_t)a * n, m.params, n * sizeof(float));
            if (c->rank == 0 && !o->quiet)
                fprintf(stderr, "lab2 train: H=%d %-12s %6.2f s (allreduce %5.2f s), test accuracy %.2f%%%s\n",
                        hidden[h], comm_alg_name(algs[a]), res[a].elapsed_s, res[a].comm_s, 100 * res[a].accuracy,
                        res[a].identical ? "" : ", REPLICAS DIFFER");
            if (!res[a].identical) status = 1;
        }
        for (int a = 0; a < nalgs; a++) {
            table_set_str(t, "alg", comm_alg_name(algs[a]));
            table_set_int(t, "hidden", hidden[h]);
            table_set_int(t, "params", (long long)n);
            table_set_int(t, "message_bytes", (long long)(n * sizeof(float)));
            table_set_int(t, "ranks", c->size);
            table_set_int(t, "epochs", o->epochs);
            table_set_int(t, "steps", res[a].steps);
            table_set_num(t, "elapsed_s", res[a].elapsed_s, "%.4f");
            table_set_num(t, "comm_s", res[a].comm_s, "%.4f");
            table_set_num(t, "comm_fraction", res[a].comm_s / res[a].elapsed_s, "%.4f");
            table_set_num(t, "test_accuracy", res[a].accuracy, "%.4f");
            table_set_num(t, "test_loss", res[a].loss, "%.5f");
            table_set_str(t, "replicas_identical", res[a].identical ? "yes" : "no");
            if (c->rank == 0) { /* the only rank that writes the table */
                table_set_num(t, "maxdiff_first_step",
                              max_abs_diff(first + (size_t)a * n, first + (size_t)ref * n, n), "%.3g");
                table_set_num(t, "maxdiff_final", max_abs_diff(final + (size_t)a * n, final + (size_t)ref * n, n),
                              "%.3g");
            }
            table_set_num(t, "accuracy_minus_reference", res[a].accuracy - res[ref].accuracy, "%.4f");
            table_end_row(t);
        }
        ddl_free(init);
        if (first) ddl_free(first);
        if (final) ddl_free(final);
        model_free(&m);
    }
    if (c->rank == 0) {
        if (table_write(t, o->out) != 0) status = 1;
        else if (!o->quiet) fprintf(stderr, "lab2 train: wrote %s/%s.csv\n", o->out, name);
    }
    table_free(t);
    dataset_free(&train);
    dataset_free(&test);
    return status;
}
