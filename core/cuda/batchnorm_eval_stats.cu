// batchnorm_eval_stats.cu - twin of batchnorm_eval_stats_cpu: the running
// statistics in the form backward reads (mean, 1/sqrt(var + eps)). The
// same two IEEE operations as the CPU (nvcc's defaults keep division and
// sqrtf correctly rounded), so bit-identical.
#include "cuda_check.h"
#include "kernels_cuda.h"
#include "launch.h"

namespace {

__global__ void bn_eval_stats_kernel(const float *mean, const float *var, int c, float eps, float *save_mean,
                                     float *save_invstd)
{
    DDL_GRID_STRIDE(j, (size_t)c)
    {
        save_mean[j] = mean[j];
        save_invstd[j] = 1.0f / sqrtf(var[j] + eps);
    }
}

} // namespace

extern "C" void batchnorm_eval_stats_cuda(const float *mean, const float *var, int c, float eps, float *save_mean,
                                          float *save_invstd)
{
    if (c <= 0) return;
    DDL_LAUNCH(bn_eval_stats_kernel, ddl_grid((size_t)c), DDL_BLOCK, 0, ddl_stream())(mean, var, c, eps, save_mean,
                                                                                       save_invstd);
    DDL_CUDA_LAUNCHED();
}
