/* calibrate.c - measure alpha, beta (ping-pong) and gamma (local
 * reduction) on the machine the lab runs on. */
#include "costmodel.h"

#include <math.h>
#include <string.h>

#include "../util/common.h"
#include "comm_impl.h"

enum { PINGPONG_TAG = 31999 }; /* outside the allreduce tags (comm.c) */

int cost_other_host_peer(Comm *c)
{
    char mine[MPI_MAX_PROCESSOR_NAME] = "", first[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    MPI_Get_processor_name(mine, &len);
    if (c->rank == 0) memcpy(first, mine, sizeof first);
    MPI_Bcast(first, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, c->mpi);
    int other = strncmp(mine, first, sizeof mine) != 0 ? c->rank : c->size, lowest = c->size;
    MPI_Allreduce(&other, &lowest, 1, MPI_INT, MPI_MIN, c->mpi);
    return lowest < c->size ? lowest : 1;
}

void cost_pingpong_peer(Comm *c, int peer, const size_t *sizes, int nsizes, int reps, double *one_way_s)
{
    size_t largest = 0;
    for (int i = 0; i < nsizes; i++) largest = DDL_MAX(largest, sizes[i]);
    if (peer < 1 || peer >= c->size) peer = 1;
    bool playing = c->size >= 2 && (c->rank == 0 || c->rank == peer);
    /* Only the two players hold a buffer; the others just wait for the
     * result (at 80 simulated ranks in one SMPI process, 78 idle 8 MiB
     * buffers would cost 600 MiB for nothing). */
    char *buf = playing ? ddl_calloc(largest) : NULL;
    for (int i = 0; i < nsizes; i++) {
        int bytes = (int)sizes[i];
        double best = INFINITY;
        if (playing) {
            int other = c->rank == 0 ? peer : 0;
            for (int r = -2; r < reps; r++) { /* two warm-up round trips */
                double t0 = ddl_now();
                if (c->rank == 0) {
                    MPI_Send(buf, bytes, MPI_BYTE, other, PINGPONG_TAG, c->mpi);
                    MPI_Recv(buf, bytes, MPI_BYTE, other, PINGPONG_TAG, c->mpi, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, bytes, MPI_BYTE, other, PINGPONG_TAG, c->mpi, MPI_STATUS_IGNORE);
                    MPI_Send(buf, bytes, MPI_BYTE, other, PINGPONG_TAG, c->mpi);
                }
                double t = (ddl_now() - t0) / 2;
                if (r >= 0 && t < best) best = t;
            }
        }
        one_way_s[i] = best;
    }
    MPI_Bcast(one_way_s, nsizes, MPI_DOUBLE, 0, c->mpi);
    if (buf) ddl_free(buf);
}

double cost_measure_gamma(size_t bytes, int reps)
{
    size_t n = bytes / sizeof(float);
    float *acc = ddl_alloc(n * sizeof(float)), *in = ddl_alloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) { acc[i] = 0; in[i] = (float)(i % 7) * 0.5f; }
    double best = INFINITY;
    for (int r = -1; r < reps; r++) { /* one warm-up pass faults the pages in */
        double t0 = ddl_now();
        reduce_add_fp32(acc, in, n);
        double t = ddl_now() - t0;
        if (r >= 0 && t < best) best = t;
    }
    /* Keep the compiler from dropping the loop as dead. */
    volatile float sink = acc[n / 2];
    (void)sink;
    ddl_free(acc);
    ddl_free(in);
    return best / (double)(n * sizeof(float));
}

void cost_calibrate(Comm *c, CostCalibration *out)
{
    memset(out, 0, sizeof *out);
    size_t sizes[COST_CALIBRATION_SIZES];
    for (int i = 0; i < COST_CALIBRATION_SIZES; i++) {
        sizes[i] = (size_t)8 << (2 * i); /* 8 B, 32 B, .. 8 MiB: x4 steps */
        out->bytes[i] = (double)sizes[i];
        out->one_way_s[i] = NAN;
    }
    out->p = (CostParams){ NAN, NAN, NAN };
    out->fit_error = NAN;
    out->peer = 1;
    if (c->size >= 2) {
        /* The first rank on another host when there is one (a cluster or
         * a simulated platform: the model is about the links between
         * hosts), else rank 1. */
        out->peer = cost_other_host_peer(c);
        cost_pingpong_peer(c, out->peer, sizes, COST_CALIBRATION_SIZES, 100, out->one_way_s);
        out->fit_error = cost_fit_alpha_beta(out->bytes, out->one_way_s, COST_CALIBRATION_SIZES, &out->p.alpha,
                                             &out->p.beta);
    }
#ifdef DDL_SMPI
    /* Simulated ranks take turns on one core: each would measure the same
     * thing, and 80 ranks holding 64 MiB each at once would not fit. Rank
     * 0 measures for all. */
    double gamma = c->rank == 0 ? cost_measure_gamma((size_t)32 << 20, 5) : 0;
#else
    double gamma = cost_measure_gamma((size_t)32 << 20, 5);
#endif
    MPI_Allreduce(&gamma, &out->p.gamma, 1, MPI_DOUBLE, MPI_MAX, c->mpi);
}
