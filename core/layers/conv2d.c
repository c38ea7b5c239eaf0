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
 * and need no columns or scratch. Every step runs on the model's backend:
 * the reshuffles too (images_to_channels / channels_to_images), so data
 * never leaves the device.
 *
 * Ungrouped 3x3 convolutions with stride 1 and padding 1 may run forward
 * and backward by Winograd F(2x2,3x3) instead (conv2d_winograd.c;
 * l->winograd, chosen when the model is sized, from m->conv_algo). Not
 * with FP16 GEMM operands (model_use_fp16_gemm): the transformed values
 * are no binary16 values, so casting them would round where the CPU's
 * emulation does not; such layers run im2col then. */
#include "layers.h"

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

static bool is_depthwise(const Geometry *g) { return g->groups == g->cin && g->cout == g->cin; }

/* How many images one im2col + GEMM covers (shared by forward and backward). */
static int chunk_images(const Geometry *g, int batch)
{
    int nb = (CONV_TARGET_COLS + g->p - 1) / g->p;
    if (nb > batch) nb = batch;
    if (nb < 1) nb = 1;
    while (nb > 1 && (size_t)(g->ckk + g->cout) * nb * g->p > CONV_SCRATCH_CAP) nb--;
    return nb;
}

/* Winograd layers keep no columns: they never lower their input. */
size_t conv2d_columns(const Model *m, const Layer *l, int batch)
{
    Geometry g = geometry(m, l);
    if (is_depthwise(&g) || conv2d_winograd_pick(m, l)) return 0;
    return (size_t)g.ckk * (size_t)g.p * (size_t)batch;
}

/* Scratch: one chunk's columns, and its [cout][nb*p] GEMM result when the
 * chunk has several images; for Winograd layers at least Winograd's (and
 * still the columns: with FP16 GEMM operands they run im2col). Aux: the
 * whole batch's columns when cached. */
size_t conv2d_size(const Model *m, Layer *l, int max_batch, bool cache_cols)
{
    Geometry g = geometry(m, l);
    l->winograd = !is_depthwise(&g) && conv2d_winograd_pick(m, l);
    l->cache_cols = cache_cols && !l->winograd;
    l->aux_count = l->cache_cols ? conv2d_columns(m, l, max_batch) : 0;
    if (is_depthwise(&g)) return 0;
    int nb = chunk_images(&g, max_batch);
    size_t cols = (size_t)nb * g.p;
    size_t need = (size_t)g.ckk * cols + (nb > 1 ? (size_t)g.cout * cols : 0);
    return l->winograd ? DDL_MAX(need, conv2d_winograd_size(m, l, max_batch)) : need;
}

static bool use_winograd(const Model *m, const Layer *l) { return l->winograd && !m->params16; }

void conv2d_init(const Model *m, const Layer *l, float *params, float *state, uint64_t seed, uint64_t *stream)
{
    (void)state;
    init_weights(params + l->param_off, l->weight_count, l->param_count - l->weight_count, l->cout,
                 l->cout * l->k * l->k, m->conv_init == INIT_KAIMING_OUT ? INIT_KAIMING_OUT : INIT_TORCH_DEFAULT,
                 seed, stream);
}

static void lower_chunk(const Model *m, const Geometry *g, const float *x, int nb, float *col)
{
    m->be->im2col(x, nb, g->cin, g->h, g->w, g->k, g->stride, g->pad, g->oh, g->ow, col);
}

void conv2d_forward(Model *m, const Layer *l)
{
    const Backend *be = m->be;
    Geometry g = geometry(m, l);
    int n = m->batch, chunk = chunk_images(&g, m->max_batch);
    const float *x = model_tensor(m, l->in), *w = m->params + l->param_off;
    float *y = model_tensor(m, l->out);
    if (is_depthwise(&g)) {
        be->depthwise_forward(x, w, l->bias ? w + l->weight_count : NULL, y, n, g.cin, g.h, g.w, g.k, g.stride, g.pad,
                              g.oh, g.ow);
        return;
    }
    size_t in_img = (size_t)g.cin * g.h * g.w, out_img = (size_t)g.cout * g.p;
    if (use_winograd(m, l)) {
        conv2d_winograd_forward(m, l);
        if (l->bias) be->bias_add(y, w + l->weight_count, n, g.cout, g.p);
        return;
    }
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
        if (nb > 1) be->channels_to_images(out, nb, g.cout, g.p, y + i0 * out_img);
    }
    if (l->bias) be->bias_add(y, w + l->weight_count, n, g.cout, g.p);
}

void conv2d_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    const Backend *be = m->be;
    Geometry g = geometry(m, l);
    int n = m->batch, chunk = chunk_images(&g, m->max_batch);
    const float *x = model_tensor(m, l->in), *w = m->params + l->param_off;
    const float *dy = model_tensor_grad(m, l->out);
    float *dw = m->grads + l->param_off;
    float *dx = need_dx ? model_tensor_grad(m, l->in) : NULL;
    size_t in_img = (size_t)g.cin * g.h * g.w, out_img = (size_t)g.cout * g.p;
    if (l->bias) be->bias_grad(dy, dw + l->weight_count, n, g.cout, g.p);
    if (is_depthwise(&g)) {
        be->depthwise_backward(x, dy, w, dw, dx, n, g.cin, g.h, g.w, g.k, g.stride, g.pad, g.oh, g.ow, acc_dx);
        return;
    }
    if (use_winograd(m, l)) { /* one after the other: they share the scratch */
        conv2d_winograd_dw(m, l, dw);
        if (dx) conv2d_winograd_dx(m, l, dx, acc_dx);
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
