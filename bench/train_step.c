/* train_step.c - time one training step (forward + backward + SGD) of a
 * model on random inputs: median of --reps after --warmup steps.
 * Used by `make bench` next to the same step in PyTorch (bench/torch_step.py).
 *
 *   bin/bench/train_step --model vgg11 --batch 64 [--reps 10] [--warmup 3]
 *                        [--width 1] [--fp16] [--profile-layers]
 * --fp16: a mixed-precision step (core/mixed: FP16 working weights, FP32
 * master weights, loss scaling; on a GPU real FP16 GEMM operands), timed
 * the same way, so that it can be compared with the FP32 step.
 * Prints the result as a table (table_print_text, the layout every bench
 * shares), writes it with its provenance to --out (default results/bench)
 * as train_step-<run>.csv and .json, then the one line bench/run.sh and
 * tests/gpu_check.sh read: "train_step <model> w<width> b<batch>: median X
 * ms, min Y ms, Z GFLOP/s (G GFLOP/step, params N, layout H, input CxHxW,
 * BLAS ..., isa I)", I the build of the CPU's kernels that ran
 * (core/cpu/isa.h).
 * params and layout (FNV-1a of the sorted "name count" lines of the
 * parameter tensors, PyTorch state_dict names) are what bench/torch_step.py
 * prints for its mirror of the model, so bench/run.sh can check that both
 * sides built the same architecture. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "cpu/gemm.h"
#include "cpu/isa.h"
#include "layers/layers.h"
#include "mixed/mixed.h"
#include "util/rng.h"

typedef struct Bench {
    int reps, warmup;
    bool profile;              /* then time every layer, --reps passes */
    bool fp16;                 /* mixed precision (core/mixed) */
    float *x;                  /* one random batch, every step (host) */
    int32_t *y;
    const float *xd;           /* the same batch where the model runs: x, y on the CPU */
    const int32_t *yd;
    double *ms;
} Bench;

static int fetch(Driver *d, const float **x, const int32_t **y, void *ctx)
{
    Bench *b = ctx;
    *x = b->xd;
    *y = b->yd;
    return d->opt->batch;
}

static void after_batch(Driver *d, const DriverBatch *b, void *ctx)
{
    Bench *bench = ctx;
    if (b->index >= bench->warmup) bench->ms[b->index - bench->warmup] = d->sync->last.total;
}

/* Per-layer forward/backward time: `passes` more passes over the layers
 * (on a device, each layer's kernels are waited for, so a layer's time is
 * its own), each layer's median printed, then the medians summed per layer
 * kind, so that where a step's time goes reads off one table. A single
 * pass is noisy on a VM (the same layer measured 2x apart), hence the
 * median. */
static void profile_kinds(const Model *m, const double *fw, const double *bw)
{
    double kf[LAYER_KIND_COUNT] = { 0 }, kb[LAYER_KIND_COUNT] = { 0 }, total = 0;
    for (int i = 0; i < m->nlayers; i++) {
        kf[m->layers[i].kind] += fw[i];
        kb[m->layers[i].kind] += bw[i];
        total += fw[i] + bw[i];
    }
    printf("%-21s %10s %10s %7s\n", "kind (sum of medians)", "fwd ms", "bwd ms", "share");
    for (int k = 0; k < LAYER_KIND_COUNT; k++)
        if (kf[k] + kb[k] > 0)
            printf("%-21s %10.3f %10.3f %6.1f%%\n", layer_kind_name((LayerKind)k), 1e3 * kf[k], 1e3 * kb[k],
                   100.0 * (kf[k] + kb[k]) / total);
    printf("%-21s %10s %10s %7s  (%.3f ms)\n", "all layers", "", "", "100%", 1e3 * total);
}

static void profile_layers(Model *m, int batch, int passes)
{
    model_zero_grad(m);
    m->batch = batch;
    size_t n = (size_t)m->nlayers;
    double *tf = ddl_alloc(sizeof(double) * n * (size_t)passes), *tb = ddl_alloc(sizeof(double) * n * (size_t)passes);
    double *fw = ddl_alloc(sizeof(double) * n), *bw = ddl_alloc(sizeof(double) * n);
    for (int p = 0; p < passes; p++) {
        for (int i = 0; i < m->nlayers; i++) {
            double t0 = ddl_now();
            layer_forward(m, &m->layers[i]);
            m->be->synchronize();
            tf[(size_t)i * (size_t)passes + (size_t)p] = ddl_now() - t0;
        }
        for (int i = m->nlayers - 1; i >= 0; i--) {
            const Layer *l = &m->layers[i];
            double t0 = ddl_now();
            layer_backward(m, l, l->in != m->input, m->tensors[l->in].consumers > 1);
            m->be->synchronize();
            tb[(size_t)i * (size_t)passes + (size_t)p] = ddl_now() - t0;
        }
    }
    printf("# per layer: median of %d passes\n", passes);
    printf("%-4s %-16s %-22s %10s %10s\n", "idx", "kind", "name", "fwd ms", "bwd ms");
    for (int i = m->nlayers - 1; i >= 0; i--) {
        fw[i] = stats_median(tf + (size_t)i * (size_t)passes, passes);
        bw[i] = stats_median(tb + (size_t)i * (size_t)passes, passes);
        const Layer *l = &m->layers[i];
        printf("%-4d %-16s %-22s %10.3f %10.3f\n", i, layer_kind_name(l->kind), l->name, 1e3 * fw[i], 1e3 * bw[i]);
    }
    profile_kinds(m, fw, bw);
    ddl_free(tf);
    ddl_free(tb);
    ddl_free(fw);
    ddl_free(bw);
}

