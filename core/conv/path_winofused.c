/* path_winofused.c - 3x3 convolutions (stride 1, padding 1, ungrouped,
 * even planes, at most WINOFUSED_MAX_C channels in and out) by Winograd
 * F(2x2,3x3) with the transforms in registers (conv_winofused.c): the
 * forward pass and the input gradient; the weight gradient by the direct
 * kernels (conv_direct.c).
 *
 * Why: on the narrow layers of the quick profile the direct kernels run
 * near the GEMM's peak, and Winograd's 16 products per 2x2 outputs and
 * input channel are 2.25x fewer than their 36; the GEMM Winograd
 * (path_winograd.c) loses that saving to memory passes and short GEMMs
 * there (conv_winofused.c has the numbers). Which layers take it is
 * measured (pick.c).
 *
 * Forward: transform the filters, split x into its 4 phases (the direct
 * kernels' stride-2 padding: every 4x4 window is then fixed offsets from
 * its tile's position), convolve into y. Backward: the weight gradient as
 * the direct path's (x and dy padded with stride 1); the input gradient
 * as the forward pass on dy's phases with the filters transformed rotated
 * and transposed. The kernels take the whole batch, unless its buffers
 * would pass CONV_CHUNK_CAP (paths.h): then chunks of images, the weight
 * gradient added to dw chunk after chunk, in order. */
#include "paths.h"

#include "kernels_cpu.h"
#include "direct_kernels.h"
#include "winofused_kernels.h"

CONV_PATH_CODE(winofused);

/* The CPU's table (conv_winofused.c, and the direct kernels' weight
 * gradient, conv_direct.c; the CUDA twin's: conv_winofused.cu). */
const WinofusedKernels winofused_kernels_cpu = {
    .pad = winofused_pad_cpu, .filter = winofused_filter_cpu, .conv = winofused_conv_cpu,
    .grad_pad = direct_pad_cpu, .filter_grad = direct_filter_grad_cpu,
};

#include "../util/common.h"

typedef struct Dims {
    int C, K, H, W;
} Dims;

/* Whole 2x2 tiles (even planes), and at most WINOFUSED_MAX_C channels in
 * and out (the input gradient's input is the layer's output). */
bool winofused_fits(const ConvShape *s)
{
    return s->k == 3 && s->stride == 1 && s->pad == 1 && s->groups == 1 && s->h % 2 == 0 && s->w % 2 == 0 &&
           s->cin <= WINOFUSED_MAX_C && s->cout <= WINOFUSED_MAX_C;
}

static Dims dims(const ConvShape *s) { return (Dims){ s->cin, s->cout, s->h, s->w }; }

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

static Chunk chunk_buffers(float *scratch, const Dims *d, int nb)
{
    Chunk c;
    c.xq = scratch + filter_floats(d);
    c.dyq = c.xq + direct_padded_floats(nb, d->C, d->H, d->W);
    c.ph = c.dyq + direct_padded_floats(nb, d->K, d->H, d->W);
    c.yq = c.ph + winofused_input_floats(nb, wide(d), d->H, d->W);
    return c;
}

size_t winofused_scratch(const void *kt, const ConvShape *s, int max_batch)
{
    Dims d = dims(s);
    return filter_floats(&d) + chunk_floats(&d, chunk_images(&d, max_batch));
}

/* What forward and backward share: the shape, the images per chunk, the
 * transformed filters (at the scratch's start), the chunk's buffers and
 * an image's floats in and out. */
typedef struct Setup {
    Dims d;
    int chunk;
    float *wt;
    Chunk c;
    size_t in_img, out_img;
} Setup;

static Setup setup(const ConvRun *r)
{
    Setup u = { .d = dims(&r->s), .wt = r->scratch };
    u.chunk = chunk_images(&u.d, r->max_batch);
    u.c = chunk_buffers(r->scratch, &u.d, u.chunk);
    u.in_img = (size_t)u.d.C * u.d.H * u.d.W;
    u.out_img = (size_t)u.d.K * u.d.H * u.d.W;
    return u;
}

void winofused_forward(const ConvRun *r, const void *kt)
{
    const WinofusedKernels *k = kt;
    Setup u = setup(r);
    const Dims *d = &u.d;
    k->filter(r->w, d->K, d->C, false, u.wt);
    for (int i0 = 0; i0 < r->batch; i0 += u.chunk) {
        int nb = DDL_MIN(u.chunk, r->batch - i0);
        k->pad(r->x + i0 * u.in_img, nb, d->C, d->H, d->W, u.c.ph);
        k->conv(u.c.ph, u.wt, nb, d->C, d->K, d->H, d->W, u.c.yq, r->y + i0 * u.out_img, false);
    }
}

void winofused_backward(const ConvRun *r, const void *kt)
{
    const WinofusedKernels *k = kt;
    Setup u = setup(r);
    const Dims *d = &u.d;
    if (r->dx) k->filter(r->w, d->K, d->C, true, u.wt);
    for (int i0 = 0; i0 < r->batch; i0 += u.chunk) {
        int nb = DDL_MIN(u.chunk, r->batch - i0);
        const float *dy = r->dy + i0 * u.out_img;
        k->grad_pad(r->x + i0 * u.in_img, nb, d->C, d->H, d->W, 1, u.c.xq);
        k->grad_pad(dy, nb, d->K, d->H, d->W, 1, u.c.dyq);
        k->filter_grad(u.c.xq, u.c.dyq, nb, d->C, d->K, d->H, d->W, 1, r->dw);
        if (!r->dx) continue;
        k->pad(dy, nb, d->K, d->H, d->W, u.c.ph);
        k->conv(u.c.ph, u.wt, nb, d->K, d->C, d->H, d->W, u.c.yq, r->dx + i0 * u.in_img, r->acc);
    }
}
