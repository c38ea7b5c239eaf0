/* test_conv_paths.c - every path a --conv value forces, against the
 * reference im2col + GEMM (reference.c), on each kind of layer its row in
 * core/conv/conv.c forces it on: 3x3 convolutions of stride 1 and 2
 * (Winograd F(2x2,3x3) and F(4x4,3x3), path_winograd.c; fused Winograd,
 * path_winofused.c; the direct kernels, path_direct.c) and 1x1 ones of
 * stride 1 and 2 (the pointwise kernels, path_pointwise.c, on the same
 * shapes with 1x1 filters). The cases come from the rows (path_cases), so
 * a new row is compared here without a line of this file.
 *
 * For each path and shape (batch 1..8, channels 1..128, planes 2x2..48x48,
 * odd sizes, and batches that take several chunks) two one-layer models
 * from one seed (the same weights), one forced to the path and one to
 * im2col, get the same random input and output gradient. Checked: the
 * layer really took the path asked for (or, on a shape the path's fits
 * refuses, did not); the outputs, the input gradients
 * (overwritten, and added to a random one: acc) and the weight gradients
 * agree, the bias gradients (the same code on both sides) bit for bit.
 * Error is measured as max|path - im2col| / max|im2col| over the tensor,
 * bounded by the row's rel_error (core/conv/paths.h: CONV_REL_ERROR 1e-5,
 * Winograd F(4x4)'s 1e-4); the worst values seen are printed. A double
 * precision direct convolution tells how far each path's output is from
 * the exact result (printed, bounded the same). And the results do not
 * depend on the thread count: 1 and 2 threads for ddlab's kernels (BLAS
 * on one, as tests/test_threads.c does) give identical bits.
 *
 * Measured on these shapes, relative to the largest value: Winograd
 * F(4x4,3x3) (its transforms scale by up to 5 and 8 and divide by 6 and
 * 24) output and input gradient 1.0e-5 and 1.1e-5 against im2col (128
 * channels on 32x32; 2e-6 to 5e-6 on 1-64 channels), its weight gradient
 * (F(2x2)'s) 7e-7. Winograd F(2x2) adds and subtracts up to 9 values in
 * its input and output transforms before and after the products, so its
 * error grows like a few ulps of the largest term: output 7e-7, input
 * gradient 5.7e-7, weight gradient 9.5e-7 against im2col; output 4.4e-7
 * against the exact result (im2col's own error against it: up to 6.4e-7,
 * as its sums over C*9 terms are longer). The direct kernels sum the same
 * C*9 products as im2col's GEMM, in another order and with FMAs; the
 * worst values are printed by this test.
 *
 * Quick tier of the sanitizer build (make test; make test-full and the
 * optimised build run every shape): each path leaves out the shapes of
 * 64 and 128 channels on 32x32 planes (big_shape), whose products and
 * double-precision references were most of this program's time there (2026-11-27, c53debc);
 * the same planes with 3 channels, and the same channels on 4x4 and 2x2
 * planes, still run on every path. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/registry.h"
#include "util/common.h"
#include "cpu/parallel.h"
#include "conv/paths.h"
#include "harness.h"
#include "layers/layers.h"
#include "model/model.h"
#include "util/rng.h"

typedef struct PathShape {
    int n, C, K, H, W;
} PathShape;

static const PathShape SHAPES[] = {
    { 1, 3, 8, 4, 4 },     { 2, 3, 16, 32, 32 },   { 8, 16, 16, 8, 8 },   { 4, 32, 64, 16, 16 },
    { 2, 64, 64, 32, 32 }, { 8, 128, 128, 4, 4 },  { 3, 5, 7, 7, 9 },     { 1, 128, 64, 2, 2 },
    { 2, 1, 4, 5, 5 },     { 5, 24, 12, 3, 11 },   { 2, 128, 128, 32, 32 },
    /* several chunks of images (path_winograd.c's WINO_TARGET_TILES), the last one partial */
    { 5, 8, 8, 32, 32 },   { 3, 16, 24, 48, 48 },
};

