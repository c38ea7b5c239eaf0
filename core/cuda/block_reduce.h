// block_reduce.h - deterministic block-wide sum for the per-channel
// reductions (batch norm, bias gradient). C++/CUDA only.
#ifndef DDL_CUDA_BLOCK_REDUCE_H
#define DDL_CUDA_BLOCK_REDUCE_H

#include "cuda_check.h"

// Sum of one double per thread over a block of exactly DDL_BLOCK threads,
// by a fixed tree in shared memory: the same additions in the same order
// on every run (no atomics), so results are deterministic. Doubles as on
// the CPU side, where channel sums over n*H*W values lose digits in float.
// Every thread gets the sum. sh: a __shared__ ddl_shared<double, DDL_BLOCK>;
// it may be reused as soon as this returns.
__device__ inline double ddl_block_sum(double v, ddl_shared_ptr<double> sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = DDL_BLOCK / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    double r = sh[0];
    __syncthreads();
    return r;
}

// Offset of element t (0 <= t < n*p) of channel j in an [n][c][p] tensor:
// the per-channel kernels walk a channel's n*p values with a flat index so
// that all threads of the block are busy even when p is small (a 4x4 plane,
// or p = 1 after a linear layer). Consecutive t are consecutive addresses
// within a row of p, so the loads coalesce.
__host__ __device__ inline size_t ddl_chan_off(unsigned t, int j, int c, int p)
{
    unsigned i = t / (unsigned)p, q = t % (unsigned)p;
    return ((size_t)i * c + j) * p + q;
}

#endif
