/* alg_linear.c - gather + scatter at a root: the parameter-server shape.
 * Rank 0 receives every other rank's vector in rank order and adds it in
 * (so the sum is x0 + x1 + ... + x(p-1), left to right), then sends the
 * result to each rank. Root traffic grows as (p-1)*n each way: the
 * bottleneck every better algorithm removes. */
#include "comm_impl.h"

void build_linear(Schedule *s, int rank, int size, size_t count)
{
    const int root = 0;
    if (rank == root) {
        for (int r = 0; r < size; r++)
            if (r != root) sched_recv(s, r, 0, count, ABSORB_REDUCE);
        sched_finish(s, 0, count);
        for (int r = 0; r < size; r++)
            if (r != root) sched_send(s, r, 0, count);
    } else {
        sched_send(s, root, 0, count);
        sched_recv(s, root, 0, count, ABSORB_COPY);
    }
}
