/* pool.c - max, average and global average pooling. */
#include "kernels.h"

#include <float.h>
#include <string.h>
#include "parallel.h"

void maxpool_forward_cpu(const float *x, float *y, int planes, int H, int W, int k, int stride, int pad, int OH, int OW)
{
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
