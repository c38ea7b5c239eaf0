/* sim_ring.c - under SimGrid SMPI, the simulated time of ddlab's ring
 * allreduce must be the alpha-beta formula.
 *
 * Run by tests/e2e_sim.sh with smpirun on a platform whose route between
 * any two ranks' hosts has latency alpha and bandwidth 1/beta, one rank
 * per host, with
 *   --cfg=network/model:CM02 --cfg=network/crosstraffic:0
 *       (a message of n bytes takes exactly alpha + n*beta, full duplex)
 *   --cfg=smpi/simulate-computation:no
 *       (the local additions take no simulated time: gamma = 0 here).
 * Then, for p ranks and n bytes divisible by p, from the last rank's start
 * to the last rank's end (see time_call),
 *   ring:        2(p-1) (alpha + n/p beta)      (reduce-scatter + allgather)
 *   recdoubling: log2(p) (alpha + n beta)       (p a power of two)
 * and the simulated time of one call must be within --tol (default 1%)
 * of it. The data are checked too, so the
 * simulated run is the real algorithm, not just its messages.
 *
 *   smpirun -np 4 -platform P -hostfile H bin/sim/tests/sim_ring \
 *       --alpha-us 50 --bandwidth 125e6 [--sizes 4096,1048576] [--tol 0.01] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "util/common.h"
#include "harness.h"

static double arg_num(int argc, char **argv, const char *name, double fallback)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name)) return atof(argv[i + 1]);
    return fallback;
}

static const char *arg_str(int argc, char **argv, const char *name, const char *fallback)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name)) return argv[i + 1];
    return fallback;
}

/* One call's simulated time, from the moment the last rank starts it to
 * the moment the last rank is done. SMPI's clock is global (one simulated
 * time for every rank), so start and end can be compared across ranks;
 * "slowest rank's own duration" would add the barrier's exit skew (up to
 * one alpha: the ranks leave a barrier one message apart). A ring cannot
 * get ahead of its last starter: every step waits for both neighbours. */
static double time_call(Comm *c, float *buf, size_t count, CommAlg alg)
{
    MPI_Barrier(c->mpi);
    double t[2] = { MPI_Wtime(), 0 }, last[2];
    comm_allreduce(c, buf, count, COMM_FP32, COMM_SUM, alg);
    t[1] = MPI_Wtime();
    MPI_Allreduce(t, last, 2, MPI_DOUBLE, MPI_MAX, c->mpi);
    return last[1] - last[0];
}

static bool power_of_two(int p) { return p > 0 && (p & (p - 1)) == 0; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ddl_set_rank(rank, size);
    double alpha = arg_num(argc, argv, "--alpha-us", NAN) * 1e-6;
    double bandwidth = arg_num(argc, argv, "--bandwidth", NAN); /* bytes/s */
    double tol = arg_num(argc, argv, "--tol", 0.01);
    const char *sizes = arg_str(argc, argv, "--sizes", "65536,1048576,16777216");
    if (!(alpha >= 0) || !(bandwidth > 0)) {
        if (rank == 0) fprintf(stderr, "usage: sim_ring --alpha-us A --bandwidth BYTES_PER_S [--sizes ..] [--tol 0.01]\n");
        MPI_Finalize();
        return 2;
    }
    double beta = 1.0 / bandwidth;
    Comm c;
    comm_init(&c, MPI_COMM_WORLD);

    char list[512];
    ddl_strlcpy(list, sizes, sizeof list);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        /* Whole blocks of whole floats, so the ring's blocks are n/p exactly. */
        size_t count = (size_t)atoll(tok) / sizeof(float) / (size_t)size * (size_t)size;
        if (count == 0) continue;
        double n = (double)(count * sizeof(float));
        float *buf = ddl_alloc(count * sizeof(float));
        struct { CommAlg alg; const char *name; double model; } cases[] = {
            { COMM_ALG_RING, "ring", 2.0 * (size - 1) * (alpha + n / size * beta) },
            { COMM_ALG_RECDOUBLING, "recdoubling", log2((double)size) * (alpha + n * beta) },
        };
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            if (cases[k].alg == COMM_ALG_RECDOUBLING && !power_of_two(size)) continue;
            /* Small integers: exact in any order, so the sum is checkable. */
            for (size_t i = 0; i < count; i++) buf[i] = (float)((int)((i + (size_t)rank * 7) % 13) - 6);
            comm_allreduce(&c, buf, count, COMM_FP32, COMM_SUM, cases[k].alg);
            long wrong = 0;
            for (size_t i = 0; i < count; i++) {
                float want = 0;
                for (int r = 0; r < size; r++) want += (float)((int)((i + (size_t)r * 7) % 13) - 6);
                wrong += buf[i] != want;
            }
            t_check_all(wrong == 0, "sim %s allreduce of %.0f bytes on %d ranks sums correctly", cases[k].name, n, size);
            double t = time_call(&c, buf, count, cases[k].alg);
            double err = fabs(t - cases[k].model) / cases[k].model;
            if (rank == 0) {
                char name[256];
                snprintf(name, sizeof name, "sim %s allreduce of %.0f bytes on %d ranks: simulated time within "
                         "%.1f%% of the alpha-beta formula (%.3f us vs %.3f us, error %.4f%%)",
                         cases[k].name, n, size, 100 * tol, t * 1e6, cases[k].model * 1e6, 100 * err);
                t_checkf(err <= tol, name, "CM02 with cross-traffic off should match it");
            }
        }
        ddl_free(buf);
    }
    comm_free(&c);
    MPI_Finalize();
    return rank == 0 ? t_done() : 0;
}
