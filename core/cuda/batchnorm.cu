// batchnorm.cu - batch normalisation, twins of core/cpu/batchnorm.c.
//
// Training forward and backward reduce each channel over n*p values in
// segments (bn_segments: why), each thread summing a strided share in
// double, then ddl_block_sum's fixed tree and an in-order sum of the
// segments, so results are deterministic run to run.
// They differ from the CPU (each value widened to double too, in 8 lanes)
// only by summation order, which in double rarely moves the float result.
// The elementwise outputs use the same formulas.
#include <cmath>

#include "../util/bn_act.h"
#include "block_reduce.h"
#include "kernels_cuda.h"

namespace {

// The fused activation (bn_act.h), as the CPU applies it: act(v) forward,
// and dy masked where act passed nothing backward, v = x * a + b recomputed
// from x (as the CPU: core/cpu/batchnorm.c, affine) with the forward's own
// a = gamma * invstd and b = beta - mean * a, each product and sum rounded
// on its own (no FMA), so the same bits as the forward's v.
__device__ inline float bn_act(float v, int act)
{
    if (act == BN_ACT_NONE) return v;
    v = v > 0.0f ? v : 0.0f;
    return act == BN_ACT_RELU6 ? (v < 6.0f ? v : 6.0f) : v;
}

__device__ inline float bn_a(float gamma, float invstd) { return __fmul_rn(gamma, invstd); }
__device__ inline float bn_b(float beta, float mean, float a) { return __fsub_rn(beta, __fmul_rn(mean, a)); }

__device__ inline float bn_act_grad(float g, float x, float a, float b, int act)
{
    if (act == BN_ACT_NONE) return g;
    float v = __fadd_rn(__fmul_rn(x, a), b);
    if (act == BN_ACT_RELU) return v > 0.0f ? g : 0.0f;
    return (v > 0.0f && v < 6.0f) ? g : 0.0f;
}

// The training kernels reduce each channel in S segments, one block each,
// so that a layer with few channels still fills the GPU: with one block
// per channel, resnet18's 64-channel layers at batch 256 kept 64 of an
// H200's 132 SMs busy, and batch norm took 11 ms of a 71 ms step. Each
// block sums its segment with the fixed tree; a second kernel adds a
// channel's S partial sums in order (no atomics: deterministic). S depends
// on the shape only. At least 16 values per thread: the emulated GPU pays
// per block and per launch, and on the H200 the layers measured (resnet18
// and vgg11 at batch 256) took the same S with 4 or 16, except the 512 x
// 4x4 ones (2 segments with 4, 1 with 16; a few microseconds).
unsigned bn_segments(int c, unsigned m)
{
    unsigned want = (1024u + (unsigned)c - 1u) / (unsigned)c; // about 1024 blocks in all
    unsigned most = m / (DDL_BLOCK * 16u);                     // at least 16 values per thread
    if (most < 1u) most = 1u;
    return want < most ? want : most;
}

// The CPU's shifted moments: k = image 0's first value of channel j;
// part[j * S + s] = sum over segment s of channel j of d = x - k, and
// part[(c + j) * S + s] of d^2, in double (exact terms: core/cpu/batchnorm.c).
__global__ void __launch_bounds__(DDL_BLOCK) bn_part_kernel(const float *x, int c, int p, unsigned m, unsigned seg, double *part)
{
    __shared__ ddl_shared<double, DDL_BLOCK> sh;
    int j = blockIdx.x;
    unsigned s0 = blockIdx.y * seg, s1 = s0 + seg < m ? s0 + seg : m;
    double k = m ? x[(size_t)j * p] : 0.0, a1 = 0.0, a2 = 0.0; // no values (n = 0): x is not read
    for (unsigned t = s0 + threadIdx.x; t < s1; t += DDL_BLOCK) {
        double d = (double)x[ddl_chan_off(t, j, c, p)] - k;
        a1 += d;
        a2 += d * d;
    }
    a1 = ddl_block_sum(a1, sh);
    a2 = ddl_block_sum(a2, sh);
    if (threadIdx.x == 0) {
        part[(size_t)j * gridDim.y + blockIdx.y] = a1;
        part[(size_t)(c + j) * gridDim.y + blockIdx.y] = a2;
    }
}

__device__ inline double bn_part_total(const double *part, int j, unsigned S)
{
    double t = 0.0;
    for (unsigned s = 0; s < S; s++) t += part[(size_t)j * S + s];
    return t;
}

// One thread per channel: 1/std, the saved and running statistics, and the
// affine coefficients of the output (coef[j] = a, coef[c + j] = b).
__global__ void bn_stats_kernel(const double *part, const float *x, int c, int p, unsigned S, unsigned m,
                                const float *gamma, const float *beta, float eps, float momentum,
                                float *running_mean, float *running_var, float *save_mean, float *save_invstd,
                                float *coef)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= c) return;
    double dm = bn_part_total(part, j, S) / (double)m;
    double var = bn_part_total(part, c + j, S) / (double)m - dm * dm; // biased, used to normalise
    if (var < 0.0) var = 0.0;
    double ss = var * (double)m;
    float mf = (float)((m ? (double)x[(size_t)j * p] : 0.0) + dm), invstd = (float)(1.0 / sqrt(var + (double)eps));
    save_mean[j] = mf;
    save_invstd[j] = invstd;
    if (running_mean) { // PyTorch: running variance uses the unbiased estimate
        double unbiased = m > 1 ? ss / (double)(m - 1) : var;
        running_mean[j] = (1.0f - momentum) * running_mean[j] + momentum * mf;
        running_var[j] = (1.0f - momentum) * running_var[j] + momentum * (float)unbiased;
    }
    float a = bn_a(gamma[j], invstd);
    coef[j] = a;
    coef[c + j] = bn_b(beta[j], mf, a);
}

