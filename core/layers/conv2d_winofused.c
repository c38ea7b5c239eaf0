/* conv2d_winofused.c - 3x3 convolutions (stride 1, padding 1, ungrouped,
 * even planes, at most WINOFUSED_MAX_C channels in and out) by Winograd
 * F(2x2,3x3) with the transforms in registers (core/cpu/conv_winofused.c):
 * the forward pass and the input gradient; the weight gradient by the
 * direct kernels (core/cpu/conv_direct.c).
 *
 * Why: on the narrow layers of the quick profile the direct kernels run
 * near the GEMM's peak, and Winograd's 16 products per 2x2 outputs and
 * input channel are 2.25x fewer than their 36; the GEMM Winograd
 * (conv2d_winograd.c) loses that saving to memory passes and short GEMMs
 * there (conv_winofused.c has the numbers). Which layers take it is
 * measured (conv2d_pick.c).
 *
 * Forward: transform the filters, split x into its 4 phases (the direct
 * kernels' stride-2 padding: every 4x4 window is then fixed offsets from
 * its tile's position), convolve into y. Backward: the weight gradient as
 * the direct path's (x and dy padded with stride 1); the input gradient
 * as the forward pass on dy's phases with the filters transformed rotated
 * and transposed. The kernels take the whole batch, unless its buffers
 * would pass CONV_CHUNK_CAP (conv2d_paths.h): then chunks of images, the weight gradient
 * added to dw chunk after chunk, in order. */
#include "conv2d_paths.h"

#include "../common.h"
#include "../cpu/winofused_layout.h"

typedef struct Dims {
    int C, K, H, W;
} Dims;

static Dims dims(const Model *m, const Layer *l)
{
    Shape in = m->tensors[l->in].shape;
    return (Dims){ in.c, l->cout, in.h, in.w };
}

static int wide(const Dims *d) { return DDL_MAX(d->C, d->K); }

/* The scratch of a chunk of nb images, after the filters: x and dy padded
 * for the weight gradient, the phases of x (forward) or dy (backward),
 * and the kernel's room for output phases. */
typedef struct Chunk {
    float *xq, *dyq, *ph, *yq;
} Chunk;

static size_t chunk_floats(const Dims *d, int nb)
{
    return direct_padded_floats(nb, d->C, d->H, d->W) + direct_padded_floats(nb, d->K, d->H, d->W) +
           winofused_input_floats(nb, wide(d), d->H, d->W) +
           4 * (size_t)wide(d) * winofused_out_channel_floats(nb, d->H / 2, d->W / 2);
}

static int chunk_images(const Dims *d, int batch) { return conv_chunk_images(chunk_floats(d, 1), batch); }

/* Transformed filters: the forward's or the input gradient's (the same
 * count: 16 x 8-padded outputs x inputs), whichever is larger. */
static size_t filter_floats(const Dims *d)
{
    return DDL_MAX(winofused_filter_floats(d->K, d->C), winofused_filter_floats(d->C, d->K));
}

static Chunk chunk_buffers(const Model *m, const Dims *d, int nb)
{
    Chunk c;
    c.xq = m->scratch + filter_floats(d);
    c.dyq = c.xq + direct_padded_floats(nb, d->C, d->H, d->W);
    c.ph = c.dyq + direct_padded_floats(nb, d->K, d->H, d->W);
    c.yq = c.ph + winofused_input_floats(nb, wide(d), d->H, d->W);
    return c;
}

size_t conv2d_winofused_size(const Model *m, const Layer *l, int max_batch)
{
    Dims d = dims(m, l);
    return filter_floats(&d) + chunk_floats(&d, chunk_images(&d, max_batch));
}

void conv2d_winofused_forward(Model *m, const Layer *l)
{
    const Backend *be = m->be;
    Dims d = dims(m, l);
    int n = m->batch, chunk = chunk_images(&d, m->max_batch);
    float *wt = m->scratch;
    Chunk c = chunk_buffers(m, &d, chunk);
    const float *x = model_tensor(m, l->in);
    float *y = model_tensor(m, l->out);
    size_t in_img = (size_t)d.C * d.H * d.W, out_img = (size_t)d.K * d.H * d.W;
    be->winofused_filter(m->params + l->param_off, d.K, d.C, false, wt);
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0);
        be->winofused_pad(x + i0 * in_img, nb, d.C, d.H, d.W, c.ph);
        be->winofused_conv(c.ph, wt, nb, d.C, d.K, d.H, d.W, c.yq, y + i0 * out_img, false);
    }
}

void conv2d_winofused_backward(Model *m, const Layer *l, float *dw, float *dx, bool acc)
{
    const Backend *be = m->be;
    Dims d = dims(m, l);
    int n = m->batch, chunk = chunk_images(&d, m->max_batch);
    float *wt = m->scratch;
    Chunk c = chunk_buffers(m, &d, chunk);
    const float *x = model_tensor(m, l->in), *dy = model_tensor_grad(m, l->out);
    size_t in_img = (size_t)d.C * d.H * d.W, out_img = (size_t)d.K * d.H * d.W;
    if (dx) be->winofused_filter(m->params + l->param_off, d.K, d.C, true, wt);
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0);
        be->direct_pad(x + i0 * in_img, nb, d.C, d.H, d.W, 1, c.xq);
        be->direct_pad(dy + i0 * out_img, nb, d.K, d.H, d.W, 1, c.dyq);
        be->direct_filter_grad(c.xq, c.dyq, nb, d.C, d.K, d.H, d.W, 1, dw);
        if (!dx) continue;
        be->winofused_pad(dy + i0 * out_img, nb, d.K, d.H, d.W, c.ph);
        be->winofused_conv(c.ph, wt, nb, d.K, d.C, d.H, d.W, c.yq, dx + i0 * in_img, acc);
    }
}
