/* alg_rabenseifner.c - Rabenseifner's allreduce: a reduce-scatter by
 * recursive halving (each round swaps half of the range still being
 * reduced with a partner, distance p/2, p/4, .., 1) leaves each rank one
 * fully reduced block; an allgather by recursive doubling (distance 1, 2,
 * .., p/2) hands the blocks around. 2*log2(p) rounds but only about 2n
 * bytes per rank: latency of a tree, bandwidth of a ring. */
#include "comm_impl.h"

static void build_rabenseifner(Schedule *s, const AlgShape *x)
{
    const int rank = x->rank, size = x->size;
    const size_t count = x->count;
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

/* 2 lg p' rounds whose blocks halve, then double: (p'-1)/p' of the vector
 * each way, summed once; off a power of two, the fold adds a whole vector
 * in (summed) and out. */
static CostTerms cost_rabenseifner(int p, double n, double segment)
{
    (void)segment;
    const int lg = floor_log2(p), pof2 = 1 << lg;
    const double q = (double)(pof2 - 1) / pof2;
    CostTerms t = { 2.0 * lg, 2.0 * q * n, q * n };
    if (p != pof2) {
        t.alphas += 2;
        t.beta_bytes += 2 * n;
        t.gamma_bytes += n;
    }
    return t;
}

/* 2L messages (L = log2 p'), 2 (p'-1)/p' of the vector when p' divides it
 * (otherwise the halves differ by rank: no closed form per rank); of a
 * folded pair the even rank sends its vector once, the odd one also sends
 * the result back (+1 message, +N). */
static CommTraffic traffic_rabenseifner(const AlgShape *x, size_t esize)
{
    const int p = x->size, r = x->rank, L = floor_log2(p), pof2 = 1 << L, rem = p - pof2;
    const bool even = r < 2 * rem && r % 2 == 0, odd = r < 2 * rem && r % 2 == 1;
    const long long N = (long long)(x->count * esize);
    CommTraffic t = { even ? 1 : 2 * L + odd, -1, 2LL * (pof2 - 1) * N + 2LL * rem * N };
    if (even) t.bytes = N;
    else if (x->count % (size_t)pof2 == 0) t.bytes = 2 * (pof2 - 1) * N / pof2 + (odd ? N : 0);
    return t;
}

const CommAlgRow comm_alg_rabenseifner = {
    "rabenseifner", "Rabenseifner: recursive halving + doubling", build_rabenseifner, cost_rabenseifner,
    traffic_rabenseifner,
};
