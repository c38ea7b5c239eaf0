/* alg_tree.c - binomial-tree reduce to rank 0, then binomial broadcast.
 * ceil(log2 p) rounds each way, but every round moves the whole vector:
 * good for small messages, 2*log2(p)*n bytes of latency-bound traffic
 * for large ones. */
#include "comm_impl.h"

static int lowest_bit(int x) { return x & -x; }

void build_tree(Schedule *s, int rank, int size, size_t count)
{
    /* Reduce: in round k a rank whose bit k is set sends its partial sum
     * to rank - 2^k and is done; the others add in rank + 2^k's. */
    for (int mask = 1; mask < size; mask <<= 1) {
        if (rank & mask) {
            sched_send(s, rank - mask, 0, count);
            break;
        }
        if (rank + mask < size) sched_recv(s, rank + mask, 0, count, ABSORB_REDUCE);
    }
    if (rank == 0) sched_finish(s, 0, count);

    /* Broadcast, the same tree backwards: receive from the parent, then
     * send to children, farthest first. */
    int top = 1;
    if (rank == 0) {
        while (top < size) top <<= 1;
    } else {
        top = lowest_bit(rank);
        sched_recv(s, rank - top, 0, count, ABSORB_COPY);
    }
    for (int mask = top >> 1; mask > 0; mask >>= 1)
        if (rank + mask < size) sched_send(s, rank + mask, 0, count);
}
