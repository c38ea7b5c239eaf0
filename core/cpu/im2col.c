/* im2col.c - convolution lowering to GEMM (and its adjoint), batched.
 *
 * The column matrix has one row per (c, ki, kj) and nb*OH*OW columns:
 * image i's output pixels sit at columns [i*P, (i+1)*P). Loops run row by
 * row, images inside, so writes stream through one row at a time. The
 * image-outer order looks simpler but writes a few bytes into each of
 * C*k*k rows per image: with VGG's 4x4 planes that is a TLB miss every 64
 * bytes and made im2col slower than the GEMM it feeds. */
#include "kernels.h"

#include <string.h>
#include "parallel.h"

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

void im2col_cpu(const float *x, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW, float *col)
{
    size_t P = (size_t)OH * OW, ld = (size_t)nb * P, img = (size_t)C * H * W;
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
