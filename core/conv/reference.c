/* reference.c - the reference convolution: im2col + GEMM over several
 * images per GEMM. Every convolution can run this way; the other paths
 * are checked against it (tests/test_conv_paths.c), and --conv reference
 * runs every convolution here. Start reading the wing here.
 *
 * Forward, per chunk of nb images: im2col lowers x into the column
 * matrix col[C*k*k][nb*OH*OW] (one column per output pixel, holding the
 * k x k patch of every input channel it sees), then one GEMM per group
 * computes y = w[cout][C*k*k] x col. Backward: the weight gradient is
 * dy x col^T, the input gradient col2im(w^T x dy), col2im being im2col's
 * adjoint (it scatters each column back onto the pixels it came from).
 *
 * Why several images per GEMM: deep CIFAR layers have tiny planes (VGG's
 * last convs see 2x2 pixels), and a per-image GEMM with N = 4 columns
 * runs BLAS far below peak. Putting nb images side by side gives
 * N = nb*P columns (target >= TARGET_COLS); the price is a reshuffle of
 * the [cout][nb*P] result into NCHW (channels_to_images), a memory pass
 * that is small next to the GEMM. When one image already fills the
 * target, nb = 1 and the GEMM writes straight into y. Groups are separate
 * GEMMs over row blocks of the same column matrix. Training keeps the
 * columns from forward for backward when the caller gives room (r->cols),
 * which saves lowering the input again. */
#include "paths.h"

#include "../util/common.h"

enum { TARGET_COLS = 4096 };
#define SCRATCH_CAP ((size_t)32 << 20) /* floats: 128 MiB */

typedef struct Dims {
    int p;     /* output pixels per image */
    int ckk;   /* rows of the column matrix: cin * k * k */
    int ckkg;  /* per group */
    int coutg; /* output channels per group */
} Dims;

static Dims dims(const ConvShape *s)
{
    Dims d = { s->oh * s->ow, s->cin * s->k * s->k, 0, s->cout / s->groups };
    d.ckkg = d.ckk / s->groups;
    return d;
}

/* How many images one im2col + GEMM covers (shared by forward and backward). */
static int chunk_images(const ConvShape *s, int batch)
{
    Dims d = dims(s);
    int nb = (TARGET_COLS + d.p - 1) / d.p;
    if (nb > batch) nb = batch;
    if (nb < 1) nb = 1;
    while (nb > 1 && (size_t)(d.ckk + s->cout) * nb * d.p > SCRATCH_CAP) nb--;
    return nb;
}

/* One chunk's columns, and its [cout][nb*p] GEMM result when the chunk
 * has several images. */
size_t reference_scratch(const void *kt, const ConvShape *s, int max_batch)
{
    Dims d = dims(s);
    int nb = chunk_images(s, max_batch);
    size_t cols = (size_t)nb * d.p;
    return (size_t)d.ckk * cols + (nb > 1 ? (size_t)s->cout * cols : 0);
}

bool reference_fits(const ConvShape *s)
{
    (void)s;
    return true;
}

size_t conv_columns(const ConvShape *s, int batch)
{
    Dims d = dims(s);
    return (size_t)d.ckk * (size_t)d.p * (size_t)batch;
}

static void lower(const ConvRun *r, const float *x, int nb, float *col)
{
    const ConvShape *s = &r->s;
    r->k->im2col(x, nb, s->cin, s->h, s->w, s->k, s->stride, s->pad, s->oh, s->ow, col);
}

/* One chunk of a run's images: how many, its columns' width, where its
 * columns are (kept from forward, or at the scratch's start), and its
 * first image's offset in the input (and its gradient) and in the output
 * (and its gradient). */
typedef struct Chunk {
    int nb;
    size_t ld;
    float *col;
    size_t in_at, out_at;
} Chunk;

/* Forward and backward walk the batch in the same chunks. */
static void each_chunk(const ConvRun *r, void (*one)(const ConvRun *r, const Dims *d, const Chunk *c))
{
    const ConvShape *s = &r->s;
    Dims d = dims(s);
    int chunk = chunk_images(s, r->max_batch);
    for (int i0 = 0; i0 < r->batch; i0 += chunk) {
        Chunk c = { .nb = DDL_MIN(chunk, r->batch - i0) };
        c.ld = (size_t)c.nb * d.p;
        c.col = r->cols ? r->cols + (size_t)d.ckk * d.p * i0 : r->scratch;
        c.in_at = (size_t)i0 * s->cin * s->h * s->w;
        c.out_at = (size_t)i0 * s->cout * d.p;
        one(r, &d, &c);
    }
}

static void forward_chunk(const ConvRun *r, const Dims *d, const Chunk *c)
{
    const ConvShape *s = &r->s;
    int nb = c->nb;
    size_t ld = c->ld;
    float *out = nb > 1 ? r->scratch + (size_t)d->ckk * ld : r->y + c->out_at;
    lower(r, r->x + c->in_at, nb, c->col);
    for (int gr = 0; gr < s->groups; gr++)
        conv_gemm(r, false, false, d->coutg, (int)ld, d->ckkg, 1.0f, r->w + (size_t)gr * d->coutg * d->ckkg, d->ckkg,
                  c->col + (size_t)gr * d->ckkg * ld, (int)ld, 0.0f, out + (size_t)gr * d->coutg * ld, (int)ld);
    if (nb > 1) r->k->channels_to_images(out, nb, s->cout, d->p, r->y + c->out_at);
}

void reference_forward(const ConvRun *r, const void *kt) { each_chunk(r, forward_chunk); }

static void backward_chunk(const ConvRun *r, const Dims *d, const Chunk *c)
{
    const ConvShape *s = &r->s;
    int nb = c->nb;
    size_t ld = c->ld;
    /* col: the lowered input (kept from forward, or lowered again);
     * dcol: its gradient, written over col when col is scratch. */
    float *col = c->col, *dcol = r->scratch;
    const float *dyc = r->dy + c->out_at;
    if (nb > 1) {
        float *t = r->scratch + (size_t)d->ckk * ld;
        r->k->images_to_channels(dyc, nb, s->cout, d->p, t);
        dyc = t;
    }
    if (!r->cols) lower(r, r->x + c->in_at, nb, col);
    for (int gr = 0; gr < s->groups; gr++) {
        const float *dyg = dyc + (size_t)gr * d->coutg * ld;
        float *colg = col + (size_t)gr * d->ckkg * ld;
        const float *wg = r->w + (size_t)gr * d->coutg * d->ckkg;
        conv_gemm(r, false, true, d->coutg, d->ckkg, (int)ld, 1.0f, dyg, (int)ld, colg, (int)ld, 1.0f,
                  r->dw + (size_t)gr * d->coutg * d->ckkg, d->ckkg);
        if (r->dx) /* after the weight gradient, so dcol may overwrite col */
            conv_gemm(r, true, false, d->ckkg, (int)ld, d->coutg, 1.0f, wg, d->ckkg, dyg, (int)ld, 0.0f,
                      dcol + (size_t)gr * d->ckkg * ld, (int)ld);
    }
    if (r->dx)
        r->k->col2im(dcol, nb, s->cin, s->h, s->w, s->k, s->stride, s->pad, s->oh, s->ow, r->dx + c->in_at, r->acc);
}

void reference_backward(const ConvRun *r, const void *kt) { each_chunk(r, backward_chunk); }
