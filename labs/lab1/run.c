/* run.c - one lab1 training run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/device_batch.h"
#include "backend/registry.h"
#include "common.h"
#include "data/dataset.h"
#include "device.h"
#include "gemm.h"
#include "model/model.h"
#include "results/image.h"
#include "results/results.h"
#include "evaluate/evaluate.h"
#include "train/train.h"
#include "lab1.h"

Lab1Options lab1_defaults(void)
{
    Lab1Options o;
    memset(&o, 0, sizeof o);
    o.model = "cnn3";
    o.dataset = "mnist";
    o.device = getenv("DEVICE") && *getenv("DEVICE") ? getenv("DEVICE") : "cpu";
    o.profile = getenv("PROFILE") && *getenv("PROFILE") ? getenv("PROFILE") : "custom";
    o.out = "results/lab1";
    o.figures = "figures";
    o.tex = "report/tables/lab1.tex";
    o.augment = "auto";
    o.epochs = 1;
    o.batch = 64;
    o.lr = 0.05f;
    o.momentum = 0.9f;
    o.wd = 5e-4f;
    o.width = 1.0f;
    o.seed = 1;
    return o;
}

/* Fill the metadata every lab1 output carries. */
static void describe_run(Meta *meta, const Lab1Options *o, const Dataset *train, const Dataset *test,
                         const Model *m, const char *device_desc, const char *run)
{
    meta_collect(meta, "lab1");
    meta_set(meta, "run", "%s", run);
    meta_set(meta, "model", "%s", o->model);
    meta_set(meta, "width", "%g", (double)o->width);
    meta_set(meta, "params", "%zu", m->nparams);
    meta_set(meta, "dataset", "%s", train->name);
    meta_set(meta, "data", "%s", train->synthetic ? "synthetic" : "real");
    meta_set(meta, "data_source", "%s", train->source);
    meta_set(meta, "train_examples", "%d", train->n);
    meta_set(meta, "test_examples", "%d", test->n);
    meta_set(meta, "device", "%s", o->device);
    meta_set(meta, "device_detail", "%s", device_desc);
    meta_set(meta, "profile", "%s", o->profile);
    meta_set(meta, "seed", "%llu", (unsigned long long)o->seed);
    meta_set(meta, "batch", "%d", o->batch);
    meta_set(meta, "optimizer", "SGD lr %g momentum %g wd %g%s", (double)o->lr, (double)o->momentum, (double)o->wd,
             o->nesterov ? " nesterov" : "");
    meta_set(meta, "blas_core", "%s", blas_core_name());
    meta_set(meta, "blas_threads", "%d (%s)", blas_threads(), blas_threading());
}

static int load(const Lab1Options *o, Split split, int limit, Dataset *d)
{
    return dataset_load_for_run(o->dataset, split, limit, o->seed, !o->no_synthetic, o->force_synthetic, d);
}

static void save_pictures(const Lab1Options *o, const Dataset *train, const Model *m, const char *run)
{
    char path[1024];
    if (mkdir_p(o->figures) != 0) return;
    if (train->h > 1) {
        snprintf(path, sizeof path, "%s/lab1-samples-%s%s.png", o->figures, train->name,
                 train->synthetic ? "-synthetic" : "");
        png_sample_grid(path, train, 8, train->classes, train->h >= 32 ? 2 : 3);
    }
    for (int i = 0; i < m->nlayers; i++) {
        const Layer *l = &m->layers[i];
        if (l->kind != LAYER_CONV2D) continue;
        int cin = m->tensors[l->in].shape.c / l->groups;
        snprintf(path, sizeof path, "%s/lab1-filters-%s.png", o->figures, run);
        float *params = ddl_alloc(sizeof(float) * m->nparams); /* the weights may live on a GPU */
        model_params_to_host(m, params);
        png_filters(path, params + l->param_off, l->cout, cin, l->k, 8);
        ddl_free(params);
        break;
    }
}

