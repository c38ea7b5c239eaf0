/* alg_linear.c - gather + scatter at a root: the parameter-server shape.
 * Rank 0 receives every other rank's vector in rank order and adds it in
 * (so the sum is x0 + x1 + ... + x(p-1), left to right), then sends the
 * result to each rank. Root traffic grows as (p-1)*n each way: the
 * bottleneck every better algorithm removes. */
#include "comm_impl.h"

static void build_linear(Schedule *s, const AlgShape *x)
{
    const int root = 0;
    if (x->rank == root) {
        for (int r = 0; r < x->size; r++)
            if (r != root) sched_recv(s, r, 0, x->count, ABSORB_REDUCE);
        sched_finish(s, 0, x->count);
        for (int r = 0; r < x->size; r++)
            if (r != root) sched_send(s, r, 0, x->count);
    } else {
        sched_send(s, root, 0, x->count);
        sched_recv(s, root, 0, x->count, ABSORB_COPY);
    }
}

/* The root's p-1 messages in, then p-1 out, one after another; it adds
 * p-1 vectors. */
static CostTerms cost_linear(int p, double n, double segment)
{
    (void)segment;
    return (CostTerms){ 2.0 * (p - 1), 2.0 * (p - 1) * n, (double)(p - 1) * n };
}

/* The root sends p-1 vectors, every other rank one. */
static CommTraffic traffic_linear(const AlgShape *x, size_t esize)
{
    const long long N = (long long)(x->count * esize), msgs = x->rank == 0 ? x->size - 1 : 1;
    return (CommTraffic){ msgs, msgs * N, 2LL * (x->size - 1) * N };
}

const CommAlgRow comm_alg_linear = {
    "linear", "linear: gather + scatter at rank 0", build_linear, cost_linear, traffic_linear,
};
