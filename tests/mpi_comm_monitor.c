/* mpi_comm_monitor.c - ddlab's traffic counters against Open MPI's own
 * monitoring (MPI_T pvars).
 *
 * ddl-test-np: 2
 *
 * Without --mca pml_monitoring_enable 1 (as tests/run.sh starts it) the
 * monitor must say it is unavailable and why: never numbers. With the
 * flag (tests/e2e_comm_monitoring.sh) and monitoring pvars present, the
 * bytes and messages Open MPI saw each hand-written algorithm send must
 * equal ddlab's counters exactly; where Open MPI lacks the pvars even with
 * the flag, the agreement check is skipped with the reason. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "comm/monitor.h"
#include "util/common.h"
#include "harness.h"

/* Was the job started with pml_monitoring_enable set to a non-zero value
 * (as far as the environment tells)? The launcher's business, so the test
 * asks, not core/comm. */
static bool monitoring_requested(void)
{
    const char *v = getenv("OMPI_MCA_pml_monitoring_enable");
    return v && *v && strcmp(v, "0") != 0;
}

int main(int argc, char **argv)
{
    Comm c;
    int rank, size = t_mpi_comm_start(&argc, &argv, &c, &rank);
    CommMonitor mon;
    comm_monitor_open(&mon, &c);

    if (!monitoring_requested()) {
        t_check_all(!mon.available && mon.why[0] != '\0',
                    "monitoring not requested: monitor unavailable, with a reason (np%d)", size);
    } else if (!mon.available) {
        if (rank == 0) t_skip("ddlab counters == Open MPI monitoring pvars", mon.why);
    } else {
        const size_t sizes[] = { 1, 1000, 100003 };
        float *buf = ddl_calloc(100003 * sizeof(float));
        for (int s = 0; s < 3; s++) {
            for (int a = COMM_ALG_LINEAR; a < COMM_ALG_HOST_COUNT; a++) {
                uint64_t m0, b0, m1, b1;
                comm_counters_reset(&c);
                comm_monitor_read(&mon, &m0, &b0);
                comm_allreduce(&c, buf, sizes[s], COMM_FP32, COMM_SUM, (CommAlg)a);
                comm_monitor_read(&mon, &m1, &b1);
                CommCounters k = c.count[a];
                bool same = m1 - m0 == k.msgs_sent && b1 - b0 == k.bytes_sent;
                if (!same)
                    fprintf(stderr, "rank %d %s n=%zu: monitoring %llu msgs %llu B, ddlab %llu msgs %llu B\n", rank,
                            comm_alg_name((CommAlg)a), sizes[s], (unsigned long long)(m1 - m0),
                            (unsigned long long)(b1 - b0), (unsigned long long)k.msgs_sent,
                            (unsigned long long)k.bytes_sent);
                t_check_all(same, "%s n=%zu np%d: ddlab counters == Open MPI monitoring (messages and bytes sent)",
                            comm_alg_name((CommAlg)a), sizes[s], size);
            }
            uint64_t m0, b0, m1, b1;
            comm_monitor_read(&mon, &m0, &b0);
            comm_allreduce(&c, buf, sizes[s], COMM_FP32, COMM_SUM, COMM_ALG_MPI);
            comm_monitor_read(&mon, &m1, &b1);
            if (rank == 0)
                printf("# MPI_Allreduce n=%zu np%d: rank 0 sent %llu messages, %llu bytes (monitoring)\n", sizes[s],
                       size, (unsigned long long)(m1 - m0), (unsigned long long)(b1 - b0));
        }
        ddl_free(buf);
    }
    comm_monitor_close(&mon);
    return t_mpi_comm_done(&c);
}
