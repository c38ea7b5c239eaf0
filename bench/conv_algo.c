/* conv_algo.c - one 3x3 convolution (padding 1) timed every
 * way: im2col + GEMM, Winograd F(2x2,3x3) (core/conv/path_winograd.c)
 * and the direct kernels (path_direct.c), forward and backward (weight
 * and input gradients), interleaved so that a noisy machine slows all
 * alike. This is how the CONV_ALGO_AUTO thresholds (pick.c) were
 * chosen.
 *
 *   bin/bench/conv_algo [--batch 64] [--reps 5] [--cpu] [--1x1 | --stride 2] [C K HW ...]
 * (and Winograd F(4x4,3x3) too, after the first three, then Winograd
 * F(2x2,3x3) with the transforms in registers, path_winofused.c, where
 * it can run: "-" elsewhere)
 * Without shapes: every stride-1 3x3 shape of resnet18 and vgg11 on CIFAR,
 * at width 1 and at the quick profile's widths. Prints per shape the
 * median forward and backward ms of each way and the ratios winograd /
 * im2col and direct / im2col of the step (fwd + bwd). --1x1: 1x1 layers
 * instead (MobileNetV2's shapes without shapes given), im2col against the
 * pointwise kernels (path_pointwise.c). --stride 2: 3x3 stride-2 layers
 * (resnet18's three, at widths 1, 0.5 and 0.25, without shapes given; HW
 * is the input's side), im2col against the direct kernels on the input's
 * phases (direct_kernels.h). The same numbers, one row per shape and
 * path, go with their provenance to --out (default results/bench) as
 * conv_algo-<kind>.csv and .json (kind: 3x3, 1x1 or 3x3s2). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/cli.h"
#include "util/common.h"
#include "cpu/parallel.h"
#include "platform/device.h"
#include "cpu/gemm.h"
#include "layers/layers.h"
#include "model/model.h"
#include "results/results.h"
#include "util/rng.h"

/* --cpu: time this process's CPU time instead of the wall clock: with one
 * thread (OMP_NUM_THREADS=1) it counts the work alone, which other jobs on
 * a shared machine disturb much less than they disturb wall time. */
static bool cpu_clock;
/* --1x1: 1x1 stride-1 convolutions (im2col against the pointwise kernels)
 * instead of 3x3 ones. */
static int ksize = 3;
/* --stride 2: 3x3 stride-2 convolutions, im2col against direct. */
static int stride = 1;

/* Every shape's rows, written once all are timed. */
static Table *rows;

/* A whole number in [min, max] for what, or the program stops saying why. */
static int number(const char *what, const char *s, int min, int max)
{
    long long x;
    char why[CLI_WHY];
    if (cli_parse_int(s, min, max, &x, why) != 0) ddl_die("conv_algo: %s: %s", what, why);
    return (int)x;
}

