/* nccl_emu_wire.h - MPI under the emulated GPU's NCCL (core/cuda/emu/nccl.cc).
 * In C because it needs mpi.h, which mpicc finds and the emulator's C++
 * compile does not. Nothing else uses it. */
#ifndef DDL_CUDA_NCCL_EMU_WIRE_H
#define DDL_CUDA_NCCL_EMU_WIRE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over the communicator at *(MPI_Comm *)mpi_comm: a private
 * duplicate. Fails (NULL, why) when its size or this rank's place differ
 * from nranks/rank, or when the ranks were not given the same id: the
 * mistakes ncclCommInitRank reports. */
void *nccl_emu_wire_open(const void *mpi_comm, int nranks, int rank, const void *id, size_t id_bytes, char why[256]);
/* buf[i] = sum over ranks, in place (MPI_Allreduce, MPI_SUM). */
void nccl_emu_wire_sum(void *wire, float *buf, size_t count);
void nccl_emu_wire_close(void *wire);

#ifdef __cplusplus
}
#endif

#endif
