// sgd.cu - the SGD update (PyTorch's torch.optim.SGD, dampening 0), twin of
// core/cpu/sgd.c. The explicitly rounded operations (__fmul_rn, __fadd_rn)
// stop nvcc from fusing multiply-adds, so every step rounds where the CPU's
// does and the weights stay bit-identical to a CPU run given equal
// gradients.
#include "cuda_check.h"
#include "kernels_cuda.h"

namespace {

__global__ void sgd_plain_kernel(float *w, const float *grad, size_t count, float lr, float wd)
{
    DDL_GRID_STRIDE(i, count)
    {
        float g = __fadd_rn(grad[i], __fmul_rn(wd, w[i]));
        w[i] = __fsub_rn(w[i], __fmul_rn(lr, g));
    }
}

__global__ void sgd_momentum_kernel(float *w, const float *grad, float *velocity, size_t count, float lr, float mu,
                                    float wd, bool nesterov)
{
    DDL_GRID_STRIDE(i, count)
    {
        float g = __fadd_rn(grad[i], __fmul_rn(wd, w[i]));
        float v = __fadd_rn(__fmul_rn(mu, velocity[i]), g);
        velocity[i] = v;
        float step = nesterov ? __fadd_rn(g, __fmul_rn(mu, v)) : v;
        w[i] = __fsub_rn(w[i], __fmul_rn(lr, step));
    }
}

} // namespace

extern "C" void sgd_update_cuda(float *w, const float *grad, float *velocity, size_t count, float lr, float momentum,
                                float weight_decay, bool nesterov)
{
    if (count == 0) return;
    if (momentum == 0.0f) // no velocity read or written, as on the CPU
        DDL_LAUNCH(sgd_plain_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(w, grad, count, lr, weight_decay);
    else
        DDL_LAUNCH(sgd_momentum_kernel, ddl_grid(count), DDL_BLOCK, 0, ddl_stream())(w, grad, velocity, count, lr, momentum,
                                                                             weight_decay, nesterov);
    DDL_CUDA_LAUNCHED();
}
