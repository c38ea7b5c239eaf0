/* test_cuda_kernels.c - every shared CUDA kernel (core/cuda: memory,
 * im2col, bias, activations, pooling, batch norm, dropout, softmax
 * cross-entropy, SGD, FP16, GEMM) against its CPU reference (core/cpu,
 * core/cpu/gemm.c), on fresh seeded random inputs. A convolution path's
 * kernels are its own test's, tests/test_path_<name>.c, through its
 * kernel table on every usable backend (a GPU's, the emulated GPU's).
 *
 * Built twice. bin/tests/test_cuda_kernels runs the nvcc build on a real
 * GPU. bin/tests/test_cuda_kernels_emu (-DDDL_CUDA_EMU) runs the very same
 * .cu sources compiled for the emulated GPU (core/cuda/emu), on every
 * machine: so the checks run everywhere, and without a GPU (a build
 * without nvcc, or ddl_cuda_probe failing, e.g. cudaGetDeviceCount error
 * 35 on a machine without a driver) the GPU binary only says so in a
 * comment and leaves the checks to its emulated twin; it never prints
 * "skip" for them.
 *
 * With a GPU, each check runs the CPU kernel and its _cuda twin on the same
 * inputs and compares the GPU result, copied back, with the CPU's: never
 * the GPU against itself. Outputs start as NaN on both sides (t_poison) so
 * an element the kernel forgets to write fails the check; kernels with an
 * acc flag run with acc = false (poisoned output) and acc = true (the same
 * random output on both sides). Relative error is max|gpu - cpu| /
 * max|cpu| (t_rel_err), limits per kernel:
 *   TOL_ELEM 1e-5  FP32 elementwise and gather kernels (most are bit-exact
 *                  by construction; FMA fusion may differ by an ulp)
 *   TOL_RED  1e-3  reductions (batch norm statistics and backward, bias
 *                  gradient, pooling, global average pooling, softmax
 *                  cross-entropy) and GEMM: summation order differs
 *   TOL_F16  1e-2  FP16 GEMM (FP16 inputs, FP32 accumulation)
 * Dropout masks and FP16 casts must match bit for bit. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *const GROUPS[] = {
    "device memory",   "im2col/col2im", "conv2d groups (im2col row blocks + gemm)",
    "bias add/grad",   "activations (relu, relu6, ...)", "maxpool",
    "avgpool",         "global avgpool", "batchnorm",
    "dropout mask",    "mul/add/copy_grad/add_relu", "softmax cross-entropy",
    "sgd update",      "fp16 casts",    "loss-scale overflow check",
    "gemm_f32",        "gemm_f16",
};

#ifdef DDL_CUDA_EMU
#define DEV "cuda-emu"
#else
#define DEV "cuda"
#endif

static void no_gpu(const char *why)
{
    printf("# no GPU for these %zu groups of checks here (%s); test_cuda_kernels_emu runs every one of them on "
           "the emulated GPU\n",
           sizeof GROUPS / sizeof GROUPS[0], why);
}

#if defined(DDL_HAVE_CUDA) || defined(DDL_CUDA_EMU)
#include "util/common.h"
#include "util/bn_act.h"
#include "conv/kernels_cpu.h"
#include "cpu/kernels.h"
#include "cuda/cuda_runtime_probe.h"
#include "cuda/device_mem.h"
#include "cuda/kernels_cuda.h"
#include "cpu/gemm.h"
#include "util/rng.h"

#define TOL_ELEM 1e-5
#define TOL_RED 1e-3
#define TOL_F16 1e-2
#define REL_FLOOR 1e-6 /* t_rel_err's denominator when the CPU result is ~0 */

static Rng R;

/* A host/device pair: h is the CPU side (input, or the CPU kernel's
 * output), d the GPU side; both start equal. */
typedef struct Buf {
    float *h, *d;
    size_t n;
} Buf;

static Buf buf_from(const float *src, size_t n)
{
    Buf b = { ddl_alloc(sizeof(float) * (n ? n : 1)), ddl_cuda_malloc(sizeof(float) * n), n };
    memcpy(b.h, src, sizeof(float) * n);
    ddl_cuda_memcpy_h2d(b.d, b.h, sizeof(float) * n);
    return b;
}

static Buf buf_rand(size_t n, float lo, float hi)
{
    float *t = ddl_alloc(sizeof(float) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) t[i] = rng_uniform_range(&R, lo, hi);
    Buf b = buf_from(t, n);
    ddl_free(t);
    return b;
}

/* An output: NaN on both sides. */
static Buf buf_poison(size_t n)
{
    float *t = ddl_alloc(sizeof(float) * (n ? n : 1));
    t_poison(t, n);
    Buf b = buf_from(t, n);
    ddl_free(t);
    return b;
}

/* An output for acc: poisoned when acc is false, random when true. */
static Buf buf_out(size_t n, bool acc) { return acc ? buf_rand(n, -1.0f, 1.0f) : buf_poison(n); }

static void buf_free(Buf *b)
{
    ddl_free(b->h);
    ddl_cuda_free(b->d);
    b->h = b->d = NULL;
}

/* Copy the GPU side back (waits for the kernels queued before) and compare
 * it with the CPU side. */
static bool __attribute__((format(printf, 3, 4))) check_buf(const Buf *b, double tol, const char *fmt, ...)
{
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    float *g = ddl_alloc(sizeof(float) * (b->n ? b->n : 1));
    ddl_cuda_memcpy_d2h(g, b->d, sizeof(float) * b->n);
    double e = t_rel_err(g, b->h, b->n, REL_FLOOR);
    size_t worst = 0;
    double wd = -1.0;
    for (size_t i = 0; i < b->n; i++) {
        double d = fabs((double)g[i] - (double)b->h[i]);
        if (isnan(d)) d = INFINITY;
        if (d > wd) { wd = d; worst = i; }
    }
    bool ok = t_checkf(e < tol, name, "relative error %.3g (limit %.0e); worst at [%zu]: gpu %.9g cpu %.9g", e, tol,
                       worst, b->n ? (double)g[worst] : 0.0, b->n ? (double)b->h[worst] : 0.0);
    ddl_free(g);
    return ok;
}

/* ---- device memory ------------------------------------------------------ */

static void test_memory(void)
{
    size_t n = 4099;
    float *a = ddl_alloc(sizeof(float) * n), *b = ddl_alloc(sizeof(float) * n);
    for (size_t i = 0; i < n; i++) a[i] = rng_uniform_range(&R, -1.0f, 1.0f);
    float *d1 = ddl_cuda_malloc(sizeof(float) * n), *d2 = ddl_cuda_malloc(sizeof(float) * n);
    ddl_cuda_memcpy_h2d(d1, a, sizeof(float) * n);
    ddl_cuda_memcpy_d2d(d2, d1, sizeof(float) * n);
    t_poison(b, n);
    ddl_cuda_memcpy_d2h(b, d2, sizeof(float) * n);
    t_check(memcmp(a, b, sizeof(float) * n) == 0, DEV " memory: h2d, d2d, d2h round trip is exact");
    ddl_cuda_memset(d2, 0, sizeof(float) * n);
    ddl_cuda_memcpy_d2h(b, d2, sizeof(float) * n);
    bool zero = true;
    for (size_t i = 0; i < n; i++) zero = zero && b[i] == 0.0f;
    t_check(zero, DEV " memory: memset 0");
    float *pin = ddl_cuda_host_alloc(sizeof(float) * n);
    t_check(pin != NULL, DEV " memory: pinned host allocation");
    if (pin) {
        ddl_cuda_memcpy_d2h(pin, d1, sizeof(float) * n);
        bool same = memcmp(pin, a, sizeof(float) * n) == 0;
        for (size_t i = 0; i < n; i++) pin[i] = -a[i];
        ddl_cuda_memcpy_h2d(d2, pin, sizeof(float) * n);
        ddl_cuda_memcpy_d2h(b, d2, sizeof(float) * n);
        for (size_t i = 0; i < n; i++) same = same && b[i] == -a[i];
        t_check(same, DEV " memory: copies through pinned memory");
        ddl_cuda_host_free(pin);
    }
    t_check(ddl_cuda_malloc(0) == NULL && ddl_cuda_stream() != NULL, DEV " memory: malloc(0) is NULL, stream set");
    ddl_cuda_synchronize();
    ddl_cuda_free(d1);
    ddl_cuda_free(d2);
    ddl_free(a);
    ddl_free(b);
}

