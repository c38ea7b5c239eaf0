/* alg_recdoubling_row.c - recursive doubling's row in the table of
 * algorithms. Apart from alg_recdoubling.c because that file is lab2's
 * recdoubling exercise: a student's file replaces alg_recdoubling.o whole
 * (IMPL=student, make grade), so it defines build_recdoubling and nothing
 * else, with the exercise's signature. */
#include "comm_impl.h"

static void build(Schedule *s, const AlgShape *x) { build_recdoubling(s, x->rank, x->size, x->count); }

/* lg p exchanges of the whole vector, each summed; off a power of two,
 * the fold adds a round in (summed) and one out. */
static CostTerms cost_recdoubling(int p, double n, double segment)
{
    (void)segment;
    const int lg = floor_log2(p);
    if (p == 1 << lg) return (CostTerms){ (double)lg, lg * n, lg * n };
    return (CostTerms){ lg + 2.0, (lg + 2.0) * n, (lg + 1.0) * n };
}

/* L = log2(pof2) whole vectors per rank; of a folded pair (ranks 2i, 2i+1
 * below 2 rem) the even rank sends its vector once and sits out, the odd
 * one sends L + 1 (the result back). */
static CommTraffic traffic_recdoubling(const AlgShape *x, size_t esize)
{
    const int p = x->size, r = x->rank, L = floor_log2(p), pof2 = 1 << L, rem = p - pof2;
    const bool folded = r < 2 * rem;
    const long long N = (long long)(x->count * esize), msgs = folded && r % 2 == 0 ? 1 : L + folded;
    return (CommTraffic){ msgs, msgs * N, (long long)pof2 * L * N + 2LL * rem * N };
}

const CommAlgRow comm_alg_recdoubling = {
    "recdoubling", "recursive doubling (butterfly)", build, cost_recdoubling, traffic_recdoubling,
};
