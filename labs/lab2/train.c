/* train.c - lab2 train: the seed's experiment, done so that it can
 * answer the seed's question.
 *
 * A 4-layer MLP (784 -> h1 -> H -> 10, ReLU; Genann-like: plain SGD) on
 * MNIST, data-parallel: each rank takes its DistributedSampler shard, and
 * after every SGD step the weights are averaged across ranks with one
 * allreduce algorithm. The second hidden width H sets the message size.
 * The averaging is the weight_avg strategy of core/sync with the
 * algorithm in question. Every algorithm starts from the same initial
 * weights (same seed) and
 * sees the same batches in the same order, so the runs differ only in how
 * each allreduce brackets its sums. We record, per algorithm and H, the
 * training time, the time inside the allreduce, the final test accuracy,
 * whether all replicas hold bit-identical weights, and the largest
 * weight difference from the MPI_Allreduce run after the first step and
 * at the end: rounding-level after one step, then however far chaotic
 * training carries it. The seed saw the ring 7-10% less accurate; here the
 * accuracies are compared number for number. With --fault, the ring rows
 * run one of the seed's plausible bugs (faults.c) beside a correct
 * MPI_Allreduce, to see which would give its gap. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/evaluate.h"
#include "lab2.h"

typedef struct RunResult {
    double elapsed_s, comm_s, accuracy, loss;
    long steps;
    bool identical;
    const Lab2Fault *fault; /* the fault this row ran ("none") */
} RunResult;

typedef struct Train {
    RunResult r;
    float *after_first_step;   /* rank 0: the weights after step 0 */
    Lab2FaultState fault;
} Train;

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

static void before_batch(Driver *d, long index, void *ctx)
{
    (void)index;
    lab2_fault_before_step(&((Train *)ctx)->fault, d);
}

static void after_batch(Driver *d, const DriverBatch *b, void *ctx)
{
    Train *t = ctx;
    (void)b;
    lab2_fault_after_step(&t->fault, d);
    t->r.comm_s += d->sync->last.sync_wait / 1e3;
    if (t->r.steps++ == 0 && t->after_first_step)
        model_params_to_host(&d->m, t->after_first_step);
}

/* Plain SGD from the shared initial weights, the weights averaged after
 * every step with `alg` (and the fault's, on a ring row). */
static RunResult train_one(const Lab2Options *o, Driver *d, const float *init, CommAlg alg, const Lab2Fault *fault,
                           float *after_first_step)
{
    fault = lab2_fault_for(fault, alg);
    model_params_from_host(&d->m, init); /* the model may live on a device */
    SgdConfig sgd = { o->run.lr, 0.0f, 0.0f, false };
    driver_trainer(d, &sgd);
    SyncConfig sc = sync_config_default(SYNC_WEIGHT_AVG);
    sc.alg = alg;
    if (driver_sync(d, &sc)) ddl_die("weight averaging with %s refused", comm_alg_name(alg));
    BatcherOptions bo = { .batch = o->run.batch, .rank = fault->same_shard ? 0 : d->rank, .world = d->world, .shuffle = true,
                          .drop_last = false, .augment = false, .normalize = true, .seed = o->run.seed };
    driver_batches(d, &bo);
    Train t = { .r = { 0, 0, NAN, NAN, 0, false, fault }, .after_first_step = after_first_step };
    /* A fault may make the weights diverge (no-divide does within a few
     * steps at 80 ranks): that is its result, carried to the table. */
    DriverLoop loop = { .batches = (long)o->epochs * batcher_batches(&d->b), .barrier_start = true,
                        .nonfinite_ok = lab2_fault_active(fault) };
    DriverHooks hooks = { .ctx = &t, .before_batch = before_batch, .after_batch = after_batch };
    lab2_fault_begin(&t.fault, fault, d, o->run.lr);
    if (driver_train(d, &loop, &hooks) != 0) ddl_die("training stopped");
    lab2_fault_end(&t.fault);
    MPI_Comm comm = d->comm.mpi;
    t.r.elapsed_s = max_over_ranks(d->st.train_s, comm);
    t.r.comm_s = max_over_ranks(t.r.comm_s, comm);
    float *w = ddl_alloc(d->m.nparams * sizeof(float));
    model_params_to_host(&d->m, w);
    t.r.identical = replicas_identical(w, d->m.nparams, comm);
    ddl_free(w);
    /* Every rank holds the same weights (checked just above), so rank 0
     * evaluates for all: the other ranks would only repeat it (80 times
     * over in a simulated 80-rank run, where ranks take turns on one core).
     * Under a fault whose replicas differ, rank 0's is the one evaluated. */
    double acc_loss[2] = { 0, 0 };
    if (d->rank == 0) {
        EvalResult ev = evaluate(&d->m, &d->test, 256);
        acc_loss[0] = ev.accuracy;
        acc_loss[1] = ev.loss;
    }
    MPI_Bcast(acc_loss, 2, MPI_DOUBLE, 0, comm);
    t.r.accuracy = acc_loss[0];
    t.r.loss = acc_loss[1];
    return t.r;
}

