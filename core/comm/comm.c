/* comm.c - Comm lifetime, the public allreduce calls (algs.c: the table of algorithms). */
#include "comm_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "../util/common.h"

/* Tags this library uses: one per operation in flight, cycling. Open MPI
 * allows tags up to 2^31-1; MPI guarantees at least 32767. */
enum { COMM_TAG_BASE = 100, COMM_TAG_SPAN = 30000 };

const char *comm_dtype_name(CommDtype dtype) { return dtype == COMM_FP16 ? "fp16" : "fp32"; }
size_t comm_dtype_size(CommDtype dtype) { return payload_elem_bytes(dtype); }

static void init_from(Comm *c, MPI_Comm mine)
{
    memset(c, 0, sizeof *c);
    c->mpi = mine;
    c->segment_bytes = COMM_DEFAULT_SEGMENT_BYTES;
    c->half_sum = MPI_OP_NULL;
    if (mine == MPI_COMM_NULL) return;
    MPI_Comm_rank(mine, &c->rank);
    MPI_Comm_size(mine, &c->size);
    c->half_sum = mpi_half_sum_op_create();
    c->blocking = comm_request_new(c);
}

int comm_init(Comm *c, MPI_Comm parent)
{
    MPI_Comm mine;
    MPI_Comm_dup(parent, &mine);
    init_from(c, mine);
    return 0;
}

int comm_split(const Comm *parent, int color, int key, Comm *out)
{
    MPI_Comm mine;
    MPI_Comm_split(parent->mpi, color < 0 ? MPI_UNDEFINED : color, key, &mine);
    init_from(out, mine);
    out->be = parent->be;
    out->mpi_device = parent->mpi_device;
    return 0;
}

void comm_free(Comm *c)
{
    if (c->blocking) comm_request_free(c->blocking);
    nccl_comm_free(c);
    if (c->half_sum != MPI_OP_NULL) MPI_Op_free(&c->half_sum);
    if (c->mpi != MPI_COMM_NULL) MPI_Comm_free(&c->mpi);
    memset(c, 0, sizeof *c);
    c->mpi = MPI_COMM_NULL;
}

CommRequest *comm_request_new(Comm *c)
{
    CommRequest *r = calloc(1, sizeof *r);
    if (!r) ddl_die("out of memory for a CommRequest");
    r->comm = c;
    r->mpi_req = MPI_REQUEST_NULL;
    return r;
}

void comm_request_free(CommRequest *r)
{
    if (!r) return;
    if (r->active) ddl_die("comm_request_free on a request still in flight");
    payload_free(&r->pay);
    sched_free(&r->sched);
    stage_free(r);
    free(r->recv_req);
    free(r->send_req);
    free(r);
}

/* This rank's steps of the algorithm's schedule (its row's builder). */
static void build(CommRequest *r, size_t count)
{
    const Comm *c = r->comm;
    const CommAlgRow *row = comm_alg_row(r->alg);
    if (!row || !row->build) ddl_die("no schedule for algorithm %d", (int)r->alg);
    const AlgShape x = { c->rank, c->size, count, comm_segment_elems(c->segment_bytes, payload_elem_bytes(r->pay.dtype)) };
    sched_reset(&r->sched);
    row->build(&r->sched, &x);
}

/* Common start of blocking and non-blocking calls. Returns false when
 * there is nothing to do (count 0). */
static bool start(CommRequest *r, void *buf, size_t count, CommDtype dtype, CommReduceOp op, CommAlg alg)
{
    Comm *c = r->comm;
    if (c->mpi == MPI_COMM_NULL) ddl_die("allreduce on a Comm this rank is not a member of");
    if ((unsigned)alg >= COMM_ALG_COUNT) ddl_die("unknown allreduce algorithm %d", (int)alg);
    if (r->active) ddl_die("allreduce started on a request still in flight");
    r->alg = alg;
    r->tag = COMM_TAG_BASE + (int)(c->started++ % COMM_TAG_SPAN);
    c->count[alg].calls++;
    if (count == 0) return false;
    r->active = true;
    r->pc = 0;
    r->nsend = 0;
    r->xchg_posted = false;
    r->pay.dtype = dtype; /* build() needs the element size */
    if (alg == COMM_ALG_NCCL) {
        nccl_start(r, buf, count, dtype, op);
        return true;
    }
    /* Every host algorithm and MPI_Iallreduce reduce host memory: a device
     * buffer is staged (page-locked copy, reduced, copied back). Even with
     * a CUDA-aware MPI: Open MPI 4.x does not take device buffers in its
     * non-blocking collectives (its blocking MPI_Allreduce does, and
     * comm_allreduce passes them there). Staging rather than a blocking
     * call in place of the non-blocking one keeps DDP's overlap; which is
     * faster on a GPU with CUDA-aware MPI was not measured (no such
     * machine has been available). */
    buf = stage_to_host(r, buf, count * payload_elem_bytes(dtype));
    if (alg == COMM_ALG_MPI) {
        /* MPI reduces the caller's buffer itself; keep what AVG needs. */
        r->pay.user = buf;
        r->pay.count = count;
        r->pay.op = op;
        r->pay.ranks = c->size;
        return true;
    }
    payload_begin(&r->pay, buf, count, dtype, op, c->size);
    build(r, count);
    return true;
}