/* ---- im2col / col2im and grouped convolution ---------------------------- */

typedef struct Geo {
    int nb, C, H, W, k, s, p;
} Geo;

/* Odd sizes, stride 1..3, padding 0..2, 1x1 and even kernels, batch 1..4. */
static const Geo CONV_GEOS[] = {
    { 1, 1, 5, 5, 3, 1, 0 }, { 2, 3, 7, 5, 3, 2, 1 }, { 3, 4, 8, 8, 1, 1, 0 }, { 2, 2, 6, 9, 3, 1, 1 },
    { 1, 3, 11, 7, 5, 2, 2 }, { 4, 8, 4, 4, 3, 1, 1 }, { 2, 3, 6, 6, 2, 2, 0 }, { 1, 2, 5, 4, 4, 3, 1 },
    { 2, 2, 9, 7, 3, 3, 1 },  { 1, 1, 1, 1, 1, 1, 0 }, { 5, 16, 13, 13, 3, 2, 1 }, { 2, 3, 5, 6, 5, 1, 2 },
};

static int out_dim(int in, int k, int s, int p) { return (in + 2 * p - k) / s + 1; }

static void test_im2col(void)
{
    for (size_t t = 0; t < sizeof CONV_GEOS / sizeof CONV_GEOS[0]; t++) {
        Geo g = CONV_GEOS[t];
        int OH = out_dim(g.H, g.k, g.s, g.p), OW = out_dim(g.W, g.k, g.s, g.p);
        size_t xs = (size_t)g.nb * g.C * g.H * g.W, cs = (size_t)g.C * g.k * g.k * g.nb * OH * OW;
        char tag[96];
        snprintf(tag, sizeof tag, "nb=%d C=%d %dx%d k=%d stride=%d pad=%d", g.nb, g.C, g.H, g.W, g.k, g.s, g.p);
        Buf x = buf_rand(xs, -1.0f, 1.0f), col = buf_poison(cs);
        im2col_cpu(x.h, g.nb, g.C, g.H, g.W, g.k, g.s, g.p, OH, OW, col.h);
        im2col_cuda(x.d, g.nb, g.C, g.H, g.W, g.k, g.s, g.p, OH, OW, col.d);
        check_buf(&col, TOL_ELEM, DEV " im2col %s", tag);
        Buf dcol = buf_rand(cs, -1.0f, 1.0f);
        for (int acc = 0; acc < 2; acc++) {
            Buf dx = buf_out(xs, acc);
            col2im_cpu(dcol.h, g.nb, g.C, g.H, g.W, g.k, g.s, g.p, OH, OW, dx.h, acc);
            col2im_cuda(dcol.d, g.nb, g.C, g.H, g.W, g.k, g.s, g.p, OH, OW, dx.d, acc);
            check_buf(&dx, TOL_ELEM, DEV " col2im %s acc=%d", tag, acc);
            buf_free(&dx);
        }
        buf_free(&x);
        buf_free(&col);
        buf_free(&dcol);
    }
}

/* conv2d's use of the kernels (core/layers/conv2d.c): groups are row blocks
 * of the column matrix, so the GEMMs take pointers into the middle of
 * device buffers, with leading dimensions larger than the block. */
static void test_conv_groups(void)
{
    static const struct {
        Geo g;
        int cout, groups;
    } CASES[] = {
        { { 2, 6, 7, 6, 3, 2, 1 }, 6, 3 },  /* grouped */
        { { 3, 4, 5, 5, 3, 1, 1 }, 4, 4 },  /* depthwise */
        { { 1, 3, 9, 7, 3, 1, 0 }, 5, 1 },  /* plain, odd cout */
        { { 2, 8, 6, 6, 1, 1, 0 }, 12, 2 }, /* 1x1 */
    };
    for (size_t t = 0; t < sizeof CASES / sizeof CASES[0]; t++) {
        Geo g = CASES[t].g;
        int cout = CASES[t].cout, groups = CASES[t].groups;
        int OH = out_dim(g.H, g.k, g.s, g.p), OW = out_dim(g.W, g.k, g.s, g.p);
        int ckk = g.C * g.k * g.k, ckkg = ckk / groups, coutg = cout / groups, ld = g.nb * OH * OW;
        size_t xs = (size_t)g.nb * g.C * g.H * g.W;
        char tag[96];
        snprintf(tag, sizeof tag, "nb=%d C=%d cout=%d groups=%d k=%d stride=%d", g.nb, g.C, cout, groups, g.k, g.s);
        Buf x = buf_rand(xs, -1.0f, 1.0f), w = buf_rand((size_t)cout * ckkg, -0.5f, 0.5f);
        Buf col = buf_poison((size_t)ckk * ld), out = buf_poison((size_t)cout * ld);
        im2col_cpu(x.h, g.nb, g.C, g.H, g.W, g.k, g.s, g.p, OH, OW, col.h);
        im2col_cuda(x.d, g.nb, g.C, g.H, g.W, g.k, g.s, g.p, OH, OW, col.d);
        for (int gr = 0; gr < groups; gr++) {
            size_t wo = (size_t)gr * coutg * ckkg, co = (size_t)gr * ckkg * ld, oo = (size_t)gr * coutg * ld;
            gemm_f32(false, false, coutg, ld, ckkg, 1.0f, w.h + wo, ckkg, col.h + co, ld, 0.0f, out.h + oo, ld);
            gemm_f32_cuda(false, false, coutg, ld, ckkg, 1.0f, w.d + wo, ckkg, col.d + co, ld, 0.0f, out.d + oo, ld);
        }
        check_buf(&out, TOL_RED, DEV " conv2d forward %s", tag);
        /* backward: dW += dy col^T per group, dcol = W^T dy, dx = col2im */
        Buf dy = buf_rand((size_t)cout * ld, -1.0f, 1.0f), dw = buf_rand((size_t)cout * ckkg, -0.1f, 0.1f);
        Buf dcol = buf_poison((size_t)ckk * ld), dx = buf_poison(xs);
        for (int gr = 0; gr < groups; gr++) {
            size_t wo = (size_t)gr * coutg * ckkg, co = (size_t)gr * ckkg * ld, oo = (size_t)gr * coutg * ld;
            gemm_f32(false, true, coutg, ckkg, ld, 1.0f, dy.h + oo, ld, col.h + co, ld, 1.0f, dw.h + wo, ckkg);
            gemm_f32_cuda(false, true, coutg, ckkg, ld, 1.0f, dy.d + oo, ld, col.d + co, ld, 1.0f, dw.d + wo, ckkg);
            gemm_f32(true, false, ckkg, ld, coutg, 1.0f, w.h + wo, ckkg, dy.h + oo, ld, 0.0f, dcol.h + co, ld);
            gemm_f32_cuda(true, false, ckkg, ld, coutg, 1.0f, w.d + wo, ckkg, dy.d + oo, ld, 0.0f, dcol.d + co, ld);
        }
        col2im_cpu(dcol.h, g.nb, g.C, g.H, g.W, g.k, g.s, g.p, OH, OW, dx.h, false);
        col2im_cuda(dcol.d, g.nb, g.C, g.H, g.W, g.k, g.s, g.p, OH, OW, dx.d, false);
        check_buf(&dw, TOL_RED, DEV " conv2d weight gradient %s", tag);
        check_buf(&dx, TOL_RED, DEV " conv2d input gradient %s", tag);
        buf_free(&x), buf_free(&w), buf_free(&col), buf_free(&out);
        buf_free(&dy), buf_free(&dw), buf_free(&dcol), buf_free(&dx);
    }
}

