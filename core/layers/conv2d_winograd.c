/* conv2d_winograd.c - 3x3 convolutions (stride 1, padding 1, ungrouped) by
 * Winograd's F(2x2,3x3): the forward pass, the input gradient and the
 * weight gradient.
 *
 * Why: in conv2d.c's im2col + GEMM each 2x2 block of outputs costs 36
 * multiply-adds per input channel; in the Winograd domain it costs 16
 * (core/cpu/winograd.c has the maths), for the weight gradient as well. The work becomes the filter
 * transform, then per chunk of images the input transform, 16 GEMMs
 * [K][C] x [C][tiles] through the model's GEMM (layer_gemm) and the output
 * transform. The input gradient is the same convolution of dy with the
 * filters rotated by 180 degrees and input/output channels swapped (the
 * filter transform's flip), so it runs the same code. The weight gradient
 * is Winograd too (core/cpu/winograd_grad.c): 16 GEMMs [K][tiles] x
 * [tiles][C] between the input and output-gradient transforms and the
 * filter gradient's. Such layers keep no im2col columns for backward.
 *
 * Where it pays is measured (bench/conv_algo.c: the layers' shapes at
 * batch 64 on the 2-core dev VM; the numbers are at WINO_MIN_IMAGE below).
 * The savings shrink for three reasons: the transforms are memory passes;
 * the forward and input-gradient GEMMs have only C (or K) as their inner
 * dimension where im2col's has 9C, and OpenBLAS runs short inner
 * dimensions well below its peak (measured 64 x 2048 x 64 at about a
 * quarter of the rate of im2col's 64 x 4096 x 576); and small planes waste
 * tiles (a 2x2 plane is one tile: 16 products for 4 outputs). So
 * CONV_ALGO_AUTO takes layers with enough channels and pixels only; the
 * first layer (3 input channels) never. The thresholds were measured on
 * the CPU; a GPU backend applies the same ones (not measured there). CONV_ALGO_WINOGRAD takes every
 * eligible layer regardless, so tests can run Winograd on small shapes;
 * CONV_ALGO_IM2COL none (DDL_CONV=im2col|winograd|auto sets it from the
 * environment).
 *
 * Why F(2x2,3x3) and not F(4x4,3x3) (36 positions, 4x4 output tiles, 4x
 * fewer multiplications instead of 2.25x): a prototype (forward and input
 * gradient only; one thread, CPU time) measured 0.67 instead of 0.77 on 64
 * channels at 32x32, about the same on 16x16 and 8x8, and worse on 4x4
 * planes (1.17 against 0.95), with about 20x the rounding error (8.7e-6
 * of the largest output against 4.4e-7 here, and 6e-7 for im2col): a few
 * percent of a resnet18 step for much larger rounding, so not (yet) worth
 * a second set of kernels.
 *
 * Rounding: results differ from im2col's by a few ulps of the largest
 * terms (tests/test_winograd.c measures and bounds it). */
#include "layers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common.h"

/* CONV_ALGO_AUTO's rule (see above and bench/conv_algo.c): at least
 * WINO_MIN_CHANNELS input channels, WINO_MIN_IMAGE values per input image
 * (C x H x W) and planes of at least WINO_MIN_SIDE. Measured per layer
 * step (forward and both gradients, batch 64, 2 threads), Winograd /
 * im2col: 0.66-0.74 for resnet18's 64x32x32, 128x16x16 and 256x8x8 inputs,
 * 0.82-0.87 for vgg11's 64x16x16 and 128x8x8 and for 512x4x4; but
 * 0.93-1.09 for 16 and 32 channels on 32x32 and 16x16 (and whole
 * resnet18 steps at width 0.25, whose layers those are, were no faster),
 * 0.94-1.03 for 4096 values (256x4x4, 64x8x8), 1.02-1.25 for 2048
 * (128x4x4, 32x8x8), 1.6 for 512x2x2 (one tile per plane) and 2.4 for the
 * first layer's 3 channels (the GEMMs' inner dimension is 3). Winograd
 * also suffers more than im2col when other jobs take a core: it runs more,
 * smaller parallel regions (transforms and 16 GEMMs per chunk), each
 * waiting for its slowest thread. */
enum { WINO_MIN_CHANNELS = 64, WINO_MIN_IMAGE = 8192, WINO_MIN_SIDE = 4 };
/* Tiles per chunk (the GEMMs' columns): 256 to 1024 measured alike, 4096
 * slower (the transformed chunk no longer stays in cache). */
enum { WINO_TARGET_TILES = 1024 };
#define WINO_SCRATCH_CAP ((size_t)32 << 20) /* floats: 128 MiB */

ConvAlgo conv_algo_from_env(void)
{
    const char *v = getenv("DDL_CONV");
    if (!v || !*v || strcmp(v, "auto") == 0) return CONV_ALGO_AUTO;
    if (strcmp(v, "im2col") == 0) return CONV_ALGO_IM2COL;
    if (strcmp(v, "winograd") == 0) return CONV_ALGO_WINOGRAD;
    ddl_die("DDL_CONV=%s: use auto, im2col or winograd", v);
}

