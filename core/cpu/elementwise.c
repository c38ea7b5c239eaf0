/* elementwise.c - bias, activations, add, dropout masks. */
#include "kernels.h"

#include <string.h>
#include "../util/rng.h"
#include "parallel.h"

void bias_add_cpu(float *y, const float *bias, int n, int c, int p)
{
    PARALLEL_FOR((size_t)n * c * p)
    for (int i = 0; i < n; i++)
        for (int j = 0; j < c; j++) {
            float b = bias[j];
            float *row = y + ((size_t)i * c + j) * p;
            for (int q = 0; q < p; q++) row[q] += b;
        }
}

/* Images whose plane sums run side by side in bias_grad_cpu. */
enum { SUM_CHAINS = 8 };

/* Channel j's gradient: each image's plane summed in float, in order,
 * then the images' sums added in double, in order. Each plane's sum is
 * one chain of adds, each waiting for the one before (C11 keeps their
 * order), so a plane alone runs at an add's latency per element; the
 * planes of SUM_CHAINS images are summed side by side, the same chains,
 * so the CPU overlaps them: the same bits, and cnn3's first layer (64
 * images x 32 channels of 28x28) went from 0.70 to 0.21 ms, its second
 * (64 x 64 of 14x14) 0.26 -> 0.11 (one thread, AVX-512 build, thread CPU
 * time, 2026-12-06). */
static double channel_sum(const float *dy, int n, int c, int p, int j)
{
    double s = 0.0;
    int i = 0;
    for (; i + SUM_CHAINS <= n; i += SUM_CHAINS) {
        const float *row = dy + ((size_t)i * c + j) * p;
        size_t img = (size_t)c * p;
        float t[SUM_CHAINS] = { 0.0f };
        for (int q = 0; q < p; q++)
            for (int k = 0; k < SUM_CHAINS; k++) t[k] += row[k * img + q];
        for (int k = 0; k < SUM_CHAINS; k++) s += t[k];
    }
    for (; i < n; i++) {
        const float *row = dy + ((size_t)i * c + j) * p;
        float t = 0.0f;
        for (int q = 0; q < p; q++) t += row[q];
        s += t;
    }
    return s;
}

void bias_grad_cpu(const float *dy, float *dbias, int n, int c, int p)
{
    PARALLEL_FOR((size_t)n * c * p)
    for (int j = 0; j < c; j++) dbias[j] += (float)channel_sum(dy, n, c, p, j);
}

void relu_forward_cpu(const float *x, float *y, size_t count)
{
    PARALLEL_FOR(count)
    for (size_t i = 0; i < count; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

/* Gradient passes where x > 0 (PyTorch: threshold_backward, x <= 0 -> 0). */
void relu_backward_cpu(const float *x, const float *dy, float *dx, size_t count, bool acc)
{
    if (acc)
        PARALLEL_FOR(count)
        for (size_t i = 0; i < count; i++) dx[i] += x[i] > 0.0f ? dy[i] : 0.0f;
    else
        PARALLEL_FOR(count)
        for (size_t i = 0; i < count; i++) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

void relu6_forward_cpu(const float *x, float *y, size_t count)
{
    PARALLEL_FOR(count)
    for (size_t i = 0; i < count; i++) {
        float v = x[i] > 0.0f ? x[i] : 0.0f;
        y[i] = v < 6.0f ? v : 6.0f;
    }
}

/* PyTorch's hardtanh_backward: gradient only strictly inside (0, 6). */
void relu6_backward_cpu(const float *x, const float *dy, float *dx, size_t count, bool acc)
{
    PARALLEL_FOR(count)
    for (size_t i = 0; i < count; i++) {
        float g = (x[i] > 0.0f && x[i] < 6.0f) ? dy[i] : 0.0f;
        dx[i] = acc ? dx[i] + g : g;
    }
}

void add_cpu(const float *a, const float *b, float *y, size_t count)
{
    PARALLEL_FOR(count)
    for (size_t i = 0; i < count; i++) y[i] = a[i] + b[i];
}

/* relu(a + b) in one pass: the bits of add_cpu then relu_forward_cpu. */
void add_relu_cpu(const float *a, const float *b, float *y, size_t count)
{
    PARALLEL_FOR(count)
    for (size_t i = 0; i < count; i++) {
        float s = a[i] + b[i];
        y[i] = s > 0.0f ? s : 0.0f;
    }
}

/* The ReLU's gradient g = dy where y = relu(a + b) > 0 (exactly where
 * a + b > 0), written or added to da and db (either may be NULL, or both
 * the same tensor: each element is added to in turn, as two copy_grads
 * would): relu_backward_cpu then copy_grad_cpu twice, in one pass. */
void add_relu_backward_cpu(const float *y, const float *dy, float *da, bool acc_a, float *db, bool acc_b,
                           size_t count)
{
    PARALLEL_FOR(count)
    for (size_t i = 0; i < count; i++) {
        float g = y[i] > 0.0f ? dy[i] : 0.0f;
        if (da) da[i] = acc_a ? da[i] + g : g;
        if (db) db[i] = acc_b ? db[i] + g : g;
    }
}

void copy_grad_cpu(const float *dy, float *dx, size_t count, bool acc)
{
    if (acc)
        PARALLEL_FOR(count)
        for (size_t i = 0; i < count; i++) dx[i] += dy[i];
    else
        memcpy(dx, dy, sizeof(float) * count);
}

void dropout_mask_cpu(float *mask, size_t count, float p, uint64_t seed, uint64_t stream)
{
    Rng r = rng_make2(seed, "dropout", stream);
    float keep = 1.0f / (1.0f - p);
    for (size_t i = 0; i < count; i++) mask[i] = rng_uniform(&r) < p ? 0.0f : keep; /* one stream: serial */
}

void mul_cpu(const float *x, const float *mask, float *y, size_t count)
{
    PARALLEL_FOR(count)
    for (size_t i = 0; i < count; i++) y[i] = x[i] * mask[i];
}

void mul_backward_cpu(const float *dy, const float *mask, float *dx, size_t count, bool acc)
{
    if (acc)
        PARALLEL_FOR(count)
        for (size_t i = 0; i < count; i++) dx[i] += dy[i] * mask[i];
    else
        PARALLEL_FOR(count)
        for (size_t i = 0; i < count; i++) dx[i] = dy[i] * mask[i];
}

void scale_cpu(float *x, size_t count, float s)
{
    PARALLEL_FOR(count)
    for (size_t i = 0; i < count; i++) x[i] *= s;
}
