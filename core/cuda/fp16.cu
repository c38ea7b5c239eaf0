// fp16.cu - FP32 <-> FP16 casts, FP16 storage emulated in float and the
// loss-scale overflow check used by mixed precision (FP16 working copy,
// FP32 master weights, dynamic loss scaling: a step whose gradients hold
// an inf or NaN is skipped): the twins of core/cpu/fp16.c.
#include <cuda_fp16.h>

#include "cuda_check.h"
#include "kernels_cuda.h"

namespace {

// uint16_t in the C API, __half here: same 16 bits (static_assert below).
static_assert(sizeof(__half) == sizeof(uint16_t), "__half is 16 bits");

__global__ void f32_to_f16_kernel(const float *x, __half *y, size_t count)
{
    DDL_GRID_STRIDE(i, count) y[i] = __float2half_rn(x[i]); // round to nearest even; overflow -> inf
}

__global__ void f16_to_f32_kernel(const __half *x, float *y, size_t count)
{
    DDL_GRID_STRIDE(i, count) y[i] = __half2float(x[i]); // exact
}

// Threads that find a non-finite value all store the same 1: a benign race
// with a deterministic result. The flag is never cleared here.
__global__ void nonfinite_kernel(const float *x, size_t count, int *flag)
{
    DDL_GRID_STRIDE(i, count)
    if (!isfinite(x[i])) *flag = 1;
}

} // namespace

extern "C" void f32_to_f16_cuda(const float *x, uint16_t *y, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(f32_to_f16_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, reinterpret_cast<__half *>(y), count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void f16_to_f32_cuda(const uint16_t *x, float *y, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(f16_to_f32_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(reinterpret_cast<const __half *>(x), y,
                                                                       count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void nonfinite_flag_cuda(const float *x, size_t count, int *flag)
{
    if (count == 0) return;
    DDL_LAUNCH(nonfinite_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, count, flag);
    DDL_CUDA_LAUNCHED();
}

extern "C" bool nonfinite_cuda(const float *x, size_t count)
{
    if (count == 0) return false;
    cudaStream_t st = ddl_stream();
    int *flag = nullptr, host = 0;
    DDL_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void **>(&flag), sizeof(int), st));
    DDL_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(int), st));
    nonfinite_flag_cuda(x, count, flag);
    DDL_CUDA_CHECK(cudaMemcpyAsync(&host, flag, sizeof host, cudaMemcpyDeviceToHost, st));
    DDL_CUDA_CHECK(cudaFreeAsync(flag, st));
    DDL_CUDA_CHECK(cudaStreamSynchronize(st));
    return host != 0;
}

// ---- half_round_cuda, twin of half_round_cpu: FP16 storage emulated in
// float, bit-identical to the CPU (one rounding).

namespace {

// __float2half_rn rounds to nearest even, overflows to infinity and keeps
// subnormals: what half_round does on the CPU. NaN passes through
// unchanged there, so it does here (the cast could change its payload).
__global__ void half_round_kernel(float *x, size_t count)
{
    DDL_GRID_STRIDE(i, count)
    {
        float v = x[i];
        if (!isnan(v)) x[i] = __half2float(__float2half_rn(v));
    }
}

} // namespace

extern "C" void half_round_cuda(float *x, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(half_round_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, count);
    DDL_CUDA_LAUNCHED();
}