/* ---- bias, activations, elementwise -------------------------------------- */

static void test_bias(void)
{
    static const int SH[][3] = { { 1, 3, 1 }, { 2, 5, 7 }, { 4, 16, 49 }, { 3, 64, 1 }, { 2, 3, 1000 }, { 1, 1, 300 } };
    for (size_t t = 0; t < sizeof SH / sizeof SH[0]; t++) {
        int n = SH[t][0], c = SH[t][1], p = SH[t][2];
        size_t total = (size_t)n * c * p;
        Buf y = buf_rand(total, -1.0f, 1.0f), bias = buf_rand((size_t)c, -1.0f, 1.0f);
        bias_add_cpu(y.h, bias.h, n, c, p);
        bias_add_cuda(y.d, bias.d, n, c, p);
        check_buf(&y, TOL_ELEM, DEV " bias_add n=%d c=%d p=%d", n, c, p);
        Buf dy = buf_rand(total, -1.0f, 1.0f), db = buf_rand((size_t)c, -1.0f, 1.0f); /* dbias accumulates */
        bias_grad_cpu(dy.h, db.h, n, c, p);
        bias_grad_cuda(dy.d, db.d, n, c, p);
        check_buf(&db, TOL_RED, DEV " bias_grad n=%d c=%d p=%d", n, c, p);
        buf_free(&y), buf_free(&bias), buf_free(&dy), buf_free(&db);
    }
}

static const size_t COUNTS[] = { 1, 1000, 4099, (1u << 20) + 3 };
#define NCOUNTS (sizeof COUNTS / sizeof COUNTS[0])

/* y = f(x) on both sides (map), and dx (+)= f(a, b), written and added
 * (map_acc), against each other. */
typedef void (*MapFn)(const float *x, float *y, size_t count);
typedef void (*MapAccFn)(const float *a, const float *b, float *dx, size_t count, bool acc);

static void check_map(const char *name, MapFn cpu, MapFn cuda, const Buf *x, size_t n)
{
    Buf y = buf_poison(n);
    cpu(x->h, y.h, n);
    cuda(x->d, y.d, n);
    check_buf(&y, TOL_ELEM, DEV " %s count=%zu", name, n);
    buf_free(&y);
}

static void check_map_acc(const char *name, MapAccFn cpu, MapAccFn cuda, const Buf *a, const Buf *b, size_t n)
{
    for (int acc = 0; acc < 2; acc++) {
        Buf dx = buf_out(n, acc);
        cpu(a->h, b->h, dx.h, n, acc);
        cuda(a->d, b->d, dx.d, n, acc);
        check_buf(&dx, TOL_ELEM, DEV " %s count=%zu acc=%d", name, n, acc);
        buf_free(&dx);
    }
}

