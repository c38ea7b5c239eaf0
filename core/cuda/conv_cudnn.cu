// conv_cudnn.cu - convolutions by cuDNN (the ConvCudnn table of
// core/conv/kernels.h; the path is core/conv/path_cudnn.c).
//
// Built only when the Makefile found cudnn.h and libcudnn (DDL_HAVE_CUDNN),
// and never for the emulated GPU, which cannot run a vendor library's
// kernels: there, and in a build without cuDNN, this file's table only
// says why cuDNN is absent (at its end).
//
// What it does, per convolution shape, batch n and max_batch (a "plan"):
// - the descriptors (x, y: NCHW FP32; w: [cout][cin/groups][k][k], as the
//   reference path keeps the weights; the convolution: cross-correlation,
//   as every framework's "convolution", symmetric padding, no dilation,
//   groups), made once and kept for the thread's life;
// - the three algorithms (forward, data gradient, filter gradient) from
//   cuDNN's heuristics (cudnnGet*Algorithm_v7, best first): the first that
//   cuDNN reports usable, deterministic (a second run gives the same bits,
//   as every ddlab kernel does) and, with cuDNN's own workspace size for it
//   (cudnnGet*WorkspaceSize), within the limit below;
// - FMA math only (CUDNN_FMA_MATH): no TF32 tensor cores, so results stay
//   FP32 and comparable with the CPU's, as gemm.cu keeps cuBLAS; the
//   PyTorch side of make gpu-check also runs with TF32 off.
// cudnnFind* (timing every algorithm, PyTorch's benchmark mode) is not
// used: its choice depends on the timings of the moment, so two runs could
// take different algorithms and give different bits.
//
// The limit: for n == max_batch, WORKSPACE_CAP (some FFT algorithms ask for
// GiBs); for a smaller batch (an epoch's last, evaluation), what the plan
// of max_batch needs, so the model's scratch, sized from that, always holds
// it. The choice is thus a function of (shape, n, max_batch, GPU) alone.
//
// Handles and plans are per thread (thread_local, as gemm.cu's cuBLAS
// handles), never destroyed: they live as long as the process's CUDA
// context may (cuDNN must not outlive it).
//
// Written and compiled without a GPU; what only a GPU run can show (that
// cuDNN accepts every shape under FMA math, the results, the speed) is
// checked by tests/test_conv_cudnn.c and make gpu-check there.
#include "../conv/cudnn_kernels.h"

#if defined(DDL_HAVE_CUDNN) && !defined(DDL_CUDA_EMU)

#include <cudnn.h>
#include <cstdio>
#include <deque>
#include "cuda_check.h"
#include "kernels_cuda.h"

#define DDL_CUDNN_CHECK(call) DDL_STATUS_CHECK(call, cudnnStatus_t, CUDNN_STATUS_SUCCESS, cudnnGetErrorString)

