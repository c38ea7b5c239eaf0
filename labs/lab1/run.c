/* run.c - one lab1 training run (seed 001's Task 1 on one process).
 *
 * The model trains with plain minibatch SGD on one process (strategy
 * none). Every iteration's time is forward + backward + SGD, data loading
 * apart; the first iteration pays for first touches and is left out of the
 * mean, as the seed did. After every epoch the whole test split is
 * evaluated. Outputs: <run>-iters, <run>-epochs and <run>-summary (CSV and
 * JSON), a sample grid and the first layer's filters (PNG). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "train/evaluate.h"
#include "cpu/gemm.h"
#include "results/image.h"
#include "lab1.h"

typedef struct Run {
    const Lab1Options *o;
    Driver *d;
    int per_epoch, epochs;
    long total;
    Table *iters, *epochs_t;
    double *ms;                /* per iteration */
    double loss_sum, final_loss, t_start;
    long seen, right;          /* this epoch */
    EvalResult last;
} Run;

static void after_batch(Driver *d, const DriverBatch *b, void *ctx)
{
    Run *r = ctx;
    int k = (int)(b->index % r->per_epoch);
    r->ms[b->index] = d->sync->last.total;
    r->loss_sum += b->loss * b->n;
    r->seen += b->n;
    r->right += b->correct;
    r->final_loss = b->loss;
    Table *t = r->iters;
    table_set_int(t, "iter", b->index);
    table_set_int(t, "epoch", b->epoch);
    table_set_num(t, "loss", b->loss, "%.6f");
    table_set_num(t, "batch_accuracy", (double)b->correct / b->n, "%.4f");
    table_set_num(t, "ms", r->ms[b->index], "%.3f");
    table_set_num(t, "data_ms", b->data_ms, "%.3f");
    table_set_num(t, "epoch_frac", b->epoch + (double)(k + 1) / (double)r->per_epoch, "%.5f");
    table_end_row(t);
}

/* After every epoch: the whole test split. */
static void after_epoch(Driver *d, int epoch, double seconds, void *ctx)
{
    Run *r = ctx;
    r->last = evaluate(&d->m, &d->test, r->o->run.batch);
    Table *t = r->epochs_t;
    table_set_int(t, "epoch", epoch);
    table_set_int(t, "iter", d->st.batch);
    table_set_num(t, "train_loss", r->loss_sum / (r->seen ? r->seen : 1), "%.6f");
    table_set_num(t, "train_accuracy", (double)r->right / (r->seen ? r->seen : 1), "%.4f");
    table_set_num(t, "test_loss", r->last.loss, "%.6f");
    table_set_num(t, "test_accuracy", r->last.accuracy, "%.4f");
    table_set_num(t, "seconds", ddl_now() - r->t_start, "%.2f");
    table_end_row(t);
    r->loss_sum = 0.0;
    r->seen = r->right = 0;
    if (!r->o->run.quiet)
        fprintf(stderr, "lab1: epoch %d: test loss %.4f, test accuracy %.2f%%\n", epoch, r->last.loss,
                100.0 * r->last.accuracy);
}

/* What a resumed run needs of this one: the tables so far, the step
 * times, and the running epoch's sums. */
typedef struct Sums { double loss_sum, final_loss; int64_t seen, right; EvalResult last; } Sums;

static void save(Driver *d, Ckpt *c, void *ctx)
{
    Run *r = ctx;
    ckpt_put_table(c, "lab.iters", r->iters);
    ckpt_put_table(c, "lab.epochs", r->epochs_t);
    ckpt_put(c, "lab.ms", r->ms, sizeof(double) * (size_t)d->st.batch);
    Sums s = { r->loss_sum, r->final_loss, r->seen, r->right, r->last };
    ckpt_put(c, "lab.sums", &s, sizeof s);
}

static int load(Driver *d, const Ckpt *c, void *ctx, char err[DDL_ERRLEN])
{
    Run *r = ctx;
    Sums s;
    if (d->st.batch > r->total) return 0; /* refused by the driver */
    if (ckpt_get_table(c, "lab.iters", r->iters, err) || ckpt_get_table(c, "lab.epochs", r->epochs_t, err) ||
        ckpt_get(c, "lab.ms", r->ms, sizeof(double) * (size_t)d->st.batch, err) ||
        ckpt_get(c, "lab.sums", &s, sizeof s, err))
        return -1;
    r->loss_sum = s.loss_sum;
    r->final_loss = s.final_loss;
    r->seen = (long)s.seen;
    r->right = (long)s.right;
    r->last = s.last;
    return 0;
}

/* Examples in iteration i: a whole batch but the last of an epoch, which
 * holds what is left (the batcher keeps it: drop_last is off). */
