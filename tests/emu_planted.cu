// emu_planted.cu - one small kernel (or runtime call) per strict-mode
// detector of the emulated GPU, each with its bug planted on purpose, for
// tests/emu_check.sh (make emu-check, and make test through
// tests/e2e_emu_check.sh).
//
//   bin/tests/emu_planted CASE     runs one case (DDL_EMU_STRICT=1 expected)
//   bin/tests/emu_planted --list   prints "CASE DETECTOR" per line
//
// A case must end the run with strict mode's report of its detector
// ("strict mode: DETECTOR:") and a non-zero status; `clean` runs the same
// kinds of work without a bug and must end with status 0, so that a
// detector that fires on everything cannot pass. Built only against the
// emulated GPU (g++ -x c++, core/cuda/emu): on a real GPU,
// compute-sanitizer plays this part.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda/launch.h"
extern "C" {
#include "driver/environment.h"
}

namespace {

constexpr int N = 64;

void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "emu_planted: %s failed: %s\n", what, cudaGetErrorString(e));
        exit(3);
    }
}

float *dev(size_t n)
{
    void *p = nullptr;
    check(cudaMalloc(&p, n * sizeof(float)), "cudaMalloc");
    return static_cast<float *>(p);
}

void upload(float *d, size_t n, float v)
{
    std::vector<float> h(n, v);
    check(cudaMemcpyAsync(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice, cudaStreamPerThread), "HtoD");
}

void download(float *h, const float *d, size_t n)
{
    check(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, cudaStreamPerThread), "DtoH");
    check(cudaStreamSynchronize(cudaStreamPerThread), "cudaStreamSynchronize");
}

// ---- kernels ----

__global__ void scale_kernel(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * 2.0f + 1.0f;
}

__global__ void fill_kernel(float *y, int n, float v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = v;
}

__global__ void write_past_kernel(float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) y[i] = 1.0f; // one element too many
}

__global__ void read_past_kernel(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i + 1] * 2.0f; // the last thread reads past the end
}

// Reads a neighbour's element: with `sync` a barrier sits between the
// write and the read, and the kernel is correct. (The array is set once
// first, so that the race, not an unwritten element, is what shows.)
__global__ void neighbour_kernel(float *y, int sync)
{
    __shared__ ddl_shared<float, N> sh;
    unsigned t = threadIdx.x;
    sh[t] = 0.0f;
    __syncthreads();
    sh[t] = (float)t;
    if (sync) __syncthreads();
    y[t] = sh[(t + 1) % N];
}

// Every thread reads element 0, then thread 5 overwrites it: no barrier.
__global__ void war_kernel(float *y)
{
    __shared__ ddl_shared<float, N> sh;
    unsigned t = threadIdx.x;
    if (t == 0) sh[0] = 1.0f;
    __syncthreads();
    float v = sh[0];
    if (t == 5) sh[0] = 2.0f;
    y[t] = v;
}

__global__ void shared_unwritten_kernel(float *y)
{
    __shared__ ddl_shared<float, N> sh;
    unsigned t = threadIdx.x;
    if (t != 7) sh[t] = 1.0f; // thread 7 forgets its element
    __syncthreads();
    y[t] = sh[t];
}

__global__ void shared_past_kernel(float *y)
{
    __shared__ ddl_shared<float, N> sh;
    unsigned t = threadIdx.x;
    sh[t + 1] = 1.0f; // the last thread writes past the array
    __syncthreads();
    y[t] = 0.0f;
}

__global__ void shared_big_kernel(float *y)
{
    __shared__ ddl_shared<float, 16384> big; // 64 KiB: over sm_90's 48 KiB of static shared memory
    unsigned t = threadIdx.x;
    big[t] = 1.0f;
    y[t] = 0.0f;
}

// Threads past n return before the barrier the others wait at.
__global__ void early_exit_kernel(float *y, int n)
{
    __shared__ ddl_shared<float, N> sh;
    unsigned t = threadIdx.x;
    if ((int)t >= n) return;
    sh[t] = 1.0f;
    __syncthreads();
    y[t] = sh[(t + 1) % n];
}