__global__ void bn_apply_kernel(const float *x, float *y, const float *coef, int c, int p, size_t total, int act)
{
    DDL_GRID_STRIDE(e, total)
    {
        int j = (int)(((unsigned)e / (unsigned)p) % (unsigned)c);
        y[e] = bn_act(__fadd_rn(__fmul_rn(x[e], coef[j]), coef[c + j]), act);
    }
}

__global__ void bn_eval_kernel(const float *x, float *y, const float *gamma, const float *beta, int c, int p,
                               float eps, const float *mean, const float *var, size_t total, int act)
{
    DDL_GRID_STRIDE(e, total)
    {
        int j = (int)(((unsigned)e / (unsigned)p) % (unsigned)c);
        float a = bn_a(gamma[j], 1.0f / sqrtf(var[j] + eps)), b = bn_b(beta[j], mean[j], a);
        y[e] = bn_act(__fadd_rn(__fmul_rn(x[e], a), b), act);
    }
}

// dgamma += sum(dy * xhat), dbeta += sum(dy); with batch statistics
// dx = g*invstd/M * (M*dy - sum(dy) - xhat*sum(dy*xhat)), with fixed ones
// dx = g*invstd*dy. With a fused activation, dy is first masked by the
// activation's mask (bn_act_grad). Segments as in the forward:
// part[j * S + s] holds sum(g), part[(c + j) * S + s] sum(g * (x - mean)).
__global__ void __launch_bounds__(DDL_BLOCK) bn_grad_part_kernel(const float *x, const float *dy, const float *gamma, const float *beta, int act,
                                    int c, int p, unsigned m, unsigned seg, const float *save_mean,
                                    const float *save_invstd, double *part)
{
    __shared__ ddl_shared<double, DDL_BLOCK> sh;
    int j = blockIdx.x;
    unsigned S = gridDim.y, s0 = blockIdx.y * seg, s1 = s0 + seg < m ? s0 + seg : m;
    float mean = save_mean[j], a = act ? bn_a(gamma[j], save_invstd[j]) : 0.0f, b = act ? bn_b(beta[j], mean, a) : 0.0f;
    double sdy = 0.0, sdyx = 0.0;
    for (unsigned t = s0 + threadIdx.x; t < s1; t += DDL_BLOCK) {
        size_t o = ddl_chan_off(t, j, c, p);
        float g = bn_act_grad(dy[o], x[o], a, b, act);
        sdy += g;
        sdyx += (double)__fmul_rn(g, x[o] - mean);
    }
    sdy = ddl_block_sum(sdy, sh);
    sdyx = ddl_block_sum(sdyx, sh);
    if (threadIdx.x == 0) {
        part[(size_t)j * S + blockIdx.y] = sdy;
        part[(size_t)(c + j) * S + blockIdx.y] = sdyx;
    }
}

// One thread per channel: the parameter gradients, and dx's coefficients
// (coef[j] = scale, coef[c + j] = ca, coef[2c + j] = cb, and the fused
// activation's b in coef[3c + j]; its a is the scale).
__global__ void bn_grad_stats_kernel(const double *part, int c, unsigned S, unsigned m, const float *gamma,
                                     const float *beta, const float *save_mean, const float *save_invstd,
                                     bool use_batch_stats, int act, float *dgamma, float *dbeta, float *coef)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= c) return;
    double sdy = bn_part_total(part, j, S), sdyxhat = bn_part_total(part, c + j, S) * save_invstd[j];
    dgamma[j] += (float)sdyxhat;
    dbeta[j] += (float)sdy;
    float invstd = save_invstd[j], ca = 0.0f, cb = 0.0f;
    if (use_batch_stats) {
        ca = (float)(sdy / (double)m);
        cb = (float)(sdyxhat / (double)m) * invstd; // multiplies (x - mean)
    }
    coef[j] = bn_a(gamma[j], invstd);
    coef[c + j] = ca;
    coef[2 * c + j] = cb;
    coef[3 * c + j] = act ? bn_b(beta[j], save_mean[j], coef[j]) : 0.0f;
}

__global__ void bn_dx_kernel(const float *x, const float *dy, float *dx, int act, int c, int p,
                             const float *save_mean, const float *coef, bool acc, size_t total)
{
    DDL_GRID_STRIDE(e, total)
    {
        int j = (int)(((unsigned)e / (unsigned)p) % (unsigned)c);
        float g = bn_act_grad(dy[e], x[e], coef[j], coef[3 * c + j], act);
        float v = coef[j] * (g - coef[c + j] - (x[e] - save_mean[j]) * coef[2 * c + j]);
        dx[e] = acc ? dx[e] + v : v;
    }
}

} // namespace

