/* stage.c - buffers on the other side of the PCIe bus from the algorithm
 * (comm_impl.h). ddlab's algorithms and Debian's Open MPI (not CUDA-aware)
 * read and write host memory, NCCL device memory; a buffer on the wrong
 * side is copied over, reduced, and copied back when the operation ends.
 * The copies live in the request, so requests in flight never share one. */
#include "comm_impl.h"

#include "../backend/backend.h"
#include "../util/common.h"

static void *grow(void *p, size_t *have, size_t bytes, void *(*alloc)(size_t), void (*release)(void *))
{
    if (bytes <= *have) return p;
    release(p);
    *have = bytes;
    return alloc(bytes);
}

void *stage_to_host(CommRequest *r, void *buf, size_t bytes)
{
    const Backend *be = r->comm->be;
    r->user = NULL;
    if (!be || bytes == 0 || !be->owns(buf)) return buf;
    r->host_stage = grow(r->host_stage, &r->host_stage_bytes, bytes, be->host_alloc, be->host_free);
    be->to_host(r->host_stage, buf, bytes);
    r->user = buf;
    r->user_bytes = bytes;
    return r->host_stage;
}

void *stage_to_device(CommRequest *r, void *buf, size_t bytes)
{
    const Backend *be = r->comm->be;
    r->user = NULL;
    if (bytes == 0 || be->owns(buf)) return buf;
    r->dev_stage = grow(r->dev_stage, &r->dev_stage_bytes, bytes, be->alloc, be->release);
    be->to_device(r->dev_stage, buf, bytes);
    r->user = buf;
    r->user_bytes = bytes;
    return r->dev_stage;
}

bool stage_mpi_direct(CommRequest *r, const void *buf, CommDtype dtype)
{
    const Comm *c = r->comm;
    bool direct = c->mpi_device && dtype == COMM_FP32 && c->be->owns(buf);
    r->user = NULL;
    if (direct) {
        /* MPI does not follow CUDA streams: the host waits for the kernels
         * queued so far on their stream, at an event recorded after them. A
         * device synchronize here waited for every stream (the next batch's
         * copy, NCCL) once per bucket, and so undid their overlap. */
        if (!r->kernels_done) r->kernels_done = c->be->event_new();
        c->be->event_record(r->kernels_done, NULL);
        c->be->event_wait_host(r->kernels_done);
    }
    return direct;
}

void stage_back(CommRequest *r)
{
    if (!r->user) return;
    const Backend *be = r->comm->be;
    if (be->owns(r->user)) be->to_device(r->user, r->host_stage, r->user_bytes);
    else be->to_host(r->user, r->dev_stage, r->user_bytes);
    r->user = NULL;
}

void stage_free(CommRequest *r)
{
    const Backend *be = r->comm->be;
    if (!be) return;
    be->host_free(r->host_stage);
    be->release(r->dev_stage);
    if (r->nccl_done) be->event_free(r->nccl_done);
    if (r->kernels_done) be->event_free(r->kernels_done);
    r->host_stage = r->dev_stage = r->nccl_done = r->kernels_done = NULL;
}
