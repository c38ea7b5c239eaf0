/* test_backend_kernels.c - the kernels the Backend table added, its batch
 * staging and the model's host views, on every usable backend.
 *
 * First the new CPU references against their definitions (naive loops):
 * images_to_channels / channels_to_images, batchnorm_eval_stats,
 * labels_outside, scale, half_round_cpu, f32_to_f16_cpu, nonfinite_cpu.
 * Then, for each backend of backend_usable() (the CPU; a GPU or emulated
 * GPU where there is one), each of these, the depthwise convolution, the
 * direct 3x3 and pointwise 1x1 convolutions and the Winograd transforms
 * through the backend's table against the CPU reference, on fresh seeded
 * inputs, with backend outputs poisoned (NaN) first. Limits:
 *   bit-exact   layout changes, BN eval statistics, labels, scale,
 *               half_round, f32_to_f16, nonfinite, depthwise forward and
 *               input gradient, Winograd transforms (the same operations
 *               in the same order, every product and sum rounded on its
 *               own), the direct 3x3 convolution's padding, packing and
 *               outputs (one chain of FMAs per output, in the same order)
 *   TOL_RED     depthwise and direct weight gradients (a sum over n*OH*OW
 *               products, accumulated in a different order)
 * DeviceBatch: batches put, got and read back equal what was written; on
 * a host-memory backend get() hands over the very buffers (no copy). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/device_batch.h"
#include "backend/registry.h"
#include "util/common.h"
#include "conv/conv.h"
#include "conv/depthwise_kernels.h"
#include "conv/direct_kernels.h"
#include "conv/kernels_cpu.h"
#include "conv/pointwise_kernels.h"
#include "conv/winofused_kernels.h"
#include "conv/winograd_kernels.h"
#include "cpu/kernels.h"
#include "util/half.h"
#include "harness.h"
#include "util/rng.h"

#define TOL_RED 1e-5
#define REL_FLOOR 1e-6

static Rng R;

static float *rand_floats(size_t n, float lo, float hi)
{
    float *p = ddl_alloc(sizeof(float) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) p[i] = rng_uniform_range(&R, lo, hi);
    return p;
}

/* ---- CPU references against their definitions ---- */

static void reference_layout(void)
{
    int nb = 3, c = 5, p = 7;
    size_t n = (size_t)nb * c * p;
    float *x = rand_floats(n, -1, 1), *t = ddl_alloc(sizeof(float) * n), *y = ddl_alloc(sizeof(float) * n);
    images_to_channels_cpu(x, nb, c, p, t);
    int bad = 0;
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < c; j++)
            for (int q = 0; q < p; q++) bad += t[(size_t)j * nb * p + (size_t)i * p + q] != x[((size_t)i * c + j) * p + q];
    t_checkf(bad == 0, "images_to_channels_cpu: t[c][i*p+q] = x[i][c][q]", "%d of %zu wrong", bad, n);
    t_poison(y, n);
    channels_to_images_cpu(t, nb, c, p, y);
    t_check(memcmp(x, y, sizeof(float) * n) == 0, "channels_to_images_cpu undoes images_to_channels_cpu");
    ddl_free(x);
    ddl_free(t);
    ddl_free(y);
}

static void reference_small_kernels(void)
{
    float mean[3] = { 0.5f, -1.0f, 2.0f }, var[3] = { 1.0f, 0.25f, 3.0f }, sm[3], si[3];
    batchnorm_eval_stats_cpu(mean, var, 3, 1e-5f, sm, si);
    int bad = 0;
    for (int j = 0; j < 3; j++) bad += sm[j] != mean[j] || si[j] != 1.0f / sqrtf(var[j] + 1e-5f);
    t_check(bad == 0, "batchnorm_eval_stats_cpu: mean and 1/sqrt(var + eps)");
    int32_t labels[6] = { 0, 9, 10, -1, 3, 10 };
    t_checkf(labels_outside_cpu(labels, 6, 10) == 3 && labels_outside_cpu(labels, 2, 10) == 0,
             "labels_outside_cpu counts labels outside [0, classes)", "got %d and %d", labels_outside_cpu(labels, 6, 10),
             labels_outside_cpu(labels, 2, 10));
    float v[4] = { 1.0f, -2.0f, 0.5f, 3.0f };
    scale_cpu(v, 4, 0.25f);
    t_check(v[0] == 0.25f && v[1] == -0.5f && v[2] == 0.125f && v[3] == 0.75f, "scale_cpu multiplies in place");
    float h[5] = { 1.0f + 0x1p-11f, 70000.0f, 0x1p-25f, -3.14159f, 1e-6f };
    float want[5];
    for (int i = 0; i < 5; i++) want[i] = half_to_float(half_from_float(h[i]));
    half_round_cpu(h, 5);
    t_check(memcmp(h, want, sizeof h) == 0, "half_round_cpu == half_to_float(half_from_float(x))");
    float f[3] = { 1.0f, -65504.0f, 1e-7f };
    uint16_t u[3];
    f32_to_f16_cpu(f, u, 3);
    t_check(u[0] == half_from_float(f[0]) && u[1] == half_from_float(f[1]) && u[2] == half_from_float(f[2]),
            "f32_to_f16_cpu == half_from_float");
    float fin[3] = { 1.0f, 2.0f, 3.0f }, inf[3] = { 1.0f, INFINITY, 3.0f }, nan[3] = { NAN, 0.0f, 0.0f };
    t_check(!nonfinite_cpu(fin, 3) && nonfinite_cpu(inf, 3) && nonfinite_cpu(nan, 3),
            "nonfinite_cpu finds infinity and NaN, not finite values");
}

/* ---- each backend against the CPU reference ---- */

/* A host array's copy in backend memory, and back. */
static void *up(const Backend *be, const void *h, size_t bytes)
{
    void *d = be->alloc(bytes);
    be->to_device(d, h, bytes);
    return d;
}

static float *down(const Backend *be, const float *d, size_t n)
{
    float *h = ddl_alloc(sizeof(float) * (n ? n : 1));
    t_poison(h, n);
    be->to_host(h, d, sizeof(float) * n);
    return h;
}

static float *poisoned(const Backend *be, size_t n)
{
    float *h = ddl_alloc(sizeof(float) * (n ? n : 1));
    t_poison(h, n);
    float *d = up(be, h, sizeof(float) * n);
    ddl_free(h);
    return d;
}