static Table *results_table(const Lab2Options *o, Driver *d, const char *ref, const Lab2Fault *fault)
{
    Meta meta;
    lab2_meta(&meta, o, d, "seed 002 training: MLP weights averaged after every step");
    meta_set(&meta, "model", "mlp 784-%d-H-10, ReLU", o->h1);
    meta_set(&meta, "optimizer", "plain SGD lr %g, batch %d per rank (%d in all)", (double)o->run.lr, o->run.batch,
             o->run.batch * d->world);
    meta_set(&meta, "epochs", "%d", o->epochs);
    meta_set(&meta, "sync", "after every step: weights = allreduce(weights, AVG) with the row's algorithm");
    meta_set(&meta, "reference", "%s", ref);
    meta_set(&meta, "fault", "%s%s%s", fault->name, lab2_fault_active(fault) ? ": " : "",
             lab2_fault_active(fault) ? fault->what : "");
    char name[160];
    snprintf(name, sizeof name, "train-%s", d->tag);
    Table *t = table_new(name, "alg,hidden,params,message_bytes,ranks,epochs,steps,elapsed_s,comm_s,comm_fraction,"
                               "test_accuracy,test_loss,replicas_identical,maxdiff_first_step,maxdiff_final,"
                               "accuracy_minus_reference,fault"); /* fault last: the figures read columns by number */
    t->meta = meta;
    return t;
}

/* One width H: every algorithm from the same initial weights, one row each.
 * first/final (rank 0): every algorithm's weights after step 0 and at the end. */
typedef struct Width {
    int hidden, nalgs, ref;
    const CommAlg *algs;
    const Lab2Fault *fault;
    RunResult res[COMM_ALG_COUNT];
    float *first, *final;
} Width;

static void rows(Table *t, const Lab2Options *o, const Driver *d, const Width *w)
{
    size_t n = d->m.nparams;
    for (int a = 0; a < w->nalgs; a++) {
        const RunResult *r = &w->res[a];
        table_set_str(t, "alg", comm_alg_name(w->algs[a]));
        table_set_str(t, "fault", r->fault->name);
        table_set_int(t, "hidden", w->hidden);
        table_set_int(t, "params", (long long)n);
        table_set_int(t, "message_bytes", (long long)(n * sizeof(float)));
        table_set_int(t, "ranks", d->world);
        table_set_int(t, "epochs", o->epochs);
        table_set_int(t, "steps", r->steps);
        table_set_num(t, "elapsed_s", r->elapsed_s, "%.4f");
        table_set_num(t, "comm_s", r->comm_s, "%.4f");
        table_set_num(t, "comm_fraction", r->comm_s / r->elapsed_s, "%.4f");
        table_set_num(t, "test_accuracy", r->accuracy, "%.4f");
        table_set_num(t, "test_loss", r->loss, "%.5f");
        table_set_str(t, "replicas_identical", r->identical ? "yes" : "no");
        if (d->rank == 0) { /* the only rank that writes the table */
            table_set_num(t, "maxdiff_first_step", max_abs_diff(w->first + a * n, w->first + w->ref * n, n), "%.3g");
            table_set_num(t, "maxdiff_final", max_abs_diff(w->final + a * n, w->final + w->ref * n, n), "%.3g");
        }
        table_set_num(t, "accuracy_minus_reference", r->accuracy - w->res[w->ref].accuracy, "%.4f");
        table_end_row(t);
    }
}