int lab1_run(const Lab1Options *o)
{
    char err[DDL_ERRLEN], device_desc[256];
    Device dev;
    if (device_parse(o->device, &dev, err) != 0 || device_check_backend(dev, 0, device_desc, sizeof device_desc, err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        return 2;
    }
    const Backend *be = backend_named(o->device);
    if (!be) {
        fprintf(stderr, "error: --device %s: this build has no '%s' backend\n", o->device, o->device);
        return 2;
    }
    if (blas_core_mismatch())
        ddl_warn("OpenBLAS uses its %s kernels on this AVX-512 CPU; OPENBLAS_CORETYPE=SkylakeX is about 2x "
                 "faster for GEMM (make lab1 sets it)", blas_core_name());
    Dataset train, test;
    if (load(o, SPLIT_TRAIN, o->limit, &train) != 0) return 1;
    if (load(o, SPLIT_TEST, o->test_limit, &test) != 0) {
        dataset_free(&train);
        return 1;
    }
    ModelConfig cfg = model_config_default(o->model, (Shape){ train.c, train.h, train.w }, train.classes);
    cfg.width = o->width;
    cfg.backend = be;
    Model m;
    if (model_build(&m, o->model, &cfg, o->batch, o->seed, err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        dataset_free(&train);
        dataset_free(&test);
        return 2;
    }
    char run[128];
    if (o->tag) ddl_strlcpy(run, o->tag, sizeof run);
    else snprintf(run, sizeof run, "%s-%s", o->model, train.name);

    bool augment = !strcmp(o->augment, "on") || (!strcmp(o->augment, "auto") && !strcmp(train.name, "cifar10"));
    BatcherOptions bo = { .batch = o->batch, .rank = 0, .world = 1, .shuffle = true, .drop_last = false,
                          .augment = augment, .normalize = true, .seed = o->seed };
    Batcher b;
    batcher_init(&b, &train, &bo);
    int per_epoch = batcher_batches(&b);
    long total = o->iters > 0 ? o->iters : (long)o->epochs * per_epoch;
    if (total <= 0) ddl_die("nothing to do: %d epochs of %d batches", o->epochs, per_epoch);
    int epochs = (int)((total + per_epoch - 1) / per_epoch);

    SgdConfig sc = { o->lr, o->momentum, o->wd, o->nesterov };
    Trainer t;
    trainer_init(&t, &m, &sc);
    Meta meta;
    memset(&meta, 0, sizeof meta);
    describe_run(&meta, o, &train, &test, &m, device_desc, run);
    meta_set(&meta, "augment", "%s", augment ? "pad-4 random crop + horizontal flip" : "none");
    meta_set(&meta, "iterations", "%ld", total);

    char name[192];
    snprintf(name, sizeof name, "%s-iters", run);
    Table *ti = table_new(name, "iter,epoch,loss,batch_accuracy,ms,data_ms,epoch_frac");
    snprintf(name, sizeof name, "%s-epochs", run);
    Table *te = table_new(name, "epoch,iter,train_loss,train_accuracy,test_loss,test_accuracy,seconds");
    ti->meta = meta;
    te->meta = meta;

    size_t per = (size_t)train.c * train.h * train.w;
    DeviceBatch db; /* batch k+1 is copied to the device while step k runs */
    device_batch_init(&db, be, o->batch, per);
    double *ms = ddl_alloc(sizeof(double) * (size_t)total);
    long it = 0;
    double t_start = ddl_now(), final_loss = NAN;
    EvalResult last = { NAN, NAN, 0 };
    if (!o->quiet)
        fprintf(stderr, "lab1: %s (%zu params) on %s %s: %d train / %d test, batch %d, %ld iterations, %s\n", o->model,
                m.nparams, train.synthetic ? "synthetic" : "real", train.name, train.n, test.n, o->batch, total,
                device_desc);
    for (int e = 0; e < epochs && it < total; e++) {
        batcher_epoch(&b, e);
        Progress pr;
        char label[64];
        snprintf(label, sizeof label, "epoch %d/%d", e + 1, epochs);
        progress_init(&pr, label, 50);
        double loss_sum = 0.0;
        long seen = 0, right = 0;
        int k = 0;
        long epoch_iters = DDL_MIN((long)per_epoch, total - it);
        double t0 = ddl_now();
        device_batch_put(&db, batcher_next(&b, device_batch_x(&db), device_batch_y(&db)));
        while (it < total) {
            const float *x;
            const int32_t *y;
            int got = device_batch_get(&db, &x, &y);
            if (got <= 0) break;
            device_batch_put(&db, it + 1 < total ? batcher_next(&b, device_batch_x(&db), device_batch_y(&db)) : 0);
            double t1 = ddl_now();
            int correct = 0;
            double loss = trainer_forward_backward(&t, x, y, got, &correct);
            trainer_step(&t);
            be->synchronize(); /* the step's time includes its kernels */
            double t2 = ddl_now();
            ms[it] = 1e3 * (t2 - t1);
            if (!isfinite(loss)) ddl_die("loss became %g at iteration %ld: lower --lr", loss, it);
            loss_sum += loss * got;
            seen += got;
            right += correct;
            final_loss = loss;
            table_set_int(ti, "iter", it);
            table_set_int(ti, "epoch", e);
            table_set_num(ti, "loss", loss, "%.6f");
            table_set_num(ti, "batch_accuracy", (double)correct / got, "%.4f");
            table_set_num(ti, "ms", ms[it], "%.3f");
            table_set_num(ti, "data_ms", 1e3 * (t1 - t0), "%.3f"); /* loading the next batch */
            table_set_num(ti, "epoch_frac", e + (double)(k + 1) / (double)per_epoch, "%.5f");
            table_end_row(ti);
            it++;
            k++;
            t0 = ddl_now();
            if (!o->quiet) progress_update(&pr, k, epoch_iters, "loss %.4f acc %.3f", loss_sum / seen, (double)right / seen);
        }
        if (!o->quiet) progress_end(&pr);
        last = evaluate(&m, &test, o->batch);
        table_set_int(te, "epoch", e + 1);
        table_set_int(te, "iter", it);
        table_set_num(te, "train_loss", loss_sum / (seen ? seen : 1), "%.6f");
        table_set_num(te, "train_accuracy", (double)right / (seen ? seen : 1), "%.4f");
        table_set_num(te, "test_loss", last.loss, "%.6f");
        table_set_num(te, "test_accuracy", last.accuracy, "%.4f");
        table_set_num(te, "seconds", ddl_now() - t_start, "%.2f");
        table_end_row(te);
        if (!o->quiet)
            fprintf(stderr, "lab1: epoch %d: test loss %.4f, test accuracy %.2f%%\n", e + 1, last.loss,
                    100.0 * last.accuracy);
    }
    double mean, std;
    stats_mean_std(ms, (int)it, it > 1 ? 1 : 0, &mean, &std);
    snprintf(name, sizeof name, "%s-summary", run);
    Table *ts = table_new(name, "run,model,width,params,dataset,data,train_examples,batch,iterations,ms_mean,ms_std,"
                                "images_per_s,gflops,final_loss,test_loss,test_accuracy,device,profile");
    ts->meta = meta;
    table_set_str(ts, "run", run);
    table_set_str(ts, "model", o->model);
    table_set_num(ts, "width", o->width, "%g");
    table_set_int(ts, "params", (long long)m.nparams);
    table_set_str(ts, "dataset", train.name);
    table_set_str(ts, "data", train.synthetic ? "synthetic" : "real");
    table_set_int(ts, "train_examples", train.n);
    table_set_int(ts, "batch", o->batch);
    table_set_int(ts, "iterations", it);
    table_set_num(ts, "ms_mean", mean, "%.3f");
    table_set_num(ts, "ms_std", std, "%.3f");
    table_set_num(ts, "images_per_s", 1e3 * o->batch / mean, "%.1f");
    table_set_num(ts, "gflops", 3.0 * model_forward_flops(&m) * o->batch / (mean * 1e6), "%.1f");
    table_set_num(ts, "final_loss", final_loss, "%.6f");
    table_set_num(ts, "test_loss", last.loss, "%.6f");
    table_set_num(ts, "test_accuracy", last.accuracy, "%.4f");
    table_set_str(ts, "device", o->device);
    table_set_str(ts, "profile", o->profile);
    table_end_row(ts);
    int status = 0;
    if (table_write(ti, o->out) || table_write(te, o->out) || table_write(ts, o->out)) status = 1;
    save_pictures(o, &train, &m, run);
    if (!o->quiet)
        fprintf(stderr, "lab1: %s: %.2f +- %.2f ms/iter (first of %ld discarded), test accuracy %.2f%%, wrote %s/%s-*.csv\n",
                run, mean, std, it, 100.0 * last.accuracy, o->out, run);
    table_free(ti);
    table_free(te);
    table_free(ts);
    device_batch_free(&db);
    ddl_free(ms);
    batcher_free(&b);
    trainer_free(&t);
    model_free(&m);
    dataset_free(&train);
    dataset_free(&test);
    return status;
}
