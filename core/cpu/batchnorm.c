/* batchnorm.c - batch normalisation over (n, p) per channel.
 * Statistics are accumulated in double: a channel of a VGG layer at batch
 * 256 sums 262144 values, where float accumulation loses digits that the
 * PyTorch comparison (and the finite-difference check) would notice. */
#include "kernels.h"

#include <math.h>
#include "parallel.h"

void batchnorm_forward_train_cpu(const float *x, float *y, const float *gamma, const float *beta, int n, int c,
                                 int p, float eps, float momentum, float *running_mean, float *running_var,
                                 float *save_mean, float *save_invstd)
{
    size_t m = (size_t)n * p;
    PARALLEL_FOR((size_t)n * c * p)
    for (int j = 0; j < c; j++) {
        double s = 0.0;
        for (int i = 0; i < n; i++) {
            const float *row = x + ((size_t)i * c + j) * p;
            float t = 0.0f;
            for (int q = 0; q < p; q++) t += row[q];
            s += t;
        }
        double mean = s / (double)m;
        double ss = 0.0;
        for (int i = 0; i < n; i++) {
            const float *row = x + ((size_t)i * c + j) * p;
            float t = 0.0f, mf = (float)mean;
            for (int q = 0; q < p; q++) { float d = row[q] - mf; t += d * d; }
            ss += t;
        }
        double var = ss / (double)m; /* biased, used to normalise */
        float invstd = (float)(1.0 / sqrt(var + (double)eps));
        save_mean[j] = (float)mean;
        save_invstd[j] = invstd;
        if (running_mean) {
            double unbiased = m > 1 ? ss / (double)(m - 1) : var;
            running_mean[j] = (1.0f - momentum) * running_mean[j] + momentum * (float)mean;
            running_var[j] = (1.0f - momentum) * running_var[j] + momentum * (float)unbiased;
        }
        float a = gamma[j] * invstd, b = beta[j] - (float)mean * a;
        for (int i = 0; i < n; i++) {
            const float *row = x + ((size_t)i * c + j) * p;
            float *out = y + ((size_t)i * c + j) * p;
            for (int q = 0; q < p; q++) out[q] = row[q] * a + b;
        }
    }
}

void batchnorm_forward_eval_cpu(const float *x, float *y, const float *gamma, const float *beta, int n, int c, int p,
                                float eps, const float *mean, const float *var)
{
    PARALLEL_FOR((size_t)n * c * p)
    for (int j = 0; j < c; j++) {
        float invstd = 1.0f / sqrtf(var[j] + eps);
        float a = gamma[j] * invstd, b = beta[j] - mean[j] * a;
        for (int i = 0; i < n; i++) {
            const float *row = x + ((size_t)i * c + j) * p;
            float *out = y + ((size_t)i * c + j) * p;
            for (int q = 0; q < p; q++) out[q] = row[q] * a + b;
        }
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

/* With batch statistics the mean and variance depend on x, which adds the
 * two correction terms: dx = g*invstd/M * (M*dy - sum(dy) - xhat*sum(dy*xhat)).
 * With fixed statistics dx = g*invstd*dy. */
void batchnorm_backward_cpu(const float *x, const float *dy, float *dx, const float *gamma, float *dgamma,
                            float *dbeta, int n, int c, int p, const float *save_mean, const float *save_invstd,
                            bool use_batch_stats, bool acc)
{
    double m = (double)n * p;
    PARALLEL_FOR((size_t)n * c * p)
    for (int j = 0; j < c; j++) {
        float mean = save_mean[j], invstd = save_invstd[j];
        double sdy = 0.0, sdyx = 0.0;
        for (int i = 0; i < n; i++) {
            const float *xr = x + ((size_t)i * c + j) * p;
            const float *gr = dy + ((size_t)i * c + j) * p;
            float t1 = 0.0f, t2 = 0.0f;
            for (int q = 0; q < p; q++) {
                t1 += gr[q];
                t2 += gr[q] * (xr[q] - mean);
            }
            sdy += t1;
            sdyx += t2;
        }
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
        for (int i = 0; i < n; i++) {
            const float *xr = x + ((size_t)i * c + j) * p;
            const float *gr = dy + ((size_t)i * c + j) * p;
            float *out = dx + ((size_t)i * c + j) * p;
            if (acc)
                for (int q = 0; q < p; q++) out[q] += scale * (gr[q] - ca - (xr[q] - mean) * cb);
            else
                for (int q = 0; q < p; q++) out[q] = scale * (gr[q] - ca - (xr[q] - mean) * cb);
        }
    }
}