/* The sanitizer build's quick tier leaves these out (see the header). */
static bool big_shape(const PathShape *s) { return (size_t)s->C * s->K * s->H * s->W >= ((size_t)4 << 20); }

/* One conv layer's results: y, dx (overwritten), dx added to dx0, dw+db. */
typedef struct Result {
    float *y, *dx, *dxacc, *grads;
    size_t ny, nx, np;
    ConvPath path; /* the path the layer took */
} Result;

static float *random_array(Rng *r, size_t n)
{
    float *a = ddl_alloc(sizeof(float) * n);
    for (size_t i = 0; i < n; i++) a[i] = rng_uniform_range(r, -1.0f, 1.0f);
    return a;
}

static float *copy_of(const float *src, size_t n)
{
    float *a = ddl_alloc(sizeof(float) * n);
    memcpy(a, src, sizeof(float) * n);
    return a;
}

/* Output rows (or columns) of a k x k convolution, padding (k - 1) / 2. */
static int out_side(int n, int k, int stride) { return (n + 2 * ((k - 1) / 2) - k) / stride + 1; }

/* Forward and backward of one conv layer on inputs drawn from `seed`. */
static Result run(const PathShape *s, int k, int stride, ConvAlgo algo, uint64_t seed)
{
    Model m;
    model_begin(&m, "conv_paths", (Shape){ s->C, s->H, s->W });
    m.conv_algo = algo;
    if (seed % 2) m.col_cache_floats = 0; /* half the shapes: im2col lowers its input again in backward */
    mb_conv2d(&m, "conv", m.input, s->K, k, stride, (k - 1) / 2, 1, true);
    model_finalize(&m, s->n, 5);
    Layer *l = &m.layers[0];
    Result r = { 0 };
    r.nx = (size_t)s->n * s->C * s->H * s->W;
    r.ny = (size_t)s->n * s->K * out_side(s->H, k, stride) * out_side(s->W, k, stride);
    r.np = m.nparams;
    r.path = l->conv_path;
    Rng g = rng_make(seed, "test_conv_paths");
    float *x = random_array(&g, r.nx), *dy = random_array(&g, r.ny), *dx0 = random_array(&g, r.nx);
    m.batch = s->n;
    memcpy(model_tensor(&m, l->in), x, sizeof(float) * r.nx);
    layer_forward(&m, l);
    r.y = copy_of(model_tensor(&m, l->out), r.ny);
    memcpy(model_tensor_grad(&m, l->out), dy, sizeof(float) * r.ny);
    layer_backward(&m, l, true, false);
    r.dx = copy_of(model_tensor_grad(&m, l->in), r.nx);
    r.grads = copy_of(m.grads, r.np);
    memcpy(model_tensor_grad(&m, l->in), dx0, sizeof(float) * r.nx);
    layer_backward(&m, l, true, true);
    r.dxacc = copy_of(model_tensor_grad(&m, l->in), r.nx);
    ddl_free(x), ddl_free(dy), ddl_free(dx0);
    model_free(&m);
    return r;
}

static void result_free(Result *r) { ddl_free(r->y), ddl_free(r->dx), ddl_free(r->dxacc), ddl_free(r->grads); }

/* The exact output in double: direct k x k convolution (k 3 or 1),
 * padding (k - 1) / 2, this stride. */
