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

static void each(const Backend *be)
{
    backend_winograd(be);
}

int main(void) { return compare_main("path_winograd", each); }