static void check_same(const char *be, const char *what, const float *got, const float *want, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += memcmp(&got[i], &want[i], sizeof(float)) != 0;
    if (!t_check(bad == 0, "%s %s: bit-exact vs cpu", be, what)) printf("# %zu of %zu differ\n", bad, n);
}

/* Bit-exact, except that a NaN matches any NaN: arithmetic on a NaN gives
 * a NaN whose payload IEEE 754 leaves open (x86 keeps the operand's, an
 * NVIDIA GPU returns its canonical 0x7fffffff; seen on an H200). */
static void check_same_nan(const char *be, const char *what, const float *got, const float *want, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += memcmp(&got[i], &want[i], sizeof(float)) != 0 && !(isnan(got[i]) && isnan(want[i]));
    if (!t_check(bad == 0, "%s %s: bit-exact vs cpu (NaN: any NaN)", be, what)) printf("# %zu of %zu differ\n", bad, n);
}

/* A path's kernel table on be's device (its row's, conv.c). */
static const void *table(const Backend *be, const char *key)
{
    ConvPath p = conv_path_named(key);
    const void *t = conv_path_kernels(be->conv, p);
    if (!t) ddl_die("%s has no kernels of path %s", be->name, conv_path_name(p));
    return t;
}
static const DepthwiseKernels *DW(const Backend *be) { return table(be, "depthwise"); }
static const WinogradKernels *W2(const Backend *be) { return table(be, "winograd"); }
static const WinogradKernels *W4(const Backend *be) { return table(be, "winograd4"); }
static const DirectKernels *DIR(const Backend *be) { return table(be, "direct"); }
static const PointwiseKernels *PW(const Backend *be) { return table(be, "pointwise"); }
static const WinofusedKernels *WF(const Backend *be) { return table(be, "winofused"); }

typedef struct DwCase { int n, C, H, W, k, stride, pad; bool bias; } DwCase;

static void depthwise_case(const Backend *be, const DwCase *c)
{
    int OH = (c->H + 2 * c->pad - c->k) / c->stride + 1, OW = (c->W + 2 * c->pad - c->k) / c->stride + 1;
    size_t nx = (size_t)c->n * c->C * c->H * c->W, ny = (size_t)c->n * c->C * OH * OW, nw = (size_t)c->C * c->k * c->k;
    float *x = rand_floats(nx, -1, 1), *w = rand_floats(nw, -1, 1), *b = rand_floats((size_t)c->C, -1, 1);
    float *dy = rand_floats(ny, -1, 1), *dw0 = rand_floats(nw, -1, 1), *dx0 = rand_floats(nx, -1, 1);
    float *xd = up(be, x, 4 * nx), *wd = up(be, w, 4 * nw), *bd = up(be, b, 4 * (size_t)c->C), *dyd = up(be, dy, 4 * ny);
    char what[160];
    snprintf(what, sizeof what, "depthwise n%d C%d %dx%d k%d s%d p%d%s", c->n, c->C, c->H, c->W, c->k, c->stride,
             c->pad, c->bias ? " bias" : "");
    /* forward */
    float *y = ddl_alloc(4 * ny), *yd = poisoned(be, ny);
    depthwise_forward_cpu(x, w, c->bias ? b : NULL, y, c->n, c->C, c->H, c->W, c->k, c->stride, c->pad, OH, OW);
    DW(be)->forward(xd, wd, c->bias ? bd : NULL, yd, c->n, c->C, c->H, c->W, c->k, c->stride, c->pad, OH, OW);
    float *yh = down(be, yd, ny);
    char name[200];
    snprintf(name, sizeof name, "%s forward", what);
    check_same(be->name, name, yh, y, ny);
    /* backward, acc false then true; weight gradient accumulates */
    for (int acc = 0; acc < 2; acc++) {
        float *dw = ddl_alloc(4 * nw), *dx = ddl_alloc(4 * nx);
        memcpy(dw, dw0, 4 * nw);
        memcpy(dx, dx0, 4 * nx);
        float *dwd = up(be, dw0, 4 * nw), *dxd = acc ? up(be, dx0, 4 * nx) : poisoned(be, nx);
        depthwise_backward_cpu(x, dy, w, dw, dx, c->n, c->C, c->H, c->W, c->k, c->stride, c->pad, OH, OW, acc);
        DW(be)->backward(xd, dyd, wd, dwd, dxd, c->n, c->C, c->H, c->W, c->k, c->stride, c->pad, OH, OW, acc);
        float *dwh = down(be, dwd, nw), *dxh = down(be, dxd, nx);
        snprintf(name, sizeof name, "%s input gradient (acc %d)", what, acc);
        check_same(be->name, name, dxh, dx, nx);
        double e = t_rel_err(dwh, dw, nw, REL_FLOOR);
        if (!t_check(e <= TOL_RED, "%s %s weight gradient (acc %d) within %.0e of cpu", be->name, what, acc, TOL_RED)) printf("# relative error %.3g\n", e);
        ddl_free(dw);
        ddl_free(dx);
        ddl_free(dwh);
        ddl_free(dxh);
        be->release(dwd);
        be->release(dxd);
    }
    /* no input gradient wanted: dx NULL */
    float *dw = ddl_alloc(4 * nw), *dwd = up(be, dw0, 4 * nw);
    memcpy(dw, dw0, 4 * nw);
    depthwise_backward_cpu(x, dy, w, dw, NULL, c->n, c->C, c->H, c->W, c->k, c->stride, c->pad, OH, OW, false);
    DW(be)->backward(xd, dyd, wd, dwd, NULL, c->n, c->C, c->H, c->W, c->k, c->stride, c->pad, OH, OW, false);
    float *dwh = down(be, dwd, nw);
    t_check(t_rel_err(dwh, dw, nw, REL_FLOOR) <= TOL_RED, "%s %s weight gradient alone (dx NULL)", be->name, what);
    ddl_free(dw);
    ddl_free(dwh);
    be->release(dwd);
    float *all[] = { x, w, b, dy, dw0, dx0, y, yh };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ddl_free(all[i]);
    float *dev[] = { xd, wd, bd, dyd, yd };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) be->release(dev[i]);
}

