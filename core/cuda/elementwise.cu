// elementwise.cu - bias, activations, mul (dropout), add, gradient copies,
// loss scaling, dropout masks: the twins of core/cpu/elementwise.c.
// Same formulas as core/cpu/elementwise.c; nvcc may fuse a multiply and an
// add into one FMA where the CPU rounds twice (one ulp at most).
#include "block_reduce.h"
#include "kernels_cuda.h"

extern "C" {
#include "../util/rng.h"
}

namespace {

__global__ void bias_add_kernel(float *y, const float *bias, int c, int p, size_t total)
{
    DDL_GRID_STRIDE(e, total) y[e] += bias[((unsigned)e / (unsigned)p) % (unsigned)c];
}

// One block per channel (blockIdx.x = j); dbias accumulates as on the CPU.
__global__ void __launch_bounds__(DDL_BLOCK) bias_grad_kernel(const float *dy, float *dbias, int n, int c, int p)
{
    __shared__ ddl_shared<double, DDL_BLOCK> sh;
    int j = blockIdx.x;
    unsigned m = (unsigned)n * (unsigned)p;
    double s = 0.0;
    for (unsigned t = threadIdx.x; t < m; t += DDL_BLOCK) s += dy[ddl_chan_off(t, j, c, p)];
    s = ddl_block_sum(s, sh);
    if (threadIdx.x == 0) dbias[j] += (float)s;
}

__global__ void relu_fwd_kernel(const float *x, float *y, size_t count)
{
    DDL_GRID_STRIDE(i, count) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

// Gradient where x > 0 (PyTorch's threshold_backward: x <= 0 gives 0).
__global__ void relu_bwd_kernel(const float *x, const float *dy, float *dx,
                                size_t count, bool acc)
{
    DDL_GRID_STRIDE(i, count)
    {
        float g = x[i] > 0.0f ? dy[i] : 0.0f;
        dx[i] = acc ? dx[i] + g : g;
    }
}

__global__ void relu6_fwd_kernel(const float *x, float *y, size_t count)
{
    DDL_GRID_STRIDE(i, count)
    {
        float v = x[i] > 0.0f ? x[i] : 0.0f;
        y[i] = v < 6.0f ? v : 6.0f;
    }
}

// hardtanh_backward: gradient only strictly inside (0, 6).
__global__ void relu6_bwd_kernel(const float *x, const float *dy, float *dx,
                                 size_t count, bool acc)
{
    DDL_GRID_STRIDE(i, count)
    {
        float g = (x[i] > 0.0f && x[i] < 6.0f) ? dy[i] : 0.0f;
        dx[i] = acc ? dx[i] + g : g;
    }
}

__global__ void mul_kernel(const float *a, const float *b, float *y,
                           size_t count)
{
    DDL_GRID_STRIDE(i, count) y[i] = a[i] * b[i];
}

__global__ void mul_acc_kernel(const float *a, const float *b, float *y,
                               size_t count)
{
    // __fmul_rn keeps the product rounded before the add, as on the CPU.
    DDL_GRID_STRIDE(i, count) y[i] += __fmul_rn(a[i], b[i]);
}

__global__ void add_kernel(const float *a, const float *b, float *y,
                           size_t count)
{
    DDL_GRID_STRIDE(i, count) y[i] = a[i] + b[i];
}

// relu(a + b): the bits of add_kernel then relu_fwd_kernel.
__global__ void add_relu_kernel(const float *a, const float *b, float *y, size_t count)
{
    DDL_GRID_STRIDE(i, count)
    {
        float s = a[i] + b[i];
        y[i] = s > 0.0f ? s : 0.0f;
    }
}

// g = dy where y > 0, to da then db (either NULL, or both one tensor), as on the CPU.
__global__ void add_relu_bwd_kernel(const float *y, const float *dy, float *da, bool acc_a, float *db, bool acc_b,
                                    size_t count)
{
    DDL_GRID_STRIDE(i, count)
    {
        float g = y[i] > 0.0f ? dy[i] : 0.0f;
        if (da) da[i] = acc_a ? da[i] + g : g;
        if (db) db[i] = acc_b ? db[i] + g : g;
    }
}

__global__ void acc_kernel(const float *dy, float *dx, size_t count)
{
    DDL_GRID_STRIDE(i, count) dx[i] += dy[i];
}

} // namespace

extern "C" void bias_add_cuda(float *y, const float *bias, int n, int c, int p)
{
    size_t total = (size_t)n * c * p;
    if (total == 0) return;
    ddl_check_u32(total, "bias_add_cuda");
    DDL_LAUNCH(bias_add_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(y, bias, c, p, total);
    DDL_CUDA_LAUNCHED();
}

extern "C" void bias_grad_cuda(const float *dy, float *dbias, int n, int c, int p)
{
    if (c <= 0) return;
    ddl_check_u32((size_t)n * p, "bias_grad_cuda");
    DDL_LAUNCH(bias_grad_kernel, c, DDL_BLOCK, 0, ddl_stream())(dy, dbias, n, c, p);
    DDL_CUDA_LAUNCHED();
}

extern "C" void relu_forward_cuda(const float *x, float *y, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(relu_fwd_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, y, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void relu_backward_cuda(const float *x, const float *dy, float *dx, size_t count, bool acc)
{
    if (count == 0) return;
    DDL_LAUNCH(relu_bwd_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, dy, dx, count, acc);
    DDL_CUDA_LAUNCHED();
}

extern "C" void relu6_forward_cuda(const float *x, float *y, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(relu6_fwd_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, y, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void relu6_backward_cuda(const float *x, const float *dy, float *dx, size_t count, bool acc)
{
    if (count == 0) return;
    DDL_LAUNCH(relu6_bwd_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, dy, dx, count, acc);
    DDL_CUDA_LAUNCHED();
}

extern "C" void mul_cuda(const float *x, const float *mask, float *y, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(mul_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, mask, y, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void mul_backward_cuda(const float *dy, const float *mask, float *dx, size_t count, bool acc)
{
    if (count == 0) return;
    if (acc)
        DDL_LAUNCH(mul_acc_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(dy, mask, dx, count);
    else
        DDL_LAUNCH(mul_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(dy, mask, dx, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void add_cuda(const float *a, const float *b, float *y, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(add_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(a, b, y, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void add_relu_cuda(const float *a, const float *b, float *y, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(add_relu_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(a, b, y, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void add_relu_backward_cuda(const float *y, const float *dy, float *da, bool acc_a, float *db, bool acc_b,
                                       size_t count)
{
    if (count == 0 || (!da && !db)) return;
    DDL_LAUNCH(add_relu_bwd_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(y, dy, da, acc_a, db, acc_b, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void copy_grad_cuda(const float *dy, float *dx, size_t count, bool acc)
{
    if (count == 0) return;
    if (!acc) { // a plain copy, as memcpy on the CPU
        DDL_CUDA_CHECK(cudaMemcpyAsync(dx, dy, sizeof(float) * count, cudaMemcpyDeviceToDevice, ddl_stream()));
        return;
    }
    DDL_LAUNCH(acc_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(dy, dx, count);
    DDL_CUDA_LAUNCHED();
}

// ---- dropout_mask_cuda: the inverted-dropout mask, bit-identical to
// dropout_mask_cpu.
//
// The CPU draws one SplitMix64 value per element from the stream
// rng_make2(seed, "dropout", stream). SplitMix64 is counter-based: after k
// draws its state is s0 + k * GAMMA (mod 2^64), and draw k (from 0) is
// mix(s0 + (k + 1) * GAMMA). So element k's value is computed directly on
// the GPU, in parallel, from s0 (which the host takes from rng_make2 itself,
// so the seeding can never drift from the CPU's), with the same 24-bit
// float conversion and the same comparison: the masks are equal bit for bit.

namespace {

constexpr uint64_t SPLITMIX_GAMMA = 0x9E3779B97F4A7C15ULL;

// Element k of the mask (same arithmetic as rng.c's splitmix and
// rng_uniform; __host__ too so it can be checked without a GPU).
__host__ __device__ inline float dropout_elem(uint64_t s0, uint64_t k, float p, float keep)
{
    uint64_t z = s0 + (k + 1) * SPLITMIX_GAMMA;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    float u = (float)(z >> 40) * (1.0f / 16777216.0f);
    return u < p ? 0.0f : keep;
}

__global__ void dropout_kernel(float *mask, size_t count, uint64_t s0, float p, float keep)
{
    DDL_GRID_STRIDE(k, count) mask[k] = dropout_elem(s0, k, p, keep);
}

} // namespace

extern "C" void dropout_mask_cuda(float *mask, size_t count, float p, uint64_t seed, uint64_t stream)
{
    if (count == 0) return;
    Rng r = rng_make2(seed, "dropout", stream);
    float keep = 1.0f / (1.0f - p); // computed on the host exactly as the CPU does
    DDL_LAUNCH(dropout_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(mask, count, r.state, p, keep);
    DDL_CUDA_LAUNCHED();
}

// ---- scale_cuda: loss (un)scaling, x *= s; one rounding, as on the CPU,
// so bit-identical.

namespace {

__global__ void scale_kernel(float *x, size_t count, float s)
{
    DDL_GRID_STRIDE(i, count) x[i] = x[i] * s;
}

} // namespace

extern "C" void scale_cuda(float *x, size_t count, float s)
{
    if (count == 0) return;
    DDL_LAUNCH(scale_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, count, s);
    DDL_CUDA_LAUNCHED();
}