static double exact_err(const PathShape *s, int kk, int stride, uint64_t seed, const float *y)
{
    Model m;
    model_begin(&m, "conv_paths exact", (Shape){ s->C, s->H, s->W });
    mb_conv2d(&m, "conv", m.input, s->K, kk, stride, (kk - 1) / 2, 1, true);
    model_finalize(&m, s->n, 5); /* the same weights as run's */
    Rng g = rng_make(seed, "test_conv_paths");
    int Ho = out_side(s->H, kk, stride), Wo = out_side(s->W, kk, stride);
    size_t nx = (size_t)s->n * s->C * s->H * s->W, ny = (size_t)s->n * s->K * Ho * Wo;
    float *x = random_array(&g, nx);
    int pad = (kk - 1) / 2;
    const float *w = m.params, *b = m.params + (size_t)s->K * s->C * kk * kk;
    double worst = 0.0, big = 0.0;
    for (size_t o = 0; o < ny; o++) {
        int px = (int)(o % Wo), py = (int)(o / Wo % Ho), k = (int)(o / ((size_t)Wo * Ho) % s->K);
        int i = (int)(o / ((size_t)Wo * Ho * s->K));
        double acc = b[k];
        for (int c = 0; c < s->C; c++)
            for (int a = 0; a < kk; a++)
                for (int d = 0; d < kk; d++) {
                    int yy = py * stride + a - pad, xx = px * stride + d - pad;
                    if (yy < 0 || yy >= s->H || xx < 0 || xx >= s->W) continue;
                    acc += (double)w[((size_t)k * s->C + c) * kk * kk + a * kk + d] *
                           x[(((size_t)i * s->C + c) * s->H + yy) * s->W + xx];
                }
        worst = fmax(worst, fabs(acc - y[o]));
        big = fmax(big, fabs(acc));
    }
    ddl_free(x);
    model_free(&m);
    return worst / fmax(big, 1e-30);
}

typedef struct PathCase {
    char name[64];
    const char *algo; /* the --conv value, and its path's name */
    ConvPath path;
    int k;      /* the filters' side: 3, or 1 (pointwise) */
    double tol; /* relative to the largest value: the row's rel_error (core/conv/paths.h) */
    int stride;
} PathCase;

/* The kinds of layer a case can build here (ungrouped k x k, padding
 * (k - 1) / 2), with their filter side and stride. Depthwise and other
 * layers are none: only im2col and cuDNN force them, and the depthwise
 * kernels are checked against their definition and across backends in
 * test_gradcheck.c, test_backend_kernels.c and test_cuda_kernels.c. */
static const struct {
    ConvLayerKind kind;
    int k, stride;
    const char *tag;
} KIND_SHAPES[] = { { CONV_KIND_3X3_S1, 3, 1, "" },
                    /* the input's 4 phases (direct_kernels.h); odd planes leave odd phases short */
                    { CONV_KIND_3X3_S2, 3, 2, " stride 2" },
                    { CONV_KIND_1X1_S1, 1, 1, "" },
                    /* the stride-1 kernels on the even rows and columns (odd planes: ceil) */
                    { CONV_KIND_1X1_S2, 1, 2, " stride 2" } };

/* The cases, from the table's rows: each --conv value that forces a path
 * on the CPU, on each kind of layer above that its row forces, within its
 * row's error bound. im2col is the reference every case compares with;
 * a value the CPU cannot run (cudnn: test_conv_cudnn.c) prints one skip
 * line saying why. */
static int path_cases(PathCase *cases, int cap)
{
    int n = 0;
    for (ConvAlgo a = CONV_ALGO_REFERENCE + 1; a < conv_algo_count(); a++) {
        ConvPath p = conv_path_named(conv_algo_name(a));
        char why[512];
        if (p == CONV_PATH_IM2COL) continue;
        if (conv_algo_check(a, ddl_backend_cpu.conv, why, sizeof why) != 0) {
            char name[96];
            snprintf(name, sizeof name, "conv paths: %s against im2col", conv_algo_name(a));
            t_skip(name, why);
            continue;
        }
        for (size_t i = 0; i < sizeof KIND_SHAPES / sizeof KIND_SHAPES[0]; i++) {
            if (!(CONV_PATHS[p].forces & (1u << KIND_SHAPES[i].kind))) continue;
            if (n == cap) ddl_die("more than %d path cases", cap);
            PathCase *c = &cases[n++];
            *c = (PathCase){ .algo = conv_algo_name(a), .path = p, .k = KIND_SHAPES[i].k,
                             .stride = KIND_SHAPES[i].stride, .tol = conv_row_rel_error(&CONV_PATHS[p]) };
            snprintf(c->name, sizeof c->name, "%s%s", conv_algo_name(a), KIND_SHAPES[i].tag);
        }
    }
    return n;
}

/* Whether the case's path takes a shape (its row's fits): the fused
 * Winograd kernels take even planes of at most 128 channels in and out;
 * other shapes take the rule's path. */