__global__ void two_barriers_kernel(float *y)
{
    unsigned t = threadIdx.x;
    if (t < 32) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    y[t] = 0.0f;
}

// A warp sum; lanes at or past n return first (when n < 32, the rest read
// exited lanes).
__global__ void warp_sum_kernel(float *y, int n, unsigned mask)
{
    unsigned t = threadIdx.x;
    if ((int)t >= n) return;
    float s = (float)t;
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(mask, s, off);
    y[t] = s;
}

// ---- cases ----

int run_clean()
{
    float *x = dev(N), *y = dev(N);
    upload(x, N, 1.0f);
    DDL_LAUNCH(scale_kernel, 1, N, 0, cudaStreamPerThread)(x, y, N);
    DDL_LAUNCH(neighbour_kernel, 1, N, 0, cudaStreamPerThread)(x, 1);
    DDL_LAUNCH(warp_sum_kernel, 1, N, 0, cudaStreamPerThread)(y, N, 0xffffffffu);
    cudaStream_t s;
    cudaEvent_t e;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventRecord(e, cudaStreamPerThread), "cudaEventRecord");
    check(cudaStreamWaitEvent(s, e, 0), "cudaStreamWaitEvent");
    DDL_LAUNCH(fill_kernel, 1, N, 0, s)(x, N, 3.0f); // ordered after the work above by the event
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    float h[N];
    download(h, y, N);
    download(h, x, N);
    check(cudaStreamDestroy(s), "cudaStreamDestroy");
    check(cudaEventDestroy(e), "cudaEventDestroy");
    check(cudaFree(x), "cudaFree");
    check(cudaFree(y), "cudaFree");
    return h[0] == 3.0f ? 0 : 4;
}

// ---- the cases: each plants one bug on x (never written unless the case
// writes it) and y, both N floats; emu_planted then copies y back.

using Case = void (*)(float *x, float *y, cudaStream_t st);

