/* conv2d.c - convolution as im2col + GEMM, several images per GEMM.
 *
 * Why batch images into one GEMM: deep CIFAR layers have tiny planes (VGG's
 * last convs see 2x2 pixels), and a per-image GEMM with N = 4 columns runs
 * BLAS far below peak. Putting `nb` images side by side gives N = nb*P
 * columns (target >= CONV_TARGET_COLS); the price is a reshuffle of the
 * [Cout][nb*P] result into NCHW, a memory pass that is small next to the
 * GEMM. When one image already fills the target, nb = 1 and the GEMM writes
 * straight into the output tensor. Groups are separate GEMMs over row
 * blocks of the same column matrix, except depthwise convolutions (groups =
 * in = out channels, MobileNetV2's), which one GEMM row per channel would
 * run far below peak: they go to the direct kernels of core/cpu/depthwise.c
 * and need no columns or scratch. */
#include "layers.h"

#include <string.h>
#include "../common.h"
#include "../cpu/kernels.h"
#include "../cpu/parallel.h"
#include "../gemm.h"

enum { CONV_TARGET_COLS = 4096 };
#define CONV_SCRATCH_CAP ((size_t)32 << 20) /* floats: 128 MiB */

typedef struct Geometry {
    int cin, h, w, cout, oh, ow, p, k, stride, pad, groups;
    int ckk;   /* rows of the column matrix: cin * k * k */
    int ckkg;  /* per group */
    int coutg; /* output channels per group */
} Geometry;

static Geometry geometry(const Model *m, const Layer *l)
{
    Shape in = m->tensors[l->in].shape, out = m->tensors[l->out].shape;
    Geometry g = { in.c, in.h, in.w, out.c, out.h, out.w, out.h * out.w, l->k, l->stride, l->pad, l->groups, 0, 0, 0 };
    g.ckk = in.c * l->k * l->k;
    g.ckkg = g.ckk / l->groups;
    g.coutg = out.c / l->groups;
    return g;
}

static bool is_depthwise(const Geometry *g) { return g->groups == g->cin && g->cout == g->cin; }

int conv2d_chunk(const Model *m, const Layer *l, int batch)
{
    Geometry g = geometry(m, l);
    int nb = (CONV_TARGET_COLS + g.p - 1) / g.p;
    if (nb > batch) nb = batch;
    if (nb < 1) nb = 1;
    while (nb > 1 && (size_t)(g.ckk + g.cout) * nb * g.p > CONV_SCRATCH_CAP) nb--;
    return nb;
}

size_t conv2d_scratch(const Model *m, const Layer *l, int batch)
{
    Geometry g = geometry(m, l);
    if (is_depthwise(&g)) return 0;
    int nb = conv2d_chunk(m, l, batch);
    size_t cols = (size_t)nb * g.p;
    return (size_t)g.ckk * cols + (nb > 1 ? (size_t)g.cout * cols : 0);
}

size_t conv2d_columns(const Model *m, const Layer *l, int batch)
{
    Geometry g = geometry(m, l);
    return is_depthwise(&g) ? 0 : (size_t)g.ckk * (size_t)g.p * (size_t)batch;
}

static void lower_chunk(const Geometry *g, const float *x, int nb, float *col)
{
    im2col_cpu(x, nb, g->cin, g->h, g->w, g->k, g->stride, g->pad, g->oh, g->ow, col);
}

