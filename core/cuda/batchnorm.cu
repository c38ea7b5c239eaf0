// batchnorm.cu - batch normalisation, twins of core/cpu/batchnorm.c.
//
// Training forward and backward reduce each channel over n*p values: one
// block per channel, every thread summing a strided share in double, then
// ddl_block_sum's fixed tree, so results are deterministic run to run.
// They differ from the CPU (each value widened to double too, in 8 lanes)
// only by summation order, which in double rarely moves the float result.
// The elementwise outputs use the same formulas.
#include <cmath>

#include "../cpu/bn_act.h"
#include "block_reduce.h"
#include "kernels_cuda.h"

namespace {

// The fused activation (bn_act.h), as the CPU applies it: act(v) forward,
// and dy masked by the forward's output y backward.
__device__ inline float bn_act(float v, int act)
{
    if (act == BN_ACT_NONE) return v;
    v = v > 0.0f ? v : 0.0f;
    return act == BN_ACT_RELU6 ? (v < 6.0f ? v : 6.0f) : v;
}

__device__ inline float bn_act_grad(float g, const float *y, size_t o, int act)
{
    if (act == BN_ACT_RELU) return y[o] > 0.0f ? g : 0.0f;
    if (act == BN_ACT_RELU6) return (y[o] > 0.0f && y[o] < 6.0f) ? g : 0.0f;
    return g;
}

__global__ void bn_train_kernel(const float *x, float *y, const float *gamma, const float *beta, int n, int c, int p,
                                float eps, float momentum, float *running_mean, float *running_var,
                                float *save_mean, float *save_invstd, int act)
{
    __shared__ double sh[DDL_BLOCK];
    int j = blockIdx.x;
    unsigned m = (unsigned)n * (unsigned)p;
    double s = 0.0;
    for (unsigned t = threadIdx.x; t < m; t += DDL_BLOCK) s += x[ddl_chan_off(t, j, c, p)];
    double mean = ddl_block_sum(s, sh) / (double)m;
    // Second pass around the mean (as the CPU): no cancellation when
    // |mean| >> std.
    float mf = (float)mean;
    double ss = 0.0;
    for (unsigned t = threadIdx.x; t < m; t += DDL_BLOCK) {
        float d = x[ddl_chan_off(t, j, c, p)] - mf;
        ss += (double)__fmul_rn(d, d);
    }
    ss = ddl_block_sum(ss, sh);
    double var = ss / (double)m; // biased, used to normalise
    float invstd = (float)(1.0 / sqrt(var + (double)eps));
    if (threadIdx.x == 0) {
        save_mean[j] = mf;
        save_invstd[j] = invstd;
        if (running_mean) { // PyTorch: running variance uses the unbiased estimate
            double unbiased = m > 1 ? ss / (double)(m - 1) : var;
            running_mean[j] = (1.0f - momentum) * running_mean[j] + momentum * mf;
            running_var[j] = (1.0f - momentum) * running_var[j] + momentum * (float)unbiased;
        }
    }
    float a = gamma[j] * invstd, b = beta[j] - mf * a;
    for (unsigned t = threadIdx.x; t < m; t += DDL_BLOCK) {
        size_t o = ddl_chan_off(t, j, c, p);
        y[o] = bn_act(__fadd_rn(__fmul_rn(x[o], a), b), act);
    }
}

__global__ void bn_eval_kernel(const float *x, float *y, const float *gamma, const float *beta, int c, int p,
                               float eps, const float *mean, const float *var, size_t total, int act)
{
    DDL_GRID_STRIDE(e, total)
    {
        int j = (int)(((unsigned)e / (unsigned)p) % (unsigned)c);
        float invstd = 1.0f / sqrtf(var[j] + eps);
        float a = gamma[j] * invstd, b = beta[j] - mean[j] * a;
        y[e] = bn_act(__fadd_rn(__fmul_rn(x[e], a), b), act);
    }
}

// dgamma += sum(dy * xhat), dbeta += sum(dy); with batch statistics
// dx = g*invstd/M * (M*dy - sum(dy) - xhat*sum(dy*xhat)), with fixed ones
// dx = g*invstd*dy. dx == NULL: parameter gradients only. With a fused
// activation, dy is first masked by the forward's output y.
__global__ void bn_bwd_kernel(const float *x, const float *dy, float *dx, const float *gamma, float *dgamma,
                              float *dbeta, int n, int c, int p, const float *save_mean, const float *save_invstd,
                              bool use_batch_stats, bool acc, const float *y, int act)
{
    __shared__ double sh[DDL_BLOCK];
    int j = blockIdx.x;
    unsigned m = (unsigned)n * (unsigned)p;
    float mean = save_mean[j], invstd = save_invstd[j];
    double sdy = 0.0, sdyx = 0.0;
    for (unsigned t = threadIdx.x; t < m; t += DDL_BLOCK) {
        size_t o = ddl_chan_off(t, j, c, p);
        float g = bn_act_grad(dy[o], y, o, act);
        sdy += g;
        sdyx += (double)__fmul_rn(g, x[o] - mean);
    }
    sdy = ddl_block_sum(sdy, sh);
    sdyx = ddl_block_sum(sdyx, sh);
    double sdyxhat = sdyx * invstd;
    if (threadIdx.x == 0) {
        dgamma[j] += (float)sdyxhat;
        dbeta[j] += (float)sdy;
    }
    if (!dx) return;
    float scale = gamma[j] * invstd, ca = 0.0f, cb = 0.0f;
    if (use_batch_stats) {
        ca = (float)(sdy / (double)m);
        cb = (float)(sdyxhat / (double)m) * invstd; // multiplies (x - mean)
    }
    for (unsigned t = threadIdx.x; t < m; t += DDL_BLOCK) {
        size_t o = ddl_chan_off(t, j, c, p);
        float v = scale * (bn_act_grad(dy[o], y, o, act) - ca - (x[o] - mean) * cb);
        dx[o] = acc ? dx[o] + v : v;
    }
}

} // namespace