static void test_activations(void)
{
    for (size_t t = 0; t < NCOUNTS; t++) {
        size_t n = COUNTS[t];
        float *xv = ddl_alloc(sizeof(float) * n);
        /* Both kinks exactly (0, -0, 6) and both sides of each. */
        for (size_t i = 0; i < n; i++) {
            xv[i] = rng_uniform_range(&R, -8.0f, 8.0f);
            if (i % 17 == 5) xv[i] = 0.0f;
            if (i % 19 == 7) xv[i] = 6.0f;
            if (i % 23 == 9) xv[i] = -0.0f;
        }
        Buf x = buf_from(xv, n), dy = buf_rand(n, -1.0f, 1.0f);
        ddl_free(xv);
        /* every element-wise activation of the kernel list */
#define ACTIVATION(KIND, name)                                                                                  \
    check_map(#name "_forward", name##_forward_cpu, name##_forward_cuda, &x, n);                                \
    check_map_acc(#name "_backward", name##_backward_cpu, name##_backward_cuda, &x, &dy, n);
#include "cpu/kernels.def"
        buf_free(&x), buf_free(&dy);
    }
}

/* Residual add + ReLU fused (core/model/fuse.c): relu(a + b), with some
 * sums exactly 0 (b = -a); its backward to da and db, each written or
 * added, or absent, or both one tensor. */
static void test_add_relu(const Buf *a, size_t n)
{
    float *bv = ddl_alloc(sizeof(float) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) bv[i] = i % 7 == 3 ? -a->h[i] : (float)((int)(i % 11) - 5) * 0.25f;
    Buf b = buf_from(bv, n), y = buf_poison(n), dy = buf_rand(n, -1.0f, 1.0f);
    ddl_free(bv);
    add_relu_cpu(a->h, b.h, y.h, n);
    add_relu_cuda(a->d, b.d, y.d, n);
    check_buf(&y, TOL_ELEM, DEV " add_relu count=%zu", n);
    for (int k = 0; k < 6; k++) { /* da, db: {written, added, absent} x ..., and one tensor for both */
        bool acc_a = k % 2, acc_b = k / 2 % 2, no_b = k == 4, same = k == 5;
        Buf da = buf_out(n, acc_a), db = buf_out(n, acc_b);
        float *dbh = no_b ? NULL : same ? da.h : db.h, *dbd = no_b ? NULL : same ? da.d : db.d;
        add_relu_backward_cpu(y.h, dy.h, da.h, acc_a, dbh, acc_b, n);
        add_relu_backward_cuda(y.d, dy.d, da.d, acc_a, dbd, acc_b, n);
        check_buf(&da, TOL_ELEM, DEV " add_relu_backward count=%zu da (acc %d, db %s)", n, acc_a,
                  no_b ? "absent" : same ? "the same tensor" : "apart");
        if (!no_b && !same) check_buf(&db, TOL_ELEM, DEV " add_relu_backward count=%zu db (acc %d)", n, acc_b);
        buf_free(&da), buf_free(&db);
    }
    buf_free(&b), buf_free(&y), buf_free(&dy);
}

static void test_mul_add(void)
{
    for (size_t t = 0; t < NCOUNTS; t++) {
        size_t n = COUNTS[t];
        Buf a = buf_rand(n, -2.0f, 2.0f), b = buf_rand(n, -2.0f, 2.0f), y = buf_poison(n);
        mul_cpu(a.h, b.h, y.h, n);
        mul_cuda(a.d, b.d, y.d, n);
        check_buf(&y, TOL_ELEM, DEV " mul count=%zu", n);
        buf_free(&y);
        y = buf_poison(n);
        add_cpu(a.h, b.h, y.h, n);
        add_cuda(a.d, b.d, y.d, n);
        check_buf(&y, TOL_ELEM, DEV " add count=%zu", n);
        buf_free(&y);
        check_map_acc("mul_backward", mul_backward_cpu, mul_backward_cuda, &a, &b, n);
        for (int acc = 0; acc < 2; acc++) {
            Buf dx = buf_out(n, acc);
            copy_grad_cpu(a.h, dx.h, n, acc);
            copy_grad_cuda(a.d, dx.d, n, acc);
            check_buf(&dx, TOL_ELEM, DEV " copy_grad count=%zu acc=%d", n, acc);
            buf_free(&dx);
        }
        test_add_relu(&a, n);
        buf_free(&a), buf_free(&b);
    }
}

/* ---- pooling ------------------------------------------------------------- */

typedef struct PoolCase {
    int planes, H, W, k, s, p;
} PoolCase;

/* pad <= k/2 as the models require; overlapping windows (stride < k). */
static const PoolCase POOLS[] = {
    { 1, 4, 4, 2, 2, 0 }, { 6, 7, 5, 3, 2, 1 }, { 3, 8, 8, 3, 1, 1 }, { 2, 5, 6, 2, 1, 0 },
    { 4, 9, 9, 3, 3, 1 }, { 5, 6, 7, 3, 2, 0 }, { 2, 1, 1, 1, 1, 0 }, { 128, 16, 16, 2, 2, 0 },
    { 3, 7, 9, 2, 2, 0 }, /* 2x2 stride 2 on odd planes: the last row and column are in no window */
    { 2, 6, 28, 2, 2, 0 }, { 3, 14, 14, 2, 2, 0 }, /* rows of 14 and 7 windows: the CPU's short-row copies */
};

static void test_pool(bool maxpool)
{
    const char *kind = maxpool ? "maxpool" : "avgpool";
    for (size_t t = 0; t < sizeof POOLS / sizeof POOLS[0]; t++) {
        PoolCase c = POOLS[t];
        int OH = out_dim(c.H, c.k, c.s, c.p), OW = out_dim(c.W, c.k, c.s, c.p);
        size_t xs = (size_t)c.planes * c.H * c.W, ys = (size_t)c.planes * OH * OW;
        /* ties = 1: values in {-1, 0, 1}, so windows hold equal maxima and
         * the first one must win (the CPU's rule). */
        for (int ties = 0; ties < 2; ties++) {
            char tag[96];
            snprintf(tag, sizeof tag, "planes=%d %dx%d k=%d stride=%d pad=%d%s", c.planes, c.H, c.W, c.k, c.s, c.p,
                     ties ? " ties" : "");
            float *xv = ddl_alloc(sizeof(float) * xs);
            for (size_t i = 0; i < xs; i++) {
                float v = rng_uniform_range(&R, -1.0f, 1.0f);
                xv[i] = ties ? (float)(int)(v * 1.5f) : v;
            }
            Buf x = buf_from(xv, xs), y = buf_poison(ys), dy = buf_rand(ys, -1.0f, 1.0f);
            ddl_free(xv);
            if (maxpool) {
                maxpool_forward_cpu(x.h, y.h, c.planes, c.H, c.W, c.k, c.s, c.p, OH, OW);
                maxpool_forward_cuda(x.d, y.d, c.planes, c.H, c.W, c.k, c.s, c.p, OH, OW);
                check_buf(&y, TOL_ELEM, DEV " maxpool_forward %s", tag); /* a selection: exact */
            } else {
                avgpool_forward_cpu(x.h, y.h, c.planes, c.H, c.W, c.k, c.s, c.p, OH, OW);
                avgpool_forward_cuda(x.d, y.d, c.planes, c.H, c.W, c.k, c.s, c.p, OH, OW);
                check_buf(&y, TOL_RED, DEV " avgpool_forward %s", tag);
            }
            for (int acc = 0; acc < 2; acc++) {
                Buf dx = buf_out(xs, acc);
                if (maxpool) {
                    maxpool_backward_cpu(x.h, dy.h, dx.h, c.planes, c.H, c.W, c.k, c.s, c.p, OH, OW, acc);
                    maxpool_backward_cuda(x.d, dy.d, dx.d, c.planes, c.H, c.W, c.k, c.s, c.p, OH, OW, acc);
                } else {
                    avgpool_backward_cpu(dy.h, dx.h, c.planes, c.H, c.W, c.k, c.s, c.p, OH, OW, acc);
                    avgpool_backward_cuda(dy.d, dx.d, c.planes, c.H, c.W, c.k, c.s, c.p, OH, OW, acc);
                }
                check_buf(&dx, TOL_RED, DEV " %s_backward %s acc=%d", kind, tag, acc);
                buf_free(&dx);
            }
            buf_free(&x), buf_free(&y), buf_free(&dy);
            if (!maxpool) break; /* ties only matter for the arg-max */
        }
    }
}

static void test_global_avgpool(void)
{
    static const int SH[][2] = { { 1, 1 }, { 6, 16 }, { 130, 49 }, { 64, 1024 }, { 3, 7 }, { 1000, 33 } };
    for (size_t t = 0; t < sizeof SH / sizeof SH[0]; t++) {
        int planes = SH[t][0], p = SH[t][1];
        Buf x = buf_rand((size_t)planes * p, -1.0f, 2.0f), y = buf_poison((size_t)planes);
        global_avgpool_forward_cpu(x.h, y.h, planes, p);
        global_avgpool_forward_cuda(x.d, y.d, planes, p);
        check_buf(&y, TOL_RED, DEV " global_avgpool_forward planes=%d p=%d", planes, p);
        Buf dy = buf_rand((size_t)planes, -1.0f, 1.0f);
        for (int acc = 0; acc < 2; acc++) {
            Buf dx = buf_out((size_t)planes * p, acc);
            global_avgpool_backward_cpu(dy.h, dx.h, planes, p, acc);
            global_avgpool_backward_cuda(dy.d, dx.d, planes, p, acc);
            check_buf(&dx, TOL_ELEM, DEV " global_avgpool_backward planes=%d p=%d acc=%d", planes, p, acc);
            buf_free(&dx);
        }
        buf_free(&x), buf_free(&y), buf_free(&dy);
    }
}

/* ---- batch norm ---------------------------------------------------------- */

static const char *const ACT_NAMES[] = { "", " +relu", " +relu6" };

/* One shape, with the activation act fused in (bn_act.h): forward (train,
 * with and without running statistics; eval), then backward (train and
 * eval; dx written, added, or not wanted), the backward masked by the CPU
 * forward's output. gamma is larger with ReLU6 so that outputs reach its
 * upper clamp. */
static void batchnorm_case(int n, int c, int p, int act)
{
    const float eps = 1e-5f, momentum = 0.1f;
    size_t total = (size_t)n * c * p;
    char tag[80];
    snprintf(tag, sizeof tag, "n=%d c=%d p=%d%s", n, c, p, ACT_NAMES[act]);
    /* Channels offset from zero so the two-pass variance matters. */
    float *xv = ddl_alloc(sizeof(float) * total);
    for (size_t i = 0; i < total; i++) {
        int j = (int)((i / (size_t)p) % (size_t)c);
        xv[i] = 3.0f + 0.5f * (float)j + rng_uniform_range(&R, -1.0f, 1.0f) * (1.0f + 0.25f * (float)j);
    }
    Buf x = buf_from(xv, total);
    ddl_free(xv);
    float gmax = act == BN_ACT_RELU6 ? 8.0f : 1.5f;
    Buf gamma = buf_rand((size_t)c, 0.5f, gmax), beta = buf_rand((size_t)c, -0.5f, 0.5f);
    Buf rm = buf_rand((size_t)c, -1.0f, 1.0f), rv = buf_rand((size_t)c, 0.5f, 2.0f);
    Buf y = buf_poison(total), sm = buf_poison((size_t)c), si = buf_poison((size_t)c);
    batchnorm_forward_train_cpu(x.h, y.h, gamma.h, beta.h, n, c, p, eps, momentum, rm.h, rv.h, sm.h, si.h, act);
    batchnorm_forward_train_cuda(x.d, y.d, gamma.d, beta.d, n, c, p, eps, momentum, rm.d, rv.d, sm.d, si.d, act);
    check_buf(&y, TOL_RED, DEV " batchnorm_forward_train y %s", tag);
    check_buf(&sm, TOL_RED, DEV " batchnorm_forward_train save_mean %s", tag);
    check_buf(&si, TOL_RED, DEV " batchnorm_forward_train save_invstd %s", tag);
    check_buf(&rm, TOL_RED, DEV " batchnorm_forward_train running_mean %s", tag);
    check_buf(&rv, TOL_RED, DEV " batchnorm_forward_train running_var (unbiased) %s", tag);
    Buf yfwd = buf_from(y.h, total); /* the output the backward's mask reads */
    buf_free(&y);
    /* Running statistics off (running_mean == NULL). */
    Buf sm2 = buf_poison((size_t)c), si2 = buf_poison((size_t)c);
    y = buf_poison(total);
    batchnorm_forward_train_cpu(x.h, y.h, gamma.h, beta.h, n, c, p, eps, momentum, NULL, NULL, sm2.h, si2.h, act);
    batchnorm_forward_train_cuda(x.d, y.d, gamma.d, beta.d, n, c, p, eps, momentum, NULL, NULL, sm2.d, si2.d, act);
    check_buf(&y, TOL_RED, DEV " batchnorm_forward_train without running stats %s", tag);
    buf_free(&y), buf_free(&sm2), buf_free(&si2);
    /* Inference with the (updated) running statistics. */
    y = buf_poison(total);
    batchnorm_forward_eval_cpu(x.h, y.h, gamma.h, beta.h, n, c, p, eps, rm.h, rv.h, act);
    batchnorm_forward_eval_cuda(x.d, y.d, gamma.d, beta.d, n, c, p, eps, rm.d, rv.d, act);
    check_buf(&y, TOL_ELEM, DEV " batchnorm_forward_eval %s", tag);
    buf_free(&y);
    /* Backward, batch statistics (train) and fixed ones (eval: mean and
     * invstd from the running stats). Both sides get the CPU's saved
     * statistics so that only the backward kernel is compared. */
    float *ev_mean = ddl_alloc(sizeof(float) * c), *ev_inv = ddl_alloc(sizeof(float) * c);
    for (int j = 0; j < c; j++) {
        ev_mean[j] = rm.h[j];
        ev_inv[j] = 1.0f / sqrtf(rv.h[j] + eps);
    }
    Buf dy = buf_rand(total, -1.0f, 1.0f);
    for (int batch_stats = 1; batch_stats >= 0; batch_stats--) {
        Buf mean = buf_from(batch_stats ? sm.h : ev_mean, (size_t)c);
        Buf inv = buf_from(batch_stats ? si.h : ev_inv, (size_t)c);
        for (int acc = 0; acc < 3; acc++) { /* acc = 2: dx == NULL, parameter gradients only */
            Buf dx = buf_out(total, acc == 1);
            Buf dg = buf_rand((size_t)c, -1.0f, 1.0f), dbt = buf_rand((size_t)c, -1.0f, 1.0f);
            batchnorm_backward_cpu(x.h, dy.h, acc == 2 ? NULL : dx.h, gamma.h, dg.h, dbt.h, n, c, p, mean.h, inv.h,
                                   batch_stats, acc == 1, beta.h, act);
            batchnorm_backward_cuda(x.d, dy.d, acc == 2 ? NULL : dx.d, gamma.d, dg.d, dbt.d, n, c, p, mean.d, inv.d,
                                    batch_stats, acc == 1, beta.d, act);
            const char *mode = batch_stats ? "train" : "eval";
            if (acc < 2) check_buf(&dx, TOL_RED, DEV " batchnorm_backward %s dx %s acc=%d", mode, tag, acc);
            check_buf(&dg, TOL_RED, DEV " batchnorm_backward %s dgamma %s%s", mode, tag, acc == 2 ? " (no dx)" : "");
            check_buf(&dbt, TOL_RED, DEV " batchnorm_backward %s dbeta %s%s", mode, tag, acc == 2 ? " (no dx)" : "");
            buf_free(&dx), buf_free(&dg), buf_free(&dbt);
        }
        buf_free(&mean), buf_free(&inv);
    }
    ddl_free(ev_mean), ddl_free(ev_inv);
    buf_free(&x), buf_free(&gamma), buf_free(&beta), buf_free(&rm), buf_free(&rv);
    buf_free(&sm), buf_free(&si), buf_free(&dy), buf_free(&yfwd);
}

/* Channels far from zero (mean 1e7, std ~2.3, in whole numbers: the
 * float step there is 1; -3e4, std ~0.5): both sides take shifted moments
 * (core/cpu/batchnorm.c), so their statistics agree to float rounding.
 * Unshifted, the sum of squares cancels 13 digits; even in double and
 * with the GPU's tree of partial sums the variance then strays from the
 * CPU's (which test_gradcheck holds to a two-pass reference) by ~3e-5,
 * past TOL_ELEM. (At 1e6 the tree kept it within 1e-5.) The output is
 * not compared: at 1e7 one float step of x is 0.4 of a standard deviation.
 * 2999 values per channel: several GPU segments. */
static void batchnorm_far_case(void)
{
    enum { N = 2, C = 2, P = 2999 };
    const float centre[C] = { 1e7f, -3e4f }, spread[C] = { 4.0f, 0.8f };
    float *xv = ddl_alloc(sizeof(float) * N * C * P);
    for (int i = 0; i < N * C * P; i++) {
        int j = i / P % C;
        xv[i] = centre[j] + rng_uniform_range(&R, -spread[j], spread[j]);
    }
    Buf x = buf_from(xv, (size_t)N * C * P);
    ddl_free(xv);
    Buf gamma = buf_rand(C, 0.5f, 1.5f), beta = buf_rand(C, -0.5f, 0.5f), rm = buf_rand(C, -1.0f, 1.0f);
    Buf rv = buf_rand(C, 0.5f, 2.0f), y = buf_poison((size_t)N * C * P), sm = buf_poison(C), si = buf_poison(C);
    /* momentum 1: running_var is this batch's unbiased variance, undiluted */
    batchnorm_forward_train_cpu(x.h, y.h, gamma.h, beta.h, N, C, P, 1e-5f, 1.0f, rm.h, rv.h, sm.h, si.h, BN_ACT_NONE);
    batchnorm_forward_train_cuda(x.d, y.d, gamma.d, beta.d, N, C, P, 1e-5f, 1.0f, rm.d, rv.d, sm.d, si.d, BN_ACT_NONE);
    check_buf(&sm, TOL_ELEM, DEV " batchnorm_forward_train save_mean, channels at 1e7 and -3e4");
    check_buf(&si, TOL_ELEM, DEV " batchnorm_forward_train save_invstd, channels at 1e7 and -3e4");
    check_buf(&rv, TOL_ELEM, DEV " batchnorm_forward_train running_var, channels at 1e7 and -3e4");
    buf_free(&x), buf_free(&gamma), buf_free(&beta), buf_free(&rm), buf_free(&rv);
    buf_free(&y), buf_free(&sm), buf_free(&si);
}

static void test_batchnorm(void)
{
    /* n = 1 and > 1, p = 1 (after a linear layer), m = n*p = 1, p not a
     * multiple of 8 (the CPU's lanes); channels the GPU reduces in 2 and
     * 3 segments, the last one shorter (batchnorm.cu's bn_segments). */
    static const int SH[][3] = { { 1, 3, 16 }, { 2, 5, 7 }, { 8, 16, 64 }, { 4, 7, 1 },  { 1, 4, 1 },
                                 { 3, 2, 1000 }, { 16, 3, 1 }, { 32, 8, 256 }, { 5, 3, 2999 } };
    for (int act = BN_ACT_NONE; act <= BN_ACT_RELU6; act++)
        for (size_t t = 0; t < sizeof SH / sizeof SH[0]; t++) batchnorm_case(SH[t][0], SH[t][1], SH[t][2], act);
    batchnorm_far_case();
}

/* ---- dropout ------------------------------------------------------------- */

static void test_dropout(void)
{
    static const float PS[] = { 0.0f, 0.1f, 0.5f, 0.9f };
    static const uint64_t SEEDS[][2] = { { 1, 0 }, { 42, 7 }, { 0xDEADBEEFull, 1000003 } };
    for (size_t t = 0; t < NCOUNTS; t++)
        for (size_t pi = 0; pi < sizeof PS / sizeof PS[0]; pi++)
            for (size_t si = 0; si < sizeof SEEDS / sizeof SEEDS[0]; si++) {
                size_t n = COUNTS[t];
                Buf m = buf_poison(n);
                dropout_mask_cpu(m.h, n, PS[pi], SEEDS[si][0], SEEDS[si][1]);
                dropout_mask_cuda(m.d, n, PS[pi], SEEDS[si][0], SEEDS[si][1]);
                float *g = ddl_alloc(sizeof(float) * n);
                ddl_cuda_memcpy_d2h(g, m.d, sizeof(float) * n);
                size_t bad = 0, first = 0;
                for (size_t i = 0; i < n; i++)
                    if (memcmp(&g[i], &m.h[i], sizeof(float)) != 0 && bad++ == 0) first = i;
                char name[128];
                snprintf(name, sizeof name, DEV " dropout_mask bit-identical count=%zu p=%g seed=%llu stream=%llu", n,
                         (double)PS[pi], (unsigned long long)SEEDS[si][0], (unsigned long long)SEEDS[si][1]);
                t_checkf(bad == 0, name, "%zu of %zu differ, first at [%zu]: gpu %g cpu %g", bad, n, first,
                         (double)g[first], (double)m.h[first]);
                ddl_free(g);
                buf_free(&m);
            }
}

/* ---- softmax cross-entropy ------------------------------------------------ */

static void test_softmax_ce(void)
{
    static const int SH[][2] = { { 1, 10 }, { 7, 10 }, { 64, 10 }, { 33, 1000 }, { 5, 1 }, { 16, 37 }, { 300, 10 } };
    for (size_t t = 0; t < sizeof SH / sizeof SH[0]; t++) {
        int n = SH[t][0], classes = SH[t][1];
        size_t total = (size_t)n * classes;
        char tag[64];
        snprintf(tag, sizeof tag, "n=%d classes=%d", n, classes);
        float *z = ddl_alloc(sizeof(float) * total);
        int32_t *lab = ddl_alloc(sizeof(int32_t) * n);
        for (int i = 0; i < n; i++) {
            float *row = z + (size_t)i * classes;
            for (int j = 0; j < classes; j++) row[j] = rng_uniform_range(&R, -5.0f, 5.0f);
            if (i % 5 == 1) /* a tie between the first maximum and a later one */
                for (int j = classes / 2; j < classes; j++) row[j] = row[0] = 6.0f;
            lab[i] = (int32_t)rng_below(&R, (uint32_t)classes);
            if (i % 3 == 0) { /* some right answers: the first arg-max */
                int arg = 0;
                for (int j = 1; j < classes; j++)
                    if (row[j] > row[arg]) arg = j;
                lab[i] = arg;
            }
        }
        Buf logits = buf_from(z, total), probs = buf_poison(total);
        int32_t *dlab = ddl_cuda_malloc(sizeof(int32_t) * n);
        ddl_cuda_memcpy_h2d(dlab, lab, sizeof(int32_t) * n);
        int right_c = -1, right_g = -2;
        double loss_c = softmax_ce_forward_cpu(logits.h, lab, n, classes, probs.h, &right_c);
        double loss_g = softmax_ce_forward_cuda(logits.d, dlab, n, classes, probs.d, &right_g);
        check_buf(&probs, TOL_RED, DEV " softmax_ce_forward probs %s", tag);
        double rel = fabs(loss_g - loss_c) / fmax(fabs(loss_c), REL_FLOOR);
        char name[128];
        snprintf(name, sizeof name, DEV " softmax_ce_forward summed loss %s", tag);
        t_checkf(rel < TOL_RED, name, "gpu %.9g cpu %.9g (relative error %.3g, limit %.0e)", loss_g, loss_c, rel,
                 TOL_RED);
        snprintf(name, sizeof name, DEV " softmax_ce_forward correct count %s", tag);
        t_checkf(right_g == right_c, name, "gpu %d cpu %d", right_g, right_c);
        /* Backward from the same probabilities (the CPU's). */
        Buf p = buf_from(probs.h, total), dl = buf_poison(total);
        softmax_ce_backward_cpu(p.h, lab, n, classes, 1.0f / (float)n, dl.h);
        softmax_ce_backward_cuda(p.d, dlab, n, classes, 1.0f / (float)n, dl.d);
        check_buf(&dl, TOL_ELEM, DEV " softmax_ce_backward %s", tag);
        buf_free(&logits), buf_free(&probs), buf_free(&p), buf_free(&dl);
        ddl_cuda_free(dlab);
        ddl_free(z), ddl_free(lab);
    }
}

/* ---- SGD ---------------------------------------------------------------- */

static void test_sgd(void)
{
    static const struct {
        float mu, wd;
        bool nesterov;
    } CFG[] = { { 0.0f, 0.0f, false }, { 0.0f, 5e-4f, false }, { 0.9f, 5e-4f, false },
                { 0.9f, 5e-4f, true }, { 0.9f, 0.0f, true },   { 0.5f, 1e-2f, false } };
    const float lr = 0.05f;
    for (size_t t = 0; t < 3; t++) /* 1, 1000, 4099 */
        for (size_t k = 0; k < sizeof CFG / sizeof CFG[0]; k++) {
            size_t n = COUNTS[t];
            Buf w = buf_rand(n, -1.0f, 1.0f);
            float *zero = calloc(n, sizeof(float));
            Buf v = buf_from(zero, n); /* velocity starts at zero, as in PyTorch */
            free(zero);
            bool mom = CFG[k].mu != 0.0f;
            for (int step = 0; step < 3; step++) {
                Buf g = buf_rand(n, -1.0f, 1.0f);
                sgd_update_cpu(w.h, g.h, mom ? v.h : NULL, n, lr, CFG[k].mu, CFG[k].wd, CFG[k].nesterov);
                sgd_update_cuda(w.d, g.d, mom ? v.d : NULL, n, lr, CFG[k].mu, CFG[k].wd, CFG[k].nesterov);
                buf_free(&g);
            }
            check_buf(&w, TOL_ELEM, DEV " sgd_update weights count=%zu momentum=%g wd=%g nesterov=%d (3 steps)", n,
                      (double)CFG[k].mu, (double)CFG[k].wd, CFG[k].nesterov);
            if (mom)
                check_buf(&v, TOL_ELEM, DEV " sgd_update velocity count=%zu momentum=%g wd=%g nesterov=%d", n,
                          (double)CFG[k].mu, (double)CFG[k].wd, CFG[k].nesterov);
            buf_free(&w), buf_free(&v);
        }
}

/* ---- FP16 ----------------------------------------------------------------- */

/* IEEE binary16 round-to-nearest-even reference, in double arithmetic
 * (scaling by powers of two is exact; nearbyint rounds half to even). */
static uint16_t ref_f2h(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    if (isnan(f)) return (uint16_t)(sign | 0x7E00u);
    double a = fabs((double)f);
    if (a >= 65520.0) return (uint16_t)(sign | 0x7C00u); /* halfway to 2^16 and beyond: inf */
    if (a < 0x1p-14) /* subnormal: units of 2^-24; 1024 is the smallest normal's encoding */
        return (uint16_t)(sign | (uint16_t)nearbyint(a * 0x1p24));
    int e;
    frexp(a, &e);
    int E = e - 1; /* a in [2^E, 2^(E+1)) */
    double q = nearbyint(ldexp(a, 10 - E)); /* 1024..2048 */
    if (q >= 2048.0) {
        q = 1024.0;
        E++;
    }
    return (uint16_t)(sign | (uint16_t)((E + 15) << 10) | (uint16_t)(q - 1024.0));
}

static float ref_h2f(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (float)((h & 0x8000u) ? -v : v);
}

static unsigned float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (unsigned)u;
}

static bool h_is_nan(uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }

static void test_fp16(void)
{
    /* half -> float on all 65536 patterns */
    size_t nh = 65536;
    uint16_t *hv = ddl_alloc(sizeof(uint16_t) * nh);
    for (size_t i = 0; i < nh; i++) hv[i] = (uint16_t)i;
    uint16_t *dh = ddl_cuda_malloc(sizeof(uint16_t) * nh);
    ddl_cuda_memcpy_h2d(dh, hv, sizeof(uint16_t) * nh);
    Buf wide = buf_poison(nh);
    f16_to_f32_cuda(dh, wide.d, nh);
    float *g = ddl_alloc(sizeof(float) * nh);
    ddl_cuda_memcpy_d2h(g, wide.d, sizeof(float) * nh);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < nh; i++) {
        float r = ref_h2f((uint16_t)i);
        bool same = isnan(r) ? isnan(g[i]) : memcmp(&r, &g[i], sizeof r) == 0;
        if (!same && bad++ == 0) first = i;
    }
    t_checkf(bad == 0, DEV " f16_to_f32 exact on all 65536 half patterns", "%zu differ, first 0x%04zx: gpu %g ref %g",
             bad, first, (double)g[first], (double)ref_h2f((uint16_t)first));
    /* float -> half: special values, every finite half, every midpoint
     * between neighbouring halves (ties to even), random bit patterns. */
    static const float SPECIAL[] = { 0.0f,     -0.0f,       INFINITY,  -INFINITY, NAN,       65504.0f,  65505.0f,
                                     65519.0f, 65520.0f,    -65520.0f, 65536.0f,  1e10f,     3.4e38f,   1.17549435e-38f,
                                     0x1p-24f, 0x1p-25f,    0x1.0002p-25f, 0x1.8p-24f, 0x1.4p-24f, 0x1p-14f,
                                     0x1.ff8p-15f, 1.0f + 0x1p-11f, 1.0f + 0x3p-11f, -2.5f, 1e-8f, -1e-8f };
    size_t ns = sizeof SPECIAL / sizeof SPECIAL[0], nr = 200000, nf = ns + 2 * nh + nr;
    float *fv = ddl_alloc(sizeof(float) * nf);
    size_t at = 0;
    for (size_t i = 0; i < ns; i++) fv[at++] = SPECIAL[i];
    for (size_t i = 0; i < nh; i++) {
        float a = ref_h2f((uint16_t)i), b = ref_h2f((uint16_t)(i + 1));
        fv[at++] = isfinite(a) ? a : 1.0f;
        /* midpoint of i and i + 1 (same sign and not across inf): exact in float */
        fv[at++] = (isfinite(a) && isfinite(b) && (i & 0x7FFFu) != 0x7FFFu) ? (float)(((double)a + b) / 2) : 0.5f;
    }
    for (size_t i = 0; i < nr; i++) {
        uint32_t u = (uint32_t)rng_u64(&R);
        if (i % 2) u = (u & 0x87FFFFFFu) | 0x38000000u; /* exponents near half's range */
        memcpy(&fv[at++], &u, sizeof u);
    }
    Buf f = buf_from(fv, nf);
    uint16_t *dn = ddl_cuda_malloc(sizeof(uint16_t) * nf), *out = ddl_alloc(sizeof(uint16_t) * nf);
    ddl_cuda_memset(dn, 0xFF, sizeof(uint16_t) * nf);
    f32_to_f16_cuda(f.d, dn, nf);
    ddl_cuda_memcpy_d2h(out, dn, sizeof(uint16_t) * nf);
    bad = 0;
    for (size_t i = 0; i < nf; i++) {
        uint16_t r = ref_f2h(fv[i]);
        bool same = isnan(fv[i]) ? h_is_nan(out[i]) : out[i] == r;
        if (!same && bad++ == 0) first = i;
    }
    t_checkf(bad == 0, DEV " f32_to_f16 round-to-nearest-even, bit-exact (specials, all halves, midpoints, random)",
             "%zu of %zu differ, first %.9g (0x%08x): gpu 0x%04x ref 0x%04x", bad, nf, (double)fv[first],
             float_bits(fv[first]), (unsigned)out[first], (unsigned)ref_f2h(fv[first]));
    ddl_cuda_free(dn), ddl_cuda_free(dh);
    ddl_free(out), ddl_free(fv), ddl_free(hv), ddl_free(g);
    buf_free(&f), buf_free(&wide);
}

