/* test_path_direct.c - the direct 3x3 path's kernel table
 * (core/conv/path_direct.c, direct_kernels.h; its CUDA twin
 * core/cuda/conv_direct.cu) on every usable backend against the CPU's:
 * padding, packing and outputs bit-exact (one chain of FMAs per output,
 * in the same order), the weight gradient within TOL_RED; strides 1 and
 * 2, on planes that take each of the CPU's row blocks. */
#include "backend_compare.h"
#include "conv/direct_kernels.h"

static const DirectKernels *DIR(const Backend *be) { return table(be, "direct"); }

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
    char tag[64]; /* "n.. C.. K.. HxW": the checks' names */
} DirectCase;

/* Packs mode's filters on both sides (bit-exact), runs the convolution of
 * in (ins channels) into outs channels of the output's plane, overwriting
 * and adding, and checks it bit for bit. */
static void direct_conv_case(const DirectCase *d, const float *w, const float *wd, int mode, const float *in,
                             const float *ind, const char *what_mode)
{
    const Backend *be = d->be;
    char what[160];
    bool tr = direct_transposed(mode);
    int outs = tr ? d->C : d->K, ins = tr ? d->K : d->C;
    size_t nf = direct_filter_floats(outs, ins), nout = (size_t)d->nb * outs * d->Ho * d->Wo;
    float *wp = ddl_alloc(4 * nf), *wpd = poisoned(be, nf), *want = ddl_alloc(4 * nout);
    float *start = rand_floats(nout, -1, 1);
    direct_filter_cpu(w, d->K, d->C, mode, wp);
    DIR(be)->filter(wd, d->K, d->C, mode, wpd);
    float *got = down(be, wpd, nf);
    snprintf(what, sizeof what, "direct_filter %s %s (stride %d)", d->tag, what_mode, d->s);
    check_same(be->name, what, got, wp, nf / 9 * (size_t)direct_taps(mode).n);
    ddl_free(got);
    for (int acc = 0; acc < 2; acc++) {
        memcpy(want, start, sizeof(float) * nout);
        direct_conv_cpu(in, wp, d->nb, ins, outs, d->Ho, d->Wo, mode, want, acc);
        float *outd = acc ? up(be, start, 4 * nout) : poisoned(be, nout);
        DIR(be)->conv(ind, wpd, d->nb, ins, outs, d->Ho, d->Wo, mode, outd, acc);
        got = down(be, outd, nout);
        snprintf(what, sizeof what, "direct_conv %s stride %d %s%s", d->tag, d->s, what_mode, acc ? " acc" : "");
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
    char what[160];
    snprintf(what, sizeof what, "direct_conv %s all 4 phases in one pass = one by one (cpu)", d->tag);
    check_same("cpu", what, all, one, 4 * phase);
    float *alld = poisoned(be, 4 * phase);
    DIR(be)->conv(dyqd, wpd, d->nb, d->K, d->C, d->Ho, d->Wo, DIRECT_DX_S2_ALL, alld, false);
    float *got = down(be, alld, 4 * phase);
    snprintf(what, sizeof what, "direct_conv %s all 4 phases in one pass", d->tag);
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
        char what[120];
        snprintf(what, sizeof what, "direct_unphase %s%s", d->tag, acc ? " acc" : "");
        check_same(be->name, what, got, want, nx);
        ddl_free(got);
        be->release(dxd);
    }
    ddl_free(dp), ddl_free(start), ddl_free(want);
    be->release(dpd);
}

static void backend_direct(const Backend *be, int nb, int C, int K, int H, int W, int s)
{
    DirectCase d = { be, nb, C, K, H, W, s, direct_out(H, s), direct_out(W, s), "" };
    snprintf(d.tag, sizeof d.tag, "n%d C%d K%d %dx%d", nb, C, K, H, W);
    char what[160];
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
    snprintf(what, sizeof what, "direct_pad %s stride %d (with the slack)", d.tag, s);
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
    if (!t_check(e <= TOL_RED, "%s direct_filter_grad %s stride %d (accumulates) within %.0e of cpu", be->name,
                 d.tag, s, TOL_RED))
        printf("# relative error %.3g\n", e);
    ddl_free(got);
    float *all[] = { x, dy, w, dw0, xq, dyq, want };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ddl_free(all[i]);
    float *dev[] = { xd, dyd, wd, xqd, dyqd, dwd };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) be->release(dev[i]);
}

static void each(const Backend *be)
{
    static const int CASES[][6] = { /* nb, C, K, H, W, stride */
        { 3, 5, 11, 7, 6, 1 }, { 3, 5, 11, 5, 19, 1 },
        /* rows of one vector, or half of one (conv_direct.c's row-exact blocks, with AVX-512), and an odd row count */
        { 3, 5, 11, 5, 16, 1 }, { 2, 5, 11, 5, 8, 1 }, { 3, 5, 11, 5, 8, 1 },
        { 2, 5, 11, 3, 32, 1 }, /* rows of two vectors, one image per group */
        /* a 1x1 plane, one channel; channel counts on and off the packing's
         * 8; a one-row plane; wider than 16 (one image per group of rows) */
        { 1, 1, 1, 1, 1, 1 }, { 2, 3, 5, 7, 9, 1 }, { 3, 8, 16, 4, 4, 1 }, { 2, 16, 24, 13, 6, 1 },
        { 1, 5, 3, 1, 3, 1 }, { 3, 4, 9, 5, 19, 1 },
        /* stride 2: odd inputs (the odd phases' last row and column are
         * past it), and outputs of 19, 16, 8 and 32 columns, as above */
        { 3, 5, 11, 7, 6, 2 }, { 2, 5, 11, 10, 37, 2 }, { 2, 5, 11, 32, 32, 2 }, { 3, 5, 11, 16, 15, 2 },
        { 2, 5, 11, 9, 64, 2 },
        /* stride 2 on a 1x1 input, and the channel counts above */
        { 1, 1, 1, 1, 1, 2 }, { 2, 3, 5, 7, 9, 2 }, { 3, 8, 16, 8, 8, 2 }, { 2, 4, 9, 10, 38, 2 },
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        backend_direct(be, CASES[i][0], CASES[i][1], CASES[i][2], CASES[i][3], CASES[i][4], CASES[i][5]);
}

int main(void) { return compare_main("path_direct", each); }
