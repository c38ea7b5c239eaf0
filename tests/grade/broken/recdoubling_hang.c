/* grade-broken: lab2/recdoubling (alone) - forgets to send the result back to the
 * ranks folded out at non-powers of two: they wait for it forever (the
 * per-test timeout must end it). Right at 1, 2, 4 ranks. */
#include "comm/comm_impl.h"

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
    } else {
        sched_fold_out(s, &f, rank, count); /* only the receiving side */
    }
}
