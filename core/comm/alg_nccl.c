/* alg_nccl.c - NCCL as the GPU's baseline allreduce (COMM_ALG_NCCL), as
 * MPI_Allreduce is the CPU's, through the backend's coll_* entries.
 *
 * The allreduce runs on a stream of the Comm's own, after an event that
 * marks the kernels queued so far on the compute stream (those that wrote
 * the buffer), so backward keeps running while buckets reduce. Completion
 * is an event per request: comm_test asks it, comm_wait waits on the host.
 * Its traffic is inside NCCL: the counters count calls, as for MPI. */
#include "comm_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "../util/common.h"
#include "../cuda/device_mem.h"

void comm_use_device(Comm *c, const Backend *be, bool mpi_may_read_device)
{
    c->be = be && !be->host_memory ? be : NULL;
    c->mpi_device = false;
    if (c->be && c->be->mpi_reads_device && mpi_may_read_device) {
        char why[256];
        c->mpi_device = ddl_mpi_cuda_aware(why, sizeof why);
    }
}

const char *comm_nccl_version(const Comm *c)
{
    return c->be && c->be->coll_version ? c->be->coll_version() : NULL;
}

bool comm_alg_usable(const Comm *c, CommAlg alg, char why[256])
{
    if ((unsigned)alg >= COMM_ALG_COUNT) {
        snprintf(why, 256, "unknown allreduce algorithm %d", (int)alg);
        return false;
    }
    if (alg != COMM_ALG_NCCL) return true;
    if (!c->be) {
        snprintf(why, 256, "--alg nccl runs on GPU memory: use DEVICE=cuda (or cuda-emu, the emulated GPU)");
        return false;
    }
    if (!comm_nccl_version(c)) {
        snprintf(why, 256, "--alg nccl: the %s backend of this build has no NCCL (nccl.h and libnccl.so were not "
                           "found beside nvcc when it was built)", c->be->name);
        return false;
    }
    return true;
}

/* Collective over the Comm: rank 0 makes the id, every rank joins. */
static void open_nccl(Comm *c)
{
    const Backend *be = c->be;
    char why[256];
    if (!comm_alg_usable(c, COMM_ALG_NCCL, why)) ddl_die("%s", why);
    unsigned char id[DDL_COLL_ID_BYTES] = { 0 };
    if (c->rank == 0 && be->coll_id(id) != 0) ddl_die("--alg nccl: no NCCL unique id (%s)", be->coll_version());
    MPI_Bcast(id, (int)sizeof id, MPI_BYTE, 0, c->mpi);
    c->coll = be->coll_open(c->size, id, c->rank, &c->mpi, why);
    if (!c->coll)
        ddl_die("--alg nccl: %s (NCCL_DEBUG=WARN says more; NCCL refuses two ranks of one communicator on the same "
                "GPU: run at most one rank per GPU)", why);
    c->coll_stream = be->stream_new();
    c->coll_ready = be->event_new();
}

void nccl_start(CommRequest *r, void *buf, size_t count, CommDtype dtype, CommReduceOp op)
{
    Comm *c = r->comm;
    const Backend *be = c->be;
    if (!c->coll) open_nccl(c);
    void *dbuf = stage_to_device(r, buf, count * payload_elem_bytes(dtype));
    be->event_record(c->coll_ready, NULL);
    be->stream_wait(c->coll_stream, c->coll_ready);
    be->coll_allreduce(c->coll, dbuf, count, dtype == COMM_FP16, op == COMM_AVG, c->coll_stream);
    if (!r->nccl_done) r->nccl_done = be->event_new();
    be->event_record(r->nccl_done, c->coll_stream);
}

bool nccl_test(CommRequest *r) { return r->comm->be->event_done(r->nccl_done); }

void nccl_finish(CommRequest *r)
{
    r->comm->be->event_wait_host(r->nccl_done);
    stage_back(r);
}

void nccl_comm_free(Comm *c)
{
    const Backend *be = c->be;
    if (!c->coll) return;
    be->coll_close(c->coll);
    be->stream_free(c->coll_stream);
    be->event_free(c->coll_ready);
    c->coll = c->coll_stream = c->coll_ready = NULL;
}

/* The GPU's baseline: no schedule, no formula, its traffic inside NCCL. */
const CommAlgRow comm_alg_nccl = { "nccl", "NCCL's allreduce on GPU memory (NCCL's choice)", NULL, NULL, NULL };
