// winograd_grad.cu - the Winograd F(2x2,3x3) weight gradient's transforms,
// twins of core/conv/winograd_grad.c (maths and layouts there and in
// kernels.h). One thread per tile (output gradient) or per filter (filter
// gradient), each computed with the CPU's operations in the CPU's order:
// only additions, subtractions and exact halvings, so the results are the
// CPU's bit for bit (a fused multiply-add by 0.5 rounds as the unfused one).
#include "cuda_check.h"
#include "kernels_cuda.h"
#include "../conv/winograd_kernels.h"
#include "launch.h"

namespace {

struct GradGeom {
    unsigned K, H, W, tw, T, ld; // T tiles per image, ld = nb * T
};

// Thread e = (channel k, column q = image * T + tile) of dm's rows.
__global__ void output_grad_kernel(const float *__restrict__ dy, GradGeom g, size_t total, float *__restrict__ dm)
{
    DDL_GRID_STRIDE(e, total)
    {
        unsigned k = (unsigned)e / g.ld, q = (unsigned)e % g.ld, i = q / g.T, j = q % g.T;
        unsigned y0 = 2 * (j / g.tw), x0 = 2 * (j % g.tw);
        const float *plane = dy + ((size_t)i * g.K + k) * g.H * g.W;
        float p[2][4];
        for (int r = 0; r < 2; r++) {
            unsigned y = y0 + r;
            float ev = y < g.H ? plane[(size_t)y * g.W + x0] : 0.0f;
            float od = y < g.H && x0 + 1 < g.W ? plane[(size_t)y * g.W + x0 + 1] : 0.0f;
            p[r][0] = ev;
            p[r][1] = ev + od;
            p[r][2] = ev - od;
            p[r][3] = -od;
        }
        for (int s = 0; s < 4; s++) {
            dm[(size_t)(0 + s) * total + e] = p[0][s];
            dm[(size_t)(4 + s) * total + e] = p[0][s] + p[1][s];
            dm[(size_t)(8 + s) * total + e] = p[0][s] - p[1][s];
            dm[(size_t)(12 + s) * total + e] = -p[1][s];
        }
    }
}

__device__ inline void gt4(const float u[4], float t[3])
{
    t[0] = u[0] + 0.5f * (u[1] + u[2]);
    t[1] = 0.5f * (u[1] - u[2]);
    t[2] = 0.5f * (u[1] + u[2]) + u[3];
}

// Thread e = (output channel k, input channel c): dw[e][3][3] += G^T du G.
__global__ void filter_grad_kernel(const float *__restrict__ du, size_t total, float *__restrict__ dw)
{
    DDL_GRID_STRIDE(e, total)
    {
        float d[4][4], t[4][3], col[4], out[3];
        for (int q = 0; q < 16; q++) d[q / 4][q % 4] = du[(size_t)q * total + e];
        for (int r = 0; r < 4; r++) gt4(d[r], t[r]);
        float *f = dw + e * 9;
        for (int j = 0; j < 3; j++) {
            for (int r = 0; r < 4; r++) col[r] = t[r][j];
            gt4(col, out);
            for (int i = 0; i < 3; i++) f[i * 3 + j] += out[i];
        }
    }
}

} // namespace

extern "C" void winograd_output_grad_cuda(const float *dy, int nb, int K, int H, int W, float *dm)
{
    unsigned tw = (unsigned)(W + 1) / 2, T = (unsigned)((H + 1) / 2) * tw;
    GradGeom g = { (unsigned)K, (unsigned)H, (unsigned)W, tw, T, (unsigned)nb * T };
    size_t total = (size_t)K * g.ld;
    if (total == 0) return;
    ddl_check_u32(16 * total, "winograd_output_grad_cuda");
    DDL_LAUNCH(output_grad_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(dy, g, total, dm);
    DDL_CUDA_LAUNCHED();
}

extern "C" void winograd_filter_grad_cuda(const float *du, int K, int C, float *dw)
{
    size_t total = (size_t)K * C;
    if (total == 0) return;
    ddl_check_u32(16 * total, "winograd_filter_grad_cuda");
    DDL_LAUNCH(filter_grad_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(du, total, dw);
    DDL_CUDA_LAUNCHED();
}