static bool case_fits(const PathCase *pc, const PathShape *s)
{
    int pad = (pc->k - 1) / 2;
    ConvShape cs = { .cin = s->C, .h = s->H, .w = s->W, .cout = s->K, .oh = out_side(s->H, pc->k, pc->stride),
                     .ow = out_side(s->W, pc->k, pc->stride), .k = pc->k, .stride = pc->stride, .pad = pad,
                     .groups = 1 };
    return CONV_PATHS[pc->path].fits(&cs);
}

static void check_shape(const PathCase *pc, const PathShape *s, double *worst)
{
    char name[200];
    snprintf(name, sizeof name, "%.63s n%d C%d K%d %dx%d", pc->name, s->n, s->C, s->K, s->H, s->W);
    uint64_t seed = 100 + (uint64_t)(s - SHAPES);
    char what[512];
    if (!case_fits(pc, s)) {
        Result w = run(s, pc->k, pc->stride, conv_algo_named(pc->algo), seed);
        snprintf(what, sizeof what, "%s: a shape the %s kernels cannot take goes to the rule's path", name, pc->algo);
        t_checkf(w.path != pc->path, what, "took path %d", (int)w.path);
        result_free(&w);
        return;
    }
    Result w = run(s, pc->k, pc->stride, conv_algo_named(pc->algo), seed),
           c = run(s, pc->k, pc->stride, conv_algo_named("im2col"), seed);
    snprintf(what, sizeof what, "%s: %.63s and im2col models take their paths", name, pc->name);
    t_checkf(w.path == pc->path && c.path == CONV_PATH_IM2COL, what,
             "paths taken: %d and %d (want %d, then %d)", (int)w.path, (int)c.path, (int)pc->path,
             (int)CONV_PATH_IM2COL);
    double ey = t_rel_err(w.y, c.y, w.ny, 1e-30), edx = t_rel_err(w.dx, c.dx, w.nx, 1e-30);
    double eacc = t_rel_err(w.dxacc, c.dxacc, w.nx, 1e-30);
    double exw = exact_err(s, pc->k, pc->stride, seed, w.y), exc = exact_err(s, pc->k, pc->stride, seed, c.y);
    printf("# %s: vs im2col y %.2e (max abs %.2e), dx %.2e (max abs %.2e), dx acc %.2e; vs exact: %s %.2e, "
           "im2col %.2e\n",
           name, ey, t_max_abs_diff(w.y, c.y, w.ny), edx, t_max_abs_diff(w.dx, c.dx, w.nx), eacc, pc->name, exw, exc);
    snprintf(what, sizeof what, "%s: output within %.0e of im2col's and the exact one", name, pc->tol);
    t_checkf(ey < pc->tol && exw < pc->tol, what, "error %.3g vs im2col, %.3g vs exact", ey, exw);
    snprintf(what, sizeof what, "%s: input gradient within %.0e of im2col's (overwritten and acc)", name, pc->tol);
    t_checkf(edx < pc->tol && eacc < pc->tol, what, "error %.3g, with acc %.3g", edx, eacc);
    size_t nw = (size_t)s->K * s->C * pc->k * pc->k; /* weight, then bias */
    double edw = t_rel_err(w.grads, c.grads, nw, 1e-30);
    printf("# %s: weight gradient vs im2col %.2e (max abs %.2e)\n", name, edw, t_max_abs_diff(w.grads, c.grads, nw));
    snprintf(what, sizeof what, "%s: weight gradient within %.0e of im2col's, bias gradient identical", name,
             pc->tol);
    t_checkf(w.np == c.np && edw < pc->tol && !memcmp(w.grads + nw, c.grads + nw, sizeof(float) * (w.np - nw)), what,
             "weight gradient error %.3g, or the bias gradients differ", edw);
    worst[0] = fmax(worst[0], ey);
    worst[1] = fmax(worst[1], fmax(edx, eacc));
    worst[2] = fmax(worst[2], exw);
    worst[3] = fmax(worst[3], edw);
    result_free(&w), result_free(&c);
}

