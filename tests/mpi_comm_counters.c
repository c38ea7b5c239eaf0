/* mpi_comm_counters.c - the traffic counters against the closed-form
 * traffic of each algorithm of the table.
 *
 * ddl-test-np: 1 2 3 4 5 6 7 8
 *
 * Every scheduled algorithm's row states its traffic (comm_alg_traffic,
 * the formulas in its alg_<name>.c or alg_<name>_row.c): per rank, the
 * messages and bytes it sends (where a closed form exists at that count),
 * and the bytes all ranks send together (always). Each is held against
 * the counters here for every row, so a new algorithm is checked by its
 * row alone; a scheduled row without a formula fails. Every byte sent is
 * received: totals sent == totals received. The baselines (mpi, nccl)
 * count calls only. */
#include <stdio.h>
#include <string.h>

#include "comm/comm.h"
#include "util/common.h"
#include "harness.h"

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
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            bool seen = false;
            for (size_t e = 0; e < s; e++) seen = seen || sizes[e] == n;
            if (seen || (dtype == COMM_FP16 && n > 20000)) continue;
            for (int a = 0; a < COMM_ALG_HOST_COUNT; a++) {
                CommAlg alg = (CommAlg)a;
                const char *name = comm_alg_name(alg);
                if (!comm_alg_scheduled(alg)) continue; /* the baseline: below */
                comm_counters_reset(&c);
                comm_allreduce(&c, buf, n, dtype, COMM_SUM, alg);
                CommCounters k = c.count[alg];
                CommTraffic want;
                if (!comm_alg_traffic(alg, rank, size, n, dtype, c.segment_bytes, &want)) {
                    t_check_all(false, "%s: its row states its traffic (a closed form for comm_alg_traffic)", name);
                    continue;
                }
                bool msgs_ok = want.msgs < 0 || (long long)k.msgs_sent == want.msgs;
                bool bytes_ok = want.bytes < 0 || (long long)k.bytes_sent == want.bytes;
                t_check_all(msgs_ok && bytes_ok && k.calls == 1,
                            "%s %s n=%zu np%d: per-rank messages and bytes sent match the formula", name,
                            comm_dtype_name(dtype), n, size);
                long long sent = sum_over_ranks((long long)k.bytes_sent, c.mpi);
                long long recv = sum_over_ranks((long long)k.bytes_recv, c.mpi);
                long long msent = sum_over_ranks((long long)k.msgs_sent, c.mpi);
                long long mrecv = sum_over_ranks((long long)k.msgs_recv, c.mpi);
                long long total = want.total_bytes;
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
    /* The baseline's traffic is inside Open MPI: only its calls count,
     * and it has no formula to hold them against. */
    comm_counters_reset(&c);
    comm_allreduce(&c, buf, 1000, COMM_FP32, COMM_SUM, COMM_ALG_MPI);
    CommCounters m = c.count[COMM_ALG_MPI];
    CommTraffic none;
    t_check_all(m.calls == 1 && m.bytes_sent == 0 && m.msgs_sent == 0 &&
                    !comm_alg_traffic(COMM_ALG_MPI, rank, size, 1000, COMM_FP32, c.segment_bytes, &none),
                "mpi np%d: calls counted, traffic left to MPI_T monitoring", size);
    ddl_free(buf);
    return t_mpi_comm_done(&c);
}
