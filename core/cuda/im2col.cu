// im2col.cu - convolution lowering and its adjoint, batched exactly as
// im2col_cpu: col[C*k*k][nb*OH*OW], row (c, ki, kj), image i's pixels at
// columns [i*OH*OW, (i+1)*OH*OW).
#include "cuda_check.h"
#include "kernels_cuda.h"

namespace {

struct ConvGeom {
    int nb, C, H, W, k, stride, pad, OH, OW;
};

// Element (row r, column j) of the column matrix: the input pixel it
// copies, or 0 in the padding. __host__ too so the index arithmetic can be
// checked against im2col_cpu without a GPU.
__host__ __device__ inline float im2col_elem(const float *x, const ConvGeom &g, unsigned r, unsigned j)
{
    unsigned P = (unsigned)g.OH * (unsigned)g.OW;
    unsigned kk = (unsigned)g.k * (unsigned)g.k;
    int c = (int)(r / kk), ki = (int)(r % kk) / g.k, kj = (int)(r % kk) % g.k;
    unsigned i = j / P, pix = j % P;
    int oh = (int)(pix / (unsigned)g.OW), ow = (int)(pix % (unsigned)g.OW);
    int ih = oh * g.stride - g.pad + ki, iw = ow * g.stride - g.pad + kj;
    if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) return 0.0f;
    return x[(((size_t)i * g.C + c) * g.H + ih) * g.W + iw];
}

// dx element e = (i, c, ih, iw): gathers every column entry that copied
// this pixel instead of scattering with atomics, so the result is
// deterministic. The CPU adds the contributions to dx in (ki, kj) order
// (each (ki, kj) reaches a pixel from at most one (oh, ow)); summing in
// the same order from the same start (0, or dx with acc) gives the CPU's
// float result bit for bit.
__host__ __device__ inline float col2im_elem(const float *col, const ConvGeom &g, unsigned e, float start)
{
    int iw = (int)(e % (unsigned)g.W);
    unsigned t = e / (unsigned)g.W;
    int ih = (int)(t % (unsigned)g.H);
    t /= (unsigned)g.H;
    int c = (int)(t % (unsigned)g.C);
    unsigned i = t / (unsigned)g.C;
    size_t P = (size_t)g.OH * g.OW, ld = (size_t)g.nb * P;
    const float *base = col + (size_t)i * P;
    float s = start;
    for (int ki = 0; ki < g.k; ki++) {
        int a = ih + g.pad - ki; // = oh * stride
        if (a < 0 || a % g.stride) continue;
        int oh = a / g.stride;
        if (oh >= g.OH) continue;
        for (int kj = 0; kj < g.k; kj++) {
            int b = iw + g.pad - kj; // = ow * stride
            if (b < 0 || b % g.stride) continue;
            int ow = b / g.stride;
            if (ow >= g.OW) continue;
            size_t row = ((size_t)c * g.k + ki) * g.k + kj;
            s += base[row * ld + (size_t)oh * g.OW + ow];
        }
    }
    return s;
}

// y covers rows (grid-stride, gridDim.y is limited to 65535), x covers the
// nb*OH*OW columns of a row: consecutive threads write consecutive columns.
__global__ void im2col_kernel(const float *__restrict__ x, ConvGeom g, unsigned rows, unsigned ld,
                              float *__restrict__ col)
{
    for (unsigned r = blockIdx.y; r < rows; r += gridDim.y)
        for (unsigned j = blockIdx.x * blockDim.x + threadIdx.x; j < ld; j += blockDim.x * gridDim.x)
            col[(size_t)r * ld + j] = im2col_elem(x, g, r, j);
}

__global__ void col2im_kernel(const float *__restrict__ col, ConvGeom g, size_t total, bool acc,
                              float *__restrict__ dx)
{
    DDL_GRID_STRIDE(e, total) dx[e] = col2im_elem(col, g, (unsigned)e, acc ? dx[e] : 0.0f);
}

} // namespace

extern "C" void im2col_cuda(const float *x, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW,
                            float *col)
{
    size_t rows = (size_t)C * k * k, ld = (size_t)nb * OH * OW;
    if (rows == 0 || ld == 0) return;
    ddl_check_u32(ld, "im2col_cuda columns");
    ddl_check_u32(rows, "im2col_cuda rows");
    ConvGeom g = { nb, C, H, W, k, stride, pad, OH, OW };
    dim3 grid(ddl_grid(ld), (unsigned)(rows < 65535 ? rows : 65535));
    DDL_LAUNCH(im2col_kernel, grid, DDL_BLOCK, 0, ddl_stream())(x, g, (unsigned)rows, (unsigned)ld, col);
    DDL_CUDA_LAUNCHED();
}

extern "C" void col2im_cuda(const float *col, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW,
                            float *dx, bool acc)
{
    size_t total = (size_t)nb * C * H * W;
    if (total == 0) return;
    ddl_check_u32(total, "col2im_cuda");
    ConvGeom g = { nb, C, H, W, k, stride, pad, OH, OW };
    DDL_LAUNCH(col2im_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(col, g, total, acc, dx);
    DDL_CUDA_LAUNCHED();
}
