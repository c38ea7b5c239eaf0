/* test_path_depthwise.c - the depthwise path's kernel table
 * (core/conv/path_depthwise.c, depthwise_kernels.h; its CUDA twin
 * core/cuda/depthwise.cu) on every usable backend against the CPU's:
 * forward and input gradient bit-exact (the same operations in the same
 * order), the weight gradient (a sum over n*OH*OW products, accumulated in
 * another order) within TOL_RED; with and without bias, strides 1-3,
 * padding, 3x3 and 5x5 filters. */
#include "backend_compare.h"
#include "conv/depthwise_kernels.h"

static const DepthwiseKernels *DW(const Backend *be) { return table(be, "depthwise"); }

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

static void each(const Backend *be)
{
    backend_depthwise(be);
}

int main(void) { return compare_main("path_depthwise", each); }