static double clock_now(void)
{
    if (!cpu_clock) return ddl_now();
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct Side {
    Model m;
    double *fwd, *bwd;
} Side;

static void side_init(Side *s, ConvAlgo algo, int C, int K, int hw, int batch, int reps)
{
    model_begin(&s->m, "conv_algo", (Shape){ C, hw, hw });
    s->m.conv_algo = algo;
    mb_conv2d(&s->m, "conv", s->m.input, K, ksize, stride, (ksize - 1) / 2, 1, false);
    model_finalize(&s->m, batch, 1);
    Layer *l = &s->m.layers[0];
    s->m.batch = batch;
    Rng r = rng_make(3, "conv_algo");
    int ohw = (hw - 1) / stride + 1;
    size_t nx = (size_t)batch * C * hw * hw, ny = (size_t)batch * K * ohw * ohw;
    float *x = model_tensor(&s->m, l->in), *dy = model_tensor_grad(&s->m, l->out);
    for (size_t i = 0; i < nx; i++) x[i] = rng_uniform_range(&r, -1.0f, 1.0f);
    for (size_t i = 0; i < ny; i++) dy[i] = rng_uniform_range(&r, -1.0f, 1.0f);
    s->fwd = ddl_calloc(sizeof(double) * reps);
    s->bwd = ddl_calloc(sizeof(double) * reps);
}

static void side_step(Side *s, int rep)
{
    Layer *l = &s->m.layers[0];
    double t0 = clock_now();
    layer_forward(&s->m, l);
    double t1 = clock_now();
    layer_backward(&s->m, l, true, false);
    double t2 = clock_now();
    if (rep >= 0) s->fwd[rep] = 1e3 * (t1 - t0), s->bwd[rep] = 1e3 * (t2 - t1);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The paths timed, im2col first (the others' ratios are against it):
 * for 3x3 layers (ALGOS3), for 1x1 ones (ALGOS1). */
typedef struct Algo {
    const char *name; /* the --conv value */
} Algo;
static const Algo ALGOS3[] = { { "im2col" }, { "winograd" }, { "direct" }, { "winograd4" }, { "winofused" } };
static const Algo ALGOS1[] = { { "im2col" }, { "pointwise" } };
static const Algo ALGOS_S2[] = { { "im2col" }, { "direct" } };
enum { MAXALGO = 5 };

static void shape(int C, int K, int hw, int batch, int reps)
{
    const Algo *ALGOS = ksize == 1 ? ALGOS1 : stride == 2 ? ALGOS_S2 : ALGOS3;
    int NALGO = ksize == 1 || stride == 2 ? 2 : 5;
    Side side[MAXALGO];
    for (int a = 0; a < NALGO; a++) side_init(&side[a], conv_algo_named(ALGOS[a].name), C, K, hw, batch, reps);
    for (int a = 0; a < NALGO; a++) side_step(&side[a], -1); /* warm-up */
    for (int r = 0; r < reps; r++)
        for (int a = 0; a < NALGO; a++) side_step(&side[a], r);
    double f[MAXALGO], b[MAXALGO];
    for (int a = 0; a < NALGO; a++) f[a] = median(side[a].fwd, reps), b[a] = median(side[a].bwd, reps);
    printf("conv_algo %dx%d%s C%-4d K%-4d %2dx%-2d b%d:", ksize, ksize, stride == 2 ? " stride 2" : "", C, K, hw, hw,
           batch);
    /* a path that cannot take the shape (fused Winograd: odd planes, over
     * 128 channels) runs another: not its time, so "-" */
    bool took[MAXALGO];
    for (int a = 0; a < NALGO; a++)
        took[a] = strcmp(ALGOS[a].name, "winofused") || side[a].m.layers[0].conv_path == conv_path_named("winofused");
    for (int a = 0; a < NALGO; a++)
        if (took[a])
            printf(" | %s fwd %7.2f bwd %7.2f ms", ALGOS[a].name, f[a], b[a]);
        else
            printf(" | %s -", ALGOS[a].name);
    for (int a = 0; a < NALGO; a++) {
        table_set_int(rows, "kernel", ksize);
        table_set_int(rows, "stride", stride);
        table_set_int(rows, "C", C);
        table_set_int(rows, "K", K);
        table_set_int(rows, "hw", hw);
        table_set_int(rows, "batch", batch);
        table_set_str(rows, "alg", ALGOS[a].name);
        if (took[a]) { /* empty cells where the path could not take the shape */
            table_set_num(rows, "fwd_ms", f[a], "%.2f");
            table_set_num(rows, "bwd_ms", b[a], "%.2f");
            table_set_num(rows, "step_over_im2col", (f[a] + b[a]) / (f[0] + b[0]), "%.2f");
        }
        table_end_row(rows);
    }
    printf(" | ratio");
    for (int a = 1; a < NALGO; a++)
        if (took[a])
            printf(" %s %.2f", ALGOS[a].name, (f[a] + b[a]) / (f[0] + b[0]));
        else
            printf(" %s -", ALGOS[a].name);
    printf("\n");
    fflush(stdout);
    for (int a = 0; a < NALGO; a++) model_free(&side[a].m), ddl_free(side[a].fwd), ddl_free(side[a].bwd);
}

/* The shapes given on the command line (argv[i..]), or the defaults of
 * the kind of layer timed. */
static void shapes(int argc, char **argv, int i, int batch, int reps)
{
    if (i < argc) {
        for (; i + 2 < argc; i += 3) shape(number("C", argv[i], 1, 65536), number("K", argv[i + 1], 1, 65536),
                  number("HW", argv[i + 2], 1, 4096), batch, reps);
        return;
    }
    if (stride == 2) { /* resnet18's stride-2 3x3 layers (C K HW-in) at widths 1, 0.5, 0.25 */
        static const int S2[][3] = { { 64, 128, 32 }, { 128, 256, 16 }, { 256, 512, 8 },
                                     { 32, 64, 32 },  { 64, 128, 16 },  { 128, 256, 8 },
                                     { 16, 32, 32 },  { 32, 64, 16 },   { 64, 128, 8 } };
        for (size_t s = 0; s < sizeof S2 / sizeof S2[0]; s++) shape(S2[s][0], S2[s][1], S2[s][2], batch, reps);
        return;
    }
    if (ksize == 1) { /* MobileNetV2's expand and project layers on 28x28 (the seed's images) */
        static const int PW[][3] = {
            { 32, 16, 28 },  { 16, 96, 28 },  { 96, 24, 28 },  { 24, 144, 28 }, { 144, 24, 28 }, { 144, 32, 14 },
            { 32, 192, 14 }, { 192, 32, 14 }, { 192, 64, 7 },  { 64, 384, 7 },  { 384, 64, 7 },  { 384, 96, 7 },
            { 96, 576, 7 },  { 576, 96, 7 },  { 576, 160, 4 }, { 160, 960, 4 }, { 960, 160, 4 }, { 960, 320, 4 },
            { 320, 1280, 4 },
        };
        for (size_t s = 0; s < sizeof PW / sizeof PW[0]; s++) shape(PW[s][0], PW[s][1], PW[s][2], batch, reps);
        return;
    }
    /* resnet18 (C K HW), then vgg11's other shapes, at width 1 then at the
     * quick profile's widths (0.5: lab3's vgg11; 0.25: lab1's vgg11 and
     * lab5's resnet18) */
    static const int SHAPES[][3] = {
        { 3, 64, 32 },   { 64, 64, 32 },   { 128, 128, 16 }, { 256, 256, 8 }, { 512, 512, 4 },
        { 64, 128, 16 }, { 128, 256, 8 },  { 256, 512, 4 },  { 512, 512, 2 },
        { 3, 32, 32 },   { 32, 64, 16 },   { 64, 128, 8 },   { 128, 128, 8 }, { 128, 256, 4 }, { 256, 256, 4 },
        { 256, 256, 2 }, { 3, 16, 32 },    { 16, 16, 32 },   { 32, 32, 16 },  { 64, 64, 8 },   { 128, 128, 4 },
        { 16, 32, 16 },  { 32, 64, 8 },    { 64, 128, 4 },   { 128, 128, 2 },
    };
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++)
        shape(SHAPES[s][0], SHAPES[s][1], SHAPES[s][2], batch, reps);
}

static const char USAGE[] =
    "usage: conv_algo [--batch N] [--reps N] [--cpu] [--1x1 | --stride 2] [--out DIR] [C K HW ...]\n"
    "Times one convolution layer ('same' padding) every way, forward and backward, interleaved:\n"
    "3x3: im2col + GEMM, Winograd F(2x2,3x3), direct, Winograd F(4x4,3x3), fused Winograd F(2x2,3x3)\n"
    "(winofused: even planes, at most 128 channels; '-' elsewhere); --1x1: im2col, pointwise;\n"
    "--stride 2 (3x3): im2col, direct.\n"
    "Prints per shape the median ms of each way and the step's ratio to im2col's.\n"
    "  --batch N   images per step (default 64)\n"
    "  --reps N    timed steps per way (default 5)\n"
    "  --cpu       this process's CPU time instead of wall time\n"
    "  --1x1       1x1 layers (MobileNetV2's shapes by default) instead of 3x3\n"
    "  --stride 2  3x3 stride-2 layers (resnet18's by default; HW is the input's side)\n"
    "  --out DIR   where the CSV and JSON go (default results/bench)\n"
    "  C K HW ...  shapes to time (channels in, out, plane side); default: resnet18's and vgg11's\n"
    "Each shape is best timed in its own process, outside the VM's slow stretches (bench/RESULTS.md).\n";

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int batch = 64, reps = 5, i = 1;
    const char *out = "results/bench";
    for (; i < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(USAGE, stdout);
            MPI_Finalize();
            return 0;
        } else if (!strcmp(argv[i], "--cpu")) {
            cpu_clock = true;
            i--;
        } else if (!strcmp(argv[i], "--1x1")) {
            ksize = 1;
            i--;
        } else if (strcmp(argv[i], "--batch") && strcmp(argv[i], "--reps") && strcmp(argv[i], "--stride") &&
                   strcmp(argv[i], "--out")) {
            ddl_die("conv_algo: unknown option %s (--help)", argv[i]);
        } else if (i + 1 >= argc) {
            ddl_die("conv_algo: %s needs a value", argv[i]);
        } else if (!strcmp(argv[i], "--batch")) {
            batch = number("--batch", argv[i + 1], 1, 65536);
        } else if (!strcmp(argv[i], "--stride")) {
            stride = number("--stride", argv[i + 1], 1, 2);
        } else if (!strcmp(argv[i], "--out")) {
            out = argv[i + 1];
        } else {
            reps = number("--reps", argv[i + 1], 1, 1000000);
        }
    }
    if (batch < 1 || reps < 1) ddl_die("conv_algo: --batch and --reps must be >= 1");
    if (stride != 1 && stride != 2) ddl_die("conv_algo: --stride must be 1 or 2");
    if (stride == 2 && ksize == 1) ddl_die("conv_algo: --stride 2 times 3x3 layers, not --1x1");
    char desc[160], err[DDL_ERRLEN];
    if (device_check(DEVICE_CPU, 0, 1, desc, sizeof desc, err) != 0) ddl_die("conv_algo: %s", err);
    printf("# conv_algo: device %s, BLAS %s x%d, ddlab kernels x%d threads, batch %d, median of %d steps, %s time\n",
           desc, blas_core_name(), blas_threads(), ddl_kernel_threads(), batch, reps, cpu_clock ? "CPU" : "wall");
    char name[64];
    snprintf(name, sizeof name, "conv_algo-%s", ksize == 1 ? "1x1" : stride == 2 ? "3x3s2" : "3x3");
    rows = table_new(name, "kernel,stride,C,K,hw,batch,alg,fwd_ms,bwd_ms,step_over_im2col");
    meta_collect(&rows->meta, "conv_algo");
    meta_set(&rows->meta, "device", "%s", desc);
    meta_set(&rows->meta, "timing", "median of %d interleaved steps per path, %s time, after one warm-up step", reps,
             cpu_clock ? "CPU" : "wall");
    shapes(argc, argv, i, batch, reps);
    int status = table_write(rows, out) != 0;
    table_free(rows);
    MPI_Finalize();
    return status;
}