static void check_threads(const PathCase *pc, const PathShape *s)
{
    ddl_set_kernel_threads(1);
    Result one = run(s, pc->k, pc->stride, conv_algo_named(pc->algo), 77);
    ddl_set_kernel_threads(2);
    Result two = run(s, pc->k, pc->stride, conv_algo_named(pc->algo), 77);
    ddl_set_kernel_threads(0);
    bool same = !memcmp(one.y, two.y, sizeof(float) * one.ny) && !memcmp(one.dx, two.dx, sizeof(float) * one.nx) &&
                !memcmp(one.dxacc, two.dxacc, sizeof(float) * one.nx) &&
                !memcmp(one.grads, two.grads, sizeof(float) * one.np);
    char what[160];
    snprintf(what, sizeof what, "%s: 1 and 2 threads give identical y, dx and dw", pc->name);
    t_checkf(same, what, "n%d C%d K%d %dx%d: they differ", s->n, s->C, s->K, s->H, s->W);
    result_free(&one), result_free(&two);
}

/* What CONV_ALGO_AUTO picks, by shape (the measured rules of
 * core/conv/pick.c). */
static void check_auto(void)
{
    const ConvPath IM = CONV_PATH_IM2COL, DI = conv_path_named("direct"), WF = conv_path_named("winofused"),
                   W4 = conv_path_named("winograd4"), DW = conv_path_named("depthwise");
    Model m;
    model_begin(&m, "conv_paths auto", (Shape){ 3, 32, 32 });
    m.conv_algo = CONV_ALGO_AUTO;
    int t = mb_conv2d(&m, "first", m.input, 64, 3, 1, 1, 1, false); /* 3 channels, 32x32: direct */
    t = mb_conv2d(&m, "square", t, 64, 3, 1, 1, 1, false);          /* 64 channels, 32x32: fused Winograd */
    t = mb_conv2d(&m, "widening", t, 128, 3, 1, 1, 1, false);       /* 64 into 128, 32x32: fused Winograd */
    t = mb_conv2d(&m, "strided", t, 128, 3, 2, 1, 1, false);        /* stride 2: im2col */
    t = mb_conv2d(&m, "wide", t, 128, 3, 1, 1, 1, false);           /* 128 channels, 16x16: fused Winograd */
    t = mb_conv2d(&m, "grouped", t, 128, 3, 1, 1, 2, false);        /* groups: im2col */
    t = mb_conv2d(&m, "depthwise", t, 128, 3, 2, 1, 128, false);    /* depthwise kernels, to 8x8 */
    t = mb_conv2d(&m, "wide small", t, 256, 3, 1, 1, 1, false);     /* 128 into 256, 8x8: Winograd F(4x4) */
    t = mb_conv2d(&m, "pointwise", t, 32, 1, 1, 0, 1, false);        /* 1x1: im2col */
    t = mb_conv2d(&m, "narrow small", t, 64, 3, 1, 1, 1, false);     /* 32 -> 64 on 8x8: fused Winograd */
    t = mb_conv2d(&m, "widening small", t, 128, 3, 1, 1, 1, false);  /* 64 -> 128 on 8x8: fused Winograd */
    mb_conv2d(&m, "wide tiny", t, 128, 3, 2, 1, 1, false);           /* stride 2 to 4x4: im2col */
    model_finalize(&m, 2, 1);
    ConvPath want[12] = { DI, WF, WF, IM, WF, IM, DW, W4, IM, WF, WF, IM };
    bool ok = true;
    for (int i = 0; i < 12; i++) ok = ok && m.layers[i].conv_path == want[i];
    t_check(ok, "conv paths: auto picks fused Winograd for 32-128 channels, F(4x4) for more, direct for few channels, "
                "im2col for the rest");
    char line[256];
    conv2d_algo_summary(&m, line, sizeof line);
    t_checkf(strcmp(line, "12 convolutions: 1 Winograd F(4x4,3x3), 5 fused Winograd F(2x2,3x3), 1 direct 3x3, "
                          "1 depthwise, 4 im2col + GEMM; no fused activation (--conv auto)") == 0,
             "conv paths: the summary line counts each path", "got '%s'", line);
    model_free(&m);
}

