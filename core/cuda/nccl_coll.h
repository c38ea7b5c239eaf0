/* nccl_coll.h - the CUDA backend's collectives (backend.h, coll_*): NCCL's
 * allreduce on device memory, callable from C. Built by nvcc against the
 * toolkit's NCCL (DDL_HAVE_NCCL) and by the emulated GPU against its own
 * nccl.h, which runs the same calls over MPI (core/cuda/emu/nccl.cc). A
 * CUDA build without NCCL still has these: coll_open says why it cannot. */
#ifndef DDL_CUDA_NCCL_COLL_H
#define DDL_CUDA_NCCL_COLL_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int coll_id_cuda(void *id);
void *coll_open_cuda(int nranks, const void *id, int rank, const void *bootstrap, char why[256]);
void coll_allreduce_cuda(void *coll, void *buf, size_t count, bool fp16, bool avg, void *stream);
void coll_close_cuda(void *coll);
const char *coll_version_cuda(void);

#ifdef __cplusplus
}
#endif

#endif
