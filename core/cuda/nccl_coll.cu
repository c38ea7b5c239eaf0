// nccl_coll.cu - NCCL's allreduce for the CUDA backend (nccl_coll.h).
//
// One ncclComm_t per ddlab Comm. The allreduce is queued on a stream like a
// kernel: the caller orders it after the kernels that wrote the buffer
// (an event) and waits for it with another, so DDP's buckets still run
// beside backward. NCCL reduces in place on device memory; it never sees
// host memory (the comm layer stages host buffers, core/comm/nccl.c).
#include "cuda_check.h"
#include "nccl_coll.h"
#include "../backend/backend.h"

#include <cstdio>
#include <cstring>

#if defined(DDL_CUDA_EMU) || defined(DDL_HAVE_NCCL)
#include <nccl.h>

namespace {

#define DDL_NCCL_CHECK(call) DDL_STATUS_CHECK(call, ncclResult_t, ncclSuccess, ncclGetErrorString)

static_assert(sizeof(ncclUniqueId) <= DDL_COLL_ID_BYTES, "DDL_COLL_ID_BYTES holds an ncclUniqueId");

} // namespace

extern "C" int coll_id_cuda(void *id)
{
    ncclUniqueId u;
    DDL_NCCL_CHECK(ncclGetUniqueId(&u));
    std::memcpy(id, &u, sizeof u);
    return 0;
}

extern "C" void *coll_open_cuda(int nranks, const void *id, int rank, const void *bootstrap, char why[256])
{
#ifdef DDL_CUDA_EMU
    // The emulated NCCL's wire is MPI: it needs these ranks' communicator
    // (real NCCL bootstraps from the id alone).
    ncclEmuBootstrap(bootstrap);
#else
    (void)bootstrap;
#endif
    ncclUniqueId u;
    std::memcpy(&u, id, sizeof u);
    ncclComm_t comm = nullptr;
    ncclResult_t r = ncclCommInitRank(&comm, nranks, u, rank);
    if (r != ncclSuccess) {
        std::snprintf(why, 256, "ncclCommInitRank (rank %d of %d): %s", rank, nranks, ncclGetErrorString(r));
        return nullptr;
    }
    return static_cast<void *>(comm);
}

extern "C" void coll_allreduce_cuda(void *coll, void *buf, size_t count, bool fp16, bool avg, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream ? stream : ddl_cuda_stream());
    DDL_NCCL_CHECK(ncclAllReduce(buf, buf, count, fp16 ? ncclFloat16 : ncclFloat32, avg ? ncclAvg : ncclSum,
                                 static_cast<ncclComm_t>(coll), s));
}

extern "C" void coll_close_cuda(void *coll)
{
    if (coll) DDL_NCCL_CHECK(ncclCommDestroy(static_cast<ncclComm_t>(coll)));
}

extern "C" const char *coll_version_cuda(void)
{
#ifdef DDL_CUDA_EMU
    return "emulated NCCL (ncclAllReduce over MPI)";
#else
    static char text[48];
    int v = 0;
    DDL_NCCL_CHECK(ncclGetVersion(&v));
    // NCCL_VERSION_CODE: X*10000 + Y*100 + Z since 2.9 (X*1000 + Y*100 + Z before).
    if (v >= 10000) std::snprintf(text, sizeof text, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
    else std::snprintf(text, sizeof text, "NCCL %d.%d.%d", v / 1000, v / 100 % 10, v % 100);
    return text;
#endif
}

#else // a CUDA build without NCCL: --alg nccl says so

extern "C" int coll_id_cuda(void *id)
{
    (void)id;
    return -1;
}

extern "C" void *coll_open_cuda(int nranks, const void *id, int rank, const void *bootstrap, char why[256])
{
    (void)nranks, (void)id, (void)rank, (void)bootstrap;
    std::snprintf(why, 256, "this build has no NCCL (nccl.h or libnccl.so was not found beside nvcc's CUDA)");
    return nullptr;
}

extern "C" void coll_allreduce_cuda(void *, void *, size_t, bool, bool, void *)
{
    ddl_die("coll_allreduce_cuda: this build has no NCCL");
}

extern "C" void coll_close_cuda(void *) {}
extern "C" const char *coll_version_cuda(void) { return nullptr; }

#endif