static void end(CommRequest *r)
{
    if (r->alg == COMM_ALG_NCCL) {
        nccl_finish(r);
    } else {
        if (r->alg == COMM_ALG_MPI) {
            if (r->pay.op == COMM_AVG) mpi_allreduce_average(r->pay.user, r->pay.count, r->pay.dtype, r->pay.ranks);
        } else {
            payload_end(&r->pay);
        }
        stage_back(r);
    }
    r->active = false;
}

void comm_allreduce(Comm *c, void *buf, size_t count, CommDtype dtype, CommReduceOp op, CommAlg alg)
{
    CommRequest *r = c->blocking;
    if (r) r->comm = c; /* follows the Comm should the caller have moved it */
    if (alg == COMM_ALG_MPI) {
        /* Blocking MPI_Allreduce itself, not Iallreduce + wait: this is
         * what the benchmark compares against. */
        if (c->mpi == MPI_COMM_NULL) ddl_die("allreduce on a Comm this rank is not a member of");
        c->started++;
        c->count[COMM_ALG_MPI].calls++;
        if (count == 0) return;
        if (stage_mpi_direct(r, buf, dtype)) { /* CUDA-aware MPI: the device pointer itself */
            mpi_allreduce_blocking(c, buf, count, dtype, COMM_SUM);
            if (op == COMM_AVG) c->be->scale(buf, count, 1.0f / (float)c->size);
            return;
        }
        mpi_allreduce_blocking(c, stage_to_host(r, buf, count * payload_elem_bytes(dtype)), count, dtype, op);
        stage_back(r);
        return;
    }
    if (!start(r, buf, count, dtype, op, alg)) return;
    if (alg != COMM_ALG_NCCL) engine_run(r, true);
    end(r);
}

void comm_iallreduce(CommRequest *r, void *buf, size_t count, CommDtype dtype, CommReduceOp op, CommAlg alg)
{
    if (!start(r, buf, count, dtype, op, alg)) return;
    if (alg == COMM_ALG_MPI) mpi_iallreduce_start(r, r->pay.user, count, dtype); /* the staged copy, if any */
    else comm_test(r); /* post the first messages now (NCCL: already queued) */
}

bool comm_test(CommRequest *r)
{
    if (!r->active) return true;
    bool done;
    if (r->alg == COMM_ALG_MPI) {
        int flag = 0;
        MPI_Test(&r->mpi_req, &flag, MPI_STATUS_IGNORE);
        done = flag != 0;
    } else if (r->alg == COMM_ALG_NCCL) {
        done = nccl_test(r);
    } else {
        done = engine_run(r, false);
    }
    if (done) end(r);
    return done;
}

void comm_wait(CommRequest *r)
{
    if (!r->active) return;
    if (r->alg == COMM_ALG_MPI) MPI_Wait(&r->mpi_req, MPI_STATUS_IGNORE);
    else if (r->alg != COMM_ALG_NCCL) engine_run(r, true);
    end(r);
}

bool comm_any(const Comm *c, bool mine)
{
    int b = mine, any = 0;
    MPI_Allreduce(&b, &any, 1, MPI_INT, MPI_MAX, c->mpi);
    return any != 0;
}

void comm_counters_reset(Comm *c) { memset(c->count, 0, sizeof c->count); }

void comm_counters_add(CommCounters *t, const CommCounters *a)
{
    t->calls += a->calls;
    t->msgs_sent += a->msgs_sent;
    t->bytes_sent += a->bytes_sent;
    t->msgs_recv += a->msgs_recv;
    t->bytes_recv += a->bytes_recv;
}

CommCounters comm_counters_minus(CommCounters a, CommCounters b)
{
    return (CommCounters){ a.calls - b.calls, a.msgs_sent - b.msgs_sent, a.bytes_sent - b.bytes_sent,
                           a.msgs_recv - b.msgs_recv, a.bytes_recv - b.bytes_recv };
}

/* Written as a loop over the hand-written algorithms only (MPI is the
 * first enumerator): GCC 12.2 at -O3 -march=native (AVX-512) vectorised
 * the earlier "for every algorithm, skip MPI" loop into a sum of the last
 * three algorithms only (seen in the disassembly; -O2 was right). */
CommCounters comm_counters_total(const Comm *c)
{
    _Static_assert(COMM_ALG_MPI == 0, "the MPI baseline is the first algorithm");
    CommCounters t = { 0 };
    for (int a = COMM_ALG_MPI + 1; a < COMM_ALG_HOST_COUNT; a++) comm_counters_add(&t, &c->count[a]);
    return t;
}
