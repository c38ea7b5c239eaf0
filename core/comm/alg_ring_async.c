/* alg_ring_async.c - the ring with non-blocking, pipelined segments (the
 * seed's "async ring"). Same blocks and the same summation order as
 * alg_ring.c, but each block travels as segments: every receive of a
 * phase is posted up front (MPI_Irecv), and each segment is forwarded
 * (MPI_Isend) the moment it has been added in, so the next hop's transfer
 * overlaps this rank's reduction of the following segment. */
#include "comm_impl.h"

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

void build_ring_async(Schedule *s, int rank, int size, size_t count, size_t segment_elems)
{
    size_t seg = segment_elems ? segment_elems : 1;
    ring_phase(s, rank, size, count, seg, ABSORB_REDUCE, rank);
    Range own = block_range(count, size, wrap(rank + 1, size), 1);
    sched_finish(s, own.off, own.n);
    ring_phase(s, rank, size, count, seg, ABSORB_COPY, wrap(rank + 1, size));
}