static void test_nonfinite(void)
{
    size_t sizes[] = { 1, 1000, (1u << 22) + 5 };
    for (size_t t = 0; t < 3; t++) {
        size_t n = sizes[t];
        float *v = ddl_alloc(sizeof(float) * n);
        for (size_t i = 0; i < n; i++) v[i] = rng_uniform_range(&R, -65504.0f, 65504.0f);
        float *d = ddl_cuda_malloc(sizeof(float) * n);
        ddl_cuda_memcpy_h2d(d, v, sizeof(float) * n);
        t_check(!nonfinite_cuda(d, n), DEV " nonfinite: finite array of %zu is clean", n);
        static const float BAD[] = { INFINITY, -INFINITY, NAN };
        size_t where[] = { 0, n / 2, n - 1 };
        for (int b = 0; b < 3; b++) {
            float keep = v[where[b]];
            ddl_cuda_memcpy_h2d(d + where[b], &BAD[b], sizeof(float));
            t_check(nonfinite_cuda(d, n), DEV " nonfinite: %s at [%zu] of %zu is found", b == 0 ? "inf" : b == 1 ? "-inf" : "nan",
                    where[b], n);
            ddl_cuda_memcpy_h2d(d + where[b], &keep, sizeof(float));
        }
        ddl_cuda_free(d);
        ddl_free(v);
    }
    /* One flag over several arrays, never cleared by the kernel. */
    float clean[3] = { 1.0f, 2.0f, 3.0f }, dirty[3] = { 1.0f, NAN, 3.0f };
    float *a = ddl_cuda_malloc(sizeof clean), *b = ddl_cuda_malloc(sizeof dirty);
    int *flag = ddl_cuda_malloc(sizeof(int)), h = -1;
    ddl_cuda_memcpy_h2d(a, clean, sizeof clean);
    ddl_cuda_memcpy_h2d(b, dirty, sizeof dirty);
    ddl_cuda_memset(flag, 0, sizeof(int));
    nonfinite_flag_cuda(a, 3, flag);
    ddl_cuda_memcpy_d2h(&h, flag, sizeof h);
    t_check(h == 0, DEV " nonfinite_flag: clean array leaves the flag at 0");
    nonfinite_flag_cuda(b, 3, flag);
    nonfinite_flag_cuda(a, 3, flag);
    ddl_cuda_memcpy_d2h(&h, flag, sizeof h);
    t_check(h == 1, DEV " nonfinite_flag: set by a NaN, kept by a later clean array");
    t_check(!nonfinite_cuda(a, 0), DEV " nonfinite: empty array is clean");
    ddl_cuda_free(a), ddl_cuda_free(b), ddl_cuda_free(flag);
}

