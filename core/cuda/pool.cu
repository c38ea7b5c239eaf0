// pool.cu - max, average and global average pooling, twins of
// core/cpu/pool.c. Backward passes gather (one thread per input element,
// visiting the windows that contain it) instead of scattering with
// atomics: deterministic, and in the CPU's order, so max and average
// pooling give the CPU's floats bit for bit.
#include <cfloat>

#include "cuda_check.h"
#include "kernels_cuda.h"

namespace {

struct PoolGeom {
    int H, W, k, stride, pad, OH, OW;
};

// Output rows (or columns) whose window contains input row ih:
// oh*stride - pad <= ih <= oh*stride - pad + k - 1, clipped to [0, OH).
__host__ __device__ inline void windows_of(int ih, int k, int stride, int pad, int OH, int *lo, int *hi)
{
    int a = ih + pad - k + 1;
    *lo = a <= 0 ? 0 : (a + stride - 1) / stride;
    int h = (ih + pad) / stride;
    *hi = h < OH - 1 ? h : OH - 1;
}

// Offset in the plane of window (oh, ow)'s first maximum, -1 when the
// window lies entirely in the padding. The CPU's loop exactly: first
// maximum wins (ties go to the earliest element in row-major order).
__host__ __device__ inline int window_argmax(const float *xp, const PoolGeom &g, int oh, int ow)
{
    float m = -FLT_MAX;
    int best = -1;
    for (int ki = 0; ki < g.k; ki++) {
        int ih = oh * g.stride - g.pad + ki;
        if (ih < 0 || ih >= g.H) continue;
        for (int kj = 0; kj < g.k; kj++) {
            int iw = ow * g.stride - g.pad + kj;
            if (iw < 0 || iw >= g.W) continue;
            float v = xp[ih * g.W + iw];
            if (best < 0 || v > m) {
                m = v;
                best = ih * g.W + iw;
            }
        }
    }
    return best;
}

__host__ __device__ inline float maxpool_fwd_elem(const float *x, const PoolGeom &g, unsigned o)
{
    int ow = (int)(o % (unsigned)g.OW);
    unsigned t = o / (unsigned)g.OW;
    int oh = (int)(t % (unsigned)g.OH);
    unsigned pl = t / (unsigned)g.OH;
    const float *xp = x + (size_t)pl * g.H * g.W;
    float m = -FLT_MAX; // as the CPU: starts below every finite value
    for (int ki = 0; ki < g.k; ki++) {
        int ih = oh * g.stride - g.pad + ki;
        if (ih < 0 || ih >= g.H) continue;
        for (int kj = 0; kj < g.k; kj++) {
            int iw = ow * g.stride - g.pad + kj;
            if (iw < 0 || iw >= g.W) continue;
            float v = xp[ih * g.W + iw];
            if (v > m) m = v;
        }
    }
    return m;
}

// Input element e: the sum of dy over the windows whose arg-max it is, in
// the CPU's (oh, ow) order. The arg-max is recomputed per window (k*k
// loads, cached), as the CPU does instead of storing indices.
__host__ __device__ inline float maxpool_bwd_elem(const float *x, const float *dy, const PoolGeom &g, unsigned e,
                                                  float start)
{
    int iw = (int)(e % (unsigned)g.W);
    unsigned t = e / (unsigned)g.W;
    int ih = (int)(t % (unsigned)g.H);
    unsigned pl = t / (unsigned)g.H;
    const float *xp = x + (size_t)pl * g.H * g.W;
    const float *dyp = dy + (size_t)pl * g.OH * g.OW;
    int me = ih * g.W + iw, oh0, oh1, ow0, ow1;
    windows_of(ih, g.k, g.stride, g.pad, g.OH, &oh0, &oh1);
    windows_of(iw, g.k, g.stride, g.pad, g.OW, &ow0, &ow1);
    float s = start;
    for (int oh = oh0; oh <= oh1; oh++)
        for (int ow = ow0; ow <= ow1; ow++)
            if (window_argmax(xp, g, oh, ow) == me) s += dyp[oh * g.OW + ow];
    return s;
}

__host__ __device__ inline float avgpool_fwd_elem(const float *x, const PoolGeom &g, unsigned o, float inv)
{
    int ow = (int)(o % (unsigned)g.OW);
    unsigned t = o / (unsigned)g.OW;
    int oh = (int)(t % (unsigned)g.OH);
    unsigned pl = t / (unsigned)g.OH;
    const float *xp = x + (size_t)pl * g.H * g.W;
    float s = 0.0f;
    for (int ki = 0; ki < g.k; ki++) {
        int ih = oh * g.stride - g.pad + ki;
        if (ih < 0 || ih >= g.H) continue;
        for (int kj = 0; kj < g.k; kj++) {
            int iw = ow * g.stride - g.pad + kj;
            if (iw >= 0 && iw < g.W) s += xp[ih * g.W + iw];
        }
    }
    return s * inv;
}

// Padding counts (count_include_pad): every window divides by k*k.
__host__ __device__ inline float avgpool_bwd_elem(const float *dy, const PoolGeom &g, unsigned e, float start,
                                                  float inv)
{
    int iw = (int)(e % (unsigned)g.W);
    unsigned t = e / (unsigned)g.W;
    int ih = (int)(t % (unsigned)g.H);
    unsigned pl = t / (unsigned)g.H;
    const float *dyp = dy + (size_t)pl * g.OH * g.OW;
    int oh0, oh1, ow0, ow1;
    windows_of(ih, g.k, g.stride, g.pad, g.OH, &oh0, &oh1);
    windows_of(iw, g.k, g.stride, g.pad, g.OW, &ow0, &ow1);
    float s = start;
    for (int oh = oh0; oh <= oh1; oh++)
        for (int ow = ow0; ow <= ow1; ow++) s += ddl_mul_rn(dyp[oh * g.OW + ow], inv); // rounded as the CPU's g
    return s;
}

__global__ void maxpool_fwd_kernel(const float *x, float *y, PoolGeom g, size_t total)
{
    DDL_GRID_STRIDE(o, total) y[o] = maxpool_fwd_elem(x, g, (unsigned)o);
}

__global__ void maxpool_bwd_kernel(const float *x, const float *dy, float *dx, PoolGeom g, size_t total, bool acc)
{
    DDL_GRID_STRIDE(e, total) dx[e] = maxpool_bwd_elem(x, dy, g, (unsigned)e, acc ? dx[e] : 0.0f);
}

__global__ void avgpool_fwd_kernel(const float *x, float *y, PoolGeom g, size_t total, float inv)
{
    DDL_GRID_STRIDE(o, total) y[o] = avgpool_fwd_elem(x, g, (unsigned)o, inv);
}

__global__ void avgpool_bwd_kernel(const float *dy, float *dx, PoolGeom g, size_t total, bool acc, float inv)
{
    DDL_GRID_STRIDE(e, total) dx[e] = avgpool_bwd_elem(dy, g, (unsigned)e, acc ? dx[e] : 0.0f, inv);
}

// One warp per plane: lanes sum strided elements, then a fixed xor-butterfly
// combines them (deterministic). Float as on the CPU (planes are small).
__global__ void gap_fwd_kernel(const float *x, float *y, int planes, int p)
{
    int lane = threadIdx.x & 31;
    int warps = (int)(blockDim.x >> 5) * gridDim.x;
    for (int pl = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5); pl < planes; pl += warps) {
        const float *xp = x + (size_t)pl * p;
        float s = 0.0f;
        for (int q = lane; q < p; q += 32) s += xp[q];
        for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
        if (lane == 0) y[pl] = s / (float)p;
    }
}

