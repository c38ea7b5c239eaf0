/* conv2d.c - the convolution layer: its table of paths, and the
 * reference path, im2col + GEMM over several images per GEMM.
 *
 * Paths (conv2d_paths.h; which one a layer takes is chosen when the model
 * is sized, by conv2d_pick.c; conv2d_algo_summary says, for outputs, how
 * they ran):
 *   im2col     every convolution; the reference the others are tested
 *              against, and what students read;
 *   winograd   3x3, stride 1, padding 1, ungrouped: Winograd F(2x2,3x3)
 *              (conv2d_winograd.c), for wide layers;
 *   winograd4  the same shapes: Winograd F(4x4,3x3) (the same file), for
 *              wider ones;
 *   direct     the same shapes: direct 3x3 kernels (conv2d_direct.c), for
 *              layers with few channels;
 *   depthwise  groups = in = out channels (MobileNetV2's): the direct
 *              kernels of core/cpu/depthwise.c, which need no columns or
 *              scratch (one GEMM row per channel would run far below peak);
 *   pointwise  1x1, stride 1, ungrouped (MobileNetV2's expand and project
 *              layers): kernels on NCHW (conv2d_pointwise.c), no lowering,
 *              for wide planes.
 * With FP16 GEMM operands (model_use_fp16_gemm) winograd, winograd4, direct and
 * pointwise layers run im2col: their kernels are FP32 and the transformed values of
 * Winograd are no binary16 values, so casting them would round where the
 * CPU's emulation does not. Every step of every path runs on the model's
 * backend, so data never leaves the device. The bias is added (and its
 * gradient taken) here, the same for every path, except that the
 * depthwise kernel starts its sums from the bias.
 *
 * Why im2col batches images into one GEMM: deep CIFAR layers have tiny
 * planes (VGG's last convs see 2x2 pixels), and a per-image GEMM with N = 4
 * columns runs BLAS far below peak. Putting `nb` images side by side gives
 * N = nb*P columns (target >= CONV_TARGET_COLS); the price is a reshuffle
 * of the [Cout][nb*P] result into NCHW, a memory pass that is small next
 * to the GEMM. When one image already fills the target, nb = 1 and the
 * GEMM writes straight into the output tensor. Groups are separate GEMMs
 * over row blocks of the same column matrix. */
#include "conv2d_paths.h"

#include <stdio.h>

#include "../common.h"

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

/* How many images one im2col + GEMM covers (shared by forward and backward). */
static int chunk_images(const Geometry *g, int batch)
{
    int nb = (CONV_TARGET_COLS + g->p - 1) / g->p;
    if (nb > batch) nb = batch;
    if (nb < 1) nb = 1;
    while (nb > 1 && (size_t)(g->ckk + g->cout) * nb * g->p > CONV_SCRATCH_CAP) nb--;
    return nb;
}

/* ---- im2col + GEMM ---- */

/* One chunk's columns, and its [cout][nb*p] GEMM result when the chunk has
 * several images. Aux (the whole batch's columns, when cached) is set by
 * conv2d_size. */
static size_t im2col_size(const Model *m, const Layer *l, int max_batch)
{
    Geometry g = geometry(m, l);
    int nb = chunk_images(&g, max_batch);
    size_t cols = (size_t)nb * g.p;
    return (size_t)g.ckk * cols + (nb > 1 ? (size_t)g.cout * cols : 0);
}

static void lower_chunk(const Model *m, const Geometry *g, const float *x, int nb, float *col)
{
    m->be->im2col(x, nb, g->cin, g->h, g->w, g->k, g->stride, g->pad, g->oh, g->ow, col);
}

static void im2col_forward(Model *m, const Layer *l)
{
    Geometry g = geometry(m, l);
    int n = m->batch, chunk = chunk_images(&g, m->max_batch);
    const float *x = model_tensor(m, l->in), *w = m->params + l->param_off;
    float *y = model_tensor(m, l->out);
    size_t in_img = (size_t)g.cin * g.h * g.w, out_img = (size_t)g.cout * g.p;
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0);
        size_t ld = (size_t)nb * g.p;
        /* Training keeps the columns for backward (aux), chunk after chunk. */
        bool keep = l->cache_cols && m->training;
        float *col = keep ? m->aux + l->aux_off + (size_t)g.ckk * g.p * i0 : m->scratch;
        float *out = nb > 1 ? m->scratch + (size_t)g.ckk * ld : y + i0 * out_img;
        lower_chunk(m, &g, x + i0 * in_img, nb, col);
        for (int gr = 0; gr < g.groups; gr++)
            layer_gemm(m, false, false, g.coutg, (int)ld, g.ckkg, 1.0f, w + (size_t)gr * g.coutg * g.ckkg, g.ckkg,
                       col + (size_t)gr * g.ckkg * ld, (int)ld, 0.0f, out + (size_t)gr * g.coutg * ld, (int)ld);
        if (nb > 1) m->be->channels_to_images(out, nb, g.cout, g.p, y + i0 * out_img);
    }
}

