/* pool.c - max, average and global average pooling.
 *
 * Max pooling takes the first largest value of each window in (ki, kj)
 * order, starting from -FLT_MAX (so NaN never wins, as in the GPU twin).
 * The forward pass of VGG's 2x2 stride-2 unpadded windows has a fast path
 * that makes the same comparisons in the same order with no bounds tests,
 * which the compiler vectorises: VGG-11 x0.5's pooling forward went from
 * 1.3 to 0.3 ms a step (batch 64, 2 threads). The backward pass keeps the
 * general loop: three branch-free 2x2 versions (four selected stores; a
 * memset and one store per window) measured slower than it in the model,
 * 2.5-3.9 against 2.4 ms. */
#include "kernels.h"

#include <float.h>
#include <string.h>
#include "parallel.h"

static bool is_2x2(int H, int W, int k, int stride, int pad, int OH, int OW)
{
    return k == 2 && stride == 2 && pad == 0 && OH == H / 2 && OW == W / 2;
}

static inline float max_step(float m, float v) { return v > m ? v : m; }

static void maxpool2_forward(const float *x, float *y, int planes, int H, int W, int OH, int OW)
{
    PARALLEL_FOR((size_t)planes * H * W)
    for (int pl = 0; pl < planes; pl++)
        for (int oh = 0; oh < OH; oh++) {
            const float *r0 = x + ((size_t)pl * H + 2 * oh) * W, *r1 = r0 + W;
            float *out = y + ((size_t)pl * OH + oh) * OW;
            for (int ow = 0; ow < OW; ow++) {
                float m = max_step(max_step(-FLT_MAX, r0[2 * ow]), r0[2 * ow + 1]);
                out[ow] = max_step(max_step(m, r1[2 * ow]), r1[2 * ow + 1]);
            }
        }
}

/* The winner of a 2x2 window (0..3, row-major), as the general loop picks
 * it: the first, then any strictly larger. */
void maxpool_forward_cpu(const float *x, float *y, int planes, int H, int W, int k, int stride, int pad, int OH, int OW)
{
    if (is_2x2(H, W, k, stride, pad, OH, OW)) {
        maxpool2_forward(x, y, planes, H, W, OH, OW);
        return;
    }
    PARALLEL_FOR((size_t)planes * H * W)
    for (int pl = 0; pl < planes; pl++) {
        const float *xp = x + (size_t)pl * H * W;
        float *yp = y + (size_t)pl * OH * OW;
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                float m = -FLT_MAX;
                for (int ki = 0; ki < k; ki++) {
                    int ih = oh * stride - pad + ki;
                    if (ih < 0 || ih >= H) continue;
                    for (int kj = 0; kj < k; kj++) {
                        int iw = ow * stride - pad + kj;
                        if (iw < 0 || iw >= W) continue;
                        float v = xp[ih * W + iw];
                        if (v > m) m = v;
                    }
                }
                yp[oh * OW + ow] = m;
            }
    }
}

void maxpool_backward_cpu(const float *x, const float *dy, float *dx, int planes, int H, int W, int k, int stride,
                          int pad, int OH, int OW, bool acc)
{
    if (!acc) memset(dx, 0, sizeof(float) * (size_t)planes * H * W);
    PARALLEL_FOR((size_t)planes * H * W)
    for (int pl = 0; pl < planes; pl++) {
        const float *xp = x + (size_t)pl * H * W;
        const float *dyp = dy + (size_t)pl * OH * OW;
        float *dxp = dx + (size_t)pl * H * W;
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                float m = -FLT_MAX;
                int best = -1;
                for (int ki = 0; ki < k; ki++) {
                    int ih = oh * stride - pad + ki;
                    if (ih < 0 || ih >= H) continue;
                    for (int kj = 0; kj < k; kj++) {
                        int iw = ow * stride - pad + kj;
                        if (iw < 0 || iw >= W) continue;
                        float v = xp[ih * W + iw];
                        if (best < 0 || v > m) { m = v; best = ih * W + iw; }
                    }
                }
                if (best >= 0) dxp[best] += dyp[oh * OW + ow];
            }
    }
}

void avgpool_forward_cpu(const float *x, float *y, int planes, int H, int W, int k, int stride, int pad, int OH, int OW)
{
    float inv = 1.0f / (float)(k * k);
    PARALLEL_FOR((size_t)planes * H * W)
    for (int pl = 0; pl < planes; pl++) {
        const float *xp = x + (size_t)pl * H * W;
        float *yp = y + (size_t)pl * OH * OW;
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                float s = 0.0f;
                for (int ki = 0; ki < k; ki++) {
                    int ih = oh * stride - pad + ki;
                    if (ih < 0 || ih >= H) continue;
                    for (int kj = 0; kj < k; kj++) {
                        int iw = ow * stride - pad + kj;
                        if (iw >= 0 && iw < W) s += xp[ih * W + iw];
                    }
                }
                yp[oh * OW + ow] = s * inv;
            }
    }
}

void avgpool_backward_cpu(const float *dy, float *dx, int planes, int H, int W, int k, int stride, int pad, int OH,
                          int OW, bool acc)
{
    if (!acc) memset(dx, 0, sizeof(float) * (size_t)planes * H * W);
    float inv = 1.0f / (float)(k * k);
    PARALLEL_FOR((size_t)planes * H * W)
    for (int pl = 0; pl < planes; pl++) {
        const float *dyp = dy + (size_t)pl * OH * OW;
        float *dxp = dx + (size_t)pl * H * W;
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                float g = dyp[oh * OW + ow] * inv;
                for (int ki = 0; ki < k; ki++) {
                    int ih = oh * stride - pad + ki;
                    if (ih < 0 || ih >= H) continue;
                    for (int kj = 0; kj < k; kj++) {
                        int iw = ow * stride - pad + kj;
                        if (iw >= 0 && iw < W) dxp[ih * W + iw] += g;
                    }
                }
            }
    }
}

void global_avgpool_forward_cpu(const float *x, float *y, int planes, int p)
{
    PARALLEL_FOR((size_t)planes * p)
    for (int pl = 0; pl < planes; pl++) {
        const float *xp = x + (size_t)pl * p;
        float s = 0.0f;
        for (int q = 0; q < p; q++) s += xp[q];
        y[pl] = s / (float)p;
    }
}

void global_avgpool_backward_cpu(const float *dy, float *dx, int planes, int p, bool acc)
{
    PARALLEL_FOR((size_t)planes * p)
    for (int pl = 0; pl < planes; pl++) {
        float g = dy[pl] / (float)p;
        float *dxp = dx + (size_t)pl * p;
        if (acc)
            for (int q = 0; q < p; q++) dxp[q] += g;
        else
            for (int q = 0; q < p; q++) dxp[q] = g;
    }
}