static long examples_in(const Run *r, long i)
{
    long k = i % r->per_epoch, n = r->d->train.n, batch = r->o->run.batch;
    return DDL_MIN(batch, n - k * batch);
}

/* Images per second over the iterations the mean covers (the first left
 * out when there are others), from the images they really held. */
static double images_per_s(const Run *r)
{
    long skip = r->total > 1 ? 1 : 0, images = 0;
    double ms = 0.0;
    for (long i = skip; i < r->total; i++) {
        images += examples_in(r, i);
        ms += r->ms[i];
    }
    return ms > 0 ? 1e3 * (double)images / ms : NAN;
}

static Table *summary(const Run *r, const Meta *meta, double mean, double std)
{
    const DriverOptions *o = &r->o->run;
    const Driver *d = r->d;
    char name[192];
    snprintf(name, sizeof name, "%s-summary", d->tag);
    Table *t = table_new(name, "run,model,width,params,dataset,data,train_examples,batch,iterations,ms_mean,ms_std,"
                               "images_per_s,gflops,final_loss,test_loss,test_accuracy,device,profile");
    t->meta = *meta;
    table_set_str(t, "run", d->tag);
    table_set_str(t, "model", o->model);
    table_set_num(t, "width", o->width, "%g");
    table_set_int(t, "params", (long long)d->m.nparams);
    table_set_str(t, "dataset", d->train.name);
    table_set_str(t, "data", d->train.synthetic ? "synthetic" : "real");
    table_set_int(t, "train_examples", d->train.n);
    table_set_int(t, "batch", o->batch);
    table_set_int(t, "iterations", r->total);
    table_set_num(t, "ms_mean", mean, "%.3f");
    table_set_num(t, "ms_std", std, "%.3f");
    double ips = images_per_s(r);
    table_set_num(t, "images_per_s", ips, "%.1f");
    table_set_num(t, "gflops", 3.0 * model_forward_flops(&d->m) * ips / 1e9, "%.1f");
    table_set_num(t, "final_loss", r->final_loss, "%.6f");
    table_set_num(t, "test_loss", r->last.loss, "%.6f");
    table_set_num(t, "test_accuracy", r->last.accuracy, "%.4f");
    table_set_str(t, "device", o->device);
    table_set_str(t, "profile", o->profile);
    table_end_row(t);
    return t;
}

/* A sample grid of the data and the first convolution's filters. */
static int save_pictures(const Run *r)
{
    const Dataset *train = &r->d->train;
    const Model *m = &r->d->m;
    const char *dir = r->o->figures;
    char path[1024];
    int status = 0;
    if (train->h > 1) {
        snprintf(path, sizeof path, "%s/lab1-samples-%s%s.png", dir, train->name, train->synthetic ? "-synthetic" : "");
        status |= png_sample_grid(path, train, 8, train->classes, train->h >= 32 ? 2 : 3) != 0;
    }
    for (int i = 0; i < m->nlayers; i++) {
        const Layer *l = &m->layers[i];
        if (l->kind != LAYER_CONV2D) continue;
        int cin = m->tensors[l->in].shape.c / l->groups;
        snprintf(path, sizeof path, "%s/lab1-filters-%s.png", dir, r->d->tag);
        float *params = ddl_alloc(sizeof(float) * m->nparams); /* the weights may live on a GPU */
        model_params_to_host(m, params);
        status |= png_filters(path, params + l->param_off, l->cout, cin, l->k, 8) != 0;
        ddl_free(params);
        break;
    }
    return status;
}

int lab1_check(void *ctx, int ranks)
{
    Lab1Options *o = ctx;
    /* A run's pictures stay with its CSVs unless --figures says otherwise:
     * an ad-hoc run elsewhere never lands in the checkout's figures/. */
    if (!o->figures) o->figures = o->run.out;
    if (ranks > 1) {
        ddl_error("lab1 trains on one process, but it was started with %d ranks.\n"
                  "Run it without mpirun (or -np 1); data-parallel training is lab3.", ranks);
        return 2;
    }
    return driver_choice("augment", o->augment, "auto|on|off") < 0 ? 2 : 0;
}