static void backend_depthwise(const Backend *be)
{
    static const DwCase CASES[] = {
        { 2, 3, 7, 6, 3, 1, 1, true },  /* odd plane, padding, bias */
        { 3, 4, 9, 9, 3, 2, 1, false }, /* stride 2 (MobileNetV2's down-sampling) */
        { 1, 2, 5, 8, 5, 2, 2, true },  /* 5x5, stride 2, batch 1 */
        { 2, 3, 4, 4, 3, 3, 0, false }, /* stride 3, no padding: a 1x1 output */
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) depthwise_case(be, &CASES[i]);
}

static void backend_layout(const Backend *be)
{
    int nb = 3, c = 5, p = 7;
    size_t n = (size_t)nb * c * p;
    float *x = rand_floats(n, -1, 1), *t = ddl_alloc(4 * n), *y = ddl_alloc(4 * n);
    images_to_channels_cpu(x, nb, c, p, t);
    float *xd = up(be, x, 4 * n), *td = poisoned(be, n);
    be->conv->images_to_channels(xd, nb, c, p, td);
    float *th = down(be, td, n);
    check_same(be->name, "images_to_channels", th, t, n);
    float *yd = poisoned(be, n);
    be->conv->channels_to_images(td, nb, c, p, yd);
    float *yh = down(be, yd, n);
    check_same(be->name, "channels_to_images", yh, x, n);
    ddl_free(x);
    ddl_free(t);
    ddl_free(y);
    ddl_free(th);
    ddl_free(yh);
    be->release(xd);
    be->release(td);
    be->release(yd);
}

/* A Winograd variant: its name, output tile side, table and CPU
 * transforms. */
typedef struct WinoVariant {
    const char *name;
    int M;
    const WinogradKernels *(*table)(const Backend *be);
    void (*input_cpu)(const float *x, int nb, int C, int H, int W, float *v);
    void (*filter_cpu)(const float *w, int K, int C, bool flip, float *u);
    void (*output_cpu)(const float *m, int nb, int K, int H, int W, float *y, bool acc);
} WinoVariant;

/* A variant's input, filter (flip and not) and output (acc and not)
 * transforms through the table, on backend_winograd's x and w: bit-exact
 * (F(2x2) only adds, subtracts and halves; F(4x4)'s products are exact or
 * a sum's last step, winograd4.c), each in the CPU's order. */
static void backend_wino_transforms(const Backend *be, const WinoVariant *v, int nb, int C, int K, int H, int W,
                                    const float *x, const float *w, const float *xd, const float *wd)
{
    size_t A2 = (size_t)(v->M + 2) * (v->M + 2), T = (size_t)((H + v->M - 1) / v->M) * ((W + v->M - 1) / v->M);
    size_t nv = A2 * C * T * nb, nu = A2 * K * C, nm = A2 * K * T * nb, ny = (size_t)nb * K * H * W;
    float *m = rand_floats(nm, -1, 1), *y0 = rand_floats(ny, -1, 1), *want = ddl_alloc(sizeof(float) * (nv + nu + ny));
    float *md = up(be, m, 4 * nm), *vd = poisoned(be, nv), *ud = poisoned(be, nu);
    char what[64];
    v->input_cpu(x, nb, C, H, W, want);
    v->table(be)->input(xd, nb, C, H, W, vd);
    float *got = down(be, vd, nv);
    snprintf(what, sizeof what, "%s_input", v->name);
    check_same(be->name, what, got, want, nv);
    ddl_free(got);
    for (int flip = 0; flip < 2; flip++) {
        v->filter_cpu(w, K, C, flip, want);
        v->table(be)->filter(wd, K, C, flip, ud);
        got = down(be, ud, nu);
        snprintf(what, sizeof what, "%s_filter%s", v->name, flip ? " flip" : "");
        check_same(be->name, what, got, want, nu);
        ddl_free(got);
    }
    for (int acc = 0; acc < 2; acc++) {
        memcpy(want, y0, sizeof(float) * ny);
        v->output_cpu(m, nb, K, H, W, want, acc);
        float *yd = acc ? up(be, y0, 4 * ny) : poisoned(be, ny);
        v->table(be)->output(md, nb, K, H, W, yd, acc);
        got = down(be, yd, ny);
        snprintf(what, sizeof what, "%s_output%s", v->name, acc ? " acc" : "");
        check_same(be->name, what, got, want, ny);
        ddl_free(got);
        be->release(yd);
    }
    ddl_free(m), ddl_free(y0), ddl_free(want);
    be->release(md), be->release(vd), be->release(ud);
}

/* Both variants' transforms through the table (wired to the right
 * kernels, flip and acc passed on), and F(2x2)'s weight gradient's two,
 * which both use. */
static void backend_winograd(const Backend *be)
{
    static const WinoVariant F2 = { "winograd", 2, W2, winograd_input_cpu, winograd_filter_cpu, winograd_output_cpu };
    static const WinoVariant F4 = { "winograd4", 4, W4, winograd4_input_cpu, winograd4_filter_cpu,
                                    winograd4_output_cpu };
    int nb = 2, C = 3, K = 4, H = 7, W = 5; /* odd both ways: the tiles that hang over the edge */
    size_t T = (size_t)((H + 1) / 2) * ((W + 1) / 2), nx = (size_t)nb * C * H * W, nm = 16 * K * T * nb;
    size_t ny = (size_t)nb * K * H * W;
    float *x = rand_floats(nx, -1, 1), *w = rand_floats((size_t)K * C * 9, -1, 1), *m = rand_floats(nm, -1, 1);
    float *y0 = rand_floats(ny, -1, 1), *want = ddl_alloc(sizeof(float) * (nm + (size_t)K * C * 9));
    float *xd = up(be, x, 4 * nx), *wd = up(be, w, 4 * (size_t)K * C * 9), *md = up(be, m, 4 * nm);
    float *got;
    backend_wino_transforms(be, &F2, nb, C, K, H, W, x, w, xd, wd);
    backend_wino_transforms(be, &F4, nb, C, K, H, W, x, w, xd, wd); /* before wd takes the weight gradient */
    float *yd = up(be, y0, 4 * ny), *dmd = poisoned(be, nm); /* y0 as dy, m as du */
    winograd_output_grad_cpu(y0, nb, K, H, W, want);
    W2(be)->output_grad(yd, nb, K, H, W, dmd);
    got = down(be, dmd, nm);
    check_same(be->name, "winograd_output_grad", got, want, nm);
    ddl_free(got);
    memcpy(want, w, sizeof(float) * K * C * 9);
    winograd_filter_grad_cpu(m, K, C, want);
    W2(be)->filter_grad(md, K, C, wd);
    got = down(be, wd, (size_t)K * C * 9);
    check_same(be->name, "winograd_filter_grad", got, want, (size_t)K * C * 9);
    ddl_free(got);
    ddl_free(x), ddl_free(w), ddl_free(m), ddl_free(y0), ddl_free(want);
    be->release(xd), be->release(wd), be->release(md), be->release(yd), be->release(dmd);
}

