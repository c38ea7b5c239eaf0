// dropout.cu - the inverted-dropout mask, bit-identical to dropout_mask_cpu.
//
// The CPU draws one SplitMix64 value per element from the stream
// rng_make2(seed, "dropout", stream). SplitMix64 is counter-based: after k
// draws its state is s0 + k * GAMMA (mod 2^64), and draw k (from 0) is
// mix(s0 + (k + 1) * GAMMA). So element k's value is computed directly on
// the GPU, in parallel, from s0 (which the host takes from rng_make2 itself,
// so the seeding can never drift from the CPU's), with the same 24-bit
// float conversion and the same comparison: the masks are equal bit for bit.
#include "cuda_check.h"
#include "kernels_cuda.h"

extern "C" {
#include "../util/rng.h"
}

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
