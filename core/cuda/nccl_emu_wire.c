/* nccl_emu_wire.c - MPI under the emulated GPU's NCCL (nccl_emu_wire.h). */
#include "nccl_emu_wire.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "../util/common.h"

typedef struct Wire {
    MPI_Comm comm;
} Wire;

void *nccl_emu_wire_open(const void *mpi_comm, int nranks, int rank, const void *id, size_t id_bytes, char why[256])
{
    MPI_Comm parent = *(const MPI_Comm *)mpi_comm, mine;
    MPI_Comm_dup(parent, &mine);
    int size, me;
    MPI_Comm_size(mine, &size);
    MPI_Comm_rank(mine, &me);
    /* Same id everywhere: its bytes' AND and OR over the ranks equal it. */
    unsigned char and_[128], or_[128];
    if (id_bytes > sizeof and_) id_bytes = sizeof and_;
    MPI_Allreduce(id, and_, (int)id_bytes, MPI_BYTE, MPI_BAND, mine);
    MPI_Allreduce(id, or_, (int)id_bytes, MPI_BYTE, MPI_BOR, mine);
    bool same_id = memcmp(and_, id, id_bytes) == 0 && memcmp(or_, id, id_bytes) == 0;
    if (size != nranks || me != rank || !same_id) {
        snprintf(why, 256, "emulated ncclCommInitRank: %s (nranks %d, rank %d; MPI: %d ranks, this is %d)",
                 same_id ? "ranks do not match the MPI communicator" : "the ranks were given different ids", nranks,
                 rank, size, me);
        MPI_Comm_free(&mine);
        return NULL;
    }
    Wire *w = ddl_alloc(sizeof *w);
    w->comm = mine;
    return w;
}

void nccl_emu_wire_sum(void *wire, float *buf, size_t count)
{
    Wire *w = wire;
    for (size_t off = 0; off < count;) {
        int n = count - off > (size_t)INT_MAX ? INT_MAX : (int)(count - off);
        MPI_Allreduce(MPI_IN_PLACE, buf + off, n, MPI_FLOAT, MPI_SUM, w->comm);
        off += (size_t)n;
    }
}

void nccl_emu_wire_close(void *wire)
{
    Wire *w = wire;
    if (!w) return;
    MPI_Comm_free(&w->comm);
    ddl_free(w);
}
