/* batchnorm.c - batch normalisation over (n, p) per channel.
 *
 * Statistics are sums over a channel's n*p values, each value converted
 * to double and added in double: a channel of a VGG layer at batch 256
 * sums 262144 values, where float accumulation loses digits that the
 * PyTorch comparison (and the finite-difference check) would notice. The
 * GPU twin (core/cuda/batchnorm.cu) adds the same double terms in another
 * order; in double the order moves the sum by ~1e-16 relative, so the two
 * round to the same float mean and 1/std almost always.
 *
 * Mean and variance come from one pass: the sums of d = x - k and d^2,
 * with k the channel's first value (shifted moments). d and d^2 are exact
 * in double (a difference of two floats, and its square, fit in 53 bits),
 * and var = S2/m - (S1/m)^2 cancels only as far as the mean lies from k in
 * standard deviations, which for a value of the channel itself is a few:
 * no cancellation when |mean| >> std, which is what a second pass around
 * the mean was for. One read of x instead of two: the forward batch norm
 * took 27.2-27.4 ms of MobileNetV2's step instead of 30.8-31.6
 * (--profile-layers, batch 64, 2 threads, paired).
 *
 * Why 8 lanes: a single running sum is one long chain of dependent adds,
 * 4 cycles each. 8 independent double sums (element q of a row goes to
 * lane q mod 8; the lanes are added in a fixed order at the end) run as
 * one vector (simd.h's d8); the order is fixed by the code, not by the
 * instruction set or the thread count. */
#include "kernels.h"

#include <math.h>
#include <string.h>
#include "../util/bn_act.h"
#include "parallel.h"
#include "simd.h"

