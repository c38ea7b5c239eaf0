// nccl.h (emulated GPU) - the NCCL calls that core/cuda/nccl_coll.cu makes,
// implemented by core/cuda/emu/nccl.cc over MPI. Same names and meanings as
// NCCL's, in namespace ddl_emu, plus one call of the emulator's own:
// ncclEmuBootstrap, which hands it the MPI communicator to run over.
#ifndef DDL_CUDA_EMU_NCCL_H
#define DDL_CUDA_EMU_NCCL_H

#include <cstddef>

#include "cuda_runtime.h"

namespace ddl_emu {

enum ncclResult_t {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
};

enum ncclDataType_t { ncclFloat16 = 6, ncclFloat32 = 7 };
enum ncclRedOp_t { ncclSum = 0, ncclAvg = 4 };

struct ncclUniqueId {
    char internal[128];
};

struct EmuNcclComm;
typedef EmuNcclComm *ncclComm_t;

const char *ncclGetErrorString(ncclResult_t r);
ncclResult_t ncclGetVersion(int *version);
ncclResult_t ncclGetUniqueId(ncclUniqueId *id);
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclAllReduce(const void *sendbuf, void *recvbuf, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream);

// The emulator's own: the next ncclCommInitRank on this thread runs over
// the MPI communicator at *(const MPI_Comm *)mpi_comm.
void ncclEmuBootstrap(const void *mpi_comm);

} // namespace ddl_emu

#endif
