/* im2col.c - convolution lowering to GEMM (and its adjoint), batched.
 *
 * The column matrix has one row per (c, ki, kj) and nb*OH*OW columns:
 * image i's output pixels sit at columns [i*P, (i+1)*P). Loops run row by
 * row, images inside, so writes stream through one row at a time. The
 * image-outer order looks simpler but writes a few bytes into each of
 * C*k*k rows per image: with VGG's 4x4 planes that is a TLB miss every 64
 * bytes and made im2col slower than the GEMM it feeds. */
#include "kernels_cpu.h"

#include <stddef.h>
#include <string.h>
#include "../cpu/parallel.h"

/* Output columns [lo, hi) whose input column ow*stride - pad + kj is inside
 * [0, W): computed once per kj so the inner loops carry no bounds test. */
static void valid_range(int OW, int W, int stride, int pad, int kj, int *lo, int *hi)
{
    int a = pad - kj; /* need ow*stride >= a */
    int l = a <= 0 ? 0 : (a + stride - 1) / stride;
    int b = W + pad - kj; /* need ow*stride < b */
    int h = b <= 0 ? 0 : (b + stride - 1) / stride;
    if (h > OW) h = OW;
    if (l > h) l = h;
    *lo = l;
    *hi = h;
}

/* One image's row of tap (ki, kj) for a stride-1 convolution whose output
 * has the input's size (pad = (k - 1) / 2): the plane shifted by (di, dj),
 * zeros where the shift leaves it. The valid rows are one contiguous run
 * of the plane, copied at once; the columns the shift wraps into are then
 * zeroed: one memcpy per tap and image instead of one short loop per row.
 * Measured (im2col of a batch of 64, 2 threads): 128 channels on 8x8 1.32
 * -> 0.86 ms, 512 on 4x4 2.18 -> 1.72, 64 on 32x32 3.12 -> 2.09. The same
 * values either way. */
static void same_shift(const float *xc, int H, int W, int di, int dj, float *out)
{
    int r0 = di < 0 ? -di : 0, r1 = di > 0 ? H - di : H; /* output rows with an input row */
    if (r0 > H) r0 = H;
    if (r1 < r0) r1 = r0;
    memset(out, 0, sizeof(float) * (size_t)r0 * W);
    memset(out + (size_t)r1 * W, 0, sizeof(float) * (size_t)(H - r1) * W);
    ptrdiff_t a = (ptrdiff_t)r0 * W + (dj < 0 ? -dj : 0), b = (ptrdiff_t)r1 * W - (dj > 0 ? dj : 0);
    if (b > a) memcpy(out + a, xc + a + (ptrdiff_t)di * W + dj, sizeof(float) * (size_t)(b - a));
    if (dj == 0) return;
    for (int r = r0; r < r1; r++) { /* the columns with no input: ow < -dj, or ow >= W - dj */
        float *row = out + (size_t)r * W;
        if (dj < 0)
            for (int q = 0; q < -dj && q < W; q++) row[q] = 0.0f;
        else
            for (int q = W - dj < 0 ? 0 : W - dj; q < W; q++) row[q] = 0.0f;
    }
}

void im2col_cpu(const float *x, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW, float *col)
{
    size_t P = (size_t)OH * OW, ld = (size_t)nb * P, img = (size_t)C * H * W;
    /* 2x2 and smaller planes: a few floats per call, where the calls cost
     * more than the general loops (measured: 512 channels on 2x2, 0.95 ms
     * general, 1.24 ms this way). */
    if (stride == 1 && OH == H && OW == W && 2 * pad == k - 1 && H * W >= 16) {
        PARALLEL_FOR((size_t)C * k * k * ld)
        for (int c = 0; c < C; c++)
            for (int t = 0; t < k * k; t++) {
                float *row = col + ((size_t)c * k * k + t) * ld;
                for (int i = 0; i < nb; i++)
                    same_shift(x + i * img + (size_t)c * H * W, H, W, t / k - pad, t % k - pad, row + i * P);
            }
        return;
    }
    PARALLEL_FOR((size_t)C * k * k * ld)
    for (int c = 0; c < C; c++)
        for (int ki = 0; ki < k; ki++)
            for (int kj = 0; kj < k; kj++) {
                float *row = col + ((size_t)(c * k + ki) * k + kj) * ld;
                int lo, hi;
                valid_range(OW, W, stride, pad, kj, &lo, &hi);
                for (int i = 0; i < nb; i++) {
                    const float *xc = x + i * img + (size_t)c * H * W;
                    float *dst = row + i * P;
                    for (int oh = 0; oh < OH; oh++) {
                        float *out = dst + (size_t)oh * OW;
                        int ih = oh * stride - pad + ki;
                        if (ih < 0 || ih >= H) {
                            for (int ow = 0; ow < OW; ow++) out[ow] = 0.0f;
                            continue;
                        }
                        const float *xr = xc + (size_t)ih * W - pad + kj;
                        for (int ow = 0; ow < lo; ow++) out[ow] = 0.0f;
                        if (stride == 1)
                            for (int ow = lo; ow < hi; ow++) out[ow] = xr[ow];
                        else
                            for (int ow = lo; ow < hi; ow++) out[ow] = xr[ow * stride];
                        for (int ow = hi; ow < OW; ow++) out[ow] = 0.0f;
                    }
                }
            }
}

void col2im_cpu(const float *col, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW, float *dx,
                bool acc)
{
    size_t P = (size_t)OH * OW, ld = (size_t)nb * P, img = (size_t)C * H * W;
    if (!acc) memset(dx, 0, sizeof(float) * img * (size_t)nb);
    PARALLEL_FOR((size_t)C * k * k * ld)
    for (int c = 0; c < C; c++)
        for (int ki = 0; ki < k; ki++)
            for (int kj = 0; kj < k; kj++) {
                const float *row = col + ((size_t)(c * k + ki) * k + kj) * ld;
                int lo, hi;
                valid_range(OW, W, stride, pad, kj, &lo, &hi);
                for (int i = 0; i < nb; i++) {
                    float *dc = dx + i * img + (size_t)c * H * W;
                    const float *src = row + i * P;
                    for (int oh = 0; oh < OH; oh++) {
                        int ih = oh * stride - pad + ki;
                        if (ih < 0 || ih >= H) continue;
                        const float *in = src + (size_t)oh * OW;
                        float *dr = dc + (size_t)ih * W - pad + kj;
                        if (stride == 1)
                            for (int ow = lo; ow < hi; ow++) dr[ow] += in[ow];
                        else
                            for (int ow = lo; ow < hi; ow++) dr[ow * stride] += in[ow];
                    }
                }
            }
}