/* The direct 3x3 convolution through the table: padding and packing
 * bit-exact; every output of direct_conv is one chain of FMAs in the
 * CPU's order, so bit-exact too, both ways (forward: C -> K; input
 * gradient: the transposed filters, K -> C; with stride 2, per phase of
 * the input, then interleaved), overwriting and adding; the weight
 * gradient, a sum over positions in another order, within TOL_RED.
 * K = 11 is not a multiple of the packing's 8, and the plane is odd; a
 * plane up to 16 wide interleaves the images' rows, a wider one does not
 * (direct_kernels.h), so both are run; planes 32, 16 and 8 wide take
 * the CPU's row-exact blocks, which must give the same bits. Stride 2
 * runs on the input's 4 phases with other tap tables: H x W is the input,
 * the kernels see the output's plane. */
typedef struct DirectCase {
    const Backend *be;
    int nb, C, K, H, W, s, Ho, Wo;
} DirectCase;

/* Packs mode's filters on both sides (bit-exact), runs the convolution of
 * in (ins channels) into outs channels of the output's plane, overwriting
 * and adding, and checks it bit for bit. */
static void direct_conv_case(const DirectCase *d, const float *w, const float *wd, int mode, const float *in,
                             const float *ind, const char *what_mode)
{
    const Backend *be = d->be;
    char what[120];
    bool tr = direct_transposed(mode);
    int outs = tr ? d->C : d->K, ins = tr ? d->K : d->C;
    size_t nf = direct_filter_floats(outs, ins), nout = (size_t)d->nb * outs * d->Ho * d->Wo;
    float *wp = ddl_alloc(4 * nf), *wpd = poisoned(be, nf), *want = ddl_alloc(4 * nout);
    float *start = rand_floats(nout, -1, 1);
    direct_filter_cpu(w, d->K, d->C, mode, wp);
    DIR(be)->filter(wd, d->K, d->C, mode, wpd);
    float *got = down(be, wpd, nf);
    snprintf(what, sizeof what, "direct_filter %s (stride %d)", what_mode, d->s);
    check_same(be->name, what, got, wp, nf / 9 * (size_t)direct_taps(mode).n);
    ddl_free(got);
    for (int acc = 0; acc < 2; acc++) {
        memcpy(want, start, sizeof(float) * nout);
        direct_conv_cpu(in, wp, d->nb, ins, outs, d->Ho, d->Wo, mode, want, acc);
        float *outd = acc ? up(be, start, 4 * nout) : poisoned(be, nout);
        DIR(be)->conv(ind, wpd, d->nb, ins, outs, d->Ho, d->Wo, mode, outd, acc);
        got = down(be, outd, nout);
        snprintf(what, sizeof what, "direct_conv %dx%d stride %d %s%s", d->H, d->W, d->s, what_mode, acc ? " acc" : "");
        check_same(be->name, what, got, want, nout);
        ddl_free(got);
        be->release(outd);
    }
    ddl_free(wp), ddl_free(want), ddl_free(start);
    be->release(wpd);
}

/* DIRECT_DX_S2_ALL, the 4 phases in one pass: each phase's output the
 * same bits as that phase run alone (DIRECT_DX_S2 + p) on the CPU, and
 * the backend's the CPU's. */
static void direct_all_phases_case(const DirectCase *d, const float *w, const float *wd, const float *dyq,
                                   const float *dyqd)
{
    const Backend *be = d->be;
    size_t per = direct_filter_floats(d->C, d->K), phase = (size_t)d->nb * d->C * d->Ho * d->Wo;
    float *wp = ddl_alloc(4 * 4 * per), *wpd = poisoned(be, 4 * per);
    float *one = ddl_alloc(4 * 4 * phase), *all = ddl_alloc(4 * 4 * phase), *wp1 = ddl_alloc(4 * per);
    direct_filter_cpu(w, d->K, d->C, DIRECT_DX_S2_ALL, wp);
    DIR(be)->filter(wd, d->K, d->C, DIRECT_DX_S2_ALL, wpd);
    for (int p = 0; p < 4; p++) {
        direct_filter_cpu(w, d->K, d->C, DIRECT_DX_S2 + p, wp1);
        direct_conv_cpu(dyq, wp1, d->nb, d->K, d->C, d->Ho, d->Wo, DIRECT_DX_S2 + p, one + p * phase, false);
    }
    direct_conv_cpu(dyq, wp, d->nb, d->K, d->C, d->Ho, d->Wo, DIRECT_DX_S2_ALL, all, false);
    char what[96];
    snprintf(what, sizeof what, "direct_conv %dx%d all 4 phases in one pass = one by one (cpu)", d->H, d->W);
    check_same("cpu", what, all, one, 4 * phase);
    float *alld = poisoned(be, 4 * phase);
    DIR(be)->conv(dyqd, wpd, d->nb, d->K, d->C, d->Ho, d->Wo, DIRECT_DX_S2_ALL, alld, false);
    float *got = down(be, alld, 4 * phase);
    snprintf(what, sizeof what, "direct_conv %dx%d all 4 phases in one pass", d->H, d->W);
    check_same(be->name, what, got, all, 4 * phase);
    ddl_free(got), ddl_free(wp), ddl_free(one), ddl_free(all), ddl_free(wp1);
    be->release(wpd), be->release(alld);
}

/* The 4 phases' gradients of a stride-2 input, interleaved into dx on both
 * sides, overwriting and adding: bit-exact. */