/* Every algorithm at width H. Returns 0, 1 (replicas differ) or 2. */
static int width(const Lab2Options *o, Driver *d, Width *w, Table *t)
{
    ModelConfig cfg = driver_model_config(d, "mlp");
    cfg.hidden[0] = o->h1;
    cfg.hidden[1] = w->hidden;
    cfg.hidden[2] = 0;
    /* the initial weights, and on rank 0 each algorithm's first and final ones */
    d->weight_copies = 1 + (d->rank == 0 ? 2 * w->nalgs : 0);
    if (driver_build(d, "mlp", &cfg, DDL_MAX(o->run.batch, 256))) return 2;
    size_t n = d->m.nparams;
    float *init = ddl_alloc(n * sizeof(float));
    model_params_to_host(&d->m, init);
    /* Every rank's weights are the same (checked): only rank 0, which
     * writes the table, keeps each algorithm's weights to compare (at 80
     * simulated ranks in one process the copies add up). */
    w->first = d->rank == 0 ? ddl_alloc((size_t)w->nalgs * n * sizeof(float)) : NULL;
    w->final = d->rank == 0 ? ddl_alloc((size_t)w->nalgs * n * sizeof(float)) : NULL;
    int status = 0;
    for (int a = 0; a < w->nalgs; a++) {
        w->res[a] = train_one(o, d, init, w->algs[a], w->fault, w->first ? w->first + (size_t)a * n : NULL);
        if (w->final) model_params_to_host(&d->m, w->final + (size_t)a * n);
        if (d->rank == 0 && !o->run.quiet)
            fprintf(stderr, "lab2 train: H=%d %-12s %6.2f s (allreduce %5.2f s), test accuracy %.2f%%%s\n", w->hidden,
                    comm_alg_name(w->algs[a]), w->res[a].elapsed_s, w->res[a].comm_s, 100 * w->res[a].accuracy,
                    w->res[a].identical                 ? ""
                    : w->res[a].fault->replicas_differ ? ", replicas differ (the fault's design)"
                                                        : ", REPLICAS DIFFER");
        if (!w->res[a].identical && !w->res[a].fault->replicas_differ) status = 1;
    }
    rows(t, o, d, w);
    ddl_free(init);
    ddl_free(w->first);
    ddl_free(w->final);
    return status;
}

int lab2_train(const Lab2Options *o, Driver *d)
{
    CommAlg algs[COMM_ALG_COUNT];
    int hidden[16];
    int nalgs = lab2_parse_algs(o->algs, algs), nh = lab2_parse_hidden(o->hidden, hidden, 16);
    const Lab2Fault *fault = lab2_fault_named(o->fault);
    if (nalgs <= 0 || nh <= 0 || !fault) return 2;
    /* Differences are measured against MPI_Allreduce's run (the seed's
     * "allreduce"), or the first algorithm when MPI is not in the list. */
    int ref = 0;
    for (int a = 0; a < nalgs; a++)
        if (algs[a] == COMM_ALG_MPI) ref = a;
    if (driver_load(d, true)) return 1;
    if (lab2_fault_active(fault)) driver_tag(d, "np%d-fault-%s", d->world, fault->name);
    else driver_tag(d, "np%d", d->world);
    driver_run_begin(d, o->run.out, (const char *const[]){ "train-*", NULL });
    Table *t = results_table(o, d, comm_alg_name(algs[ref]), fault);
    if (d->rank == 0 && !o->run.quiet)
        fprintf(stderr, "lab2 train: %d ranks, %s %s (%d train / %d test), %d epoch(s), H in {%s}%s%s\n", d->world,
                d->train.synthetic ? "synthetic" : "real", d->train.name, d->train.n, d->test.n, o->epochs, o->hidden,
                lab2_fault_active(fault) ? ", ring rows with the fault: " : "",
                lab2_fault_active(fault) ? fault->what : "");
    int status = 0;
    for (int h = 0; h < nh && status != 2; h++) {
        Width w = { .hidden = hidden[h], .nalgs = nalgs, .ref = ref, .algs = algs, .fault = fault };
        int rc = width(o, d, &w, t);
        status = rc > status ? rc : status;
    }
    if (status != 2 && driver_write(d, &t, 1) != 0) status = 1;
    else if (status != 2 && d->rank == 0 && !o->run.quiet)
        fprintf(stderr, "lab2 train: wrote %s/%s.csv\n", o->run.out, t->name);
    table_free(t);
    return status;
}
