/* mpi_comm_counters.c - the traffic counters against the closed-form
 * traffic of each algorithm.
 *
 * ddl-test-np: 1 2 3 4 5 6 7 8
 *
 * Formulas (N = bytes of the vector, p ranks, pof2 = largest power of two
 * <= p, rem = p - pof2, L = log2(pof2)), per rank:
 *   linear        root: p-1 messages of N each way; others: 1 each way.
 *   tree          (children + has_parent) messages of N each way, where
 *                 rank r's children are r + 2^k for 2^k < lowbit(r)
 *                 (every k for the root) that are < p.
 *   recdoubling   L messages of N each way; the rem folded pairs add one
 *                 message each way (the odd rank of a pair makes L + 1,
 *                 the even rank exactly 1).
 *   rabenseifner  2L messages each way, 2 (pof2-1)/pof2 N bytes when pof2
 *                 divides the count (+N and +1 message for the odd rank of
 *                 a folded pair; the even one sends and receives N once).
 *   ring          2(p-1) messages each way, 2 (p-1)/p N bytes when p
 *                 divides the count.
 *   ring_async    ring's bytes; 2(p-1) * ceil(block / segment) messages.
 * For counts the blocks do not divide, the totals over ranks are still
 * exact: 2(p-1)N for linear, tree and ring; pof2*L*N + 2 rem N for
 * recursive doubling; 2(pof2-1)N + 2 rem N for Rabenseifner. Every byte
 * sent is received: totals sent == totals received. */
#include <stdio.h>
#include <string.h>

#include "comm/comm.h"
#include "util/common.h"
#include "harness.h"

typedef struct Traffic { long long msgs, bytes; } Traffic; /* -1: no closed form for this count */

static int ilog2(int x) { int l = 0; while ((1 << (l + 1)) <= x) l++; return l; }

static Traffic per_rank_sent(CommAlg alg, int r, int p, size_t n, size_t esize, size_t seg_elems)
{
    const long long N = (long long)(n * esize);
    const int pof2 = 1 << ilog2(p), rem = p - pof2, L = ilog2(pof2);
    const bool folded_even = r < 2 * rem && r % 2 == 0, folded_odd = r < 2 * rem && r % 2 == 1;
    Traffic t = { -1, -1 };
    if (n == 0) { t.msgs = t.bytes = 0; return t; }
    switch (alg) {
    case COMM_ALG_LINEAR:
        t.msgs = r == 0 ? p - 1 : 1;
        break;
    case COMM_ALG_TREE: {
        int low = r == 0 ? 1 << 30 : (r & -r), children = 0;
        for (int k = 1; k < low && r + k < p; k <<= 1) children++;
        t.msgs = children + (r != 0);
        break;
    }
    case COMM_ALG_RECDOUBLING:
        t.msgs = folded_even ? 1 : L + folded_odd;
        break;
    case COMM_ALG_RABENSEIFNER:
        t.msgs = folded_even ? 1 : 2 * L + folded_odd;
        if (folded_even) t.bytes = N;
        else if (n % (size_t)pof2 == 0) t.bytes = 2 * (pof2 - 1) * N / pof2 + (folded_odd ? N : 0);
        return t;
    case COMM_ALG_RING:
        t.msgs = 2 * (p - 1);
        if (n % (size_t)p == 0) t.bytes = 2 * (p - 1) * N / p;
        return t;
    case COMM_ALG_RING_ASYNC:
        if (n % (size_t)p == 0) {
            size_t block = n / (size_t)p;
            t.msgs = 2LL * (p - 1) * (long long)(block == 0 ? 1 : (block + seg_elems - 1) / seg_elems);
            t.bytes = 2 * (p - 1) * N / p;
        }
        return t;
    default:
        return t;
    }
    t.bytes = t.msgs * N; /* linear, tree, recdoubling move whole vectors */
    return t;
}

static long long total_bytes_sent(CommAlg alg, int p, size_t n, size_t esize)
{
    const long long N = (long long)(n * esize);
    const int pof2 = 1 << ilog2(p), rem = p - pof2, L = ilog2(pof2);
    switch (alg) {
    case COMM_ALG_LINEAR:
    case COMM_ALG_TREE:
    case COMM_ALG_RING:
    case COMM_ALG_RING_ASYNC: return 2LL * (p - 1) * N;
    case COMM_ALG_RECDOUBLING: return (long long)pof2 * L * N + 2LL * rem * N;
    case COMM_ALG_RABENSEIFNER: return 2LL * (pof2 - 1) * N + 2LL * rem * N;
    default: return -1;
    }
}