static void direct_unphase_case(const DirectCase *d)
{
    const Backend *be = d->be;
    size_t ndp = (size_t)4 * d->nb * d->C * d->Ho * d->Wo, nx = (size_t)d->nb * d->C * d->H * d->W;
    float *dp = rand_floats(ndp, -1, 1), *dpd = up(be, dp, 4 * ndp), *start = rand_floats(nx, -1, 1);
    float *want = ddl_alloc(4 * nx);
    for (int acc = 0; acc < 2; acc++) {
        memcpy(want, start, sizeof(float) * nx);
        direct_unphase_cpu(dp, d->nb, d->C, d->H, d->W, want, acc);
        float *dxd = acc ? up(be, start, 4 * nx) : poisoned(be, nx);
        DIR(be)->unphase(dpd, d->nb, d->C, d->H, d->W, dxd, acc);
        float *got = down(be, dxd, nx);
        char what[80];
        snprintf(what, sizeof what, "direct_unphase %dx%d%s", d->H, d->W, acc ? " acc" : "");
        check_same(be->name, what, got, want, nx);
        ddl_free(got);
        be->release(dxd);
    }
    ddl_free(dp), ddl_free(start), ddl_free(want);
    be->release(dpd);
}

static void backend_direct(const Backend *be, int nb, int C, int K, int H, int W, int s)
{
    DirectCase d = { be, nb, C, K, H, W, s, direct_out(H, s), direct_out(W, s) };
    char what[96];
    size_t nx = (size_t)nb * C * H * W, ny = (size_t)nb * K * d.Ho * d.Wo, nw = (size_t)K * C * 9;
    size_t nxq = direct_input_floats(nb, C, H, W, s), nyq = direct_padded_floats(nb, K, d.Ho, d.Wo);
    float *x = rand_floats(nx, -1, 1), *dy = rand_floats(ny, -1, 1), *w = rand_floats(nw, -1, 1);
    float *dw0 = rand_floats(nw, -1, 1), *xq = ddl_alloc(4 * nxq), *dyq = ddl_alloc(4 * nyq), *want = ddl_alloc(4 * nw);
    float *xd = up(be, x, 4 * nx), *dyd = up(be, dy, 4 * ny), *wd = up(be, w, 4 * nw);
    float *xqd = poisoned(be, nxq), *dyqd = poisoned(be, nyq);
    direct_pad_cpu(x, nb, C, H, W, s, xq);
    direct_pad_cpu(dy, nb, K, d.Ho, d.Wo, 1, dyq);
    DIR(be)->pad(xd, nb, C, H, W, s, xqd);
    DIR(be)->pad(dyd, nb, K, d.Ho, d.Wo, 1, dyqd);
    float *got = down(be, xqd, nxq);
    snprintf(what, sizeof what, "direct_pad %dx%d stride %d (with the slack)", H, W, s);
    check_same(be->name, what, got, xq, nxq);
    ddl_free(got);
    direct_conv_case(&d, w, wd, s == 2 ? DIRECT_FWD_S2 : DIRECT_FWD, xq, xqd, "forward");
    if (s == 1)
        direct_conv_case(&d, w, wd, DIRECT_DX, dyq, dyqd, "input gradient");
    for (int p = 0; s == 2 && p < 4; p++) {
        char phase[40];
        snprintf(phase, sizeof phase, "input gradient, phase %d", p);
        direct_conv_case(&d, w, wd, DIRECT_DX_S2 + p, dyq, dyqd, phase);
    }
    if (s == 2) direct_all_phases_case(&d, w, wd, dyq, dyqd);
    if (s == 2) direct_unphase_case(&d);
    memcpy(want, dw0, sizeof(float) * nw);
    direct_filter_grad_cpu(xq, dyq, nb, C, K, d.Ho, d.Wo, s, want);
    float *dwd = up(be, dw0, 4 * nw);
    DIR(be)->filter_grad(xqd, dyqd, nb, C, K, d.Ho, d.Wo, s, dwd);
    got = down(be, dwd, nw);
    double e = t_rel_err(got, want, nw, REL_FLOOR);
    if (!t_check(e <= TOL_RED, "%s direct_filter_grad %dx%d stride %d (accumulates) within %.0e of cpu", be->name, H,
                 W, s, TOL_RED))
        printf("# relative error %.3g\n", e);
    ddl_free(got);
    float *all[] = { x, dy, w, dw0, xq, dyq, want };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ddl_free(all[i]);
    float *dev[] = { xd, dyd, wd, xqd, dyqd, dwd };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) be->release(dev[i]);
}

/* Stride-2 1x1 convolutions' gather and scatter (path_pointwise.c):
 * the CPU's against their definitions (x's even rows and columns; dx
 * zero elsewhere, or unchanged with acc), then the backend's against the
 * CPU's bit for bit, on even and odd planes. */
static void backend_pointwise_s2(const Backend *be)
{
    static const int SHAPES[][4] = { { 2, 3, 8, 8 }, { 3, 5, 7, 9 }, { 1, 2, 1, 1 }, { 4, 16, 32, 31 } };
    for (size_t t = 0; t < sizeof SHAPES / sizeof SHAPES[0]; t++) {
        int nb = SHAPES[t][0], C = SHAPES[t][1], H = SHAPES[t][2], W = SHAPES[t][3], Ho = (H + 1) / 2, Wo = (W + 1) / 2;
        size_t nx = (size_t)nb * C * H * W, ns = (size_t)nb * C * Ho * Wo;
        float *x = rand_floats(nx, -1, 1), *xs = ddl_alloc(4 * ns), *start = rand_floats(nx, -1, 1);
        float *dx = ddl_alloc(4 * nx);
        pointwise_subsample_cpu(x, nb, C, H, W, xs);
        bool ok = true;
        for (size_t e = 0; e < ns; e++) {
            size_t w = e % Wo, h = e / Wo % Ho, ic = e / ((size_t)Ho * Wo);
            ok = ok && xs[e] == x[(ic * H + 2 * h) * W + 2 * w];
        }
        for (int acc = 0; acc < 2; acc++) {
            memcpy(dx, start, sizeof(float) * nx);
            pointwise_upsample_cpu(xs, nb, C, H, W, dx, acc);
            for (size_t e = 0; e < nx; e++) {
                size_t w = e % W, h = e / W % H, ic = e / ((size_t)H * W);
                float v = h % 2 || w % 2 ? 0.0f : xs[(ic * Ho + h / 2) * Wo + w / 2];
                ok = ok && dx[e] == (acc ? start[e] + v : v);
            }
        }
        if (!strcmp(be->name, "cpu")) {
            t_check(ok, "cpu pointwise_subsample and pointwise_upsample (and acc) %dx%d: even rows and columns", H, W);
        } else {
            float *xd = up(be, x, 4 * nx), *xsd = poisoned(be, ns);
            PW(be)->subsample(xd, nb, C, H, W, xsd);
            float *got = down(be, xsd, ns);
            char what[80];
            snprintf(what, sizeof what, "pointwise_subsample %dx%d", H, W);
            check_same(be->name, what, got, xs, ns);
            ddl_free(got);
            for (int acc = 0; acc < 2; acc++) {
                memcpy(dx, start, sizeof(float) * nx);
                pointwise_upsample_cpu(xs, nb, C, H, W, dx, acc);
                float *dxd = acc ? up(be, start, 4 * nx) : poisoned(be, nx);
                PW(be)->upsample(xsd, nb, C, H, W, dxd, acc);
                got = down(be, dxd, nx);
                snprintf(what, sizeof what, "pointwise_upsample %dx%d%s", H, W, acc ? " acc" : "");
                check_same(be->name, what, got, dx, nx);
                ddl_free(got);
                be->release(dxd);
            }
            be->release(xd), be->release(xsd);
        }
        ddl_free(x), ddl_free(xs), ddl_free(start), ddl_free(dx);
    }
}