/* ---- GEMM ----------------------------------------------------------------- */

static const int GEMM_SHAPES[][3] = { { 1, 1, 1 },    { 7, 5, 3 },     { 33, 17, 65 }, { 128, 64, 256 },
                                      { 5, 130, 1 },  { 64, 1, 300 },  { 31, 29, 1 },  { 1, 77, 13 } };
#define GEMM_PAD 3      /* leading dimensions this much above the minimum */
#define C_SENTINEL 1234.5f /* in C's padding columns: must survive */

/* One GEMM: f16 = false: gemm_f32 vs gemm_f32_cuda; true: gemm_f32 on the
 * FP16-rounded inputs vs gemm_f16_cuda on the FP16 bits. */
static void gemm_case(bool f16, bool ta, bool tb, int M, int N, int K, float alpha, float beta)
{
    int lda = (ta ? M : K) + GEMM_PAD, ldb = (tb ? K : N) + GEMM_PAD, ldc = N + GEMM_PAD;
    size_t as = (size_t)(ta ? K : M) * lda, bs = (size_t)(tb ? N : K) * ldb, cs = (size_t)M * ldc;
    float *a = ddl_alloc(sizeof(float) * as), *b = ddl_alloc(sizeof(float) * bs);
    uint16_t *ah = ddl_alloc(sizeof(uint16_t) * as), *bh = ddl_alloc(sizeof(uint16_t) * bs);
    for (size_t i = 0; i < as; i++) {
        a[i] = rng_uniform_range(&R, -1.0f, 1.0f);
        ah[i] = ref_f2h(a[i]);
        if (f16) a[i] = ref_h2f(ah[i]);
    }
    for (size_t i = 0; i < bs; i++) {
        b[i] = rng_uniform_range(&R, -1.0f, 1.0f);
        bh[i] = ref_f2h(b[i]);
        if (f16) b[i] = ref_h2f(bh[i]);
    }
    float *c0 = ddl_alloc(sizeof(float) * cs);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < ldc; j++)
            c0[(size_t)i * ldc + j] = j >= N ? C_SENTINEL : beta == 0.0f ? NAN : rng_uniform_range(&R, -1.0f, 1.0f);
    Buf C = buf_from(c0, cs);
    gemm_f32(ta, tb, M, N, K, alpha, a, lda, b, ldb, beta, C.h, ldc);
    /* the operands on the device: binary16 or FP32 */
    size_t el = f16 ? sizeof(uint16_t) : sizeof(float);
    void *da = ddl_cuda_malloc(el * as), *db = ddl_cuda_malloc(el * bs);
    ddl_cuda_memcpy_h2d(da, f16 ? (const void *)ah : (const void *)a, el * as);
    ddl_cuda_memcpy_h2d(db, f16 ? (const void *)bh : (const void *)b, el * bs);
    if (f16)
        gemm_f16_cuda(ta, tb, M, N, K, alpha, da, lda, db, ldb, beta, C.d, ldc);
    else
        gemm_f32_cuda(ta, tb, M, N, K, alpha, da, lda, db, ldb, beta, C.d, ldc);
    ddl_cuda_stream_synchronize();
    ddl_cuda_free(da), ddl_cuda_free(db);
    /* Compare the M x N result; the padding must be untouched. */
    float *g = ddl_alloc(sizeof(float) * cs), *gl = ddl_alloc(sizeof(float) * M * N), *cl = ddl_alloc(sizeof(float) * M * N);
    ddl_cuda_memcpy_d2h(g, C.d, sizeof(float) * cs);
    bool pad_ok = true;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < ldc; j++) {
            size_t o = (size_t)i * ldc + j;
            if (j >= N) pad_ok = pad_ok && g[o] == C_SENTINEL;
            else gl[(size_t)i * N + j] = g[o], cl[(size_t)i * N + j] = C.h[o];
        }
    double e = t_rel_err(gl, cl, (size_t)M * N, REL_FLOOR), tol = f16 ? TOL_F16 : TOL_RED;
    char name[160];
    snprintf(name, sizeof name, DEV " %s %c%c M=%d N=%d K=%d alpha=%g beta=%g lda=%d ldb=%d ldc=%d",
             f16 ? "gemm_f16" : "gemm_f32", ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, (double)alpha, (double)beta,
             lda, ldb, ldc);
    t_checkf(e < tol && pad_ok, name, "relative error %.3g (limit %.0e)%s", e, tol,
             pad_ok ? "" : "; wrote outside the M x N block");
    ddl_free(g), ddl_free(gl), ddl_free(cl), ddl_free(c0);
    ddl_free(a), ddl_free(b), ddl_free(ah), ddl_free(bh);
    buf_free(&C);
}

