// softmax_ce.cu - fused softmax + cross-entropy, twin of core/cpu/softmax_ce.c.
//
// Forward: one warp per example (max and arg-max, exp and sum, normalise),
// then one block adds the per-example losses and hits with a fixed tree:
// no atomics, the same sum on every run. exp is CUDA's expf (within 2 ulp
// of glibc's), so probabilities and loss agree with the CPU to ~1e-6
// relative, not bit for bit.
#include <cfloat>
#include <climits>
#include <cmath>

#include "block_reduce.h"
#include "kernels_cuda.h"

namespace {

// (v, j) beats (m, arg) when larger, or equal with a smaller index: the
// CPU's "first maximum wins" scan, as an order the warp can combine in any
// grouping.
__device__ inline bool better(float v, int j, float m, int arg) { return v > m || (v == m && j < arg); }

__global__ void softmax_rows_kernel(const float *logits, const int32_t *labels, int n, int classes, float *probs,
                                    double *row_loss, int *row_right)
{
    int lane = threadIdx.x & 31;
    int warps = (int)(blockDim.x >> 5) * gridDim.x;
    for (int i = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5); i < n; i += warps) {
        const float *z = logits + (size_t)i * classes;
        float *pr = probs + (size_t)i * classes;
        float mx = -INFINITY;
        int arg = INT_MAX;
        for (int j = lane; j < classes; j += 32)
            if (better(z[j], j, mx, arg)) {
                mx = z[j];
                arg = j;
            }
        for (int off = 16; off > 0; off >>= 1) {
            float v = __shfl_xor_sync(0xffffffffu, mx, off);
            int a = __shfl_xor_sync(0xffffffffu, arg, off);
            if (better(v, a, mx, arg)) {
                mx = v;
                arg = a;
            }
        }
        // Sum in double as the CPU; the xor butterfly leaves the same value
        // in every lane (each step adds the same two numbers on both sides).
        double s = 0.0;
        for (int j = lane; j < classes; j += 32) {
            float e = expf(z[j] - mx);
            pr[j] = e;
            s += e;
        }
        for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
        float inv = (float)(1.0 / s);
        for (int j = lane; j < classes; j += 32) pr[j] *= inv; // this lane's own writes
        if (lane == 0) {
            int y = labels[i];
            bool valid = y >= 0 && y < classes; // a bad label gives NaN, not a wild read
            row_loss[i] = valid ? -((double)(z[y] - mx) - log(s)) : (double)NAN;
            row_right[i] = valid && arg == y;
        }
    }
}

struct CeResult {
    double loss;
    int correct;
    int pad;
};

__global__ void __launch_bounds__(DDL_BLOCK) softmax_sum_kernel(const double *row_loss, const int *row_right, int n, CeResult *out)
{
    __shared__ ddl_shared<double, DDL_BLOCK> sh;
    double s = 0.0, r = 0.0;
    for (int i = threadIdx.x; i < n; i += DDL_BLOCK) {
        s += row_loss[i];
        r += row_right[i];
    }
    s = ddl_block_sum(s, sh);
    r = ddl_block_sum(r, sh); // integers: exact in double
    if (threadIdx.x == 0) {
        out->loss = s;
        out->correct = (int)r;
        out->pad = 0; // copied to the host with the rest (compute-sanitizer initcheck)
    }
}

__global__ void softmax_bwd_kernel(const float *probs, const int32_t *labels, int classes, float scale,
                                   float *dlogits, size_t total)
{
    DDL_GRID_STRIDE(e, total)
    {
        int i = (int)((unsigned)e / (unsigned)classes), j = (int)((unsigned)e % (unsigned)classes);
        float d = __fmul_rn(probs[e], scale); // rounded before the subtraction, as the CPU
        dlogits[e] = j == labels[i] ? d - scale : d;
    }
}

} // namespace

extern "C" double softmax_ce_forward_cuda(const float *logits, const int32_t *labels, int n, int classes,
                                          float *probs, int *correct)
{
    if (n <= 0) {
        if (correct) *correct = 0;
        return 0.0;
    }
    ddl_check_u32((size_t)n * classes, "softmax_ce_forward_cuda");
    cudaStream_t st = ddl_stream();
    // Scratch in stream order: [CeResult][row_loss: n doubles][row_right: n ints].
    size_t bytes = sizeof(CeResult) + (size_t)n * (sizeof(double) + sizeof(int));
    void *buf = nullptr;
    DDL_CUDA_CHECK(cudaMallocAsync(&buf, bytes, st));
    CeResult *res = static_cast<CeResult *>(buf);
    double *row_loss = reinterpret_cast<double *>(res + 1);
    int *row_right = reinterpret_cast<int *>(row_loss + n);
    DDL_LAUNCH(softmax_rows_kernel, ddl_grid((size_t)n * 32), DDL_BLOCK, 0, st)(logits, labels, n, classes, probs, row_loss,
                                                                         row_right);
    DDL_CUDA_LAUNCHED();
    DDL_LAUNCH(softmax_sum_kernel, 1, DDL_BLOCK, 0, st)(row_loss, row_right, n, res);
    DDL_CUDA_LAUNCHED();
    CeResult host;
    DDL_CUDA_CHECK(cudaMemcpyAsync(&host, res, sizeof host, cudaMemcpyDeviceToHost, st));
    DDL_CUDA_CHECK(cudaFreeAsync(buf, st));
    DDL_CUDA_CHECK(cudaStreamSynchronize(st));
    if (correct) *correct = host.correct;
    return host.loss;
}

extern "C" void softmax_ce_backward_cuda(const float *probs, const int32_t *labels, int n, int classes, float scale,
                                         float *dlogits)
{
    size_t total = (size_t)n * classes;
    if (total == 0) return;
    ddl_check_u32(total, "softmax_ce_backward_cuda");
    DDL_LAUNCH(softmax_bwd_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(probs, labels, classes, scale, dlogits, total);
    DDL_CUDA_LAUNCHED();
}

// ---- labels_outside_cuda, twin of labels_outside_cpu: how many labels lie
// outside [0, classes), counted by one block with a fixed shared-memory
// tree (no atomics) and returned to the host (waits).

namespace {

__global__ void __launch_bounds__(DDL_BLOCK) labels_outside_kernel(const int32_t *labels, int n, int classes, int *bad)
{
    __shared__ ddl_shared<int, DDL_BLOCK> sh;
    int s = 0;
    for (int i = (int)threadIdx.x; i < n; i += DDL_BLOCK) s += labels[i] < 0 || labels[i] >= classes;
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int h = DDL_BLOCK / 2; h > 0; h >>= 1) {
        if ((int)threadIdx.x < h) sh[threadIdx.x] += sh[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) *bad = sh[0];
}

} // namespace

extern "C" int labels_outside_cuda(const int32_t *labels, int n, int classes)
{
    if (n <= 0) return 0;
    cudaStream_t st = ddl_stream();
    int *bad = nullptr, host = 0;
    DDL_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void **>(&bad), sizeof(int), st));
    DDL_LAUNCH(labels_outside_kernel, 1, DDL_BLOCK, 0, st)(labels, n, classes, bad);
    DDL_CUDA_LAUNCHED();
    DDL_CUDA_CHECK(cudaMemcpyAsync(&host, bad, sizeof host, cudaMemcpyDeviceToHost, st));
    DDL_CUDA_CHECK(cudaFreeAsync(bad, st));
    DDL_CUDA_CHECK(cudaStreamSynchronize(st));
    return host;
}
