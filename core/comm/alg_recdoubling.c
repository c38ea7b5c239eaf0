/* alg_recdoubling.c - recursive doubling, the "butterfly": in round k
 * each rank swaps its whole partial sum with the rank 2^k away (in the
 * folded numbering) and adds. log2(p) rounds, each moving n: the
 * latency-optimal choice for small messages. Both partners compute
 * a + b, which IEEE addition makes identical, so ranks never diverge. */
#include "comm_impl.h"

void build_recdoubling(Schedule *s, int rank, int size, size_t count)
{
    Fold f = fold_make(rank, size);
    sched_fold_in(s, &f, rank, count);
    if (f.newrank >= 0) {
        for (int mask = 1; mask < f.pof2; mask <<= 1) {
            int peer = fold_real_rank(&f, f.newrank ^ mask);
            sched_xchg(s, peer, 0, count, peer, 0, count, ABSORB_REDUCE);
        }
        sched_finish(s, 0, count);
    }
    sched_fold_out(s, &f, rank, count);
}