/* A 3x3 layer, C into K channels on a plane hw x hw, and the path it
 * should take; pick_3x3: the path it takes on the CPU under algo. */
typedef struct PickCase {
    int C, K, hw;
    ConvPath want;
} PickCase;

static ConvPath pick_3x3(const PickCase *c, int stride, ConvAlgo algo)
{
    Model m;
    model_begin(&m, "conv_paths pick", (Shape){ c->C, c->hw, c->hw });
    m.conv_algo = algo;
    mb_conv2d(&m, "conv", m.input, c->K, 3, stride, 1, 1, false);
    model_finalize(&m, 2, 1);
    ConvPath p = m.layers[0].conv_path;
    model_free(&m);
    return p;
}

/* The first case whose pick is not its want (im2col where forced), or -1;
 * what failed, in why. */
static int first_bad_pick(const PickCase *cases, size_t n, int stride, ConvAlgo algo, bool forced, char *why,
                          size_t cap)
{
    for (size_t i = 0; i < n; i++)
        if (pick_3x3(&cases[i], stride, algo) != (forced ? CONV_PATH_IM2COL : cases[i].want)) {
            snprintf(why, cap, "case %zu (C %d K %d %dx%d, --conv %s) took another path", i, cases[i].C, cases[i].K,
                     cases[i].hw, cases[i].hw, conv_algo_name(algo));
            return (int)i;
        }
    return -1;
}

/* Where auto takes the fused Winograd kernels on host memory (the rule in
 * core/conv/pick.c): 32-128 channels in (at most 128 out) on planes of 4x4
 * or more, 16-64 on planes of 4x4 to 16x16; not 16 on 32x32, 2x2 planes,
 * 8 or fewer channels, more than 128 in or out, or odd planes. */
static void check_auto_fused(void)
{
    const ConvPath IM = CONV_PATH_IM2COL, DI = conv_path_named("direct"), WF = conv_path_named("winofused"),
                   W4 = conv_path_named("winograd4");
    const PickCase CASES[] = { { 64, 64, 32, WF },  { 32, 32, 4, WF },   { 32, 64, 8, WF },   { 16, 16, 16, WF },
                               { 16, 32, 8, WF },   { 16, 16, 32, DI },  { 8, 8, 16, DI },    { 64, 128, 16, WF },
                               { 128, 128, 8, WF }, { 128, 128, 4, WF }, { 128, 128, 2, IM }, { 128, 256, 16, W4 },
                               { 256, 256, 8, W4 }, { 32, 32, 2, IM },   { 32, 32, 9, DI } };
    char why[160] = "";
    int bad = first_bad_pick(CASES, sizeof CASES / sizeof CASES[0], 1, CONV_ALGO_AUTO, false, why, sizeof why);
    t_checkf(bad < 0, "conv paths: auto takes fused Winograd for 32-128 channels in (4x4+), 16-64 on 4x4 to 16x16, "
                      "and not for fewer channels, more than 128, 2x2 or odd planes",
             "%s", why);
}

/* 3x3 stride-2 convolutions under auto on host memory: the direct kernels
 * (on the input's phases) for up to 16 channels in on 16x16 or more, and
 * 32 into at most 64 on 16x16; im2col otherwise, and under --conv
 * other than direct and auto. */
static void check_auto_stride2(void)
{
    const ConvPath IM = CONV_PATH_IM2COL, DI = conv_path_named("direct");
    const PickCase CASES[] = { { 16, 32, 32, DI }, { 16, 32, 16, DI },  { 16, 32, 8, IM },  { 32, 64, 16, DI },
                               { 32, 64, 32, IM }, { 32, 128, 16, IM }, { 64, 128, 16, IM } };
    char why[160] = "";
    size_t n = sizeof CASES / sizeof CASES[0];
    int bad = first_bad_pick(CASES, n, 2, CONV_ALGO_AUTO, false, why, sizeof why);
    if (bad < 0) bad = first_bad_pick(CASES, n, 2, conv_algo_named("winograd"), true, why, sizeof why);
    t_checkf(bad < 0, "conv paths: auto takes stride-2 3x3 layers direct for 16 channels in (16x16+) and 32 into 64 on "
                      "16x16, im2col otherwise and under --conv winograd",
             "%s", why);
}