extern "C" void batchnorm_forward_train_cuda(const float *x, float *y, const float *gamma, const float *beta, int n,
                                             int c, int p, float eps, float momentum, float *running_mean,
                                             float *running_var, float *save_mean, float *save_invstd, int act)
{
    if (c <= 0) return;
    ddl_check_u32((size_t)n * c * p, "batchnorm_forward_train_cuda");
    cudaStream_t st = ddl_stream();
    unsigned m = (unsigned)n * (unsigned)p, S = bn_segments(c, m), seg = (m + S - 1) / S;
    // Scratch in stream order: [partial sums: 2*c*S doubles][coef: 2c floats].
    void *buf = nullptr;
    DDL_CUDA_CHECK(cudaMallocAsync(&buf, sizeof(double) * 2 * c * S + sizeof(float) * 2 * c, st));
    double *part = static_cast<double *>(buf);
    float *coef = reinterpret_cast<float *>(part + (size_t)2 * c * S);
    dim3 grid((unsigned)c, S);
    unsigned per = (unsigned)ddl_grid((size_t)c);
    // One pass of shifted moments (as the CPU): no cancellation when |mean| >> std.
    DDL_LAUNCH(bn_part_kernel, grid, DDL_BLOCK, 0, st)(x, c, p, m, seg, part);
    DDL_CUDA_LAUNCHED();
    DDL_LAUNCH(bn_stats_kernel, per, DDL_BLOCK, 0, st)(part, x, c, p, S, m, gamma, beta, eps, momentum, running_mean,
                                                      running_var, save_mean, save_invstd, coef);
    DDL_CUDA_LAUNCHED();
    size_t total = (size_t)n * c * p;
    if (total) {
        DDL_LAUNCH(bn_apply_kernel, ddl_grid(total), DDL_BLOCK, 0, st)(x, y, coef, c, p, total, act);
        DDL_CUDA_LAUNCHED();
    }
    DDL_CUDA_CHECK(cudaFreeAsync(buf, st));
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
                                        const float *save_invstd, bool use_batch_stats, bool acc, const float *beta,
                                        int act)
{
    if (c <= 0) return;
    ddl_check_u32((size_t)n * c * p, "batchnorm_backward_cuda");
    cudaStream_t st = ddl_stream();
    unsigned m = (unsigned)n * (unsigned)p, S = bn_segments(c, m), seg = (m + S - 1) / S;
    // Scratch in stream order: [partial sums: 2*c*S doubles][coef: 4c floats].
    void *buf = nullptr;
    DDL_CUDA_CHECK(cudaMallocAsync(&buf, sizeof(double) * 2 * c * S + sizeof(float) * 4 * c, st));
    double *part = static_cast<double *>(buf);
    float *coef = reinterpret_cast<float *>(part + (size_t)2 * c * S);
    DDL_LAUNCH(bn_grad_part_kernel, dim3((unsigned)c, S), DDL_BLOCK, 0, st)(x, dy, gamma, beta, act, c, p, m, seg,
                                                                           save_mean, save_invstd, part);
    DDL_CUDA_LAUNCHED();
    DDL_LAUNCH(bn_grad_stats_kernel, (unsigned)ddl_grid((size_t)c), DDL_BLOCK, 0, st)(
        part, c, S, m, gamma, beta, save_mean, save_invstd, use_batch_stats, act, dgamma, dbeta, coef);
    DDL_CUDA_LAUNCHED();
    size_t total = (size_t)n * c * p;
    if (dx && total) {
        DDL_LAUNCH(bn_dx_kernel, ddl_grid(total), DDL_BLOCK, 0, st)(x, dy, dx, act, c, p, save_mean, coef, acc, total);
        DDL_CUDA_LAUNCHED();
    }
    DDL_CUDA_CHECK(cudaFreeAsync(buf, st));
}

// ---- batchnorm_eval_stats_cuda: the running statistics in the form
// backward reads (mean, 1/sqrt(var + eps)). The same two IEEE operations
// as the CPU (nvcc's defaults keep division and sqrtf correctly rounded),
// so bit-identical.

namespace {

__global__ void bn_eval_stats_kernel(const float *mean, const float *var, int c, float eps, float *save_mean,
                                     float *save_invstd)
{
    DDL_GRID_STRIDE(j, (size_t)c)
    {
        save_mean[j] = mean[j];
        save_invstd[j] = 1.0f / sqrtf(var[j] + eps);
    }
}

} // namespace

extern "C" void batchnorm_eval_stats_cuda(const float *mean, const float *var, int c, float eps, float *save_mean,
                                          float *save_invstd)
{
    if (c <= 0) return;
    DDL_LAUNCH(bn_eval_stats_kernel, ddl_grid((size_t)c), DDL_BLOCK, 0, ddl_stream())(mean, var, c, eps, save_mean,
                                                                                       save_invstd);
    DDL_CUDA_LAUNCHED();
}
