// layout.cu - NCHW <-> channel-major around multi-image convolution GEMMs,
// twins of core/conv/layout.c: x[nb][c][p] <-> t[c][nb*p]. One thread per
// element of the channel-major side, so consecutive threads touch
// consecutive addresses there and runs of p on the NCHW side. Copies:
// bit-identical to the CPU.
#include "cuda_check.h"
#include "kernels_cuda.h"
#include "launch.h"

namespace {

// Element e of t = (channel j, column q) reads image q / p, pixel q % p.
__device__ inline size_t nchw_index(size_t e, unsigned nb, unsigned c, unsigned p)
{
    unsigned ld = nb * p, j = (unsigned)e / ld, q = (unsigned)e % ld;
    return ((size_t)(q / p) * c + j) * p + q % p;
}

__global__ void images_to_channels_kernel(const float *__restrict__ x, unsigned nb, unsigned c, unsigned p,
                                          float *__restrict__ t, size_t total)
{
    DDL_GRID_STRIDE(e, total) t[e] = x[nchw_index(e, nb, c, p)];
}

__global__ void channels_to_images_kernel(const float *__restrict__ t, unsigned nb, unsigned c, unsigned p,
                                          float *__restrict__ y, size_t total)
{
    DDL_GRID_STRIDE(e, total) y[nchw_index(e, nb, c, p)] = t[e];
}

} // namespace

extern "C" void images_to_channels_cuda(const float *x, int nb, int c, int p, float *t)
{
    size_t total = (size_t)nb * c * p;
    if (total == 0) return;
    ddl_check_u32(total, "images_to_channels_cuda");
    DDL_LAUNCH(images_to_channels_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(x, (unsigned)nb, (unsigned)c,
                                                                                        (unsigned)p, t, total);
    DDL_CUDA_LAUNCHED();
}

extern "C" void channels_to_images_cuda(const float *t, int nb, int c, int p, float *y)
{
    size_t total = (size_t)nb * c * p;
    if (total == 0) return;
    ddl_check_u32(total, "channels_to_images_cuda");
    DDL_LAUNCH(channels_to_images_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(t, (unsigned)nb, (unsigned)c,
                                                                                        (unsigned)p, y, total);
    DDL_CUDA_LAUNCHED();
}