/* The device-memory rule (a GPU, and the emulated GPU), measured on an
 * H200: direct only for up to 16 channels on 16x16+ or 32 on 32x32+,
 * never Winograd. Where the CPU would pick Winograd, the GPU takes im2col. */
static void check_auto_device(void)
{
    const ConvPath IM = CONV_PATH_IM2COL, DI = conv_path_named("direct");
    const Backend *be = backend_named("cuda-emu");
    if (!be) {
        t_skip("conv paths: the device rule", "this build has no emulated GPU");
        return;
    }
    Model m;
    model_begin(&m, "conv_paths auto device", (Shape){ 3, 32, 32 });
    m.be = be;
    m.conv_algo = CONV_ALGO_AUTO;
    int t = mb_conv2d(&m, "first", m.input, 16, 3, 1, 1, 1, false); /* 3 channels, 32x32: direct */
    t = mb_conv2d(&m, "c16", t, 32, 3, 1, 1, 1, false);             /* 16 on 32x32: direct */
    t = mb_conv2d(&m, "c32", t, 64, 3, 1, 1, 1, false);             /* 32 on 32x32: direct */
    t = mb_conv2d(&m, "c64", t, 16, 3, 1, 1, 1, false);             /* 64 on 32x32: im2col */
    t = mb_conv2d(&m, "strided", t, 16, 3, 2, 1, 1, false);         /* stride 2, to 16x16: im2col */
    t = mb_conv2d(&m, "c16 16x16", t, 32, 3, 1, 1, 1, false);       /* 16 on 16x16: direct */
    t = mb_conv2d(&m, "c32 16x16", t, 128, 3, 1, 1, 1, false);      /* 32 on 16x16: im2col */
    mb_conv2d(&m, "wide", t, 128, 3, 1, 1, 1, false);               /* 128 on 16x16: im2col, not Winograd */
    model_finalize(&m, 2, 1);
    ConvPath want[8] = { DI, DI, DI, IM, IM, DI, IM, IM };
    int bad = -1;
    for (int i = 0; i < 8 && bad < 0; i++)
        if (m.layers[i].conv_path != want[i]) bad = i;
    t_checkf(bad < 0, "conv paths: on device memory auto picks direct for up to 16 channels (32 on 32x32), never "
                      "Winograd", "layer %s took path %d, not %d", bad < 0 ? "" : m.layers[bad].name,
             bad < 0 ? 0 : (int)m.layers[bad].conv_path, bad < 0 ? 0 : (int)want[bad]);
    model_free(&m);
}

/* 1x1 stride-1 convolutions under auto: on host memory the pointwise
 * kernels on planes of 14x14 or more; on device memory (the emulated GPU)
 * im2col; --conv im2col forces im2col, --conv pointwise the kernels. */