/* The pointwise (1x1) convolution through the table, as backend_direct:
 * packing bit-exact; every output one chain of FMAs in the CPU's order,
 * so bit-exact, forward (C -> K) and input gradient (transposed, K -> C),
 * overwriting and adding; the weight gradient within TOL_RED. K = 11 is
 * not a multiple of the packing's 8, and P = 70 takes all three of the
 * CPU kernel's position blocks (3 vectors, 1 vector, single positions). */
static void backend_pointwise(const Backend *be)
{
    int n = 3, C = 5, K = 11, P = 70;
    size_t nx = (size_t)n * C * P, ny = (size_t)n * K * P, nw = (size_t)K * C;
    size_t nwp = DDL_MAX(pointwise_filter_floats(K, C), pointwise_filter_floats(C, K));
    float *x = rand_floats(nx, -1, 1), *dy = rand_floats(ny, -1, 1), *w = rand_floats(nw, -1, 1);
    float *y0 = rand_floats(ny, -1, 1), *dx0 = rand_floats(nx, -1, 1), *dw0 = rand_floats(nw, -1, 1);
    float *wp = ddl_alloc(4 * nwp), *want = ddl_alloc(4 * DDL_MAX(nx, ny));
    float *xd = up(be, x, 4 * nx), *dyd = up(be, dy, 4 * ny), *wd = up(be, w, 4 * nw), *wpd = poisoned(be, nwp);
    float *got;
    for (int tr = 0; tr < 2; tr++) {
        int outs = tr ? C : K, ins = tr ? K : C;
        size_t nout = tr ? nx : ny, nf = pointwise_filter_floats(outs, ins);
        pointwise_filter_cpu(w, K, C, tr, wp);
        PW(be)->filter(wd, K, C, tr, wpd);
        got = down(be, wpd, nf);
        check_same(be->name, tr ? "pointwise_filter transposed" : "pointwise_filter", got, wp, nf);
        ddl_free(got);
        const float *in = tr ? dy : x, *ind = tr ? dyd : xd, *start = tr ? dx0 : y0;
        for (int acc = 0; acc < 2; acc++) {
            memcpy(want, start, sizeof(float) * nout);
            pointwise_conv_cpu(in, wp, n, ins, outs, P, want, acc);
            float *outd = acc ? up(be, start, 4 * nout) : poisoned(be, nout);
            PW(be)->conv(ind, wpd, n, ins, outs, P, outd, acc);
            got = down(be, outd, nout);
            char what[80];
            snprintf(what, sizeof what, "pointwise_conv %s%s", tr ? "input gradient" : "forward", acc ? " acc" : "");
            check_same(be->name, what, got, want, nout);
            ddl_free(got);
            be->release(outd);
        }
    }
    memcpy(want, dw0, sizeof(float) * nw);
    pointwise_filter_grad_cpu(x, dy, n, C, K, P, want);
    float *dwd = up(be, dw0, 4 * nw);
    PW(be)->filter_grad(xd, dyd, n, C, K, P, dwd);
    got = down(be, dwd, nw);
    double e = t_rel_err(got, want, nw, REL_FLOOR);
    if (!t_check(e <= TOL_RED, "%s pointwise_filter_grad (accumulates) within %.0e of cpu", be->name, TOL_RED))
        printf("# relative error %.3g\n", e);
    ddl_free(got);
    float *all[] = { x, dy, w, y0, dx0, dw0, wp, want };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ddl_free(all[i]);
    float *dev[] = { xd, dyd, wd, wpd, dwd };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) be->release(dev[i]);
}

