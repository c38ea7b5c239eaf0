// probe.cu - is there a usable GPU? Compiled only when nvcc exists.
#include "cuda_runtime_probe.h"

#include <cstdio>
#include <cuda_runtime.h>

extern "C" int ddl_cuda_probe(int index, char *desc, size_t cap, char *err, size_t errcap)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(err, errcap, "cudaGetDeviceCount failed: %s (error %d)", cudaGetErrorString(e), (int)e);
        return -1;
    }
    if (count == 0) {
        snprintf(err, errcap, "no CUDA device visible");
        return -1;
    }
    int dev = index % count;
    cudaDeviceProp p;
    e = cudaGetDeviceProperties(&p, dev);
    if (e != cudaSuccess) {
        snprintf(err, errcap, "cudaGetDeviceProperties(%d): %s", dev, cudaGetErrorString(e));
        return -1;
    }
    snprintf(desc, cap, "%s, sm_%d%d, %.0f GiB, device %d of %d", p.name, p.major, p.minor,
             (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), dev, count);
    return 0;
}

extern "C" int ddl_cuda_device_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}
