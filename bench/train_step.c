/* train_step.c - time one training step (forward + backward + SGD) of a
 * model on random inputs: median of --reps after --warmup steps.
 * Used by `make bench` next to the same step in PyTorch (bench/torch_step.py).
 *
 *   bin/bench/train_step --model vgg11 --batch 64 [--reps 10] [--warmup 3]
 *                        [--width 1] [--profile-layers]
 * Prints: "train_step <model> b<batch>: median X ms, min Y ms, Z GFLOP/s". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "gemm.h"
#include "layers/layers.h"
#include "model/model.h"
#include "rng.h"
#include "train/train.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: train_step --model NAME --batch N [--reps R] [--warmup W] [--width F] [--profile-layers]\n"
               "  models: %s\n", model_names());
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *name = "vgg11";
    int batch = 64, reps = 10, warmup = 3, profile = 0;
    float width = 1.0f;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); MPI_Finalize(); return 0; }
        else if (!strcmp(a, "--profile-layers")) profile = 1;
        else if (!v) { usage(stderr); ddl_die("option %s needs a value", a); }
        else if (!strcmp(a, "--model")) { name = v; i++; }
        else if (!strcmp(a, "--batch")) { batch = atoi(v); i++; }
        else if (!strcmp(a, "--reps")) { reps = atoi(v); i++; }
        else if (!strcmp(a, "--warmup")) { warmup = atoi(v); i++; }
        else if (!strcmp(a, "--width")) { width = (float)atof(v); i++; }
        else { usage(stderr); ddl_die("unknown option %s", a); }
    }
    if (batch < 1 || reps < 1 || warmup < 0) ddl_die("batch and reps must be >= 1");
    /* each model on its home dataset's shape (1x28x28, 3x32x32 or SDSS's 10 features) */
    ModelConfig cfg = model_config_default(name, (Shape){ 0, 0, 0 }, 0);
    Shape in = cfg.input;
    cfg.width = width;
    Model m;
    char err[256];
    if (model_build(&m, name, &cfg, batch, 1, err)) ddl_die("%s", err);
    size_t per = shape_numel(in);
    float *x = ddl_alloc(sizeof(float) * per * batch);
    int32_t *y = ddl_alloc(sizeof(int32_t) * batch);
    Rng r = rng_make(1, "bench");
    for (size_t i = 0; i < per * batch; i++) x[i] = rng_normal(&r);
    for (int i = 0; i < batch; i++) y[i] = (int32_t)rng_below(&r, (uint32_t)cfg.classes);
    SgdConfig sc = { 0.01f, 0.9f, 5e-4f, false };
    Trainer t;
    trainer_init(&t, &m, &sc);
    double *ms = malloc(sizeof(double) * reps);
    for (int i = 0; i < warmup + reps; i++) {
        double t0 = ddl_now();
        int c;
        trainer_forward_backward(&t, x, y, batch, &c);
        trainer_step(&t);
        if (i >= warmup) ms[i - warmup] = 1e3 * (ddl_now() - t0);
    }
    double med = stats_median(ms, reps), mn = ms[0];
    for (int i = 1; i < reps; i++) mn = ms[i] < mn ? ms[i] : mn;
    /* forward + backward ~ 3x forward FLOPs (2x for the weight and input
     * gradients); the first layer's input gradient is skipped, so this is a
     * slight over-count for tiny-input-channel models. */
    double gflop = 3.0 * model_forward_flops(&m) * batch * 1e-9;
    printf("train_step %s b%d: median %.2f ms, min %.2f ms, %.1f GFLOP/s (%.2f GFLOP/step, %zu params, BLAS %s x%d %s)\n",
           name, batch, med, mn, gflop / (med * 1e-3), gflop, m.nparams, blas_core_name(), blas_threads(),
           blas_threading());
    if (profile) {
        /* Per-layer forward/backward time of one more step. */
        model_zero_grad(&m);
        m.batch = batch;
        printf("%-4s %-16s %-22s %10s %10s\n", "idx", "kind", "name", "fwd ms", "bwd ms");
        double *fw = calloc(m.nlayers, sizeof(double));
        for (int i = 0; i < m.nlayers; i++) { double t0 = ddl_now(); layer_forward(&m, &m.layers[i]); fw[i] = ddl_now() - t0; }
        for (int i = m.nlayers - 1; i >= 0; i--) {
            const Layer *l = &m.layers[i];
            double t0 = ddl_now();
            layer_backward(&m, l, l->in != m.input, m.tensors[l->in].consumers > 1);
            double bw = ddl_now() - t0;
            printf("%-4d %-16s %-22s %10.3f %10.3f\n", i, layer_kind_name(l->kind), l->name, 1e3 * fw[i], 1e3 * bw);
        }
        free(fw);
    }
    free(ms);
    trainer_free(&t);
    model_free(&m);
    ddl_free(x);
    ddl_free(y);
    MPI_Finalize();
    return 0;
}