static long long sum_over_ranks(long long v, MPI_Comm comm)
{
    long long s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, comm);
    return s;
}

int main(int argc, char **argv)
{
    Comm c;
    int rank, size = t_mpi_comm_start(&argc, &argv, &c, &rank);
    c.segment_bytes = 4096; /* several segments per block at the larger sizes */
    const size_t sizes[] = { 0, 1, (size_t)size - 1, (size_t)size, 1000, 840 * 13, (1u << 20) + 3 };
    float *buf = ddl_calloc(((1u << 20) + 3) * sizeof(float));

    for (int d = 0; d < 2; d++) {
        CommDtype dtype = d ? COMM_FP16 : COMM_FP32;
        size_t esize = comm_dtype_size(dtype);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            bool seen = false;
            for (size_t e = 0; e < s; e++) seen = seen || sizes[e] == n;
            if (seen || (dtype == COMM_FP16 && n > 20000)) continue;
            for (int a = COMM_ALG_LINEAR; a < COMM_ALG_HOST_COUNT; a++) {
                CommAlg alg = (CommAlg)a;
                const char *name = comm_alg_name(alg);
                comm_counters_reset(&c);
                comm_allreduce(&c, buf, n, dtype, COMM_SUM, alg);
                CommCounters k = c.count[alg];
                Traffic want = per_rank_sent(alg, rank, size, n, esize, c.segment_bytes / esize);
                bool msgs_ok = want.msgs < 0 || (long long)k.msgs_sent == want.msgs;
                bool bytes_ok = want.bytes < 0 || (long long)k.bytes_sent == want.bytes;
                t_check_all(msgs_ok && bytes_ok && k.calls == 1,
                            "%s %s n=%zu np%d: per-rank messages and bytes sent match the formula", name,
                            comm_dtype_name(dtype), n, size);
                long long sent = sum_over_ranks((long long)k.bytes_sent, c.mpi);
                long long recv = sum_over_ranks((long long)k.bytes_recv, c.mpi);
                long long msent = sum_over_ranks((long long)k.msgs_sent, c.mpi);
                long long mrecv = sum_over_ranks((long long)k.msgs_recv, c.mpi);
                long long total = n == 0 ? 0 : total_bytes_sent(alg, size, n, esize);
                t_check_all(sent == total && recv == sent && mrecv == msent,
                            "%s %s n=%zu np%d: total bytes %lld == closed form %lld, sent == received", name,
                            comm_dtype_name(dtype), n, size, sent, total);
                /* Other algorithms' counters stay untouched. */
                bool others_zero = true;
                for (int b = 0; b < COMM_ALG_HOST_COUNT; b++)
                    if (b != a && (c.count[b].calls || c.count[b].bytes_sent || c.count[b].msgs_recv))
                        others_zero = false;
                t_check_all(others_zero, "%s %s n=%zu np%d: traffic charged to %s only", name,
                            comm_dtype_name(dtype), n, size, name);
                /* The total over the hand-written algorithms (what lab3
                 * reports) is this algorithm's count: it once summed only
                 * the last three algorithms (a GCC 12 -O3 miscompile). */
                CommCounters tot = comm_counters_total(&c);
                t_check_all(tot.calls == k.calls && tot.bytes_sent == k.bytes_sent &&
                                tot.msgs_recv == k.msgs_recv && tot.bytes_recv == k.bytes_recv,
                            "%s %s n=%zu np%d: comm_counters_total equals the algorithm's own counters", name,
                            comm_dtype_name(dtype), n, size);
            }
        }
    }
    /* The baseline's traffic is inside Open MPI: only its calls count. */
    comm_counters_reset(&c);
    comm_allreduce(&c, buf, 1000, COMM_FP32, COMM_SUM, COMM_ALG_MPI);
    CommCounters m = c.count[COMM_ALG_MPI];
    t_check_all(m.calls == 1 && m.bytes_sent == 0 && m.msgs_sent == 0,
                "mpi np%d: calls counted, traffic left to MPI_T monitoring", size);
    ddl_free(buf);
    return t_mpi_comm_done(&c);
}
