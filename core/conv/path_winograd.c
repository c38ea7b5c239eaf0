/* path_winograd.c - 3x3 convolutions (stride 1, padding 1, ungrouped) by
 * Winograd's F(2x2,3x3): the forward pass, the input gradient and the
 * weight gradient; and by F(4x4,3x3) (winograd4.c) for the
 * forward pass and input gradient, with F(2x2)'s weight gradient.
 *
 * Why: in the reference im2col + GEMM (reference.c) each 2x2 block of outputs costs 36
 * multiply-adds per input channel; in the Winograd domain it costs 16
 * (winograd.c has the maths), for the weight gradient as well. The work becomes the filter
 * transform, then per chunk of images the input transform, 16 GEMMs
 * [K][C] x [C][tiles] through the run's GEMM and the output
 * transform. The input gradient is the same convolution of dy with the
 * filters rotated by 180 degrees and input/output channels swapped (the
 * filter transform's flip), so it runs the same code. The weight gradient
 * is Winograd too (winograd_grad.c): 16 GEMMs [K][tiles] x
 * [tiles][C] between the input and output-gradient transforms and the
 * filter gradient's. Such layers keep no im2col columns for backward.
 *
 * Where it pays is measured (bench/conv_algo.c; the rule is in pick.c,
 * its numbers in bench/RESULTS.md). The savings shrink for three reasons: the
 * transforms are memory passes; the forward and input-gradient GEMMs have
 * only C (or K) as their inner dimension where im2col's has 9C, and
 * OpenBLAS runs short inner dimensions well below its peak (measured
 * 64 x 2048 x 64 at about a quarter of the rate of im2col's
 * 64 x 4096 x 576); and small planes waste tiles (a 2x2 plane is one tile:
 * 16 products for 4 outputs).
 *
 * F(4x4,3x3): 36 positions around 4x4 output tiles, 2.25 products per
 * output instead of F(2x2)'s 4, and transformed tiles 2.25x the input
 * instead of 4x. A first prototype (a tile row per call, scalar filter
 * transform) gained little; with the transforms in groups of
 * tiles (winograd_tiles.h) and the filter transform vectorized
 * it beats F(2x2) from 128 channels up (0.57-0.80 of im2col's step
 * against 0.58-0.94; bench/RESULTS.md has the numbers). Its weight gradient
 * would round more again, and F(2x2)'s is already a small share, so it
 * stays F(2x2): the scratch holds the larger of the two.
 *
 * Rounding: F(2x2)'s results differ from im2col's by a few ulps of the
 * largest terms, F(4x4)'s by about 20x that (tests/test_conv_paths.c
 * measures and bounds both). */
#include "paths.h"

#include "../util/common.h"
#include "kernels_cpu.h"
#include "winograd_kernels.h"

CONV_PATH_CODE(winograd);
size_t winograd4_scratch(const void *kt, const ConvShape *s, int max_batch);
void winograd4_forward(const ConvRun *r, const void *kt);
void winograd4_backward(const ConvRun *r, const void *kt);

/* The CPU's tables (their CUDA twins: winograd.cu, winograd4.cu); both
 * sizes take F(2x2)'s weight gradient. */
const WinogradKernels winograd_kernels_cpu = {
    .input = winograd_input_cpu, .filter = winograd_filter_cpu, .output = winograd_output_cpu,
    .grad_input = winograd_input_cpu, .output_grad = winograd_output_grad_cpu,
    .filter_grad = winograd_filter_grad_cpu,
};
const WinogradKernels winograd4_kernels_cpu = {
    .input = winograd4_input_cpu, .filter = winograd4_filter_cpu, .output = winograd4_output_cpu,
    .grad_input = winograd_input_cpu, .output_grad = winograd_output_grad_cpu,
    .filter_grad = winograd_filter_grad_cpu,
};

/* Tiles per chunk (the GEMMs' columns): 256 to 1024 measured alike, 4096
 * slower (the transformed chunk no longer stays in cache). */
enum { WINO_TARGET_TILES = 1024 };
#define WINO_SCRATCH_CAP ((size_t)32 << 20) /* floats: 128 MiB */

/* The two tile sizes: F(2x2,3x3) (16 positions, winograd.c) and
 * F(4x4,3x3) (36, winograd4.c): output tile side and positions
 * (side + 2)^2, and the kernel table of the size's row. */
typedef struct WinoOps {
    int side, pos;
    const WinogradKernels *k;
} WinoOps;

typedef enum WinoSize { WINO_F2, WINO_F4 } WinoSize;
static const int SIDE[2] = { 2, 4 }, POS[2] = { 16, 36 };

static WinoOps wino_ops(const void *kt, WinoSize size) { return (WinoOps){ SIDE[size], POS[size], kt }; }

/* 3x3, stride 1, padding 1, ungrouped. */
bool winograd_fits(const ConvShape *s) { return s->k == 3 && s->stride == 1 && s->pad == 1 && s->groups == 1; }

static int tiles(int H, int W, int side) { return ((H + side - 1) / side) * ((W + side - 1) / side); }