void conv2d_algo_summary(const Model *m, char *buf, size_t cap)
{
    static const char *const NAMES[] = { "auto", "im2col", "winograd" };
    int convs = 0, wino = 0;
    for (int i = 0; i < m->nlayers; i++) {
        const Layer *l = &m->layers[i];
        if (l->kind != LAYER_CONV2D) continue;
        convs++;
        wino += l->winograd && !m->params16;
    }
    snprintf(buf, cap, "%d of %d convolutions by Winograd F(2x2,3x3), the rest im2col + GEMM (DDL_CONV=%s)", wino,
             convs, NAMES[m->conv_algo]);
}

bool conv2d_winograd_pick(const Model *m, const Layer *l)
{
    Shape in = m->tensors[l->in].shape;
    bool fits = l->k == 3 && l->stride == 1 && l->pad == 1 && l->groups == 1;
    if (m->conv_algo == CONV_ALGO_IM2COL || !fits) return false;
    if (m->conv_algo == CONV_ALGO_WINOGRAD) return true;
    return in.c >= WINO_MIN_CHANNELS && shape_numel(in) >= WINO_MIN_IMAGE && DDL_MIN(in.h, in.w) >= WINO_MIN_SIDE;
}

static int tiles(int H, int W) { return ((H + 1) / 2) * ((W + 1) / 2); }

/* Scratch floats: transformed filters, then one chunk's transformed input
 * and GEMM results. Symmetric in C and K, so the input gradient (C and K
 * swapped) fits the same scratch and takes the same chunks. */
static size_t scratch_floats(int C, int K, int T, int nb)
{
    return 16 * ((size_t)K * C + (size_t)(C + K) * T * nb);
}

static int chunk_images(int C, int K, int T, int batch)
{
    int nb = (WINO_TARGET_TILES + T - 1) / T;
    if (nb > batch) nb = batch;
    if (nb < 1) nb = 1;
    while (nb > 1 && scratch_floats(C, K, T, nb) > WINO_SCRATCH_CAP) nb--;
    return nb;
}

size_t conv2d_winograd_size(const Model *m, const Layer *l, int max_batch)
{
    Shape in = m->tensors[l->in].shape;
    int T = tiles(in.h, in.w);
    return scratch_floats(in.c, l->cout, T, chunk_images(in.c, l->cout, T, max_batch));
}

/* y (+)= the 3x3 convolution of x[batch][C][H][W] into K channels. w is the
 * layer's weight [K][C][3][3], or with flip [C][K][3][3] used rotated and
 * transposed (the input gradient: x is dy). */
static void winograd_conv(Model *m, const float *x, const float *w, bool flip, int C, int K, int H, int W,
                          float *y, bool acc)
{
    const Backend *be = m->be;
    int n = m->batch, T = tiles(H, W), chunk = chunk_images(C, K, T, m->max_batch);
    float *u = m->scratch, *v = u + (size_t)16 * K * C;
    size_t in_img = (size_t)C * H * W, out_img = (size_t)K * H * W;
    be->winograd_filter(w, flip ? C : K, flip ? K : C, flip, u);
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0), cols = nb * T;
        float *mm = v + (size_t)16 * C * cols;
        be->winograd_input(x + i0 * in_img, nb, C, H, W, v);
        for (int e = 0; e < 16; e++)
            layer_gemm(m, false, false, K, cols, C, 1.0f, u + (size_t)e * K * C, C, v + (size_t)e * C * cols, cols,
                       0.0f, mm + (size_t)e * K * cols, cols);
        be->winograd_output(mm, nb, K, H, W, y + i0 * out_img, acc);
    }
}

void conv2d_winograd_forward(Model *m, const Layer *l)
{
    Shape in = m->tensors[l->in].shape;
    winograd_conv(m, model_tensor(m, l->in), m->params + l->param_off, false, in.c, l->cout, in.h, in.w,
                  model_tensor(m, l->out), false);
}

/* dw += the weight gradient (winograd_grad.c): per chunk, the input's and
 * dy's transforms, then 16 GEMMs du[e] (+)= dm[e] v[e]^T summing over the
 * chunk's tiles (the first chunk overwrites du); G^T du G at the end. */
void conv2d_winograd_dw(Model *m, const Layer *l, float *dw)
{
    const Backend *be = m->be;
    Shape in = m->tensors[l->in].shape;
    int C = in.c, K = l->cout, H = in.h, W = in.w, n = m->batch, T = tiles(H, W);
    int chunk = chunk_images(C, K, T, m->max_batch);
    const float *x = model_tensor(m, l->in), *dy = model_tensor_grad(m, l->out);
    float *du = m->scratch, *v = du + (size_t)16 * K * C;
    size_t in_img = (size_t)C * H * W, out_img = (size_t)K * H * W;
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int nb = DDL_MIN(chunk, n - i0), cols = nb * T;
        float *dm = v + (size_t)16 * C * cols;
        be->winograd_input(x + i0 * in_img, nb, C, H, W, v);
        be->winograd_output_grad(dy + i0 * out_img, nb, K, H, W, dm);
        for (int e = 0; e < 16; e++)
            layer_gemm(m, false, true, K, C, cols, 1.0f, dm + (size_t)e * K * cols, cols, v + (size_t)e * C * cols,
                       cols, i0 ? 1.0f : 0.0f, du + (size_t)e * K * C, C);
    }
    be->winograd_filter_grad(du, K, C, dw);
}

void conv2d_winograd_dx(Model *m, const Layer *l, float *dx, bool acc)
{
    Shape in = m->tensors[l->in].shape;
    winograd_conv(m, model_tensor_grad(m, l->out), m->params + l->param_off, true, l->cout, in.c, in.h, in.w, dx,
                  acc);
}