void uninit_read(float *x, float *y, cudaStream_t st) { DDL_LAUNCH(scale_kernel, 1, N, 0, st)(x, y, N); }
// Only N - 1 elements written, N copied out.
void uninit_copy(float *, float *y, cudaStream_t st) { DDL_LAUNCH(fill_kernel, 1, N, 0, st)(y, N - 1, 1.0f); }
void oob_write(float *, float *y, cudaStream_t st) { DDL_LAUNCH(write_past_kernel, 1, N + 1, 0, st)(y, N); }
void oob_read(float *x, float *y, cudaStream_t st)
{
    upload(x, N, 1.0f);
    DDL_LAUNCH(read_past_kernel, 1, N, 0, st)(x, y, N);
}
void use_after_free(float *x, float *, cudaStream_t st)
{
    check(cudaFree(x), "cudaFree");
    DDL_LAUNCH(fill_kernel, 1, N, 0, st)(x, N, 1.0f);
}
void host_pointer(float *, float *, cudaStream_t st)
{
    static float h[N];
    DDL_LAUNCH(fill_kernel, 1, N, 0, st)(h, N, 1.0f);
}
void shared_raw(float *, float *y, cudaStream_t st) { DDL_LAUNCH(neighbour_kernel, 1, N, 0, st)(y, 0); }
void shared_war(float *, float *y, cudaStream_t st) { DDL_LAUNCH(war_kernel, 1, N, 0, st)(y); }
void shared_uninit(float *, float *y, cudaStream_t st) { DDL_LAUNCH(shared_unwritten_kernel, 1, N, 0, st)(y); }
void shared_oob(float *, float *y, cudaStream_t st) { DDL_LAUNCH(shared_past_kernel, 1, N, 0, st)(y); }
void shared_limit(float *, float *y, cudaStream_t st) { DDL_LAUNCH(shared_big_kernel, 1, N, 0, st)(y); }
void block_limit(float *, float *y, cudaStream_t st) { DDL_LAUNCH(fill_kernel, 1, 2048, 0, st)(y, N, 1.0f); }
void grid_limit(float *, float *y, cudaStream_t st) { DDL_LAUNCH(fill_kernel, dim3(1, 70000), 32, 0, st)(y, N, 1.0f); }
void barrier_exit(float *, float *y, cudaStream_t st) { DDL_LAUNCH(early_exit_kernel, 1, N, 0, st)(y, N - 8); }
void barrier_sites(float *, float *y, cudaStream_t st) { DDL_LAUNCH(two_barriers_kernel, 1, N, 0, st)(y); }
void shuffle_exited(float *, float *y, cudaStream_t st)
{
    DDL_LAUNCH(warp_sum_kernel, 1, 32, 0, st)(y, 20, 0xffffffffu);
}
void shuffle_mask(float *, float *y, cudaStream_t st) { DDL_LAUNCH(warp_sum_kernel, 1, 32, 0, st)(y, 32, 0x0000ffffu); }
void copy_overlap(float *x, float *, cudaStream_t st)
{
    upload(x, N, 1.0f);
    check(cudaMemcpyAsync(x + 8, x, 16 * sizeof(float), cudaMemcpyDeviceToDevice, st), "DtoD");
}
// The memset and the copy on two streams, no event between them.
void stream_race(float *, float *y, cudaStream_t st)
{
    cudaStream_t s2;
    check(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaMemsetAsync(y, 0, N * sizeof(float), st), "cudaMemsetAsync");
    std::vector<float> src(N, 2.0f);
    check(cudaMemcpyAsync(y, src.data(), N * sizeof(float), cudaMemcpyHostToDevice, s2), "HtoD");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

// Each case and the detector that must report it.
struct Planted {
    const char *name, *detector;
    Case run;
};
const Planted CASES[] = {
    { "uninit-read", "uninitialised-read", uninit_read },       { "uninit-copy", "uninitialised-copy", uninit_copy },
    { "oob-write", "out-of-bounds-write", oob_write },          { "oob-read", "out-of-bounds-read", oob_read },
    { "use-after-free", "use-after-free", use_after_free },     { "host-pointer", "host-pointer", host_pointer },
    { "shared-raw", "shared-race", shared_raw },                { "shared-war", "shared-race", shared_war },
    { "shared-uninit", "shared-uninitialised", shared_uninit }, { "shared-oob", "shared-out-of-bounds", shared_oob },
    { "shared-limit", "launch-limit", shared_limit },           { "block-limit", "launch-limit", block_limit },
    { "grid-limit", "launch-limit", grid_limit },               { "barrier-exit", "barrier-divergence", barrier_exit },
    { "barrier-sites", "barrier-divergence", barrier_sites },   { "shuffle-exited", "shuffle-lane", shuffle_exited },
    { "shuffle-mask", "shuffle-lane", shuffle_mask },           { "copy-overlap", "copy-overlap", copy_overlap },
    { "stream-race", "stream-race", stream_race },
};

int run_case(const char *name)
{
    if (!strcmp(name, "clean")) return run_clean();
    for (const Planted &c : CASES) {
        if (strcmp(name, c.name)) continue;
        float *x = dev(N), *y = dev(N), h[N];
        c.run(x, y, cudaStreamPerThread);
        if (cudaGetLastError() != cudaSuccess) return 5; // a launch refused without a report
        download(h, y, N);
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        return 0; // no report: the detector missed it (emu_check.sh says so)
    }
    fprintf(stderr, "emu_planted: unknown case '%s' (--list names them)\n", name);
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    if (driver_env_apply() != 0) return 2; // DDL_EMU_STRICT reaches the emulator as at a program's start
    if (argc != 2 || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: %s CASE | --list (strict mode's planted bugs; tests/emu_check.sh runs them)\n",
                argv[0]);
        return argc == 2 ? 0 : 2;
    }
    if (!strcmp(argv[1], "--list")) {
        for (const Planted &c : CASES) printf("%s %s\n", c.name, c.detector);
        return 0;
    }
    return run_case(argv[1]);
}