/* The data, the model, plain SGD on one process, and the run's length. */
static int set_up(Run *r, Driver *d)
{
    const Lab1Options *o = r->o;
    if (driver_open(d) || driver_check_dir(d, "figures", o->figures)) return 2;
    if (blas_core_mismatch())
        ddl_warn("OpenBLAS uses its %s kernels on this AVX-512 CPU; OPENBLAS_CORETYPE=SkylakeX is about 2x "
                 "faster for GEMM (make lab1 sets it)", blas_core_name());
    if (driver_load(d, true)) return 1;
    if (d->train.n < o->run.batch) { /* as lab3 does: a batch it would not run is not reported */
        ddl_error("--batch %d is more than the %d training examples%s: every iteration would train on %d; lower "
                  "--batch (or raise --limit)", o->run.batch, d->train.n, o->run.limit > 0 ? " (--limit)" : "",
                  d->train.n);
        return 2;
    }
    if (driver_build(d, o->run.model, NULL, o->run.batch)) return 2;
    driver_tag(d, "%s-%s", o->run.model, d->train.name);
    driver_run_begin(d, o->run.out, (const char *const[]){ "*-iters", "*-epochs", "*-summary", NULL });
    driver_run_begin(d, o->figures, (const char *const[]){ "lab1-filters-*.png", NULL });
    bool augment = !strcmp(o->augment, "on") || (!strcmp(o->augment, "auto") && !strcmp(d->train.name, "cifar10"));
    BatcherOptions bo = { .batch = o->run.batch, .rank = 0, .world = 1, .shuffle = true, .drop_last = false,
                          .augment = augment, .normalize = true, .seed = o->run.seed };
    driver_batches(d, &bo);
    r->per_epoch = batcher_batches(&d->b);
    r->total = o->iters > 0 ? o->iters : (long)o->epochs * r->per_epoch;
    if (r->total <= 0) {
        ddl_error("nothing to do: %d epochs of %d batches", o->epochs, r->per_epoch);
        return 2;
    }
    r->epochs = (int)((r->total + r->per_epoch - 1) / r->per_epoch);
    SgdConfig sgd = { o->run.lr, o->run.momentum, o->run.wd, o->nesterov };
    driver_trainer(d, &sgd);
    SyncConfig none = sync_config_default(SYNC_NONE);
    return driver_sync(d, &none);
}

static void describe(const Run *r, Meta *meta)
{
    const Driver *d = r->d;
    const DriverOptions *o = &r->o->run;
    meta_set(meta, "batch", "%d", o->batch);
    meta_set(meta, "optimizer", "SGD lr %g momentum %g wd %g%s", (double)o->lr, (double)o->momentum, (double)o->wd,
             r->o->nesterov ? " nesterov" : "");
    meta_set(meta, "augment", "%s", d->b.o.augment ? "pad-4 random crop + horizontal flip" : "none");
    meta_set(meta, "iterations", "%ld", r->total);
}

int lab1_run(void *ctx, Driver *d)
{
    const Lab1Options *o = ctx;
    Run r = { .o = o, .d = d, .final_loss = NAN, .last = { NAN, NAN, 0 } };
    int status = set_up(&r, d);
    if (status) return status;
    Meta meta = { 0 };
    driver_meta(d, &meta);
    describe(&r, &meta);
    char name[192];
    snprintf(name, sizeof name, "%s-iters", d->tag);
    r.iters = table_new(name, "iter,epoch,loss,batch_accuracy,ms,data_ms,epoch_frac");
    snprintf(name, sizeof name, "%s-epochs", d->tag);
    r.epochs_t = table_new(name, "epoch,iter,train_loss,train_accuracy,test_loss,test_accuracy,seconds");
    r.iters->meta = r.epochs_t->meta = meta;
    r.ms = ddl_alloc(sizeof(double) * (size_t)r.total);
    if (!o->run.quiet)
        fprintf(stderr, "lab1: %s (%zu params) on %s %s: %d train / %d test, batch %d, %ld iterations, %s\n",
                o->run.model, d->m.nparams, d->train.synthetic ? "synthetic" : "real", d->train.name, d->train.n,
                d->test.n, o->run.batch, r.total, d->device_desc);
    r.t_start = ddl_now();
    DriverLoop loop = { .batches = r.total, .period = r.per_epoch, .progress = "epoch", .progress_every = 50 };
    DriverHooks hooks = { .ctx = &r, .after_batch = after_batch, .after_period = after_epoch, .save = save,
                          .load = load };
    if ((status = driver_train(d, &loop, &hooks)) != 0) {
        table_free(r.iters);
        table_free(r.epochs_t);
        ddl_free(r.ms);
        return status;
    }
    double mean, std;
    stats_mean_std(r.ms, (int)r.total, r.total > 1 ? 1 : 0, &mean, &std);
    Table *sum = summary(&r, &meta, mean, std);
    Table *all[] = { r.iters, r.epochs_t, sum };
    status = driver_write(d, all, 3);
    if (save_pictures(&r) != 0) status = 1;
    if (!o->run.quiet)
        fprintf(stderr, "lab1: %s: %.2f +- %.2f ms/iter (first of %ld discarded), test accuracy %.2f%%, wrote "
                        "%s/%s-*.csv\n", d->tag, mean, std, r.total, 100.0 * r.last.accuracy, o->run.out, d->tag);
    table_free(r.iters);
    table_free(r.epochs_t);
    table_free(sum);
    ddl_free(r.ms);
    return status;
}
