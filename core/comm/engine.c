/* engine.c - runs a schedule. Blocking: every step to the end, exchanges
 * as MPI_Sendrecv. Non-blocking (comm_test): exchanges become
 * MPI_Isend + MPI_Irecv and the engine returns at the first step that
 * would wait, keeping its place (r->pc) for the next call. */
#include "comm_impl.h"

#include <stdlib.h>

#include "../util/common.h"

static void grow_requests(MPI_Request **reqs, int *cap, int need)
{
    if (need <= *cap) return;
    int cap2 = *cap ? *cap : 16;
    while (cap2 < need) cap2 *= 2;
    MPI_Request *grown = realloc(*reqs, (size_t)cap2 * sizeof *grown);
    if (!grown) ddl_die("out of memory for %d MPI requests", cap2);
    *reqs = grown;
    *cap = cap2;
}

/* Post a step's send and receive without waiting. */
static void post_exchange(CommRequest *r, const Step *st, size_t eb)
{
    CommCounters *ctr = &r->comm->count[r->alg];
    r->xchg_req[0] = r->xchg_req[1] = MPI_REQUEST_NULL;
    if (st->src != MPI_PROC_NULL)
        p2p_irecv(r->comm, ctr, payload_recv_buf(&r->pay, st->roff, st->rn, st->mode), st->rn * eb, st->src,
                  r->tag, &r->xchg_req[1]);
    if (st->dst != MPI_PROC_NULL)
        p2p_isend(r->comm, ctr, payload_send_buf(&r->pay, st->soff, st->sn), st->sn * eb, st->dst, r->tag,
                  &r->xchg_req[0]);
}

static void exchange_blocking(CommRequest *r, const Step *st, size_t eb)
{
    const void *sbuf = st->dst != MPI_PROC_NULL ? payload_send_buf(&r->pay, st->soff, st->sn) : NULL;
    void *rbuf = st->src != MPI_PROC_NULL ? payload_recv_buf(&r->pay, st->roff, st->rn, st->mode) : NULL;
    p2p_sendrecv(r->comm, &r->comm->count[r->alg], sbuf, st->sn * eb, st->dst, rbuf, st->rn * eb, st->src,
                 r->tag);
}

/* Wait for (block) or test one request; true when it has completed. */
static bool complete(MPI_Request *req, bool block)
{
    if (block) {
        MPI_Wait(req, MPI_STATUS_IGNORE);
        return true;
    }
    int done = 0;
    MPI_Test(req, &done, MPI_STATUS_IGNORE);
    return done != 0;
}

static bool complete_all(MPI_Request *reqs, int n, bool block)
{
    if (n == 0) return true;
    if (block) {
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        return true;
    }
    int done = 0;
    MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
    return done != 0;
}

bool engine_run(CommRequest *r, bool block)
{
    const Schedule *s = &r->sched;
    const size_t eb = payload_elem_bytes(r->pay.dtype);
    CommCounters *ctr = &r->comm->count[r->alg];
    grow_requests(&r->recv_req, &r->cap_recv, s->nrecv_slots);

    while (r->pc < s->n) {
        const Step *st = &s->steps[r->pc];
        switch (st->kind) {
        case STEP_XCHG:
            if (block && !r->xchg_posted) {
                exchange_blocking(r, st, eb);
            } else {
                /* Non-blocking, or a blocking wait that finds this step
                 * already posted by an earlier comm_test. */
                if (!r->xchg_posted) {
                    post_exchange(r, st, eb);
                    r->xchg_posted = true;
                }
                if (!complete_all(r->xchg_req, 2, block)) return false;
                r->xchg_posted = false;
            }
            if (st->src != MPI_PROC_NULL) payload_absorb(&r->pay, st->roff, st->rn, st->mode);
            break;
        case STEP_ISEND:
            grow_requests(&r->send_req, &r->cap_send, r->nsend + 1);
            p2p_isend(r->comm, ctr, payload_send_buf(&r->pay, st->soff, st->sn), st->sn * eb, st->dst, r->tag,
                      &r->send_req[r->nsend++]);
            break;
        case STEP_IRECV:
            p2p_irecv(r->comm, ctr, payload_recv_buf(&r->pay, st->roff, st->rn, st->mode), st->rn * eb, st->src,
                      r->tag, &r->recv_req[st->id]);
            break;
        case STEP_WAIT_RECV:
            if (!complete(&r->recv_req[st->id], block)) return false;
            payload_absorb(&r->pay, st->roff, st->rn, st->mode);
            break;
        case STEP_WAIT_SENDS:
            if (!complete_all(r->send_req, r->nsend, block)) return false;
            r->nsend = 0;
            break;
        case STEP_FINISH:
            payload_finish(&r->pay, st->roff, st->rn);
            break;
        }
        r->pc++;
    }
    return true;
}