static void backend_small_kernels(const Backend *be)
{
    enum { C = 37 };
    float *mean = rand_floats(C, -2, 2), *var = rand_floats(C, 0, 3), sm[C], si[C];
    batchnorm_eval_stats_cpu(mean, var, C, 1e-5f, sm, si);
    float *md = up(be, mean, 4 * C), *vard = up(be, var, 4 * C), *smd = poisoned(be, C), *sid = poisoned(be, C);
    be->batchnorm_eval_stats(md, vard, C, 1e-5f, smd, sid);
    float *smh = down(be, smd, C), *sih = down(be, sid, C);
    check_same(be->name, "batchnorm_eval_stats mean", smh, sm, C);
    check_same(be->name, "batchnorm_eval_stats invstd", sih, si, C);

    int32_t labels[300];
    for (int i = 0; i < 300; i++) labels[i] = (int32_t)rng_below(&R, 14) - 2; /* -2..11 against 10 classes */
    int32_t *ld = up(be, labels, sizeof labels);
    t_check(be->labels_outside(ld, 300, 10) == labels_outside_cpu(labels, 300, 10), "%s labels_outside == cpu",
             be->name);

    size_t n = 1000;
    float *v = rand_floats(n, -3e4f, 3e4f);
    v[3] = NAN;
    v[4] = INFINITY;
    v[5] = 65520.0f;   /* rounds to infinity */
    v[6] = 0x1p-25f;   /* tie between 0 and the smallest subnormal half: 0 */
    v[7] = -0x1.8p-24f; /* subnormal tie: to even */
    float *vd = up(be, v, 4 * n), *sd = up(be, v, 4 * n);
    float *s = ddl_alloc(4 * n), *r = ddl_alloc(4 * n);
    memcpy(s, v, 4 * n);
    memcpy(r, v, 4 * n);
    scale_cpu(s, n, 1.0f / 1024.0f);
    be->scale(sd, n, 1.0f / 1024.0f);
    float *sh = down(be, sd, n);
    check_same_nan(be->name, "scale", sh, s, n);
    half_round_cpu(r, n);
    be->half_round(vd, n);
    float *rh = down(be, vd, n);
    check_same(be->name, "half_round (NaN, infinity, overflow, subnormal ties)", rh, r, n);
    uint16_t *hc = ddl_alloc(2 * n), *hb = ddl_alloc(2 * n);
    float *vd2 = up(be, v, 4 * n);
    uint16_t *hd = be->alloc(2 * n);
    f32_to_f16_cpu(v, hc, n);
    be->f32_to_f16(vd2, hd, n);
    be->to_host(hb, hd, 2 * n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += hb[i] != hc[i] && !(isnan(v[i]) && (hb[i] & 0x7c00u) == 0x7c00u && (hb[i] & 0x3ffu));
    if (!t_check(bad == 0, "%s f32_to_f16 == cpu (NaN: any NaN)", be->name)) printf("# %zu differ\n", bad);
    t_check(be->nonfinite(vd2, n) && !be->nonfinite(vd2 + 8, n - 8), "%s nonfinite finds inf/NaN, not finite values",
             be->name);
    float *frees[] = { mean, var, smh, sih, v, s, r, sh, rh };
    for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++) ddl_free(frees[i]);
    ddl_free(hc);
    ddl_free(hb);
    void *dev[] = { md, vard, vd, smd, sid, ld, vd2, sd, hd };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) be->release(dev[i]);
}

/* Five batches of 4 floats per example through two slots, the last one
 * short, then none; each read back from the backend after get(). */
static void backend_device_batch(const Backend *be)
{
    enum { CAP = 6, PER = 4 };
    DeviceBatch db;
    device_batch_init(&db, be, CAP, PER);
    const int sizes[] = { 6, 6, 6, 6, 3, 0 };
    int bad = 0, handed = 0, got_all = 1;
    float *host_x[6];
    for (int k = 0; k < 6; k++) {
        float *x = device_batch_x(&db);
        int32_t *y = device_batch_y(&db);
        host_x[k] = x;
        for (int i = 0; i < sizes[k] * PER; i++) x[i] = (float)(1000 * k + i);
        for (int i = 0; i < sizes[k]; i++) y[i] = 100 * k + i;
        device_batch_put(&db, sizes[k]);
        const float *xd;
        const int32_t *yd;
        int n = device_batch_get(&db, &xd, &yd);
        got_all &= n == sizes[k];
        if (n <= 0) continue;
        float xs[CAP * PER];
        int32_t ys[CAP];
        be->to_host(xs, xd, sizeof(float) * (size_t)n * PER);
        be->to_host(ys, yd, sizeof(int32_t) * (size_t)n);
        for (int i = 0; i < n * PER; i++) bad += xs[i] != (float)(1000 * k + i);
        for (int i = 0; i < n; i++) bad += ys[i] != 100 * k + i;
        handed += xd == host_x[k];
    }
    if (!t_check(bad == 0 && got_all, "%s device batch: every batch arrives whole, the short one and the end too",
             be->name)) printf("# %d wrong values\n", bad);
    if (be->host_memory)
        t_check(handed == 5, "%s device batch: host buffers handed over, no copy", be->name);
    else
        t_check(handed == 0 && host_x[0] != host_x[1], "%s device batch: staged through two host slots",
                 be->name);
    device_batch_free(&db);
}

/* Fused Winograd F(2x2,3x3) (core/conv/conv_winofused.c). The CPU's
 * forward pass and input gradient against their definitions (double
 * sums, within TOL_FUSED of the largest output: Winograd rounds the
 * transformed values), then the backend's filter packing and outputs
 * against the CPU's bit for bit (the same operations in the same order),
 * overwriting and adding. Planes whose tile rows are one vector, half
 * or a quarter of one (the CPU's row blocks, with AVX-512), others (runs
 * of grid positions through the output phases), and planes of at most 2
 * tiles per row (batch lanes: a vector is one tile of many images). */
#define TOL_FUSED 1e-5

/* The exact convolution: y = x (*) w, or with flip dx = dy (*) w rotated
 * and transposed (x: ins channels, y: outs). */
static void fused_exact(const float *x, const float *w, int nb, int C, int K, int H, int W, bool flip, double *y)
{
    int ins = flip ? K : C, outs = flip ? C : K;
    for (int i = 0; i < nb; i++)
        for (int o = 0; o < outs; o++)
            for (int h = 0; h < H; h++)
                for (int v = 0; v < W; v++) {
                    double s = 0;
                    for (int c = 0; c < ins; c++)
                        for (int t = 0; t < 9; t++) {
                            int dh = t / 3 - 1, dv = t % 3 - 1, yy = flip ? h - dh : h + dh, xx = flip ? v - dv : v + dv;
                            if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
                            double wv = flip ? w[((size_t)c * C + o) * 9 + t] : w[((size_t)o * C + c) * 9 + t];
                            s += wv * x[(((size_t)i * ins + c) * H + yy) * W + xx];
                        }
                    y[(((size_t)i * outs + o) * H + h) * W + v] = s;
                }
}

