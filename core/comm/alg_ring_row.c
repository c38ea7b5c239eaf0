/* alg_ring_row.c - the ring's row in the table of algorithms. Apart from
 * alg_ring.c because that file is lab2's ring exercise: a student's file
 * replaces alg_ring.o whole (IMPL=student, make grade), so it defines
 * build_ring and nothing else, with the exercise's signature. */
#include "comm_impl.h"

static void build(Schedule *s, const AlgShape *x) { build_ring(s, x->rank, x->size, x->count); }

/* 2(p-1) steps of one block (n/p) each; p-1 of them add a block in. */
static CostTerms cost_ring(int p, double n, double segment)
{
    (void)segment;
    const double q = (double)(p - 1) / p;
    return (CostTerms){ 2.0 * (p - 1), 2.0 * q * n, q * n };
}

/* Rank r sends every block but r+1 in the reduce-scatter (it finishes
 * that one) and every block but r+2 in the allgather (that one reaches it
 * last): 2(p-1) messages, 2(p-1)/p of the vector when p divides it. */
static CommTraffic traffic_ring(const AlgShape *x, size_t esize)
{
    const int p = x->size, r = x->rank;
    const size_t kept = block_range(x->count, p, (r + 1) % p, 1).n + block_range(x->count, p, (r + 2) % p, 1).n;
    const long long N = (long long)(x->count * esize);
    return (CommTraffic){ 2LL * (p - 1), (long long)((2 * x->count - kept) * esize), 2LL * (p - 1) * N };
}

const CommAlgRow comm_alg_ring = {
    "ring", "ring reduce-scatter + allgather (MPI_Sendrecv)", build, cost_ring, traffic_ring,
};
