// elementwise.cu - bias, activations, mul (dropout), add, gradient copies.
// Same formulas as core/cpu/elementwise.c; nvcc may fuse a multiply and an
// add into one FMA where the CPU rounds twice (one ulp at most).
#include "block_reduce.h"
#include "kernels_cuda.h"

namespace {

__global__ void bias_add_kernel(float *y, const float *bias, int c, int p, size_t total)
{
    DDL_GRID_STRIDE(e, total) y[e] += bias[((unsigned)e / (unsigned)p) % (unsigned)c];
}

// One block per channel (blockIdx.x = j); dbias accumulates as on the CPU.
__global__ void __launch_bounds__(DDL_BLOCK) bias_grad_kernel(const float *dy, float *dbias, int n, int c, int p)
{
    __shared__ ddl_shared<double, DDL_BLOCK> sh;
    int j = blockIdx.x;
    unsigned m = (unsigned)n * (unsigned)p;
    double s = 0.0;
    for (unsigned t = threadIdx.x; t < m; t += DDL_BLOCK) s += dy[ddl_chan_off(t, j, c, p)];
    s = ddl_block_sum(s, sh);
    if (threadIdx.x == 0) dbias[j] += (float)s;
}

__global__ void relu_fwd_kernel(const float *x, float *y, size_t count)
{
    DDL_GRID_STRIDE(i, count) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

// Gradient where x > 0 (PyTorch's threshold_backward: x <= 0 gives 0).
__global__ void relu_bwd_kernel(const float *x, const float *dy, float *dx,
                                size_t count, bool acc)
{
    DDL_GRID_STRIDE(i, count)
    {
        float g = x[i] > 0.0f ? dy[i] : 0.0f;
        dx[i] = acc ? dx[i] + g : g;
    }
}

__global__ void relu6_fwd_kernel(const float *x, float *y, size_t count)
{
    DDL_GRID_STRIDE(i, count)
    {
        float v = x[i] > 0.0f ? x[i] : 0.0f;
        y[i] = v < 6.0f ? v : 6.0f;
    }
}

// hardtanh_backward: gradient only strictly inside (0, 6).
__global__ void relu6_bwd_kernel(const float *x, const float *dy, float *dx,
                                 size_t count, bool acc)
{
    DDL_GRID_STRIDE(i, count)
    {
        float g = (x[i] > 0.0f && x[i] < 6.0f) ? dy[i] : 0.0f;
        dx[i] = acc ? dx[i] + g : g;
    }
}

__global__ void mul_kernel(const float *a, const float *b, float *y,
                           size_t count)
{
    DDL_GRID_STRIDE(i, count) y[i] = a[i] * b[i];
}

__global__ void mul_acc_kernel(const float *a, const float *b, float *y,
                               size_t count)
{
    // __fmul_rn keeps the product rounded before the add, as on the CPU.
    DDL_GRID_STRIDE(i, count) y[i] += __fmul_rn(a[i], b[i]);
}

__global__ void add_kernel(const float *a, const float *b, float *y,
                           size_t count)
{
    DDL_GRID_STRIDE(i, count) y[i] = a[i] + b[i];
}

// relu(a + b): the bits of add_kernel then relu_fwd_kernel.
__global__ void add_relu_kernel(const float *a, const float *b, float *y, size_t count)
{
    DDL_GRID_STRIDE(i, count)
    {
        float s = a[i] + b[i];
        y[i] = s > 0.0f ? s : 0.0f;
    }
}

// g = dy where y > 0, to da then db (either NULL, or both one tensor), as on the CPU.
__global__ void add_relu_bwd_kernel(const float *y, const float *dy, float *da, bool acc_a, float *db, bool acc_b,
                                    size_t count)
{
    DDL_GRID_STRIDE(i, count)
    {
        float g = y[i] > 0.0f ? dy[i] : 0.0f;
        if (da) da[i] = acc_a ? da[i] + g : g;
        if (db) db[i] = acc_b ? db[i] + g : g;
    }
}

__global__ void acc_kernel(const float *dy, float *dx, size_t count)
{
    DDL_GRID_STRIDE(i, count) dx[i] += dy[i];
}

} // namespace

extern "C" void bias_add_cuda(float *y, const float *bias, int n, int c, int p)
{
    size_t total = (size_t)n * c * p;
    if (total == 0) return;
    ddl_check_u32(total, "bias_add_cuda");
    DDL_LAUNCH(bias_add_kernel, ddl_grid(total), DDL_BLOCK, 0, ddl_stream())(y, bias, c, p, total);
    DDL_CUDA_LAUNCHED();
}

extern "C" void bias_grad_cuda(const float *dy, float *dbias, int n, int c, int p)
{
    if (c <= 0) return;
    ddl_check_u32((size_t)n * p, "bias_grad_cuda");
    DDL_LAUNCH(bias_grad_kernel, c, DDL_BLOCK, 0, ddl_stream())(dy, dbias, n, c, p);
    DDL_CUDA_LAUNCHED();
}

extern "C" void relu_forward_cuda(const float *x, float *y, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(relu_fwd_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, y, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void relu_backward_cuda(const float *x, const float *dy, float *dx, size_t count, bool acc)
{
    if (count == 0) return;
    DDL_LAUNCH(relu_bwd_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, dy, dx, count, acc);
    DDL_CUDA_LAUNCHED();
}

extern "C" void relu6_forward_cuda(const float *x, float *y, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(relu6_fwd_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, y, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void relu6_backward_cuda(const float *x, const float *dy, float *dx, size_t count, bool acc)
{
    if (count == 0) return;
    DDL_LAUNCH(relu6_bwd_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, dy, dx, count, acc);
    DDL_CUDA_LAUNCHED();
}

extern "C" void mul_cuda(const float *x, const float *mask, float *y, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(mul_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(x, mask, y, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void mul_backward_cuda(const float *dy, const float *mask, float *dx, size_t count, bool acc)
{
    if (count == 0) return;
    if (acc)
        DDL_LAUNCH(mul_acc_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(dy, mask, dx, count);
    else
        DDL_LAUNCH(mul_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(dy, mask, dx, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void add_cuda(const float *a, const float *b, float *y, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(add_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(a, b, y, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void add_relu_cuda(const float *a, const float *b, float *y, size_t count)
{
    if (count == 0) return;
    DDL_LAUNCH(add_relu_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(a, b, y, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void add_relu_backward_cuda(const float *y, const float *dy, float *da, bool acc_a, float *db, bool acc_b,
                                       size_t count)
{
    if (count == 0 || (!da && !db)) return;
    DDL_LAUNCH(add_relu_bwd_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(y, dy, da, acc_a, db, acc_b, count);
    DDL_CUDA_LAUNCHED();
}

extern "C" void copy_grad_cuda(const float *dy, float *dx, size_t count, bool acc)
{
    if (count == 0) return;
    if (!acc) { // a plain copy, as memcpy on the CPU
        DDL_CUDA_CHECK(cudaMemcpyAsync(dx, dy, sizeof(float) * count, cudaMemcpyDeviceToDevice, ddl_stream()));
        return;
    }
    DDL_LAUNCH(acc_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(dy, dx, count);
    DDL_CUDA_LAUNCHED();
}
