// winograd4.cu - the Winograd F(4x4,3x3) transforms, twins of
// core/conv/winograd4.c (the maths, layouts and why every product there is
// exact or a sum's last step). One thread per tile (input and output
// transforms) or per filter (filter transform); consecutive threads take
// consecutive tiles, so the 36 rows of v and m are written and read in
// runs. Each value is computed with the CPU's operations in the CPU's
// order; the filter transform's inexact scalings (1/6, 1/24) go through
// ddl_mul_rn, so that the compiler cannot fuse them into a following add:
// the results match the CPU's bit for bit.
#include "cuda_check.h"
#include "kernels_cuda.h"
#include "../conv/winograd_kernels.h"
#include "launch.h"
#include "winograd_shared.h"

namespace {

__device__ inline void bt6(const float d[6], float v[6])
{
    v[0] = 4.0f * (d[0] - d[2]) + (d[4] - d[2]);
    v[1] = (d[3] + d[4]) - 4.0f * (d[1] + d[2]);
    v[2] = 4.0f * (d[1] - d[2]) + (d[4] - d[3]);
    v[3] = 2.0f * (d[3] - d[1]) + (d[4] - d[2]);
    v[4] = 2.0f * (d[1] - d[3]) + (d[4] - d[2]);
    v[5] = 4.0f * (d[1] - d[3]) + (d[5] - d[3]);
}

__device__ inline void g6(const float g[3], float t[6])
{
    t[0] = 0.25f * g[0];
    t[1] = ddl_mul_rn(-(g[0] + g[1] + g[2]), 1.0f / 6.0f);
    t[2] = ddl_mul_rn(-(g[0] - g[1] + g[2]), 1.0f / 6.0f);
    t[3] = ddl_mul_rn(g[0] + 2.0f * g[1] + 4.0f * g[2], 1.0f / 24.0f);
    t[4] = ddl_mul_rn(g[0] - 2.0f * g[1] + 4.0f * g[2], 1.0f / 24.0f);
    t[5] = g[2];
}

__device__ inline void at6(const float m[6], float o[4])
{
    o[0] = m[0] + m[1] + m[2] + m[3] + m[4];
    o[1] = (m[1] - m[2]) + 2.0f * (m[3] - m[4]);
    o[2] = (m[1] + m[2]) + 4.0f * (m[3] + m[4]);
    o[3] = (m[1] - m[2]) + 8.0f * (m[3] - m[4]) + m[5];
}

// Thread e = (channel c, column q = image * T + tile) of v's rows.
__global__ void input4_kernel(const float *__restrict__ x, WinoTiles g, size_t total, float *__restrict__ v)
{
    DDL_GRID_STRIDE(e, total)
    {
        unsigned c = (unsigned)e / g.ld, q = (unsigned)e % g.ld, i = q / g.T, j = q % g.T;
        int y0 = 4 * (int)(j / g.tw) - 1, x0 = 4 * (int)(j % g.tw) - 1;
        const float *plane = x + ((size_t)i * g.C + c) * g.H * g.W;
        float w[6][6];
        for (int r = 0; r < 6; r++) {
            float d[6];
            int yy = y0 + r;
            for (int s = 0; s < 6; s++) {
                int xx = x0 + s;
                bool in = yy >= 0 && yy < (int)g.H && xx >= 0 && xx < (int)g.W;
                d[s] = in ? plane[(size_t)yy * g.W + xx] : 0.0f;
            }
            bt6(d, w[r]);
        }
        size_t stride = total; // C * ld: between the 36 positions
        for (int s = 0; s < 6; s++) {
            float col[6] = { w[0][s], w[1][s], w[2][s], w[3][s], w[4][s], w[5][s] }, o[6];
            bt6(col, o);
            for (int r = 0; r < 6; r++) v[(size_t)(r * 6 + s) * stride + e] = o[r];
        }
    }
}

} // namespace

WINOGRAD_TRANSFORMS(winograd4, 4, input4_kernel, g6, at6)

// The path's CUDA table (core/conv/winograd_kernels.h): F(2x2)'s weight
// gradient (winograd.cu, winograd_grad.cu).
extern "C" const WinogradKernels CONV_CUDA_TABLE(winograd4_kernels) = {
    winograd4_input_cuda, winograd4_filter_cuda, winograd4_output_cuda,
    winograd_input_cuda,  winograd_output_grad_cuda, winograd_filter_grad_cuda,
};
