/* alg_tree.c - binomial-tree reduce to rank 0, then binomial broadcast.
 * ceil(log2 p) rounds each way, but every round moves the whole vector:
 * good for small messages, 2*log2(p)*n bytes of latency-bound traffic
 * for large ones. */
#include "comm_impl.h"

static int lowest_bit(int x) { return x & -x; }

static void build_tree(Schedule *s, const AlgShape *x)
{
    const int rank = x->rank, size = x->size;
    const size_t count = x->count;
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

/* ceil(lg p) rounds up and as many down, a whole vector each; a sum in
 * each round up. */
static CostTerms cost_tree(int p, double n, double segment)
{
    (void)segment;
    const int clg = ceil_log2(p);
    return (CostTerms){ 2.0 * clg, 2.0 * clg * n, (double)clg * n };
}

/* Rank r sends one vector to its parent (r > 0) and one to each child
 * r + 2^k, 2^k < lowbit(r) (every k for the root), that exists; each
 * edge of the tree carries one vector each way. */
static CommTraffic traffic_tree(const AlgShape *x, size_t esize)
{
    const int r = x->rank, p = x->size, low = r == 0 ? 1 << 30 : lowest_bit(r);
    const long long N = (long long)(x->count * esize);
    long long msgs = r != 0;
    for (int k = 1; k < low && r + k < p; k <<= 1) msgs++;
    return (CommTraffic){ msgs, msgs * N, 2LL * (p - 1) * N };
}

const CommAlgRow comm_alg_tree = {
    "tree", "binomial tree reduce + broadcast", build_tree, cost_tree, traffic_tree,
};