extern "C" void batchnorm_forward_train_cuda(const float *x, float *y, const float *gamma, const float *beta, int n,
                                             int c, int p, float eps, float momentum, float *running_mean,
                                             float *running_var, float *save_mean, float *save_invstd, int act)
{
    if (c <= 0) return;
    ddl_check_u32((size_t)n * p, "batchnorm_forward_train_cuda");
    DDL_LAUNCH(bn_train_kernel, c, DDL_BLOCK, 0, ddl_stream())(x, y, gamma, beta, n, c, p, eps, momentum, running_mean,
                                                       running_var, save_mean, save_invstd, act);
    DDL_CUDA_LAUNCHED();
}

extern "C" void batchnorm_forward_eval_cuda(const float *x, float *y, const float *gamma, const float *beta, int n,
                                            int c, int p, float eps, const float *mean, const float *var, int act)
{
    size_t total = (size_t)n * c * p;
    if (total == 0) return;
    ddl_check_u32(total, "batchnorm_forward_eval_cuda");
    DDL_LAUNCH(bn_eval_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(x, y, gamma, beta, c, p, eps, mean, var,
                                                                               total, act);
    DDL_CUDA_LAUNCHED();
}

extern "C" void batchnorm_backward_cuda(const float *x, const float *dy, float *dx, const float *gamma,
                                        float *dgamma, float *dbeta, int n, int c, int p, const float *save_mean,
                                        const float *save_invstd, bool use_batch_stats, bool acc, const float *y,
                                        int act)
{
    if (c <= 0) return;
    ddl_check_u32((size_t)n * p, "batchnorm_backward_cuda");
    DDL_LAUNCH(bn_bwd_kernel, c, DDL_BLOCK, 0, ddl_stream())(x, dy, dx, gamma, dgamma, dbeta, n, c, p, save_mean,
                                                     save_invstd, use_batch_stats, acc, y, act);
    DDL_CUDA_LAUNCHED();
}
