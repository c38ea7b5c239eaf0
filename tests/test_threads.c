/* test_threads.c - what the thread count changes, exactly (README, "Layout").
 *
 * The claim: ddlab's own kernels (im2col/col2im, batch norm, pooling,
 * depthwise convolution, the elementwise ops, softmax, SGD) give every
 * thread whole channels, rows or planes and never split a sum, so their
 * results do not depend on how many OpenMP threads run them; OpenBLAS's
 * SGEMM does not promise that (it partitions the matrices by its thread
 * count, and its edge kernels round differently), and a run is therefore
 * bit-identical to another only at the same BLAS thread count.
 *
 * Checked here: training steps of cnn3 (dropout), resnet18 (batch norm,
 * residual adds) and mobilenetv2 (depthwise, ReLU6) from one seed, with
 * 1 and then 2 threads for ddlab's kernels (ddl_set_kernel_threads) while
 * OpenBLAS stays on one (OMP_NUM_THREADS=1: the OpenMP build of OpenBLAS
 * follows OpenMP's default), must end with the same parameters bit for
 * bit; and the same steps twice at 2 threads, too. Shapes are large enough (> 32768 elements per loop) for
 * the parallel loops to use their threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/common.h"
#include "cpu/parallel.h"
#include "cpu/gemm.h"
#include "harness.h"
#include "model/model.h"
#include "train/train.h"

enum { BATCH = 8, STEPS = 2 };

/* Parameters after STEPS SGD steps of `name` with `threads` OpenMP threads. */
static float *train(const char *name, float width, Shape in, int threads, size_t *n)
{
    ddl_set_kernel_threads(threads);
    Model m;
    char err[256];
    ModelConfig cfg = model_config_default(name, in, 10);
    cfg.width = width;
    if (model_build(&m, name, &cfg, BATCH, 7, err) != 0) ddl_die("%s", err);
    Trainer t;
    SgdConfig sgd = { 0.05f, 0.9f, 5e-4f, false };
    trainer_init(&t, &m, &sgd);
    size_t per = (size_t)in.c * in.h * in.w;
    float *x = ddl_alloc(sizeof(float) * per * BATCH);
    int32_t y[BATCH];
    for (int s = 0; s < STEPS; s++) {
        t_random_batch(11, name, s, in, 10, BATCH, x, y);
        int correct;
        trainer_forward_backward(&t, x, y, BATCH, &correct);
        trainer_step(&t);
    }
    *n = m.nparams + m.nstate;
    float *out = ddl_alloc(sizeof(float) * *n);
    model_params_to_host(&m, out);
    model_state_to_host(&m, out + m.nparams);
    ddl_free(x);
    trainer_free(&t);
    model_free(&m);
    return out;
}

static void compare(const char *name, float width, Shape in)
{
    size_t n1, n2, n3;
    float *one = train(name, width, in, 1, &n1);
    float *two = train(name, width, in, 2, &n2);
    float *again = train(name, width, in, 2, &n3);
    size_t differ = 0;
    for (size_t i = 0; i < n1 && n1 == n2; i++) differ += memcmp(&one[i], &two[i], sizeof(float)) != 0;
    char what[160];
    snprintf(what, sizeof what, "threads: %s: 1 and 2 threads in ddlab's kernels (BLAS on 1) end bit-identical", name);
    t_checkf(n1 == n2 && differ == 0, what, "%zu of %zu values differ", differ, n1);
    snprintf(what, sizeof what, "threads: %s: the same steps twice at 2 threads end bit-identical", name);
    t_checkf(n2 == n3 && !memcmp(two, again, sizeof(float) * n2), what, "they differ");
    ddl_free(one);
    ddl_free(two);
    ddl_free(again);
}

int main(int argc, char **argv)
{
    /* One BLAS thread, so only ddlab's kernels change their thread count below. */
    t_reexec_one_blas_thread(argv, "test_threads");
    const char *omp = getenv("OMP_NUM_THREADS");
    if (!omp || strcmp(omp, "1")) return 1; /* the re-exec failed (said why) */
    (void)argc;
#ifndef _OPENMP
    t_skip("threads", "built without OpenMP: one thread only");
    return t_done();
#else
    compare("cnn3", 1.0f, (Shape){ 1, 28, 28 });
    compare("resnet18", 0.25f, (Shape){ 3, 32, 32 });
    compare("mobilenetv2", 0.5f, (Shape){ 1, 28, 28 });
    t_checkf(blas_threads() == 1, "threads: OpenBLAS stayed on one thread: only ddlab's kernels varied", "it has %d",
             blas_threads());
    return t_done();
#endif
}