static void check_auto_pointwise(void)
{
    const Backend *dev = backend_named("cuda-emu");
    const ConvPath PW = conv_path_named("pointwise"), IM = CONV_PATH_IM2COL;
    const struct {
        const char *where;
        int algo;
        bool device;
        ConvPath want[6];
    } CASES[] = {
        { "host auto", CONV_ALGO_AUTO, false, { PW, IM, PW, IM, IM, PW } },
        { "host im2col", conv_algo_named("im2col"), false, { IM, IM, IM, IM, IM, IM } },
        { "host pointwise", conv_algo_named("pointwise"), false, { PW, PW, PW, PW, PW, PW } },
        { "device auto", CONV_ALGO_AUTO, true, { IM, IM, IM, IM, IM, IM } },
    };
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        if (CASES[c].device && !dev) {
            t_skip("conv paths: 1x1 layers on device memory", "this build has no emulated GPU");
            continue;
        }
        Model m;
        model_begin(&m, "conv_paths auto 1x1", (Shape){ 16, 28, 28 });
        if (CASES[c].device) m.be = dev;
        m.conv_algo = (ConvAlgo)CASES[c].algo;
        int t = mb_conv2d(&m, "expand 28x28", m.input, 144, 1, 1, 0, 1, false); /* 28x28: pointwise */
        t = mb_conv2d(&m, "strided 1x1", t, 32, 1, 2, 0, 1, false);            /* stride 2, 144 in: im2col */
        t = mb_conv2d(&m, "expand 14x14", t, 192, 1, 1, 0, 1, false);          /* 14x14: pointwise */
        t = mb_conv2d(&m, "strided to 7x7", t, 64, 1, 2, 0, 1, false);         /* stride 2, 192 in: im2col */
        t = mb_conv2d(&m, "project 7x7", t, 32, 1, 1, 0, 1, false);            /* 7x7: im2col */
        mb_conv2d(&m, "strided narrow", t, 64, 1, 2, 0, 1, false);             /* stride 2, 32 in: pointwise */
        model_finalize(&m, 2, 1);
        int bad = -1;
        for (int i = 0; i < 6 && bad < 0; i++)
            if (m.layers[i].conv_path != CASES[c].want[i]) bad = i;
        t_checkf(bad < 0, "conv paths: 1x1 layers take the pointwise kernels where the rule says",
                 "%s: layer %s took path %d, not %d", CASES[c].where, bad < 0 ? "" : m.layers[bad].name,
                 bad < 0 ? 0 : (int)m.layers[bad].conv_path, bad < 0 ? 0 : (int)CASES[c].want[bad]);
        model_free(&m);
    }
}

/* --conv's values come from the table's rows: auto and reference, then
 * each row that forces its path somewhere, by its name; each names its
 * path and parses back to itself. */
static void check_values(void)
{
    t_checkf(!strcmp(conv_algo_choices(), "auto|reference|im2col|winograd|winograd4|winofused|direct|pointwise|cudnn"),
             "conv paths: --conv's values are auto, reference and the rows' names, in the table's order", "got '%s'",
             conv_algo_choices());
    int bad = -1;
    for (ConvAlgo a = 0; a < conv_algo_count() && bad < 0; a++) {
        ConvAlgo back;
        const char *name = conv_algo_name(a);
        if (conv_algo_parse(name, &back) != 0 || back != a) bad = a;
        if (a > CONV_ALGO_REFERENCE) (void)conv_path_named(name); /* stops the test where no row has the name */
    }
    t_checkf(bad < 0 && conv_algo_parse("depthwise", &(ConvAlgo){ 0 }) != 0,
             "conv paths: every --conv value parses back to itself and names a path; depthwise is no value",
             "value %d (%s)", bad, bad < 0 ? "" : conv_algo_name(bad));
}

int main(int argc, char **argv)
{
    /* One BLAS thread, so only ddlab's kernels change their thread count below. */
    t_reexec_one_blas_thread(argv, "test_conv_paths");
    const char *omp = getenv("OMP_NUM_THREADS");
    if (!omp || strcmp(omp, "1")) return 1; /* the re-exec failed (said why) */
    (void)argc;
    bool quick = t_sanitized() && t_quick("the shapes of 64 and 128 channels on 32x32 planes, under the sanitizers");
    PathCase cases[4 * CONV_PATHS_MAX];
    int ncases = path_cases(cases, 4 * CONV_PATHS_MAX);
    for (int p = 0; p < ncases; p++) {
        const PathCase *pc = &cases[p];
        double worst[4] = { 0, 0, 0, 0 };
        for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++)
            if (!quick || !big_shape(&SHAPES[i])) check_shape(pc, &SHAPES[i], worst);
        printf("# %s, worst over shapes: y %.2e, dx %.2e, dw %.2e (vs im2col), y %.2e (vs exact); limit %.0e\n",
               pc->name, worst[0], worst[1], worst[3], worst[2], pc->tol);
        check_threads(pc, &(PathShape){ 4, 32, 48, 16, 16 });
        check_threads(pc, &(PathShape){ 2, 64, 64, 9, 7 });
    }
    check_values();
    check_auto();
    check_auto_fused();
    check_auto_stride2();
    check_auto_device();
    check_auto_pointwise();
    return t_done();
}
