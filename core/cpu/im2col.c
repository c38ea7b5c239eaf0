/* im2col.c - convolution lowering to GEMM (and its adjoint). */
#include "kernels.h"

#include <string.h>

/* Output columns [lo, hi) whose input column ow*stride - pad + kj is inside
 * [0, W): computed once per (kj) so the inner loops carry no bounds test. */
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

void im2col_cpu(const float *x, int C, int H, int W, int k, int stride, int pad,
                int OH, int OW, float *col, size_t ld)
{
    for (int c = 0; c < C; c++) {
        const float *xc = x + (size_t)c * H * W;
        for (int ki = 0; ki < k; ki++) {
            for (int kj = 0; kj < k; kj++) {
                float *row = col + ((size_t)(c * k + ki) * k + kj) * ld;
                int lo, hi;
                valid_range(OW, W, stride, pad, kj, &lo, &hi);
                for (int oh = 0; oh < OH; oh++) {
                    float *out = row + (size_t)oh * OW;
                    int ih = oh * stride - pad + ki;
                    if (ih < 0 || ih >= H) {
                        memset(out, 0, sizeof(float) * (size_t)OW);
                        continue;
                    }
                    const float *xr = xc + (size_t)ih * W - pad + kj;
                    for (int ow = 0; ow < lo; ow++) out[ow] = 0.0f;
                    if (stride == 1) {
                        memcpy(out + lo, xr + lo, sizeof(float) * (size_t)(hi - lo));
                    } else {
                        for (int ow = lo; ow < hi; ow++) out[ow] = xr[ow * stride];
                    }
                    for (int ow = hi; ow < OW; ow++) out[ow] = 0.0f;
                }
            }
        }
    }
}

void col2im_cpu(const float *col, size_t ld, int C, int H, int W, int k, int stride, int pad,
                int OH, int OW, float *dx, bool acc)
{
    if (!acc) memset(dx, 0, sizeof(float) * (size_t)C * H * W);
    for (int c = 0; c < C; c++) {
        float *dc = dx + (size_t)c * H * W;
        for (int ki = 0; ki < k; ki++) {
            for (int kj = 0; kj < k; kj++) {
                const float *row = col + ((size_t)(c * k + ki) * k + kj) * ld;
                int lo, hi;
                valid_range(OW, W, stride, pad, kj, &lo, &hi);
                for (int oh = 0; oh < OH; oh++) {
                    int ih = oh * stride - pad + ki;
                    if (ih < 0 || ih >= H) continue;
                    const float *in = row + (size_t)oh * OW;
                    float *dr = dc + (size_t)ih * W - pad + kj;
                    if (stride == 1) {
                        for (int ow = lo; ow < hi; ow++) dr[ow] += in[ow];
                    } else {
                        for (int ow = lo; ow < hi; ow++) dr[ow * stride] += in[ow];
                    }
                }
            }
        }
    }
}