/* The 8 lanes' total, in a fixed order. */
static double total(d8 acc)
{
    double a[8];
    d8_store(a, acc);
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

/* A row's last p % 8 values as one more vector, zeros after them (they
 * add nothing). */
static f8 tail8(const float *v, int n)
{
    float t[8] = { 0 };
    memcpy(t, v, sizeof(float) * (size_t)n);
    return f8_load(t);
}

/* Row i of channel j in an [n][c][p] tensor. */
static const float *chan_row(const float *x, int c, int j, int p, int i) { return x + ((size_t)i * c + j) * p; }

/* Sums of d = x - k and of d^2 over channel j, in double (see the top);
 * a row's last p % 8 values padded with k (they add nothing). */
static void channel_moments(const float *x, int n, int c, int j, int p, float k, double *s1, double *s2)
{
    d8 a1 = d8_zero(), a2 = d8_zero();
    for (int i = 0; i < n; i++) {
        const float *row = chan_row(x, c, j, p, i);
        int q = 0;
        for (; q + 8 <= p; q += 8) d8_add_moments(&a1, &a2, f8_load(row + q), (double)k);
        if (q < p) {
            float t[8] = { k, k, k, k, k, k, k, k };
            memcpy(t, row + q, sizeof(float) * (size_t)(p - q));
            d8_add_moments(&a1, &a2, f8_load(t), (double)k);
        }
    }
    *s1 = total(a1);
    *s2 = total(a2);
}

/* The fused activation's input v = x * a + b (a = gamma * invstd, b =
 * beta - mean * a: normalize_row's, with the forward's own statistics, so
 * the same bits), recomputed from x instead of read from the output y:
 * the backward then reads x and dy, not x, dy and y, twice (a third less
 * memory traffic on the quick profile's large planes). */
typedef struct Affine {
    float a, b;
} Affine;

static Affine affine(float gamma, float beta, float mean, float invstd)
{
    float a = gamma * invstd;
    return (Affine){ a, beta - mean * a };
}

/* dy as the batch norm's own output gradient: with a fused activation,
 * zero where the activation passed none (bn_act.h: act(v) > 0 exactly where
 * v > 0, 0 < relu6(v) < 6 exactly where 0 < v < 6, as relu_backward_cpu
 * and relu6_backward_cpu mask by their input). */
static inline float act_grad(float g, float x, Affine t, int act)
{
    float v = x * t.a + t.b;
    switch (act) {
    case BN_ACT_RELU: return v > 0.0f ? g : 0.0f;
    case BN_ACT_RELU6: return (v > 0.0f && v < 6.0f) ? g : 0.0f;
    default: return g;
    }
}

static inline f8 act_grad8(f8 g, f8 x, Affine t, int act)
{
    if (act == BN_ACT_NONE) return g;
    f8 v = f8_add(f8_mul(x, f8_set1(t.a)), f8_set1(t.b));
    return act == BN_ACT_RELU ? f8_keep_above(g, v, 0.0f) : f8_keep_inside(g, v, 0.0f, 6.0f);
}

/* Sums of dy and of dy * (x - mean) (products rounded to float); dy
 * masked by the fused activation (act, t: see act_grad). */
static void channel_grad_sums(const float *x, const float *dy, Affine t, int act, int n, int c, int j, int p,
                              float mean, double *sdy, double *sdyx)
{
    d8 a1 = d8_zero(), a2 = d8_zero();
    f8 m = f8_set1(mean);
    for (int i = 0; i < n; i++) {
        const float *xr = chan_row(x, c, j, p, i), *gr = chan_row(dy, c, j, p, i);
        int q = 0;
        for (; q + 8 <= p; q += 8) {
            f8 xv = f8_load(xr + q), g = act_grad8(f8_load(gr + q), xv, t, act);
            a1 = d8_add(a1, g);
            a2 = d8_add(a2, f8_mul(g, f8_sub(xv, m)));
        }
        if (q < p) {
            float gt[8], pr[8];
            for (int e = 0; e < p - q; e++) {
                gt[e] = act_grad(gr[q + e], xr[q + e], t, act);
                pr[e] = gt[e] * (xr[q + e] - mean);
            }
            a1 = d8_add(a1, tail8(gt, p - q));
            a2 = d8_add(a2, tail8(pr, p - q));
        }
    }
    *sdy = total(a1);
    *sdyx = total(a2);
}

/* out = act(row * a + b), with relu_forward_cpu's and relu6_forward_cpu's
 * expressions. */
static void normalize_row(const float *row, float *out, int p, float a, float b, int act)
{
    switch (act) {
    case BN_ACT_RELU:
        for (int q = 0; q < p; q++) {
            float v = row[q] * a + b;
            out[q] = v > 0.0f ? v : 0.0f;
        }
        break;
    case BN_ACT_RELU6:
        for (int q = 0; q < p; q++) {
            float v = row[q] * a + b;
            v = v > 0.0f ? v : 0.0f;
            out[q] = v < 6.0f ? v : 6.0f;
        }
        break;
    default:
        for (int q = 0; q < p; q++) out[q] = row[q] * a + b;
    }
}

void batchnorm_forward_train_cpu(const float *x, float *y, const float *gamma, const float *beta, int n, int c,
                                 int p, float eps, float momentum, float *running_mean, float *running_var,
                                 float *save_mean, float *save_invstd, int act)
{
    size_t m = (size_t)n * p;
    PARALLEL_FOR((size_t)n * c * p)
    for (int j = 0; j < c; j++) {
        float k = m ? x[(size_t)j * p] : 0.0f; /* image 0's first value of channel j */
        double s1, s2;
        channel_moments(x, n, c, j, p, k, &s1, &s2);
        double dm = s1 / (double)m, var = s2 / (double)m - dm * dm; /* biased, used to normalise */
        if (var < 0.0) var = 0.0;                                    /* rounding, when all values are equal */
        float mf = (float)((double)k + dm);
        double ss = var * (double)m;
        float invstd = (float)(1.0 / sqrt(var + (double)eps));
        save_mean[j] = mf;
        save_invstd[j] = invstd;
        if (running_mean) {
            double unbiased = m > 1 ? ss / (double)(m - 1) : var;
            running_mean[j] = (1.0f - momentum) * running_mean[j] + momentum * mf;
            running_var[j] = (1.0f - momentum) * running_var[j] + momentum * (float)unbiased;
        }
        Affine t = affine(gamma[j], beta[j], mf, invstd);
        for (int i = 0; i < n; i++)
            normalize_row(chan_row(x, c, j, p, i), y + ((size_t)i * c + j) * p, p, t.a, t.b, act);
    }
}

void batchnorm_forward_eval_cpu(const float *x, float *y, const float *gamma, const float *beta, int n, int c, int p,
                                float eps, const float *mean, const float *var, int act)
{
    PARALLEL_FOR((size_t)n * c * p)
    for (int j = 0; j < c; j++) {
        Affine t = affine(gamma[j], beta[j], mean[j], 1.0f / sqrtf(var[j] + eps));
        for (int i = 0; i < n; i++)
            normalize_row(chan_row(x, c, j, p, i), y + ((size_t)i * c + j) * p, p, t.a, t.b, act);
    }
}

void batchnorm_eval_stats_cpu(const float *mean, const float *var, int c, float eps, float *save_mean,
                              float *save_invstd)
{
    for (int j = 0; j < c; j++) {
        save_mean[j] = mean[j];
        save_invstd[j] = 1.0f / sqrtf(var[j] + eps);
    }
}

/* dx (+)= scale * (g - ca - (x - mean) * cb) over one row, g = dy masked
 * by the fused activation: 8 at a time (the mask is a compare, which the
 * compiler would not vectorise through act's switch), then the rest, each
 * operation rounded in the same order either way. */
static void dx_row(const float *xr, const float *gr, Affine t, int act, float *out, int p, float scale, float ca,
                   float cb, float mean, bool acc)
{
    f8 vs = f8_set1(scale), vca = f8_set1(ca), vcb = f8_set1(cb), vm = f8_set1(mean);
    int q = 0;
    for (; q + 8 <= p; q += 8) {
        f8 xv = f8_load(xr + q), g = act_grad8(f8_load(gr + q), xv, t, act);
        f8 v = f8_mul(vs, f8_sub(f8_sub(g, vca), f8_mul(f8_sub(xv, vm), vcb)));
        f8_store(out + q, acc ? f8_add(f8_load(out + q), v) : v);
    }
    for (; q < p; q++) {
        float v = scale * (act_grad(gr[q], xr[q], t, act) - ca - (xr[q] - mean) * cb);
        out[q] = acc ? out[q] + v : v;
    }
}

/* With batch statistics the mean and variance depend on x, which adds the
 * two correction terms: dx = g*invstd/M * (M*dy - sum(dy) - xhat*sum(dy*xhat)).
 * With fixed statistics dx = g*invstd*dy. */
void batchnorm_backward_cpu(const float *x, const float *dy, float *dx, const float *gamma, float *dgamma,
                            float *dbeta, int n, int c, int p, const float *save_mean, const float *save_invstd,
                            bool use_batch_stats, bool acc, const float *beta, int act)
{
    double m = (double)n * p;
    PARALLEL_FOR((size_t)n * c * p)
    for (int j = 0; j < c; j++) {
        float mean = save_mean[j], invstd = save_invstd[j];
        Affine t = act ? affine(gamma[j], beta[j], mean, invstd) : (Affine){ 0.0f, 0.0f };
        double sdy, sdyx;
        channel_grad_sums(x, dy, t, act, n, c, j, p, mean, &sdy, &sdyx);
        double sdyxhat = sdyx * invstd;
        dgamma[j] += (float)sdyxhat;
        dbeta[j] += (float)sdy;
        if (!dx) continue;
        float scale = gamma[j] * invstd;
        float ca = 0.0f, cb = 0.0f;
        if (use_batch_stats) {
            ca = (float)(sdy / m);
            cb = (float)(sdyxhat / m) * invstd; /* multiplies (x - mean) */
        }
        for (int i = 0; i < n; i++)
            dx_row(chan_row(x, c, j, p, i), chan_row(dy, c, j, p, i), t, act, dx + ((size_t)i * c + j) * p, p, scale,
                   ca, cb, mean, acc);
    }
}