/* Scratch floats: transformed filters, then one chunk's transformed input
 * and GEMM results. Symmetric in C and K, so the input gradient (C and K
 * swapped) fits the same scratch and takes the same chunks. */
static size_t scratch_floats(int pos, int C, int K, int T, int nb)
{
    return (size_t)pos * ((size_t)K * C + (size_t)(C + K) * T * nb);
}

static int chunk_images(int pos, int C, int K, int T, int batch)
{
    int nb = (WINO_TARGET_TILES + T - 1) / T;
    if (nb > batch) nb = batch;
    if (nb < 1) nb = 1;
    while (nb > 1 && scratch_floats(pos, C, K, T, nb) > WINO_SCRATCH_CAP) nb--;
    return nb;
}

static size_t size_of(const ConvShape *s, int max_batch, WinoSize size)
{
    int pos = POS[size], T = tiles(s->h, s->w, SIDE[size]);
    return scratch_floats(pos, s->cin, s->cout, T, chunk_images(pos, s->cin, s->cout, T, max_batch));
}

size_t winograd_scratch(const void *kt, const ConvShape *s, int max_batch)
{
    return size_of(s, max_batch, WINO_F2);
}

/* F(4x4) for the forward pass and input gradient, F(2x2) for the weight
 * gradient: the larger of the two. */
size_t winograd4_scratch(const void *kt, const ConvShape *s, int max_batch)
{
    return DDL_MAX(size_of(s, max_batch, WINO_F4), size_of(s, max_batch, WINO_F2));
}

/* y (+)= the 3x3 convolution of x[batch][C][H][W] into K channels. w is the
 * layer's weight [K][C][3][3], or with flip [C][K][3][3] used rotated and
 * transposed (the input gradient: x is dy). */
static void winograd_conv(const ConvRun *r, const WinoOps *op, const float *x, bool flip, int C, int K, float *y,
                          bool acc)
{
    int H = r->s.h, W = r->s.w, n = r->batch, T = tiles(H, W, op->side);
    int chunk = chunk_images(op->pos, C, K, T, r->max_batch);
    float *u = r->scratch, *v = u + (size_t)op->pos * K * C;
    size_t in_img = (size_t)C * H * W, out_img = (size_t)K * H * W;
    op->k->filter(r->w, flip ? C : K, flip ? K : C, flip, u);
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0), cols = nb * T;
        float *mm = v + (size_t)op->pos * C * cols;
        op->k->input(x + i0 * in_img, nb, C, H, W, v);
        for (int e = 0; e < op->pos; e++)
            conv_gemm(r, false, false, K, cols, C, 1.0f, u + (size_t)e * K * C, C, v + (size_t)e * C * cols, cols,
                      0.0f, mm + (size_t)e * K * cols, cols);
        op->k->output(mm, nb, K, H, W, y + i0 * out_img, acc);
    }
}

static void forward_with(const ConvRun *r, const void *kt, WinoSize size)
{
    WinoOps op = wino_ops(kt, size);
    winograd_conv(r, &op, r->x, false, r->s.cin, r->s.cout, r->y, false);
}

void winograd_forward(const ConvRun *r, const void *kt) { forward_with(r, kt, WINO_F2); }
void winograd4_forward(const ConvRun *r, const void *kt) { forward_with(r, kt, WINO_F4); }

/* dw += the weight gradient (winograd_grad.c): per chunk, the input's and
 * dy's transforms, then 16 GEMMs du[e] (+)= dm[e] v[e]^T summing over the
 * chunk's tiles (the first chunk overwrites du); G^T du G at the end. */
static void winograd_dw(const ConvRun *r, const void *kt)
{
    const WinogradKernels *k = kt;
    int C = r->s.cin, K = r->s.cout, H = r->s.h, W = r->s.w, n = r->batch, T = tiles(H, W, 2);
    int chunk = chunk_images(POS[WINO_F2], C, K, T, r->max_batch);
    float *du = r->scratch, *v = du + (size_t)16 * K * C;
    size_t in_img = (size_t)C * H * W, out_img = (size_t)K * H * W;
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0), cols = nb * T;
        float *dm = v + (size_t)16 * C * cols;
        k->grad_input(r->x + i0 * in_img, nb, C, H, W, v);
        k->output_grad(r->dy + i0 * out_img, nb, K, H, W, dm);
        for (int e = 0; e < 16; e++)
            conv_gemm(r, false, true, K, C, cols, 1.0f, dm + (size_t)e * K * cols, cols, v + (size_t)e * C * cols,
                      cols, i0 ? 1.0f : 0.0f, du + (size_t)e * K * C, C);
    }
    k->filter_grad(du, K, C, r->dw);
}

/* One after the other: they share the scratch. */
static void backward_with(const ConvRun *r, const void *kt, WinoSize size)
{
    winograd_dw(r, kt);
    if (!r->dx) return;
    WinoOps op = wino_ops(kt, size);
    winograd_conv(r, &op, r->dy, true, r->s.cout, r->s.cin, r->dx, r->acc);
}

void winograd_backward(const ConvRun *r, const void *kt) { backward_with(r, kt, WINO_F2); }
void winograd4_backward(const ConvRun *r, const void *kt) { backward_with(r, kt, WINO_F4); }