void conv2d_forward(Model *m, const Layer *l)
{
    Geometry g = geometry(m, l);
    int n = m->batch, chunk = conv2d_chunk(m, l, m->max_batch);
    const float *x = model_tensor(m, l->in), *w = m->params + l->param_off;
    float *y = model_tensor(m, l->out);
    if (is_depthwise(&g)) {
        depthwise_forward_cpu(x, w, l->bias ? w + l->weight_count : NULL, y, n, g.cin, g.h, g.w, g.k, g.stride, g.pad,
                              g.oh, g.ow);
        return;
    }
    size_t in_img = (size_t)g.cin * g.h * g.w, out_img = (size_t)g.cout * g.p;
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0);
        size_t ld = (size_t)nb * g.p;
        /* Training keeps the columns for backward (aux), chunk after chunk. */
        bool keep = l->cache_cols && m->training;
        float *col = keep ? m->aux + l->aux_off + (size_t)g.ckk * g.p * i0 : m->scratch;
        float *out = nb > 1 ? m->scratch + (size_t)g.ckk * ld : y + i0 * out_img;
        lower_chunk(&g, x + i0 * in_img, nb, col);
        for (int gr = 0; gr < g.groups; gr++)
            gemm_f32(false, false, g.coutg, (int)ld, g.ckkg, 1.0f, w + (size_t)gr * g.coutg * g.ckkg, g.ckkg,
                     col + (size_t)gr * g.ckkg * ld, (int)ld, 0.0f, out + (size_t)gr * g.coutg * ld, (int)ld);
        if (nb > 1) /* [cout][nb*p] -> [nb][cout][p] */
            PARALLEL_FOR((size_t)nb * out_img)
            for (int i = 0; i < nb; i++)
                for (int c = 0; c < g.cout; c++)
                    memcpy(y + (i0 + i) * out_img + (size_t)c * g.p, out + (size_t)c * ld + (size_t)i * g.p,
                           sizeof(float) * g.p);
    }
    if (l->bias) bias_add_cpu(y, w + l->weight_count, n, g.cout, g.p);
}

void conv2d_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    Geometry g = geometry(m, l);
    int n = m->batch, chunk = conv2d_chunk(m, l, m->max_batch);
    const float *x = model_tensor(m, l->in), *w = m->params + l->param_off;
    const float *dy = model_tensor_grad(m, l->out);
    float *dw = m->grads + l->param_off;
    float *dx = need_dx ? model_tensor_grad(m, l->in) : NULL;
    size_t in_img = (size_t)g.cin * g.h * g.w, out_img = (size_t)g.cout * g.p;
    if (l->bias) bias_grad_cpu(dy, dw + l->weight_count, n, g.cout, g.p);
    if (is_depthwise(&g)) {
        depthwise_backward_cpu(x, dy, w, dw, dx, n, g.cin, g.h, g.w, g.k, g.stride, g.pad, g.oh, g.ow, acc_dx);
        return;
    }
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0);
        size_t ld = (size_t)nb * g.p;
        bool kept = l->cache_cols && m->training;
        /* col: the lowered input (kept from forward, or lowered again);
         * dcol: its gradient, written over col when col is scratch. */
        float *col = kept ? m->aux + l->aux_off + (size_t)g.ckk * g.p * i0 : m->scratch;
        float *dcol = m->scratch;
        const float *dyc = dy + i0 * out_img;
        if (nb > 1) { /* [nb][cout][p] -> [cout][nb*p] */
            float *t = m->scratch + (size_t)g.ckk * ld;
            PARALLEL_FOR((size_t)nb * out_img)
            for (int i = 0; i < nb; i++)
                for (int c = 0; c < g.cout; c++)
                    memcpy(t + (size_t)c * ld + (size_t)i * g.p, dyc + i * out_img + (size_t)c * g.p,
                           sizeof(float) * g.p);
            dyc = t;
        }
        if (!kept) lower_chunk(&g, x + i0 * in_img, nb, col);
        for (int gr = 0; gr < g.groups; gr++) {
            const float *dyg = dyc + (size_t)gr * g.coutg * ld;
            float *colg = col + (size_t)gr * g.ckkg * ld;
            const float *wg = w + (size_t)gr * g.coutg * g.ckkg;
            gemm_f32(false, true, g.coutg, g.ckkg, (int)ld, 1.0f, dyg, (int)ld, colg, (int)ld, 1.0f,
                     dw + (size_t)gr * g.coutg * g.ckkg, g.ckkg);
            if (dx) /* after the weight gradient, so dcol may overwrite col */
                gemm_f32(true, false, g.ckkg, (int)ld, g.coutg, 1.0f, wg, g.ckkg, dyg, (int)ld, 0.0f,
                         dcol + (size_t)gr * g.ckkg * ld, (int)ld);
        }
        if (dx) col2im_cpu(dcol, nb, g.cin, g.h, g.w, g.k, g.stride, g.pad, g.oh, g.ow, dx + i0 * in_img, acc_dx);
    }
}