static void im2col_backward(Model *m, const Layer *l, float *dw, float *dx, bool acc_dx)
{
    const Backend *be = m->be;
    Geometry g = geometry(m, l);
    int n = m->batch, chunk = chunk_images(&g, m->max_batch);
    const float *x = model_tensor(m, l->in), *w = m->params + l->param_off;
    const float *dy = model_tensor_grad(m, l->out);
    size_t in_img = (size_t)g.cin * g.h * g.w, out_img = (size_t)g.cout * g.p;
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0);
        size_t ld = (size_t)nb * g.p;
        bool kept = l->cache_cols && m->training;
        /* col: the lowered input (kept from forward, or lowered again);
         * dcol: its gradient, written over col when col is scratch. */
        float *col = kept ? m->aux + l->aux_off + (size_t)g.ckk * g.p * i0 : m->scratch;
        float *dcol = m->scratch;
        const float *dyc = dy + i0 * out_img;
        if (nb > 1) {
            float *t = m->scratch + (size_t)g.ckk * ld;
            be->images_to_channels(dyc, nb, g.cout, g.p, t);
            dyc = t;
        }
        if (!kept) lower_chunk(m, &g, x + i0 * in_img, nb, col);
        for (int gr = 0; gr < g.groups; gr++) {
            const float *dyg = dyc + (size_t)gr * g.coutg * ld;
            float *colg = col + (size_t)gr * g.ckkg * ld;
            const float *wg = w + (size_t)gr * g.coutg * g.ckkg;
            layer_gemm(m, false, true, g.coutg, g.ckkg, (int)ld, 1.0f, dyg, (int)ld, colg, (int)ld, 1.0f,
                       dw + (size_t)gr * g.coutg * g.ckkg, g.ckkg);
            if (dx) /* after the weight gradient, so dcol may overwrite col */
                layer_gemm(m, true, false, g.ckkg, (int)ld, g.coutg, 1.0f, wg, g.ckkg, dyg, (int)ld, 0.0f,
                           dcol + (size_t)gr * g.ckkg * ld, (int)ld);
        }
        if (dx) be->col2im(dcol, nb, g.cin, g.h, g.w, g.k, g.stride, g.pad, g.oh, g.ow, dx + i0 * in_img, acc_dx);
    }
}

/* ---- depthwise: core/cpu/depthwise.c, no scratch ---- */

static size_t depthwise_size(const Model *m, const Layer *l, int max_batch)
{
    (void)m, (void)l, (void)max_batch;
    return 0;
}

static void depthwise_forward(Model *m, const Layer *l)
{
    Geometry g = geometry(m, l);
    const float *w = m->params + l->param_off;
    m->be->depthwise_forward(model_tensor(m, l->in), w, l->bias ? w + l->weight_count : NULL, model_tensor(m, l->out),
                             m->batch, g.cin, g.h, g.w, g.k, g.stride, g.pad, g.oh, g.ow);
}

static void depthwise_backward(Model *m, const Layer *l, float *dw, float *dx, bool acc_dx)
{
    Geometry g = geometry(m, l);
    m->be->depthwise_backward(model_tensor(m, l->in), model_tensor_grad(m, l->out), m->params + l->param_off, dw,
                              dx, m->batch, g.cin, g.h, g.w, g.k, g.stride, g.pad, g.oh, g.ow, acc_dx);
}

/* ---- the table ---- */

static const ConvPathOps PATHS[CONV_PATH_COUNT] = {
    [CONV_PATH_IM2COL] = { "im2col + GEMM", false, false, im2col_size, im2col_forward, im2col_backward },
    [CONV_PATH_WINOGRAD] = { "Winograd F(2x2,3x3)", false, true, conv2d_winograd_size, conv2d_winograd_forward,
                             conv2d_winograd_backward },
    [CONV_PATH_DIRECT] = { "direct 3x3", false, true, conv2d_direct_size, conv2d_direct_forward,
                           conv2d_direct_backward },
    /* the kernel starts each sum from the bias */
    [CONV_PATH_DEPTHWISE] = { "depthwise", true, false, depthwise_size, depthwise_forward, depthwise_backward },
    [CONV_PATH_WINOGRAD4] = { "Winograd F(4x4,3x3)", false, true, conv2d_winograd4_size, conv2d_winograd4_forward,
                              conv2d_winograd4_backward },
    [CONV_PATH_POINTWISE] = { "pointwise 1x1", false, true, conv2d_pointwise_size, conv2d_pointwise_forward,
                              conv2d_pointwise_backward },
    [CONV_PATH_WINOFUSED] = { "fused Winograd F(2x2,3x3)", false, true, conv2d_winofused_size,
                              conv2d_winofused_forward, conv2d_winofused_backward },
};