namespace {

// The most workspace one layer's plan may take at its full batch. Not
// measured: a bound on what the model's scratch (the largest layer's
// need) may grow to, 1/300 of an 80 GiB GPU.
constexpr size_t WORKSPACE_CAP = (size_t)256 << 20;
thread_local cudnnHandle_t tl_handles[DDL_MAX_DEVICES];

int current_device() { return ddl_device_index("conv_cudnn"); }

// This thread's handle for the current device, on this thread's stream.
cudnnHandle_t handle()
{
    cudnnHandle_t &h = tl_handles[current_device()];
    if (!h) DDL_CUDNN_CHECK(cudnnCreate(&h));
    DDL_CUDNN_CHECK(cudnnSetStream(h, ddl_stream()));
    return h;
}

struct Plan {
    ConvShape s;
    int n, max_batch, dev;
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    cudnnConvolutionFwdAlgo_t fwd;
    cudnnConvolutionBwdDataAlgo_t data;
    cudnnConvolutionBwdFilterAlgo_t filter;
    size_t fwd_bytes, data_bytes, filter_bytes;
    size_t need() const
    {
        size_t m = fwd_bytes > data_bytes ? fwd_bytes : data_bytes;
        return m > filter_bytes ? m : filter_bytes;
    }
};

// A deque: plans do not move as more are added (callers keep pointers).
thread_local std::deque<Plan> tl_plans;

bool same_shape(const ConvShape &a, const ConvShape &b)
{
    return a.cin == b.cin && a.h == b.h && a.w == b.w && a.cout == b.cout && a.oh == b.oh && a.ow == b.ow &&
           a.k == b.k && a.stride == b.stride && a.pad == b.pad && a.groups == b.groups;
}

const char *shape_text(const ConvShape &s, int n)
{
    thread_local char buf[160];
    snprintf(buf, sizeof buf, "n%d %dx%dx%d -> %dx%dx%d, %dx%d filters, stride %d, pad %d, groups %d", n, s.cin, s.h,
             s.w, s.cout, s.oh, s.ow, s.k, s.k, s.stride, s.pad, s.groups);
    return buf;
}

void describe(Plan &p)
{
    const ConvShape &s = p.s;
    DDL_CUDNN_CHECK(cudnnCreateTensorDescriptor(&p.x));
    DDL_CUDNN_CHECK(cudnnCreateTensorDescriptor(&p.y));
    DDL_CUDNN_CHECK(cudnnCreateFilterDescriptor(&p.w));
    DDL_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&p.conv));
    DDL_CUDNN_CHECK(cudnnSetTensor4dDescriptor(p.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, p.n, s.cin, s.h, s.w));
    DDL_CUDNN_CHECK(cudnnSetTensor4dDescriptor(p.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, p.n, s.cout, s.oh, s.ow));
    DDL_CUDNN_CHECK(
        cudnnSetFilter4dDescriptor(p.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s.cout, s.cin / s.groups, s.k, s.k));
    DDL_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(p.conv, s.pad, s.pad, s.stride, s.stride, 1, 1,
                                                    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    DDL_CUDNN_CHECK(cudnnSetConvolutionGroupCount(p.conv, s.groups));
    DDL_CUDNN_CHECK(cudnnSetConvolutionMathType(p.conv, CUDNN_FMA_MATH));
    // The layer's output shape is ddlab's; cuDNN must agree on it.
    int n, c, h, w;
    DDL_CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(p.conv, p.x, p.w, &n, &c, &h, &w));
    if (n != p.n || c != s.cout || h != s.oh || w != s.ow)
        ddl_die("conv_cudnn: cuDNN computes a %dx%dx%dx%d output for %s", n, c, h, w, shape_text(s, p.n));
}

// The first of cuDNN's ranked candidates that is usable, deterministic
// and whose workspace (cuDNN's answer for it, under FMA math) fits limit:
// its index, its workspace in *bytes; dies naming the shape when none is.
template <typename Perf, typename Size>
int choose(const Perf *perf, int got, size_t limit, Size workspace_of, const char *what, const Plan &p, size_t *bytes)
{
    for (int i = 0; i < got; i++) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].determinism != CUDNN_DETERMINISTIC) continue;
        size_t b = 0;
        if (workspace_of(perf[i].algo, &b) != CUDNN_STATUS_SUCCESS || b > limit) continue;
        *bytes = b;
        return i;
    }
    ddl_die("conv_cudnn: none of cuDNN's %d %s algorithms is deterministic, runs under FMA math and needs at most "
            "%zu bytes of workspace, for %s",
            got, what, limit, shape_text(p.s, p.n));
}

void choose_algorithms(Plan &p, size_t limit)
{
    cudnnHandle_t h = handle();
    int got = 0;
    cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    DDL_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(h, p.x, p.w, p.conv, p.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                           &got, fwd));
    auto fwd_size = [&](cudnnConvolutionFwdAlgo_t a, size_t *b) {
        return cudnnGetConvolutionForwardWorkspaceSize(h, p.x, p.w, p.conv, p.y, a, b);
    };
    p.fwd = fwd[choose(fwd, got, limit, fwd_size, "forward", p, &p.fwd_bytes)].algo;

    cudnnConvolutionBwdDataAlgoPerf_t data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    DDL_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p.w, p.y, p.conv, p.x,
                                                                CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, data));
    auto data_size = [&](cudnnConvolutionBwdDataAlgo_t a, size_t *b) {
        return cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.w, p.y, p.conv, p.x, a, b);
    };
    p.data = data[choose(data, got, limit, data_size, "data-gradient", p, &p.data_bytes)].algo;

    cudnnConvolutionBwdFilterAlgoPerf_t filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    DDL_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
        h, p.x, p.y, p.conv, p.w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, filter));
    auto filter_size = [&](cudnnConvolutionBwdFilterAlgo_t a, size_t *b) {
        return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.x, p.y, p.conv, p.w, a, b);
    };
    p.filter = filter[choose(filter, got, limit, filter_size, "filter-gradient", p, &p.filter_bytes)].algo;
}

