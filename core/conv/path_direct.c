/* path_direct.c - 3x3 convolutions (padding 1, stride 1 or 2,
 * ungrouped) by the direct kernels of conv_direct.c: the forward pass,
 * the weight gradient and the input gradient.
 *
 * Why: with few channels im2col + GEMM spends its time moving the 9x
 * larger column matrix, not multiplying (conv_direct.c has the numbers);
 * these kernels read the input in place. Which layers take them is
 * measured (pick.c).
 *
 * Forward: pack the filters, pad x (stride 2: split it into its 4 phases,
 * direct_kernels.h), convolve. Backward: pad x and dy, the weight
 * gradient from both, and the input gradient as the forward kernel run on
 * the padded dy with the filters packed rotated and transposed
 * (DIRECT_DX); with stride 2, for each phase of the input with that
 * phase's taps, all 4 in one pass over dy (DIRECT_DX_S2_ALL), then the
 * phases interleaved into dx (unphase). The kernels take the
 * whole batch at once (one parallel region each; they block for the
 * caches themselves), unless its padded x and dy would pass
 * CONV_CHUNK_CAP (paths.h): then chunks of images, the weight gradient
 * added to dw chunk after chunk, in order. */
#include "paths.h"

#include "direct_kernels.h"
#include "kernels_cpu.h"

CONV_PATH_CODE(direct);

/* The CPU's table (conv_direct.c; the CUDA twin's: conv_direct.cu). */
const DirectKernels direct_kernels_cpu = {
    .pad = direct_pad_cpu, .filter = direct_filter_cpu, .conv = direct_conv_cpu,
    .filter_grad = direct_filter_grad_cpu, .unphase = direct_unphase_cpu,
};

#include "../util/common.h"

typedef struct Dims {
    int C, K, H, W, s, Ho, Wo; /* input C x H x W, stride s, output K x Ho x Wo */
} Dims;

bool direct_fits(const ConvShape *s)
{
    return s->k == 3 && s->pad == 1 && s->groups == 1 && (s->stride == 1 || s->stride == 2);
}

static Dims dims(const ConvShape *s)
{
    return (Dims){ s->cin, s->cout, s->h, s->w, s->stride, direct_out(s->h, s->stride), direct_out(s->w, s->stride) };
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

static Chunk chunk_buffers(float *scratch, const Dims *d, int nb)
{
    Chunk c;
    c.xq = scratch + filter_floats(d);
    c.dyq = c.xq + direct_input_floats(nb, d->C, d->H, d->W, d->s);
    c.dp = c.dyq + direct_padded_floats(nb, d->K, d->Ho, d->Wo);
    return c;
}

size_t direct_scratch(const void *kt, const ConvShape *s, int max_batch)
{
    Dims d = dims(s);
    return filter_floats(&d) + chunk_floats(&d, chunk_images(&d, max_batch));
}

void direct_forward(const ConvRun *r, const void *kt)
{
    const DirectKernels *k = kt;
    Dims d = dims(&r->s);
    int n = r->batch, chunk = chunk_images(&d, r->max_batch), mode = d.s == 2 ? DIRECT_FWD_S2 : DIRECT_FWD;
    float *wp = r->scratch, *xq = chunk_buffers(r->scratch, &d, chunk).xq;
    size_t in_img = (size_t)d.C * d.H * d.W, out_img = (size_t)d.K * d.Ho * d.Wo;
    k->filter(r->w, d.K, d.C, mode, wp);
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0);
        k->pad(r->x + i0 * in_img, nb, d.C, d.H, d.W, d.s, xq);
        k->conv(xq, wp, nb, d.C, d.K, d.Ho, d.Wo, mode, r->y + i0 * out_img, false);
    }
}

/* The input gradient of a chunk from its padded dy: one convolution, or
 * (stride 2) one per phase of the input and the phases interleaved. */
static void input_grad(const DirectKernels *k, const Dims *d, const float *wp, const Chunk *c, int nb, float *dx,
                       bool acc)
{
    if (d->s == 1) {
        k->conv(c->dyq, wp, nb, d->K, d->C, d->H, d->W, DIRECT_DX, dx, acc);
        return;
    }
    k->conv(c->dyq, wp, nb, d->K, d->C, d->Ho, d->Wo, DIRECT_DX_S2_ALL, c->dp, false);
    k->unphase(c->dp, nb, d->C, d->H, d->W, dx, acc);
}

void direct_backward(const ConvRun *r, const void *kt)
{
    const DirectKernels *k = kt;
    Dims d = dims(&r->s);
    int n = r->batch, chunk = chunk_images(&d, r->max_batch);
    float *wp = r->scratch;
    Chunk c = chunk_buffers(r->scratch, &d, chunk);
    size_t in_img = (size_t)d.C * d.H * d.W, out_img = (size_t)d.K * d.Ho * d.Wo;
    if (r->dx) k->filter(r->w, d.K, d.C, d.s == 2 ? DIRECT_DX_S2_ALL : DIRECT_DX, wp);
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0);
        k->pad(r->x + i0 * in_img, nb, d.C, d.H, d.W, d.s, c.xq);
        k->pad(r->dy + i0 * out_img, nb, d.K, d.Ho, d.Wo, 1, c.dyq);
        k->filter_grad(c.xq, c.dyq, nb, d.C, d.K, d.Ho, d.Wo, d.s, r->dw);
        if (r->dx) input_grad(k, &d, wp, &c, nb, r->dx + i0 * in_img, r->acc);
    }
}
