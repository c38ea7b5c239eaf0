/* conv2d_direct.c - 3x3 convolutions (padding 1, stride 1 or 2,
 * ungrouped) by the direct kernels of core/cpu/conv_direct.c: the forward
 * pass, the weight gradient and the input gradient.
 *
 * Why: with few channels im2col + GEMM spends its time moving the 9x
 * larger column matrix, not multiplying (conv_direct.c has the numbers);
 * these kernels read the input in place. Which layers take them is
 * measured (conv2d_pick.c).
 *
 * Forward: pack the filters, pad x (stride 2: split it into its 4 phases,
 * conv_direct_layout.h), convolve. Backward: pad x and dy, the weight
 * gradient from both, and the input gradient as the forward kernel run on
 * the padded dy with the filters packed rotated and transposed
 * (DIRECT_DX); with stride 2, for each phase of the input with that
 * phase's taps, all 4 in one pass over dy (DIRECT_DX_S2_ALL), then the
 * phases interleaved into dx (unphase). The kernels take the
 * whole batch at once (one parallel region each; they block for the
 * caches themselves), unless its padded x and dy would pass
 * CONV_CHUNK_CAP (conv2d_paths.h): then chunks of images, the weight gradient added to
 * dw chunk after chunk, in order. */
#include "conv2d_paths.h"

#include "../common.h"
#include "../cpu/conv_direct_layout.h"

typedef struct Dims {
    int C, K, H, W, s, Ho, Wo; /* input C x H x W, stride s, output K x Ho x Wo */
} Dims;

static Dims dims(const Model *m, const Layer *l)
{
    Shape in = m->tensors[l->in].shape;
    return (Dims){ in.c, l->cout, in.h, in.w, l->stride, direct_out(in.h, l->stride), direct_out(in.w, l->stride) };
}

/* Floats of nb images' padded x and dy, and (stride 2) their 4 phases'
 * gradients: the scratch after the filters (chunk_buffers lays it out). */
static size_t chunk_floats(const Dims *d, int nb)
{
    size_t phases = d->s == 2 ? (size_t)4 * nb * d->C * d->Ho * d->Wo : 0;
    return direct_input_floats(nb, d->C, d->H, d->W, d->s) + direct_padded_floats(nb, d->K, d->Ho, d->Wo) + phases;
}

static int chunk_images(const Dims *d, int batch) { return conv_chunk_images(chunk_floats(d, 1), batch); }

/* Packed filters: forward's, or the input gradient's (one set per phase
 * with stride 2), whichever is larger. */
static size_t filter_floats(const Dims *d)
{
    size_t dx = direct_filter_floats(d->C, d->K);
    return DDL_MAX(direct_filter_floats(d->K, d->C), d->s == 2 ? 4 * dx : dx);
}

/* The scratch of a chunk of nb images, after the filters. */
typedef struct Chunk {
    float *xq, *dyq, *dp; /* padded x, padded dy, the phases' gradients (stride 2) */
} Chunk;

static Chunk chunk_buffers(const Model *m, const Dims *d, int nb)
{
    Chunk c;
    c.xq = m->scratch + filter_floats(d);
    c.dyq = c.xq + direct_input_floats(nb, d->C, d->H, d->W, d->s);
    c.dp = c.dyq + direct_padded_floats(nb, d->K, d->Ho, d->Wo);
    return c;
}

size_t conv2d_direct_size(const Model *m, const Layer *l, int max_batch)
{
    Dims d = dims(m, l);
    return filter_floats(&d) + chunk_floats(&d, chunk_images(&d, max_batch));
}

void conv2d_direct_forward(Model *m, const Layer *l)
{
    const Backend *be = m->be;
    Dims d = dims(m, l);
    int n = m->batch, chunk = chunk_images(&d, m->max_batch), mode = d.s == 2 ? DIRECT_FWD_S2 : DIRECT_FWD;
    float *wp = m->scratch, *xq = chunk_buffers(m, &d, chunk).xq;
    const float *x = model_tensor(m, l->in);
    float *y = model_tensor(m, l->out);
    size_t in_img = (size_t)d.C * d.H * d.W, out_img = (size_t)d.K * d.Ho * d.Wo;
    be->direct_filter(m->params + l->param_off, d.K, d.C, mode, wp);
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0);
        be->direct_pad(x + i0 * in_img, nb, d.C, d.H, d.W, d.s, xq);
        be->direct_conv(xq, wp, nb, d.C, d.K, d.Ho, d.Wo, mode, y + i0 * out_img, false);
    }
}

/* The input gradient of a chunk from its padded dy: one convolution, or
 * (stride 2) one per phase of the input and the phases interleaved. */
static void input_grad(const Backend *be, const Dims *d, const float *wp, const Chunk *c, int nb, float *dx, bool acc)
{
    if (d->s == 1) {
        be->direct_conv(c->dyq, wp, nb, d->K, d->C, d->H, d->W, DIRECT_DX, dx, acc);
        return;
    }
    be->direct_conv(c->dyq, wp, nb, d->K, d->C, d->Ho, d->Wo, DIRECT_DX_S2_ALL, c->dp, false);
    be->direct_unphase(c->dp, nb, d->C, d->H, d->W, dx, acc);
}

void conv2d_direct_backward(Model *m, const Layer *l, float *dw, float *dx, bool acc)
{
    const Backend *be = m->be;
    Dims d = dims(m, l);
    int n = m->batch, chunk = chunk_images(&d, m->max_batch);
    float *wp = m->scratch;
    Chunk c = chunk_buffers(m, &d, chunk);
    const float *x = model_tensor(m, l->in), *dy = model_tensor_grad(m, l->out), *w = m->params + l->param_off;
    size_t in_img = (size_t)d.C * d.H * d.W, out_img = (size_t)d.K * d.Ho * d.Wo;
    if (dx) be->direct_filter(w, d.K, d.C, d.s == 2 ? DIRECT_DX_S2_ALL : DIRECT_DX, wp);
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0);
        be->direct_pad(x + i0 * in_img, nb, d.C, d.H, d.W, d.s, c.xq);
        be->direct_pad(dy + i0 * out_img, nb, d.K, d.Ho, d.Wo, 1, c.dyq);
        be->direct_filter_grad(c.xq, c.dyq, nb, d.C, d.K, d.Ho, d.Wo, d.s, dw);
        if (dx) input_grad(be, &d, wp, &c, nb, dx + i0 * in_img, acc);
    }
}