__global__ void gap_bwd_kernel(const float *dy, float *dx, int p, size_t total, bool acc)
{
    DDL_GRID_STRIDE(e, total)
    {
        float g = dy[(unsigned)e / (unsigned)p] / (float)p;
        dx[e] = acc ? dx[e] + g : g;
    }
}

} // namespace

extern "C" void maxpool_forward_cuda(const float *x, float *y, int planes, int H, int W, int k, int stride, int pad,
                                     int OH, int OW)
{
    size_t total = (size_t)planes * OH * OW;
    if (total == 0) return;
    ddl_check_u32(total, "maxpool_forward_cuda");
    PoolGeom g = { H, W, k, stride, pad, OH, OW };
    DDL_LAUNCH(maxpool_fwd_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(x, y, g, total);
    DDL_CUDA_LAUNCHED();
}

extern "C" void maxpool_backward_cuda(const float *x, const float *dy, float *dx, int planes, int H, int W, int k,
                                      int stride, int pad, int OH, int OW, bool acc)
{
    size_t total = (size_t)planes * H * W;
    if (total == 0) return;
    ddl_check_u32(total, "maxpool_backward_cuda");
    PoolGeom g = { H, W, k, stride, pad, OH, OW };
    DDL_LAUNCH(maxpool_bwd_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(x, dy, dx, g, total, acc);
    DDL_CUDA_LAUNCHED();
}

extern "C" void avgpool_forward_cuda(const float *x, float *y, int planes, int H, int W, int k, int stride, int pad,
                                     int OH, int OW)
{
    size_t total = (size_t)planes * OH * OW;
    if (total == 0) return;
    ddl_check_u32(total, "avgpool_forward_cuda");
    PoolGeom g = { H, W, k, stride, pad, OH, OW };
    float inv = 1.0f / (float)(k * k);
    DDL_LAUNCH(avgpool_fwd_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(x, y, g, total, inv);
    DDL_CUDA_LAUNCHED();
}

extern "C" void avgpool_backward_cuda(const float *dy, float *dx, int planes, int H, int W, int k, int stride, int pad,
                                      int OH, int OW, bool acc)
{
    size_t total = (size_t)planes * H * W;
    if (total == 0) return;
    ddl_check_u32(total, "avgpool_backward_cuda");
    PoolGeom g = { H, W, k, stride, pad, OH, OW };
    float inv = 1.0f / (float)(k * k);
    DDL_LAUNCH(avgpool_bwd_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(dy, dx, g, total, acc, inv);
    DDL_CUDA_LAUNCHED();
}

extern "C" void global_avgpool_forward_cuda(const float *x, float *y, int planes, int p)
{
    if (planes <= 0) return;
    unsigned blocks = ddl_grid((size_t)planes * 32); // one warp per plane
    DDL_LAUNCH(gap_fwd_kernel, blocks, DDL_BLOCK, 0, ddl_stream())(x, y, planes, p);
    DDL_CUDA_LAUNCHED();
}

extern "C" void global_avgpool_backward_cuda(const float *dy, float *dx, int planes, int p, bool acc)
{
    size_t total = (size_t)planes * p;
    if (total == 0) return;
    ddl_check_u32(total, "global_avgpool_backward_cuda");
    DDL_LAUNCH(gap_bwd_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(dy, dx, p, total, acc);
    DDL_CUDA_LAUNCHED();
}
