// mixed_precision.cu - the per-step kernels of mixed precision that
// fp16.cu does not have: FP16 storage emulated in float (half_round_cuda,
// twin of half_round_cpu) and loss (un)scaling (scale_cuda, twin of
// scale_cpu). Both are bit-identical to the CPU: one rounding each.
#include <cuda_fp16.h>

#include "cuda_check.h"
#include "kernels_cuda.h"
#include "launch.h"

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

__global__ void scale_kernel(float *x, size_t count, float s)
{
    DDL_GRID_STRIDE(i, count) x[i] = x[i] * s;
}

} // namespace

extern "C" void half_round_cuda(float *x, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(half_round_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void scale_cuda(float *x, size_t count, float s)
{
    if (count == 0) return;
    DDL_LAUNCH(scale_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, count, s);
    DDL_CUDA_LAUNCHED();
}
