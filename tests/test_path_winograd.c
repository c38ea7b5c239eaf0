/* test_path_winograd.c - the Winograd paths' kernel tables, F(2x2,3x3)
 * and F(4x4,3x3) (core/conv/path_winograd.c, winograd_kernels.h; their
 * CUDA twins core/cuda/winograd.cu, winograd4.cu, winograd_grad.cu), on
 * every usable backend against the CPU's: the input, filter and output
 * transforms and F(2x2)'s weight gradient's two, bit-exact (the same
 * operations in the same order, every product and sum rounded on its
 * own). */
#include "backend_compare.h"
#include "conv/winograd_kernels.h"

static const WinogradKernels *W2(const Backend *be) { return table(be, "winograd"); }
static const WinogradKernels *W4(const Backend *be) { return table(be, "winograd4"); }

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
 * transforms through the table, on backend_wino_case's x and w: bit-exact
 * (F(2x2) only adds, subtracts and halves; F(4x4)'s products are exact or
 * a sum's last step, winograd4.c), each in the CPU's order. */
static void backend_wino_transforms(const Backend *be, const WinoVariant *v, int nb, int C, int K, int H, int W,
                                    const float *x, const float *w, const float *xd, const float *wd, const char *tag)
{
    size_t A2 = (size_t)(v->M + 2) * (v->M + 2), T = (size_t)((H + v->M - 1) / v->M) * ((W + v->M - 1) / v->M);
    size_t nv = A2 * C * T * nb, nu = A2 * K * C, nm = A2 * K * T * nb, ny = (size_t)nb * K * H * W;
    float *m = rand_floats(nm, -1, 1), *y0 = rand_floats(ny, -1, 1), *want = ddl_alloc(sizeof(float) * (nv + nu + ny));
    float *md = up(be, m, 4 * nm), *vd = poisoned(be, nv), *ud = poisoned(be, nu);
    char what[160];
    v->input_cpu(x, nb, C, H, W, want);
    v->table(be)->input(xd, nb, C, H, W, vd);
    float *got = down(be, vd, nv);
    snprintf(what, sizeof what, "%s_input %s", v->name, tag);
    check_same(be->name, what, got, want, nv);
    ddl_free(got);
    for (int flip = 0; flip < 2; flip++) {
        v->filter_cpu(w, K, C, flip, want);
        v->table(be)->filter(wd, K, C, flip, ud);
        got = down(be, ud, nu);
        snprintf(what, sizeof what, "%s_filter %s%s", v->name, tag, flip ? " flip" : "");
        check_same(be->name, what, got, want, nu);
        ddl_free(got);
    }
    for (int acc = 0; acc < 2; acc++) {
        memcpy(want, y0, sizeof(float) * ny);
        v->output_cpu(m, nb, K, H, W, want, acc);
        float *yd = acc ? up(be, y0, 4 * ny) : poisoned(be, ny);
        v->table(be)->output(md, nb, K, H, W, yd, acc);
        got = down(be, yd, ny);
        snprintf(what, sizeof what, "%s_output %s%s", v->name, tag, acc ? " acc" : "");
        check_same(be->name, what, got, want, ny);
        ddl_free(got);
        be->release(yd);
    }
    ddl_free(m), ddl_free(y0), ddl_free(want);
    be->release(md), be->release(vd), be->release(ud);
}

/* F(2x2)'s weight gradient's two through the table: dy's tiles, then
 * dw += G^T du G (accumulates), bit-exact. */
static void backend_wino_grads(const Backend *be, int nb, int C, int K, int H, int W, const char *tag)
{
    size_t T = (size_t)((H + 1) / 2) * ((W + 1) / 2), ny = (size_t)nb * K * H * W, nm = 16 * (size_t)K * T * nb;
    size_t nu = 16 * (size_t)K * C, nw = (size_t)K * C * 9;
    float *dy = rand_floats(ny, -1, 1), *du = rand_floats(nu, -1, 1), *dw0 = rand_floats(nw, -1, 1);
    float *want = ddl_alloc(sizeof(float) * DDL_MAX(nm, nw));
    float *dyd = up(be, dy, 4 * ny), *dmd = poisoned(be, nm), *dud = up(be, du, 4 * nu), *dwd = up(be, dw0, 4 * nw);
    char what[128];
    winograd_output_grad_cpu(dy, nb, K, H, W, want);
    W2(be)->output_grad(dyd, nb, K, H, W, dmd);
    float *got = down(be, dmd, nm);
    snprintf(what, sizeof what, "winograd_output_grad %s", tag);
    check_same(be->name, what, got, want, nm);
    ddl_free(got);
    memcpy(want, dw0, sizeof(float) * nw);
    winograd_filter_grad_cpu(du, K, C, want);
    W2(be)->filter_grad(dud, K, C, dwd);
    got = down(be, dwd, nw);
    snprintf(what, sizeof what, "winograd_filter_grad %s (accumulates)", tag);
    check_same(be->name, what, got, want, nw);
    ddl_free(got), ddl_free(dy), ddl_free(du), ddl_free(dw0), ddl_free(want);
    be->release(dyd), be->release(dmd), be->release(dud), be->release(dwd);
}

/* One shape (nb, C, K, H, W) of a variant: its transforms, and with grads
 * F(2x2)'s weight gradient's two. */
static void backend_wino_case(const Backend *be, const WinoVariant *v, const int *c, bool grads)
{
    int nb = c[0], C = c[1], K = c[2], H = c[3], W = c[4];
    size_t nx = (size_t)nb * C * H * W, nw = (size_t)K * C * 9;
    float *x = rand_floats(nx, -1, 1), *w = rand_floats(nw, -1, 1);
    float *xd = up(be, x, 4 * nx), *wd = up(be, w, 4 * nw);
    char tag[96];
    snprintf(tag, sizeof tag, "nb=%d C=%d K=%d %dx%d", nb, C, K, H, W);
    backend_wino_transforms(be, v, nb, C, K, H, W, x, w, xd, wd, tag);
    if (grads) backend_wino_grads(be, nb, C, K, H, W, tag);
    ddl_free(x), ddl_free(w);
    be->release(xd), be->release(wd);
}

/* Both variants' transforms through the table (wired to the right
 * kernels, flip and acc passed on), and F(2x2)'s weight gradient's two,
 * which both use: odd and even planes (the tiles that hang over the
 * edge), one-tile planes, several images, channel counts off 8, a plane
 * wider than the CPU's row segments of 128 tiles, and for F(4x4) many
 * small planes (the CPU stages several images' tiles per group). */
static void backend_winograd(const Backend *be)
{
    static const WinoVariant F2 = { "winograd", 2, W2, winograd_input_cpu, winograd_filter_cpu, winograd_output_cpu };
    static const WinoVariant F4 = { "winograd4", 4, W4, winograd4_input_cpu, winograd4_filter_cpu,
                                    winograd4_output_cpu };
    static const int CASES2[][5] = { /* nb, C, K, H, W */
        { 2, 3, 4, 7, 5 }, { 1, 1, 1, 2, 2 }, { 2, 3, 5, 7, 9 }, { 3, 8, 4, 4, 4 }, { 2, 16, 24, 13, 6 },
        { 1, 5, 3, 1, 3 }, { 1, 2, 3, 5, 301 }, /* 151 tiles a row: more than one of the CPU's segments */
    };
    static const int CASES4[][5] = {
        { 2, 3, 4, 7, 5 }, { 1, 1, 1, 4, 4 }, { 2, 3, 5, 7, 9 }, { 9, 8, 4, 8, 8 }, { 2, 16, 24, 13, 6 },
        { 1, 5, 3, 1, 3 }, { 3, 2, 2, 2, 2 }, { 1, 3, 2, 10, 300 },
    };
    for (size_t i = 0; i < sizeof CASES2 / sizeof CASES2[0]; i++) backend_wino_case(be, &F2, CASES2[i], true);
    for (size_t i = 0; i < sizeof CASES4 / sizeof CASES4[0]; i++) backend_wino_case(be, &F4, CASES4[i], false);
}

static void each(const Backend *be)
{
    backend_winograd(be);
}

int main(void) { return compare_main("path_winograd", each); }
