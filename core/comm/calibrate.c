/* calibrate.c - measure alpha, beta (ping-pong) and gamma (local
 * reduction) on the machine the lab runs on. */
#include "costmodel.h"

#include <math.h>
#include <string.h>

#include "../common.h"
#include "comm_impl.h"

enum { PINGPONG_TAG = 31999 }; /* outside the allreduce tags (comm.c) */

void cost_pingpong(Comm *c, const size_t *sizes, int nsizes, int reps, double *one_way_s)
{
    size_t largest = 0;
    for (int i = 0; i < nsizes; i++) largest = DDL_MAX(largest, sizes[i]);
    char *buf = ddl_calloc(largest);
    for (int i = 0; i < nsizes; i++) {
        int bytes = (int)sizes[i];
        double best = INFINITY;
        if (c->rank <= 1 && c->size >= 2) {
            int peer = 1 - c->rank;
            for (int r = -2; r < reps; r++) { /* two warm-up round trips */
                double t0 = ddl_now();
                if (c->rank == 0) {
                    MPI_Send(buf, bytes, MPI_BYTE, peer, PINGPONG_TAG, c->mpi);
                    MPI_Recv(buf, bytes, MPI_BYTE, peer, PINGPONG_TAG, c->mpi, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, bytes, MPI_BYTE, peer, PINGPONG_TAG, c->mpi, MPI_STATUS_IGNORE);
                    MPI_Send(buf, bytes, MPI_BYTE, peer, PINGPONG_TAG, c->mpi);
                }
                double t = (ddl_now() - t0) / 2;
                if (r >= 0 && t < best) best = t;
            }
        }
        one_way_s[i] = best;
    }
    MPI_Bcast(one_way_s, nsizes, MPI_DOUBLE, 0, c->mpi);
    ddl_free(buf);
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

CostParams cost_calibrate(Comm *c, double *fit_error)
{
    enum { NSIZES = 11 };
    size_t sizes[NSIZES];
    double bytes[NSIZES], t[NSIZES];
    for (int i = 0; i < NSIZES; i++) {
        sizes[i] = (size_t)8 << (2 * i);     /* 8 B, 32 B, .. 8 MiB: x4 steps */
        bytes[i] = (double)sizes[i];
    }
    CostParams cp = { NAN, NAN, NAN };
    double err = NAN;
    if (c->size >= 2) {
        cost_pingpong(c, sizes, NSIZES, 100, t);
        err = cost_fit_alpha_beta(bytes, t, NSIZES, &cp.alpha, &cp.beta);
    }
    double gamma = cost_measure_gamma((size_t)32 << 20, 5);
    MPI_Allreduce(&gamma, &cp.gamma, 1, MPI_DOUBLE, MPI_MAX, c->mpi);
    if (fit_error) *fit_error = err;
    return cp;
}
