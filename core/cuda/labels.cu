// labels.cu - labels_outside_cuda, twin of labels_outside_cpu: how many
// labels lie outside [0, classes), counted by one block with a fixed
// shared-memory tree (no atomics) and returned to the host (waits).
#include "cuda_check.h"
#include "kernels_cuda.h"
#include "launch.h"

namespace {

__global__ void __launch_bounds__(DDL_BLOCK) labels_outside_kernel(const int32_t *labels, int n, int classes, int *bad)
{
    __shared__ ddl_shared<int, DDL_BLOCK> sh;
    int s = 0;
    for (int i = (int)threadIdx.x; i < n; i += DDL_BLOCK) s += labels[i] < 0 || labels[i] >= classes;
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int h = DDL_BLOCK / 2; h > 0; h >>= 1) {
        if ((int)threadIdx.x < h) sh[threadIdx.x] += sh[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) *bad = sh[0];
}

} // namespace

extern "C" int labels_outside_cuda(const int32_t *labels, int n, int classes)
{
    if (n <= 0) return 0;
    cudaStream_t st = ddl_stream();
    int *bad = nullptr, host = 0;
    DDL_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void **>(&bad), sizeof(int), st));
    DDL_LAUNCH(labels_outside_kernel, 1, DDL_BLOCK, 0, st)(labels, n, classes, bad);
    DDL_CUDA_LAUNCHED();
    DDL_CUDA_CHECK(cudaMemcpyAsync(&host, bad, sizeof host, cudaMemcpyDeviceToHost, st));
    DDL_CUDA_CHECK(cudaFreeAsync(bad, st));
    DDL_CUDA_CHECK(cudaStreamSynchronize(st));
    return host;
}