// The plan of (s, n, max_batch) on the current device: kept, or made.
const Plan &plan(const ConvShape *s, int n, int max_batch)
{
    if (n < 1 || n > max_batch) ddl_die("conv_cudnn: batch %d outside 1..%d", n, max_batch);
    int dev = current_device();
    for (const Plan &p : tl_plans)
        if (p.n == n && p.max_batch == max_batch && p.dev == dev && same_shape(p.s, *s)) return p;
    // a smaller batch stays within the full batch's workspace (above)
    size_t limit = n == max_batch ? WORKSPACE_CAP : plan(s, max_batch, max_batch).need();
    Plan p = {};
    p.s = *s;
    p.n = n;
    p.max_batch = max_batch;
    p.dev = dev;
    describe(p);
    choose_algorithms(p, limit);
    tl_plans.push_back(p);
    return tl_plans.back();
}

// The plan for a call, and a check that the caller's workspace holds it.
const Plan &plan_for_call(const ConvShape *s, int n, int max_batch, size_t ws_bytes)
{
    const Plan &p = plan(s, n, max_batch);
    if (p.need() > ws_bytes)
        ddl_die("conv_cudnn: %s needs %zu bytes of workspace, was given %zu", shape_text(*s, n), p.need(), ws_bytes);
    return p;
}

size_t cudnn_workspace(const ConvShape *s, int max_batch) { return plan(s, max_batch, max_batch).need(); }

void cudnn_forward_call(const ConvShape *s, int n, int max_batch, const float *x, const float *w, float *y, void *ws,
                        size_t ws_bytes)
{
    const Plan &p = plan_for_call(s, n, max_batch, ws_bytes);
    const float one = 1.0f, zero = 0.0f;
    DDL_CUDNN_CHECK(
        cudnnConvolutionForward(handle(), &one, p.x, x, p.w, w, p.conv, p.fwd, ws, p.fwd_bytes, &zero, p.y, y));
}

void cudnn_backward_data_call(const ConvShape *s, int n, int max_batch, const float *dy, const float *w, float *dx,
                              bool acc, void *ws, size_t ws_bytes)
{
    const Plan &p = plan_for_call(s, n, max_batch, ws_bytes);
    const float one = 1.0f, beta = acc ? 1.0f : 0.0f;
    DDL_CUDNN_CHECK(cudnnConvolutionBackwardData(handle(), &one, p.w, w, p.y, dy, p.conv, p.data, ws, p.data_bytes,
                                                 &beta, p.x, dx));
}

// dw += the gradient (beta 1): the layer's gradients accumulate.
void cudnn_backward_filter_call(const ConvShape *s, int n, int max_batch, const float *x, const float *dy, float *dw,
                                void *ws, size_t ws_bytes)
{
    const Plan &p = plan_for_call(s, n, max_batch, ws_bytes);
    const float one = 1.0f;
    DDL_CUDNN_CHECK(cudnnConvolutionBackwardFilter(handle(), &one, p.x, x, p.y, dy, p.conv, p.filter, ws,
                                                   p.filter_bytes, &one, p.w, dw));
}

const char *cudnn_version_text()
{
    thread_local char buf[96];
    size_t v = cudnnGetVersion();
    snprintf(buf, sizeof buf, "cuDNN %zu.%zu.%zu (built against %d.%d.%d)", v / 10000, v / 100 % 100, v % 100,
             CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
    return buf;
}

long cudnn_plans_made() { return (long)tl_plans.size(); }

} // namespace

extern "C" const ConvCudnn CONV_CUDA_TABLE(cudnn_kernels) = {
    /* .absent = */ nullptr,
    /* .workspace = */ cudnn_workspace,
    /* .forward = */ cudnn_forward_call,
    /* .backward_data = */ cudnn_backward_data_call,
    /* .backward_filter = */ cudnn_backward_filter_call,
    /* .version = */ cudnn_version_text,
    /* .plans_made = */ cudnn_plans_made,
};

#elif defined(DDL_CUDA_EMU)

extern "C" const ConvCudnn CONV_CUDA_TABLE(cudnn_kernels) = {
    /* .absent = */ "the emulated GPU (--device cuda-emu) runs ddlab's own CUDA kernels, not cuDNN's, which need a "
                    "real GPU (--device cuda, in a build with cuDNN)",
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
};

#else

extern "C" const ConvCudnn CONV_CUDA_TABLE(cudnn_kernels) = {
    /* .absent = */ "this build has no cuDNN (no cudnn.h and libcudnn under the CUDA root or CUDNN_HOME when it was "
                    "built, or CUDNN=0: make help)",
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
};

#endif
