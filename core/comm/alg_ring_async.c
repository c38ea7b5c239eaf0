/* alg_ring_async.c - the ring with non-blocking, pipelined segments (the
 * seed's "async ring"). Same blocks and the same summation order as
 * alg_ring.c, but each block travels as segments: every receive of a
 * phase is posted up front (MPI_Irecv), and each segment is forwarded
 * (MPI_Isend) the moment it has been added in, so the next hop's transfer
 * overlaps this rank's reduction of the following segment. */
#include "comm_impl.h"

#include <math.h>

static int wrap(int i, int size) { return ((i % size) + size) % size; }

/* Segments of a block: at least one, so an empty block still sends its
 * (empty) message and the message count stays 2(p-1) per rank. */
static size_t segments(size_t n, size_t seg) { return n == 0 ? 1 : (n + seg - 1) / seg; }

static Range segment(Range block, size_t seg, size_t j)
{
    size_t off = block.off + j * seg;
    size_t end = block.off + block.n;
    Range r = { off, off + seg < end ? seg : end - off };
    if (block.n == 0) r.n = 0;
    return r;
}

/* One phase: in step k this rank sends block first_send-k to the right and
 * receives block first_send-k-1 from the left; what it receives in step k
 * is what it sends in step k+1. */
static void ring_phase(Schedule *s, int rank, int size, size_t count, size_t seg, AbsorbMode mode,
                       int first_send)
{
    if (size == 1) return; /* the block is already complete */
    int right = wrap(rank + 1, size), left = wrap(rank - 1, size);
    int first_slot = -1;
    for (int step = 0; step < size - 1; step++) {
        Range b = block_range(count, size, wrap(first_send - step - 1, size), 1);
        for (size_t j = 0; j < segments(b.n, seg); j++) {
            Range piece = segment(b, seg, j);
            int slot = sched_irecv(s, left, piece.off, piece.n, mode);
            if (first_slot < 0) first_slot = slot;
        }
    }
    Range mine = block_range(count, size, first_send, 1);
    for (size_t j = 0; j < segments(mine.n, seg); j++) {
        Range piece = segment(mine, seg, j);
        sched_isend(s, right, piece.off, piece.n);
    }
    int slot = first_slot;
    for (int step = 0; step < size - 1; step++) {
        Range b = block_range(count, size, wrap(first_send - step - 1, size), 1);
        for (size_t j = 0; j < segments(b.n, seg); j++) {
            sched_wait_recv(s, slot++);
            if (step < size - 2) {
                Range piece = segment(b, seg, j);
                sched_isend(s, right, piece.off, piece.n);
            }
        }
    }
    /* The allgather overwrites blocks this phase sent from. */
    sched_wait_sends(s);
}

static void build_ring_async(Schedule *s, const AlgShape *x)
{
    const int rank = x->rank, size = x->size;
    const size_t seg = x->segment_elems ? x->segment_elems : 1;
    ring_phase(s, rank, size, x->count, seg, ABSORB_REDUCE, rank);
    Range own = block_range(x->count, size, wrap(rank + 1, size), 1);
    sched_finish(s, own.off, own.n);
    ring_phase(s, rank, size, x->count, seg, ABSORB_COPY, wrap(rank + 1, size));
}

/* The ring's 2(p-1) steps, each block in s = ceil(n/p / segment)
 * segments: s messages a step, but only one segment's reduction a step
 * is not overlapped by a transfer. */
static CostTerms cost_ring_async(int p, double n, double segment_bytes)
{
    const double q = (double)(p - 1) / p, block = n / p;
    double s = segment_bytes > 0 ? ceil(block / segment_bytes) : 1;
    if (s < 1) s = 1;
    return (CostTerms){ 2.0 * (p - 1) * s, 2.0 * q * n, q * n / s };
}

/* The ring's bytes (every block but r+1, then every block but r+2), each
 * block as its segments (an empty block: one empty message). */
static CommTraffic traffic_ring_async(const AlgShape *x, size_t esize)
{
    const int p = x->size, r = x->rank;
    const size_t seg = x->segment_elems ? x->segment_elems : 1;
    long long msgs = 0, bytes = 0;
    for (int b = 0; b < p; b++) {
        Range blk = block_range(x->count, p, b, 1);
        int phases = (b != wrap(r + 1, p)) + (b != wrap(r + 2, p));
        msgs += phases * (long long)segments(blk.n, seg);
        bytes += phases * (long long)(blk.n * esize);
    }
    return (CommTraffic){ msgs, bytes, 2LL * (p - 1) * (long long)(x->count * esize) };
}

const CommAlgRow comm_alg_ring_async = {
    "ring_async", "ring, pipelined segments (MPI_Isend/Irecv)", build_ring_async, cost_ring_async,
    traffic_ring_async,
};
