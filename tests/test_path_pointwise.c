/* test_path_pointwise.c - the pointwise 1x1 path's kernel table
 * (core/conv/path_pointwise.c, pointwise_kernels.h; its CUDA twin
 * core/cuda/conv_pointwise.cu) on every usable backend against the CPU's:
 * packing and outputs bit-exact, the weight gradient within TOL_RED, and
 * stride 2's gather and scatter. */
#include "backend_compare.h"
#include "conv/pointwise_kernels.h"

static const PointwiseKernels *PW(const Backend *be) { return table(be, "pointwise"); }

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
 * overwriting and adding; the weight gradient within TOL_RED. */
static void backend_pointwise(const Backend *be, int n, int C, int K, int P)
{
    char tag[64];
    snprintf(tag, sizeof tag, "n%d C%d K%d P%d", n, C, K, P);
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
        char what[120];
        snprintf(what, sizeof what, "pointwise_filter %s%s", tag, tr ? " transposed" : "");
        check_same(be->name, what, got, wp, nf);
        ddl_free(got);
        const float *in = tr ? dy : x, *ind = tr ? dyd : xd, *start = tr ? dx0 : y0;
        for (int acc = 0; acc < 2; acc++) {
            memcpy(want, start, sizeof(float) * nout);
            pointwise_conv_cpu(in, wp, n, ins, outs, P, want, acc);
            float *outd = acc ? up(be, start, 4 * nout) : poisoned(be, nout);
            PW(be)->conv(ind, wpd, n, ins, outs, P, outd, acc);
            got = down(be, outd, nout);
            snprintf(what, sizeof what, "pointwise_conv %s %s%s", tag, tr ? "input gradient" : "forward",
                     acc ? " acc" : "");
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
    if (!t_check(e <= TOL_RED, "%s pointwise_filter_grad %s (accumulates) within %.0e of cpu", be->name, tag, TOL_RED))
        printf("# relative error %.3g\n", e);
    ddl_free(got);
    float *all[] = { x, dy, w, y0, dx0, dw0, wp, want };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ddl_free(all[i]);
    float *dev[] = { xd, dyd, wd, wpd, dwd };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) be->release(dev[i]);
}

static void each(const Backend *be)
{
    /* n, C, K, P: K = 11 and 13 are not multiples of the packing's 8; P =
     * 70 takes all three of the CPU kernel's position blocks (3 vectors, 1
     * vector, single positions), 16 one vector, 1 and 49 the tails; 144
     * channels on 196 positions, MobileNetV2's expansion on a 14x14 plane */
    static const int CASES[][4] = {
        { 3, 5, 11, 70 }, { 1, 1, 1, 1 }, { 2, 3, 5, 16 }, { 3, 8, 16, 49 }, { 2, 24, 13, 70 }, { 1, 144, 24, 196 },
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        backend_pointwise(be, CASES[i][0], CASES[i][1], CASES[i][2], CASES[i][3]);
    backend_pointwise_s2(be);
}

int main(void) { return compare_main("path_pointwise", each); }