static void test_gemm(bool f16)
{
    for (size_t s = 0; s < sizeof GEMM_SHAPES / sizeof GEMM_SHAPES[0]; s++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                const int *sh = GEMM_SHAPES[s];
                gemm_case(f16, ta, tb, sh[0], sh[1], sh[2], 1.0f, 0.0f);
                gemm_case(f16, ta, tb, sh[0], sh[1], sh[2], 1.5f, 0.5f);
            }
}
#endif /* DDL_HAVE_CUDA || DDL_CUDA_EMU */

int main(void)
{
#if !defined(DDL_HAVE_CUDA) && !defined(DDL_CUDA_EMU)
    no_gpu("this build has no CUDA support: no nvcc at build time, CUDA=0, or a SANITIZE=1 build");
    return t_done();
#else
    char desc[256], why[256];
    if (ddl_cuda_probe(0, desc, sizeof desc, why, sizeof why) != 0) {
        no_gpu(why);
        return t_done();
    }
    printf("# GPU: %s\n", desc);
    ddl_cuda_set_device(0);
    R = rng_make(20240601, "test_cuda_kernels");
    test_memory();
    test_im2col();
    test_conv_groups();
    test_bias();
    test_activations();
    test_pool(true);
    test_pool(false);
    test_global_avgpool();
    test_batchnorm();
    test_dropout();
    test_mul_add();
    test_softmax_ce();
    test_sgd();
    test_fp16();
    test_nonfinite();
    test_gemm(false);
    test_gemm(true);
    ddl_cuda_blas_release();
    return t_done();
#endif
}
