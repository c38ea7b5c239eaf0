// winograd.cu - the Winograd F(2x2,3x3) transforms, twins of
// core/conv/winograd.c (the maths and layouts are explained there and in
// kernels.h). One thread per tile (input and output transforms) or per
// filter (filter transform); consecutive threads take consecutive tiles, so
// the 16 rows of v and m are written and read in runs. Each value is
// computed with the CPU's operations in the CPU's order: no sum is split,
// so results match the CPU's up to FMA contraction.
#include "cuda_check.h"
#include "kernels_cuda.h"
#include "../conv/winograd_kernels.h"
#include "launch.h"
#include "winograd_shared.h"

namespace {

__device__ inline void bt4(const float d[4], float t[4])
{
    t[0] = d[0] - d[2];
    t[1] = d[1] + d[2];
    t[2] = d[2] - d[1];
    t[3] = d[1] - d[3];
}

__device__ inline void g3(const float g[3], float t[4])
{
    t[0] = g[0];
    t[1] = 0.5f * (g[0] + g[1] + g[2]);
    t[2] = 0.5f * (g[0] - g[1] + g[2]);
    t[3] = g[2];
}

__device__ inline void at4(const float m[4], float o[2])
{
    o[0] = m[0] + m[1] + m[2];
    o[1] = m[1] - m[2] - m[3];
}

// Thread e = (channel c, column q = image * T + tile) of v's rows.
__global__ void input_kernel(const float *__restrict__ x, WinoTiles g, size_t total, float *__restrict__ v)
{
    DDL_GRID_STRIDE(e, total)
    {
        unsigned c = (unsigned)e / g.ld, q = (unsigned)e % g.ld, i = q / g.T, j = q % g.T;
        int y0 = 2 * (int)(j / g.tw) - 1, x0 = 2 * (int)(j % g.tw) - 1;
        const float *plane = x + ((size_t)i * g.C + c) * g.H * g.W;
        float d[4][4], t[4][4], col[4], out[4];
        for (int r = 0; r < 4; r++)
            for (int s = 0; s < 4; s++) {
                int yy = y0 + r, xx = x0 + s;
                bool in = yy >= 0 && yy < (int)g.H && xx >= 0 && xx < (int)g.W;
                d[r][s] = in ? plane[(size_t)yy * g.W + xx] : 0.0f;
            }
        for (int r = 0; r < 4; r++) bt4(d[r], t[r]);
        size_t stride = total; // C * ld: between the 16 positions
        for (int s = 0; s < 4; s++) {
            for (int r = 0; r < 4; r++) col[r] = t[r][s];
            bt4(col, out);
            for (int r = 0; r < 4; r++) v[(size_t)(r * 4 + s) * stride + e] = out[r];
        }
    }
}

} // namespace

WINOGRAD_TRANSFORMS(winograd, 2, input_kernel, g3, at4)

// The path's CUDA table (core/conv/winograd_kernels.h), with the weight
// gradient's transforms of winograd_grad.cu.
extern "C" const WinogradKernels CONV_CUDA_TABLE(winograd_kernels) = {
    winograd_input_cuda, winograd_filter_cuda, winograd_output_cuda,
    winograd_input_cuda, winograd_output_grad_cuda, winograd_filter_grad_cuda,
};