/* Random inputs shaped for the model's home dataset (1x28x28, 3x32x32
 * or SDSS's 10 features). */
static void random_batch(Bench *b, const ModelConfig *cfg, int batch)
{
    size_t per = shape_numel(cfg->input);
    b->x = ddl_alloc(sizeof(float) * per * (size_t)batch);
    b->y = ddl_alloc(sizeof(int32_t) * (size_t)batch);
    Rng r = rng_make(1, "bench");
    for (size_t i = 0; i < per * (size_t)batch; i++) b->x[i] = rng_normal(&r);
    for (int i = 0; i < batch; i++) b->y[i] = (int32_t)rng_below(&r, (uint32_t)cfg->classes);
}

/* Which path each convolution took (conv/pick.c's rules: the same on
 * every run of one build), as one line bench/run.sh compares across its
 * rounds: the conv summary and an FNV-1a hash of the layers' paths in
 * order, so that two processes that chose differently for any one layer
 * differ there. */
static void print_paths(const Model *m)
{
    char summary[384];
    conv2d_algo_summary(m, summary, sizeof summary);
    uint32_t h = 2166136261u;
    for (int i = 0; i < m->nlayers; i++)
        if (m->layers[i].kind == LAYER_CONV2D) h = (h ^ (uint32_t)m->layers[i].conv_path) * 16777619u;
    printf("train_step paths: %s; per layer %08x\n", summary, (unsigned)h);
}

/* The mixed-precision step (forward, backward, loss-scaled SGD on the
 * master weights), each timed with the device drained before and after,
 * as the driver times the FP32 step. Returns how FP16 ran. */
static const char *time_mixed(Bench *b, Driver *d, int batch)
{
    static char kind[160];
    Mixed mx;
    mixed_init(&mx, &d->m, true, 65536.0f, 2000);
    for (int i = 0; i < b->warmup + b->reps; i++) {
        int correct = 0;
        d->m.be->synchronize();
        double t0 = ddl_now();
        mixed_forward_backward(&mx, &d->t, b->xd, b->yd, batch, &correct);
        mixed_step(&mx, &d->t.opt, d->m.grads);
        d->m.be->synchronize();
        if (i >= b->warmup) b->ms[i - b->warmup] = 1e3 * (ddl_now() - t0);
    }
    snprintf(kind, sizeof kind, "%s", mixed_kind(&mx));
    mixed_free(&mx);
    return kind;
}

/* The step as a one-row table: printed, and written with the run's
 * provenance (driver_meta: commit, host, BLAS, device, ...). */
static int write_result(Driver *d, const Bench *b, const ModelConfig *cfg, const char *precision, double med,
                        double mn, double gflop)
{
    const DriverOptions *o = d->opt;
    char name[192];
    snprintf(name, sizeof name, "train_step-%s", d->tag);
    Table *t = table_new(name, "model,width,batch,precision,median_ms,min_ms,gflop_per_step,gflops,params,layout,"
                               "input,device");
    driver_meta(d, &t->meta);
    meta_set(&t->meta, "timing", "forward + backward + SGD on one random batch, device drained before and after; "
                                 "median of %d steps after %d warm-up", b->reps, b->warmup);
    table_set_str(t, "model", o->model);
    table_set_num(t, "width", o->width, "%g");
    table_set_int(t, "batch", o->batch);
    table_set_str(t, "precision", precision);
    table_set_num(t, "median_ms", med, "%.3f");
    table_set_num(t, "min_ms", mn, "%.3f");
    table_set_num(t, "gflop_per_step", gflop, "%.4f");
    table_set_num(t, "gflops", gflop / (med * 1e-3), "%.1f");
    table_set_int(t, "params", (long long)d->m.nparams);
    char text[64];
    snprintf(text, sizeof text, "%08x", (unsigned)model_param_layout(&d->m));
    table_set_str(t, "layout", text);
    snprintf(text, sizeof text, "%dx%dx%d", cfg->input.c, cfg->input.h, cfg->input.w);
    table_set_str(t, "input", text);
    table_set_str(t, "device", o->device);
    table_end_row(t);
    static const TextColumn show[] = {
        { "model", "model", "" }, { "width", "width", "" }, { "batch", "batch", "" }, { "precision", "dtype", "" },
        { "median_ms", "step", "ms" }, { "min_ms", "fastest", "ms" }, { "gflop_per_step", "work", "GFLOP" },
        { "gflops", "rate", "GFLOP/s" }, { "device", "device", "" },
    };
    if (d->rank == 0) table_print_text(t, show, (int)(sizeof show / sizeof show[0]), stdout);
    int status = driver_write(d, &t, 1);
    table_free(t);
    return status;
}

