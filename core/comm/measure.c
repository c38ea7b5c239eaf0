/* measure.c - see measure.h. */
#include "measure.h"

#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "../util/common.h"
#include "../util/half.h"

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A device buffer (comm_use_device): filled and read through copies. */
static bool on_device(const Comm *c, const void *buf) { return c->be && c->be->owns(buf); }

AllreduceTiming comm_time_allreduce(Comm *c, CommAlg alg, CommDtype dtype, size_t count, int warmup, int reps,
                                    void *buf)
{
    /* half zero is all-zero bits too */
    if (on_device(c, buf)) c->be->zero(buf, count * comm_dtype_size(dtype));
    else memset(buf, 0, count * comm_dtype_size(dtype));
    double t_warm = ddl_now();
    for (int i = 0; i < warmup; i++) comm_allreduce(c, buf, count, dtype, COMM_SUM, alg);
    t_warm = ddl_now() - t_warm;
    if (reps <= 0) {
        double per_call = warmup > 0 ? t_warm / warmup : 1e-3;
        reps = per_call > 0 ? (int)(0.2 / per_call) : 1000;
        reps = reps < 5 ? 5 : reps > 1000 ? 1000 : reps;
        MPI_Bcast(&reps, 1, MPI_INT, 0, c->mpi);
    }
    double *t = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *t);
    if (!t) ddl_die("out of memory for %d timings", reps);
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(c->mpi);
        double t0 = ddl_now();
        comm_allreduce(c, buf, count, dtype, COMM_SUM, alg);
        double mine = ddl_now() - t0;
        MPI_Allreduce(&mine, &t[i], 1, MPI_DOUBLE, MPI_MAX, c->mpi);
    }
    double sum = 0;
    for (int i = 0; i < reps; i++) sum += t[i];
    qsort(t, (size_t)reps, sizeof *t, compare_double);
    AllreduceTiming r = { 0, 0, 0, reps };
    if (reps > 0) {
        r.min_s = t[0];
        r.median_s = reps % 2 ? t[reps / 2] : (t[reps / 2 - 1] + t[reps / 2]) / 2;
        r.mean_s = sum / reps;
    }
    free(t);
    return r;
}

/* Small integers: every partial sum is exact in FP32 and FP16 alike. */
static float check_value(int rank, size_t i) { return (float)((int)((i * 3 + (size_t)rank * 5) % 11) - 5); }

long comm_check_allreduce(Comm *c, CommAlg alg, CommDtype dtype, size_t count, void *buf)
{
    size_t bytes = count * comm_dtype_size(dtype);
    bool dev = on_device(c, buf);
    void *host = dev ? ddl_alloc(bytes ? bytes : 1) : buf;
    float *f = host;
    uint16_t *h = host;
    for (size_t i = 0; i < count; i++) {
        float v = check_value(c->rank, i);
        if (dtype == COMM_FP32) f[i] = v;
        else h[i] = half_from_float(v);
    }
    if (dev) c->be->to_device(buf, host, bytes);
    comm_allreduce(c, buf, count, dtype, COMM_SUM, alg);
    if (dev) c->be->to_host(host, buf, bytes);
    /* check_value depends on i only through i mod 11, so the 11 exact sums
     * cover every element: O(count + 11 p) rather than O(count p), which
     * matters at 80 simulated ranks sharing one core. */
    float want_mod[11];
    for (size_t j = 0; j < 11; j++) {
        want_mod[j] = 0;
        for (int r = 0; r < c->size; r++) want_mod[j] += check_value(r, j);
    }
    long wrong = 0;
    for (size_t i = 0; i < count; i++) {
        float want = want_mod[i % 11];
        float got = dtype == COMM_FP32 ? f[i] : half_to_float(h[i]);
        if (got != want) wrong++;
    }
    if (dev) ddl_free(host);
    long total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, c->mpi);
    return total;
}

double comm_algbw(double bytes, double seconds) { return seconds > 0 ? bytes / seconds : 0; }

double comm_busbw(double bytes, double seconds, int ranks)
{
    return ranks > 0 ? comm_algbw(bytes, seconds) * 2.0 * (ranks - 1) / ranks : 0;
}
