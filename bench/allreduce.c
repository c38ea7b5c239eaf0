/* allreduce.c - ddlab's hand-written allreduce algorithms against
 * MPI_Allreduce on the same machine, in the same run, as ratios.
 *
 *   mpirun -np 2 bin/bench/allreduce [--bytes N] [--rounds R]
 *
 * Large messages (default 64 MiB FP32): busbw (nccl-tests definition) of
 * every algorithm next to MPI_Allreduce's. Small messages (8 bytes):
 * latency. Measurements are interleaved round by round (one call of each
 * algorithm per round) so that a noisy neighbour slows all of them alike;
 * the statistic is the median over rounds of the slowest rank's time.
 * The performance bar of the lab2 issue is printed at the end:
 *   ring busbw >= 0.9 x MPI's at 64 MiB;
 *   recursive doubling 8-byte latency <= 1.5 x MPI's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "comm/comm.h"
#include "comm/measure.h"
#include "common.h"

typedef struct Samples { double *t; int n; } Samples;

/* A whole number in [min, max] for flag, or the program stops saying why. */
static long long number(const char *flag, const char *s, long long min, long long max)
{
    long long x;
    char why[CLI_WHY];
    if (cli_parse_int(s, min, max, &x, why) != 0) ddl_die("bench allreduce: %s: %s", flag, why);
    return x;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(Samples *s)
{
    qsort(s->t, (size_t)s->n, sizeof *s->t, compare_double);
    return s->n % 2 ? s->t[s->n / 2] : (s->t[s->n / 2 - 1] + s->t[s->n / 2]) / 2;
}

/* One round: `calls` timed calls of every algorithm in turn; records the
 * median of each algorithm's calls in this round. */
static void interleaved(Comm *c, const CommAlg *algs, int nalgs, size_t count, int rounds, int calls, void *buf,
                        Samples *out)
{
    memset(buf, 0, count * sizeof(float));
    for (int a = 0; a < nalgs; a++) /* warm-up: scratch buffers allocated, pages touched */
        for (int i = 0; i < 2; i++) comm_allreduce(c, buf, count, COMM_FP32, COMM_SUM, algs[a]);
    for (int r = 0; r < rounds; r++)
        for (int a = 0; a < nalgs; a++) {
            AllreduceTiming t = comm_time_allreduce(c, algs[a], COMM_FP32, count, 0, calls, buf);
            out[a].t[out[a].n++] = t.median_s;
        }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Comm c;
    comm_init(&c, MPI_COMM_WORLD);
    ddl_set_rank(c.rank, c.size);
    size_t bytes = (size_t)64 << 20;
    int rounds = 12;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--bytes")) bytes = (size_t)number(argv[i], argv[i + 1], 4, (long long)1 << 30);
        else if (!strcmp(argv[i], "--rounds")) rounds = (int)number(argv[i], argv[i + 1], 1, 100000);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (c.rank == 0)
        printf("# bench allreduce: %d ranks on %ld cores%s, FP32 SUM, median over %d interleaved rounds of the "
               "slowest rank's time; busbw = bytes/time * 2(p-1)/p\n",
               c.size, cores, c.size > cores ? " (oversubscribed)" : "", rounds);
    if (c.size < 2) {
        if (c.rank == 0) printf("# bench allreduce: needs at least 2 ranks\n");
        comm_free(&c);
        MPI_Finalize();
        return 0;
    }

    const CommAlg algs[COMM_ALG_HOST_COUNT] = { COMM_ALG_MPI, COMM_ALG_RING, COMM_ALG_RING_ASYNC, COMM_ALG_RABENSEIFNER,
                                           COMM_ALG_RECDOUBLING, COMM_ALG_TREE, COMM_ALG_LINEAR };
    Samples s[COMM_ALG_HOST_COUNT];
    for (int a = 0; a < COMM_ALG_HOST_COUNT; a++) {
        s[a].t = calloc((size_t)rounds, sizeof(double));
        s[a].n = 0;
    }
    size_t count = bytes / sizeof(float);
    void *buf = ddl_alloc(count * sizeof(float));
    interleaved(&c, algs, COMM_ALG_HOST_COUNT, count, rounds, 1, buf, s);
    double mpi_busbw = comm_busbw((double)bytes, median(&s[0]), c.size) / 1e9, ring_ratio = 0;
    for (int a = 1; a < COMM_ALG_HOST_COUNT; a++) {
        double busbw = comm_busbw((double)bytes, median(&s[a]), c.size) / 1e9;
        if (algs[a] == COMM_ALG_RING) ring_ratio = busbw / mpi_busbw;
        if (c.rank == 0)
            printf("bench allreduce %s %zu np%d: busbw %.2f GB/s, mpi %.2f GB/s, ratio %.2f\n",
                   comm_alg_name(algs[a]), bytes, c.size, busbw, mpi_busbw, busbw / mpi_busbw);
    }
    long wrong = comm_check_allreduce(&c, COMM_ALG_RING, COMM_FP32, count, buf);

    /* 8 bytes: latency, many calls per round to see past timer resolution. */
    const CommAlg small[2] = { COMM_ALG_MPI, COMM_ALG_RECDOUBLING };
    Samples l[2];
    for (int a = 0; a < 2; a++) {
        l[a].t = calloc((size_t)rounds * 4, sizeof(double));
        l[a].n = 0;
    }
    interleaved(&c, small, 2, 2, rounds * 4, 100, buf, l);
    double mpi_lat = median(&l[0]) * 1e6, rd_lat = median(&l[1]) * 1e6;
    if (c.rank == 0) {
        printf("bench allreduce recdoubling 8 np%d: latency %.2f us, mpi %.2f us, ratio %.2f\n", c.size, rd_lat,
               mpi_lat, rd_lat / mpi_lat);
        printf("bench allreduce bar np%d: ring busbw >= 0.9 x mpi at %zu B: %s (%.2f); recdoubling 8 B latency "
               "<= 1.5 x mpi: %s (%.2f); ring result check: %ld wrong\n",
               c.size, bytes, ring_ratio >= 0.9 ? "PASS" : "FAIL", ring_ratio,
               rd_lat <= 1.5 * mpi_lat ? "PASS" : "FAIL", rd_lat / mpi_lat, wrong);
    }
    for (int a = 0; a < COMM_ALG_HOST_COUNT; a++) free(s[a].t);
    for (int a = 0; a < 2; a++) free(l[a].t);
    ddl_free(buf);
    comm_free(&c);
    MPI_Finalize();
    return 0;
}