/* The path a layer runs now: its own, unless FP16 GEMM operands send it to
 * im2col (see the top). */
static const ConvPathOps *path_now(const Model *m, const Layer *l)
{
    const ConvPathOps *p = &PATHS[l->conv_path];
    return m->params16 && p->fp32_only ? &PATHS[CONV_PATH_IM2COL] : p;
}

/* Only im2col layers keep columns. */
size_t conv2d_columns(const Model *m, const Layer *l, int batch)
{
    if (conv2d_pick_path(m, l) != CONV_PATH_IM2COL) return 0;
    Geometry g = geometry(m, l);
    return (size_t)g.ckk * (size_t)g.p * (size_t)batch;
}

/* Scratch: the path's; an FP32-only path also fits im2col's, which it
 * runs with FP16 GEMM operands. Aux: the whole batch's columns when
 * cached. */
size_t conv2d_size(const Model *m, Layer *l, int max_batch, bool cache_cols)
{
    l->conv_path = conv2d_pick_path(m, l);
    bool lowers = l->conv_path == CONV_PATH_IM2COL;
    l->cache_cols = cache_cols && lowers;
    l->aux_count = l->cache_cols ? conv2d_columns(m, l, max_batch) : 0;
    size_t need = PATHS[l->conv_path].size(m, l, max_batch);
    if (PATHS[l->conv_path].fp32_only) need = DDL_MAX(need, im2col_size(m, l, max_batch));
    return need;
}

void conv2d_init(const Model *m, const Layer *l, float *params, float *state, uint64_t seed, uint64_t *stream)
{
    (void)state;
    init_weights(params + l->param_off, l->weight_count, l->param_count - l->weight_count, l->cout,
                 l->cout * l->k * l->k, m->conv_init == INIT_KAIMING_OUT ? INIT_KAIMING_OUT : INIT_TORCH_DEFAULT,
                 seed, stream);
}

void conv2d_forward(Model *m, const Layer *l)
{
    const ConvPathOps *p = path_now(m, l);
    p->forward(m, l);
    if (l->bias && !p->adds_bias) {
        Geometry g = geometry(m, l);
        m->be->bias_add(model_tensor(m, l->out), m->params + l->param_off + l->weight_count, m->batch, g.cout, g.p);
    }
}

void conv2d_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    float *dw = m->grads + l->param_off;
    if (l->bias) {
        Geometry g = geometry(m, l);
        m->be->bias_grad(model_tensor_grad(m, l->out), dw + l->weight_count, m->batch, g.cout, g.p);
    }
    path_now(m, l)->backward(m, l, dw, need_dx ? model_tensor_grad(m, l->in) : NULL, acc_dx);
}

/* For outputs: "13 of 20 convolutions by Winograd F(2x2,3x3), 2 Winograd
 * F(4x4,3x3), 2 fused Winograd F(2x2,3x3), 4 direct 3x3, 0 depthwise, 0
 * pointwise 1x1, the rest im2col + GEMM (DDL_CONV=auto)", counting the paths the layers run now (with
 * FP16 GEMM operands, im2col). */
void conv2d_algo_summary(const Model *m, char *buf, size_t cap)
{
    int convs = 0, count[CONV_PATH_COUNT] = { 0 };
    for (int i = 0; i < m->nlayers; i++) {
        const Layer *l = &m->layers[i];
        if (l->kind != LAYER_CONV2D) continue;
        convs++;
        count[path_now(m, l) - PATHS]++;
    }
    snprintf(buf, cap, "%d of %d convolutions by %s, %d %s, %d %s, %d %s, %d %s, %d %s, the rest %s (DDL_CONV=%s)",
             count[CONV_PATH_WINOGRAD], convs, PATHS[CONV_PATH_WINOGRAD].name, count[CONV_PATH_WINOGRAD4],
             PATHS[CONV_PATH_WINOGRAD4].name, count[CONV_PATH_WINOFUSED], PATHS[CONV_PATH_WINOFUSED].name,
             count[CONV_PATH_DIRECT], PATHS[CONV_PATH_DIRECT].name,
             count[CONV_PATH_DEPTHWISE], PATHS[CONV_PATH_DEPTHWISE].name, count[CONV_PATH_POINTWISE],
             PATHS[CONV_PATH_POINTWISE].name, PATHS[CONV_PATH_IM2COL].name, conv_algo_name(m->conv_algo));
}
