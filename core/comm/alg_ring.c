/* alg_ring.c - the bandwidth-optimal ring (Patarasuk & Yuan 2009), as
 * Baidu and Horovod made it known. The vector is cut into p blocks.
 * Reduce-scatter: in step k rank r sends block r-k to its right
 * neighbour and adds block r-k-1 from its left one; after p-1 steps it
 * holds the complete sum of block r+1. Allgather: p-1 more steps pass the
 * complete blocks around. Each rank sends 2(p-1)/p * n bytes whatever p is,
 * but pays 2(p-1) latencies. Block b's sum is x_b + x_(b+1) + ... in ring
 * order: a different bracketing from the tree algorithms, which is all
 * "rounding" can ever change. */
#include "comm_impl.h"

static int wrap(int i, int size) { return ((i % size) + size) % size; }

void build_ring(Schedule *s, int rank, int size, size_t count)
{
    int right = wrap(rank + 1, size), left = wrap(rank - 1, size);
    for (int step = 0; step < size - 1; step++) {
        Range send = block_range(count, size, wrap(rank - step, size), 1);
        Range recv = block_range(count, size, wrap(rank - step - 1, size), 1);
        sched_xchg(s, right, send.off, send.n, left, recv.off, recv.n, ABSORB_REDUCE);
    }
    Range own = block_range(count, size, wrap(rank + 1, size), 1);
    sched_finish(s, own.off, own.n);
    for (int step = 0; step < size - 1; step++) {
        Range send = block_range(count, size, wrap(rank + 1 - step, size), 1);
        Range recv = block_range(count, size, wrap(rank - step, size), 1);
        sched_xchg(s, right, send.off, send.n, left, recv.off, recv.n, ABSORB_COPY);
    }
}