static int run(void *ctx, Driver *d)
{
    Bench *b = ctx;
    const DriverOptions *o = d->opt;
    ModelConfig cfg = driver_model_config(d, o->model); /* no data loaded: its home input */
    driver_tag(d, "%s-w%g-b%d%s", o->model, (double)o->width, o->batch, b->fp16 ? "-fp16" : "");
    if (driver_open(d) || driver_build(d, o->model, &cfg, o->batch)) return 2;
    SgdConfig sgd = { 0.01f, 0.9f, 5e-4f, false };
    driver_trainer(d, &sgd);
    SyncConfig none = sync_config_default(SYNC_NONE);
    if (driver_sync(d, &none)) return 2;
    random_batch(b, &cfg, o->batch);
    const Backend *be = d->m.be;
    size_t xbytes = sizeof(float) * shape_numel(cfg.input) * (size_t)o->batch, ybytes = sizeof(int32_t) * (size_t)o->batch;
    if (be->host_memory) {
        b->xd = b->x;
        b->yd = b->y;
    } else { /* a device: the batch goes there once, as a data loader that keeps up would have it */
        float *xd = be->alloc(xbytes);
        int32_t *yd = be->alloc(ybytes);
        be->to_device(xd, b->x, xbytes);
        be->to_device(yd, b->y, ybytes);
        b->xd = xd;
        b->yd = yd;
    }
    b->ms = ddl_alloc(sizeof(double) * (size_t)b->reps);
    const char *precision = "fp32";
    if (b->fp16) {
        precision = time_mixed(b, d, o->batch);
    } else {
        DriverLoop loop = { .batches = b->warmup + b->reps };
        DriverHooks hooks = { .ctx = b, .after_batch = after_batch, .fetch = fetch };
        if (driver_train(d, &loop, &hooks) != 0) ddl_die("training stopped");
    }
    double med = stats_median(b->ms, b->reps), mn = b->ms[0];
    for (int i = 1; i < b->reps; i++) mn = b->ms[i] < mn ? b->ms[i] : mn;
    /* forward + backward ~ 3x forward FLOPs (2x for the weight and input
     * gradients); the first layer's input gradient is skipped, so this is a
     * slight over-count for tiny-input-channel models. */
    double gflop = 3.0 * model_forward_flops(&d->m) * o->batch * 1e-9;
    if (write_result(d, b, &cfg, precision, med, mn, gflop) != 0) return 1;
    printf("train_step %s w%g b%d: median %.2f ms, min %.2f ms, %.1f GFLOP/s (%.2f GFLOP/step, params %zu, "
           "layout %08x, input %dx%dx%d, BLAS %s x%d %s, device %s, precision %s, isa %s)\n",
           o->model, (double)o->width, o->batch, med, mn, gflop / (med * 1e-3), gflop, d->m.nparams,
           (unsigned)model_param_layout(&d->m), cfg.input.c, cfg.input.h, cfg.input.w, blas_core_name(), blas_threads(),
           blas_threading(), d->device_desc, precision, ddl_isa_name(ddl_isa_active()));
    print_paths(&d->m);
    if (b->profile) profile_layers(&d->m, o->batch, b->reps);
    if (!be->host_memory) {
        be->release((void *)b->xd);
        be->release((void *)b->yd);
    }
    ddl_free(b->x);
    ddl_free(b->y);
    ddl_free(b->ms);
    return 0;
}

int main(int argc, char **argv)
{
    DriverOptions opt = { .model = "vgg11", .width = 1, .batch = 64, .seed = 1, .out = "results/bench" };
    Bench b = { .reps = 10, .warmup = 3 };
    const CliOption own[] = {
        OPTION_INT("reps", &b.reps, "timed steps (the median is reported)", 1, 100000),
        OPTION_INT("warmup", &b.warmup, "untimed steps first", 0, 100000),
        OPTION_FLAG("fp16", &b.fp16, "mixed precision (FP16 working weights, FP32 master, loss scaling)"),
        OPTION_FLAG("profile-layers", &b.profile, "then time every layer's forward and backward (--reps passes, medians; sums per layer kind)"),
    };
    const DriverSpec spec = { .program = "train_step", .usage = "train_step [--model NAME] [--batch N] [options]",
                              .description = "Time one training step (forward + backward + SGD) on random inputs.",
                              .shared = DRV_MODEL | DRV_WIDTH | DRV_BATCH | DRV_DEVICE | DRV_PROFILE | DRV_OUT | DRV_TAG | DRV_CONV,
                              .tag_default = "<model>-w<width>-b<batch>[-fp16]", .own = own,
                              .nown = (int)(sizeof own / sizeof own[0]), .batch_min = 1, .ctx = &b, .run = run,
                              .on_backend = true };
    return driver_main(&spec, &opt, argc, argv);
}
