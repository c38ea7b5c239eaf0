/* conv2d_direct.c - 3x3 convolutions (stride 1, padding 1, ungrouped) by
 * the direct kernels of core/cpu/conv_direct.c: the forward pass, the
 * weight gradient and the input gradient.
 *
 * Why: with few channels im2col + GEMM spends its time moving the 9x
 * larger column matrix, not multiplying (conv_direct.c has the numbers);
 * these kernels read the input in place. Which layers take them is
 * measured (conv2d_pick.c).
 *
 * Forward: pack the filters, pad x, convolve. Backward: pad x and dy, the
 * weight gradient from both, and the input gradient as the forward kernel
 * run on the padded dy with the filters packed rotated and transposed
 * (direct_filter's flip). The kernels take the whole batch at once (one
 * parallel region each; they block for the caches themselves), unless its
 * padded x and dy would pass DIRECT_SCRATCH_CAP: then chunks of images,
 * the weight gradient added to dw chunk after chunk, in order. */
#include "conv2d_paths.h"

#include "../common.h"
#include "../cpu/conv_direct_layout.h"

/* Padded x and dy of one chunk, at most: 64 MiB. Measured on the dev VM
 * (bin/bench/conv_algo, batch 64, 2 threads, twice), chunks of 1 MiB (the
 * L2 of a core) took 5-10% longer than the whole batch on 16 channels at
 * 32x32 and 14% on 64 (more, shorter parallel regions; the kernels keep
 * their working sets in cache on their own). */
#define DIRECT_SCRATCH_CAP ((size_t)16 << 20)

typedef struct Dims {
    int C, K, H, W;
} Dims;

static Dims dims(const Model *m, const Layer *l)
{
    Shape in = m->tensors[l->in].shape;
    return (Dims){ in.c, l->cout, in.h, in.w };
}

static int chunk_images(const Dims *d, int batch)
{
    size_t per = (size_t)(d->C + d->K) * direct_channel_floats(1, d->H, d->W);
    int nb = (int)(DIRECT_SCRATCH_CAP / per);
    return DDL_MAX(1, DDL_MIN(nb, batch));
}

/* Packed filters (forward's or the input gradient's, whichever is larger),
 * then a chunk's padded x and padded dy. */
static size_t filter_floats(const Dims *d)
{
    return DDL_MAX(direct_filter_floats(d->K, d->C), direct_filter_floats(d->C, d->K));
}

size_t conv2d_direct_size(const Model *m, const Layer *l, int max_batch)
{
    Dims d = dims(m, l);
    int nb = chunk_images(&d, max_batch);
    return filter_floats(&d) + direct_padded_floats(nb, d.C, d.H, d.W) + direct_padded_floats(nb, d.K, d.H, d.W);
}

void conv2d_direct_forward(Model *m, const Layer *l)
{
    const Backend *be = m->be;
    Dims d = dims(m, l);
    int n = m->batch, chunk = chunk_images(&d, m->max_batch);
    float *wp = m->scratch, *xq = wp + filter_floats(&d);
    const float *x = model_tensor(m, l->in);
    float *y = model_tensor(m, l->out);
    size_t in_img = (size_t)d.C * d.H * d.W, out_img = (size_t)d.K * d.H * d.W;
    be->direct_filter(m->params + l->param_off, d.K, d.C, false, wp);
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0);
        be->direct_pad(x + i0 * in_img, nb, d.C, d.H, d.W, xq);
        be->direct_conv(xq, wp, nb, d.C, d.K, d.H, d.W, y + i0 * out_img, false);
    }
}

void conv2d_direct_backward(Model *m, const Layer *l, float *dw, float *dx, bool acc)
{
    const Backend *be = m->be;
    Dims d = dims(m, l);
    int n = m->batch, chunk = chunk_images(&d, m->max_batch);
    float *wp = m->scratch, *xq = wp + filter_floats(&d);
    float *dyq = xq + direct_padded_floats(chunk, d.C, d.H, d.W);
    const float *x = model_tensor(m, l->in), *dy = model_tensor_grad(m, l->out);
    size_t in_img = (size_t)d.C * d.H * d.W, out_img = (size_t)d.K * d.H * d.W;
    if (dx) be->direct_filter(m->params + l->param_off, d.K, d.C, true, wp);
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0);
        be->direct_pad(x + i0 * in_img, nb, d.C, d.H, d.W, xq);
        be->direct_pad(dy + i0 * out_img, nb, d.K, d.H, d.W, dyq);
        be->direct_filter_grad(xq, dyq, nb, d.C, d.K, d.H, d.W, dw);
        if (dx) be->direct_conv(dyq, wp, nb, d.K, d.C, d.H, d.W, dx + i0 * in_img, acc);
    }
}
