/* alg_rabenseifner.c - Rabenseifner's allreduce: a reduce-scatter by
 * recursive halving (each round swaps half of the range still being
 * reduced with a partner, distance p/2, p/4, .., 1) leaves each rank one
 * fully reduced block; an allgather by recursive doubling (distance 1, 2,
 * .., p/2) hands the blocks around. 2*log2(p) rounds but only about 2n
 * bytes per rank: latency of a tree, bandwidth of a ring. */
#include "comm_impl.h"

void build_rabenseifner(Schedule *s, int rank, int size, size_t count)
{
    Fold f = fold_make(rank, size);
    sched_fold_in(s, &f, rank, count);
    if (f.newrank >= 0) {
        const int nblocks = f.pof2, me = f.newrank;
        /* Before the round with distance `mask` this rank is responsible
         * for the 2*mask blocks starting at me rounded down to 2*mask; it
         * keeps the half on its side of the partner and sends the other. */
        for (int mask = nblocks / 2; mask >= 1; mask /= 2) {
            int partner = me ^ mask, peer = fold_real_rank(&f, partner);
            int first = me & ~(2 * mask - 1);
            int kept = (me & mask) ? first + mask : first;
            int given = (me & mask) ? first : first + mask;
            Range keep = block_range(count, nblocks, kept, mask);
            Range give = block_range(count, nblocks, given, mask);
            sched_xchg(s, peer, give.off, give.n, peer, keep.off, keep.n, ABSORB_REDUCE);
        }
        Range mine = block_range(count, nblocks, me, 1);
        sched_finish(s, mine.off, mine.n);
        /* Allgather: the mirror image; after the round with distance mask
         * each rank holds 2*mask complete blocks. */
        for (int mask = 1; mask < nblocks; mask *= 2) {
            int partner = me ^ mask, peer = fold_real_rank(&f, partner);
            Range have = block_range(count, nblocks, me & ~(mask - 1), mask);
            Range want = block_range(count, nblocks, partner & ~(mask - 1), mask);
            sched_xchg(s, peer, have.off, have.n, peer, want.off, want.n, ABSORB_COPY);
        }
    }
    sched_fold_out(s, &f, rank, count);
}
