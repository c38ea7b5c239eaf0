// nccl.cc - the emulated GPU's NCCL: the calls of include/nccl.h over MPI
// (core/cuda/nccl_emu_wire.c), so `--alg nccl` runs in CI without a GPU.
//
// What it keeps of NCCL: buffers must be device memory (host memory is an
// error, as it is for NCCL), the reduction is in place, FP16 values are
// summed in FP32 and rounded once, and ncclAvg divides the sum by the rank
// count. What it does not: NCCL's rings and trees (MPI_Allreduce picks its
// own) and asynchrony: the call returns when every rank has its result.
// In strict mode it first runs what its stream holds (streams.h), so it
// still comes after the work queued before it, and reads the stream's
// order: its MPI calls keep the host's order on every rank, as NCCL's do.
#include <nccl.h>
#include <cuda_fp16.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "memory.h"
#include "streams.h"
#include "strict.h"

extern "C" {
#include "cuda/nccl_emu_wire.h"
}

namespace ddl_emu {

struct EmuNcclComm {
    void *wire;
    int nranks;
};

namespace {
thread_local const void *tl_bootstrap = nullptr;
}

const char *ncclGetErrorString(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error";
    case ncclSystemError: return "unhandled system error";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    }
    return "unknown result";
}

ncclResult_t ncclGetVersion(int *version)
{
    *version = 0;
    return ncclSuccess;
}

// Unique enough for ranks that meet through one MPI communicator: the
// process, the clock and a counter.
ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    static std::atomic<unsigned long> counter{ 0 };
    std::memset(id->internal, 0, sizeof id->internal);
    long long ticks = std::chrono::steady_clock::now().time_since_epoch().count();
    std::snprintf(id->internal, sizeof id->internal, "ddlab-emu-nccl %ld %lld %lu", (long)getpid(), ticks,
                  counter.fetch_add(1));
    return ncclSuccess;
}

void ncclEmuBootstrap(const void *mpi_comm) { tl_bootstrap = mpi_comm; }

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
    const void *boot = tl_bootstrap;
    tl_bootstrap = nullptr;
    if (!boot) {
        std::fprintf(stderr, "emulated ncclCommInitRank: no MPI communicator (ncclEmuBootstrap first)\n");
        return ncclInvalidUsage;
    }
    char why[256];
    void *wire = nccl_emu_wire_open(boot, nranks, rank, id.internal, sizeof id.internal, why);
    if (!wire) {
        std::fprintf(stderr, "%s\n", why);
        return ncclInvalidArgument;
    }
    *comm = new EmuNcclComm{ wire, nranks };
    return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    nccl_emu_wire_close(comm->wire);
    delete comm;
    return ncclSuccess;
}

namespace {

void allreduce(const void *sendbuf, void *recvbuf, size_t count, bool half, bool avg, EmuNcclComm *comm)
{
    size_t bytes = count * (half ? 2 : 4);
    check_written("ncclAllReduce's send buffer", sendbuf, bytes);
    std::vector<float> sums(count);
    memory_open();
    if (half)
        for (size_t i = 0; i < count; i++) sums[i] = __half2float(static_cast<const __half *>(sendbuf)[i]);
    else
        std::memcpy(sums.data(), sendbuf, count * sizeof(float));
    memory_close();
    nccl_emu_wire_sum(comm->wire, sums.data(), count);
    if (avg)
        for (float &v : sums) v /= (float)comm->nranks;
    memory_open();
    if (half)
        for (size_t i = 0; i < count; i++) static_cast<__half *>(recvbuf)[i] = __float2half_rn(sums[i]);
    else
        std::memcpy(recvbuf, sums.data(), count * sizeof(float));
    memory_close();
    mark_written(recvbuf, bytes);
}

} // namespace

ncclResult_t ncclAllReduce(const void *sendbuf, void *recvbuf, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream)
{
    if (count == 0) return ncclSuccess;
    if (!is_device_pointer(sendbuf) || !is_device_pointer(recvbuf)) return ncclInvalidArgument;
    bool half = datatype == ncclFloat16, avg = op == ncclAvg;
    size_t bytes = count * (half ? 2 : 4);
    check_range("ncclAllReduce's send buffer", sendbuf, bytes);
    check_range("ncclAllReduce's receive buffer", recvbuf, bytes);
    Access acc[2] = { { sendbuf, bytes, false }, { recvbuf, bytes, true } };
    submit(stream, "ncclAllReduce", [=] { allreduce(sendbuf, recvbuf, count, half, avg, comm); }, acc, 2, true);
    return ncclSuccess;
}

} // namespace ddl_emu