static void fused_pass(const Backend *be, int nb, int C, int K, int H, int W, bool flip)
{
    int ins = flip ? K : C, outs = flip ? C : K;
    size_t nx = (size_t)nb * ins * H * W, ny = (size_t)nb * outs * H * W, nw = (size_t)K * C * 9;
    size_t nxq = winofused_input_floats(nb, ins, H, W), nf = winofused_filter_floats(outs, ins);
    size_t nyq = 4 * (size_t)outs * winofused_out_channel_floats(nb, H / 2, W / 2);
    float *x = rand_floats(nx, -1, 1), *w = rand_floats(nw, -1, 1), *start = rand_floats(ny, -1, 1);
    float *xq = ddl_alloc(4 * nxq), *wt = ddl_alloc(4 * nf), *yq = ddl_alloc(4 * nyq), *y = ddl_alloc(4 * ny);
    double *exact = ddl_alloc(sizeof(double) * ny);
    char what[120];
    const char *pass = flip ? "input gradient" : "forward";
    winofused_pad_cpu(x, nb, ins, H, W, xq);
    winofused_filter_cpu(w, K, C, flip, wt);
    fused_exact(x, w, nb, C, K, H, W, flip, exact);
    double worst = 0, big = 1e-30;
    for (int acc = 0; acc < 2; acc++) {
        memcpy(y, start, sizeof(float) * ny);
        winofused_conv_cpu(xq, wt, nb, ins, outs, H, W, yq, y, acc);
        for (size_t e = 0; e < ny; e++) {
            worst = fmax(worst, fabs(y[e] - (exact[e] + (acc ? start[e] : 0.0))));
            big = fmax(big, fabs(exact[e]));
        }
    }
    if (!strcmp(be->name, "cpu")) {
        snprintf(what, sizeof what, "winofused %s n%d C%d K%d %dx%d (and acc) within %.0e of exact", pass, nb, C, K, H,
                 W, TOL_FUSED);
        if (!t_check(worst / big <= TOL_FUSED, "cpu %s", what)) printf("# relative error %.3g\n", worst / big);
    } else {
        float *xd = up(be, x, 4 * nx), *xqd = poisoned(be, nxq), *wd = up(be, w, 4 * nw), *wtd = poisoned(be, nf);
        WF(be)->pad(xd, nb, ins, H, W, xqd);
        float *got = down(be, xqd, nxq);
        snprintf(what, sizeof what, "winofused_pad %s n%d %dx%d", pass, nb, H, W);
        check_same(be->name, what, got, xq, nxq);
        ddl_free(got);
        WF(be)->filter(wd, K, C, flip, wtd);
        got = down(be, wtd, nf);
        snprintf(what, sizeof what, "winofused_filter %s C%d K%d", pass, C, K);
        check_same(be->name, what, got, wt, nf);
        ddl_free(got);
        for (int acc = 0; acc < 2; acc++) {
            memcpy(y, start, sizeof(float) * ny);
            winofused_conv_cpu(xq, wt, nb, ins, outs, H, W, yq, y, acc);
            float *yd = acc ? up(be, start, 4 * ny) : poisoned(be, ny);
            WF(be)->conv(xqd, wtd, nb, ins, outs, H, W, NULL, yd, acc);
            got = down(be, yd, ny);
            snprintf(what, sizeof what, "winofused_conv %s n%d %dx%d%s", pass, nb, H, W, acc ? " acc" : "");
            check_same(be->name, what, got, y, ny);
            ddl_free(got);
            be->release(yd);
        }
        be->release(xd), be->release(xqd), be->release(wd), be->release(wtd);
    }
    ddl_free(x), ddl_free(w), ddl_free(start), ddl_free(xq), ddl_free(wt), ddl_free(yq), ddl_free(y), ddl_free(exact);
}

static void backend_winofused(const Backend *be)
{
    static const int SHAPES[][5] = {
        { 2, 5, 11, 32, 32 },  /* tile rows of 16: one AVX-512 vector */
        { 3, 7, 9, 16, 16 },   /* rows of 8: half a vector (3 images x 8 rows: even) */
        { 4, 6, 10, 8, 8 },    /* rows of 4: a quarter (16 rows) */
        { 3, 5, 11, 8, 8 },    /* 12 rows: a quarter again */
        { 1, 3, 4, 6, 10 },    /* rows of 5: runs of positions, through the phases */
        { 2, 9, 6, 34, 12 },   /* rows of 6, tall */
        { 2, 4, 3, 4, 36 },    /* 18 wide: one image per group */
        { 1, 128, 128, 2, 2 }, /* one tile per image, the most channels: batch lanes */
        { 3, 9, 12, 4, 4 },    /* batch lanes: 2x2 tiles of 3 images (13 lanes of padding) */
        { 17, 8, 5, 4, 2 },    /* batch lanes over two vectors' worth of images (32: 15 padding) */
        { 20, 16, 24, 2, 4 },
    };
    for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++)
        for (int flip = 0; flip < 2; flip++)
            fused_pass(be, SHAPES[i][0], SHAPES[i][1], SHAPES[i][2], SHAPES[i][3], SHAPES[i][4], flip);
}

int main(void)
{
    R = rng_make2(2024, "backend_kernels", 0);
    reference_layout();
    reference_small_kernels();
    const Backend *bes[8];
    int nb = backend_usable(bes, 8);
    for (int b = 0; b < nb; b++) {
        backend_depthwise(bes[b]);
        backend_layout(bes[b]);
        backend_winograd(bes[b]);
        backend_direct(bes[b], 3, 5, 11, 7, 6, 1);
        backend_direct(bes[b], 3, 5, 11, 5, 19, 1);
        /* rows of one vector, or half of one (conv_direct.c's row-exact blocks, with AVX-512), and an odd row count */
        backend_direct(bes[b], 3, 5, 11, 5, 16, 1);
        backend_direct(bes[b], 2, 5, 11, 5, 8, 1);
        backend_direct(bes[b], 3, 5, 11, 5, 8, 1);
        backend_direct(bes[b], 2, 5, 11, 3, 32, 1); /* rows of two vectors, one image per group */
        /* stride 2: odd inputs (the odd phases' last row and column are
         * past it), and outputs of 19, 16, 8 and 32 columns, as above */
        backend_direct(bes[b], 3, 5, 11, 7, 6, 2);
        backend_direct(bes[b], 2, 5, 11, 10, 37, 2);
        backend_direct(bes[b], 2, 5, 11, 32, 32, 2);
        backend_direct(bes[b], 3, 5, 11, 16, 15, 2);
        backend_direct(bes[b], 2, 5, 11, 9, 64, 2);
        backend_winofused(bes[b]);
        backend_pointwise(bes[b]);
        backend_pointwise_s2(bes[b]);
        backend_small_kernels(bes[b]);
        backend_device_batch(bes[b]);
    }
    return t_done();
}
