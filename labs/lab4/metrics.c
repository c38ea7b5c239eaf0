/* metrics.c - what lab4 measures between iterations. All of it goes
 * through raw MPI on MPI_COMM_WORLD, never through a ddlab Comm, so the
 * traffic counters hold only the averaging the scheme does (and the
 * monitoring pvars are read around the rounds only). */
#include <math.h>
#include <string.h>

#include "util/common.h"
#include "train/evaluate.h"
#include "train/train.h"
#include "lab4.h"

Dataset lab4_shard(const Dataset *d, int rank, int world)
{
    Dataset s = *d;
    long lo = (long)d->n * rank / world, hi = (long)d->n * (rank + 1) / world;
    size_t per = (size_t)d->c * d->h * d->w;
    s.n = (int)(hi - lo);
    s.x = d->x + (size_t)lo * per;
    s.y = d->y + lo;
    return s;
}

/* Correct answers and summed loss over this rank's shard, added over ranks. */
static void eval_shard(Model *m, const Dataset *test, double *accuracy, double *loss)
{
    int rank, world;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    Dataset shard = lab4_shard(test, rank, world);
    double v[3] = { 0, 0, 0 };
    if (shard.n > 0) {
        EvalResult e = evaluate(m, &shard, 500);
        v[0] = e.accuracy * e.n;
        v[1] = e.loss * e.n;
        v[2] = e.n;
    }
    MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *accuracy = v[2] > 0 ? v[0] / v[2] : NAN;
    *loss = v[2] > 0 ? v[1] / v[2] : NAN;
}

void lab4_eval_workers(Model *m, const Dataset *test, double *accuracy, double *loss)
{
    eval_shard(m, test, accuracy, loss);
}

void lab4_consensus(const float *w, size_t n, double *avg, double *dist, double *rel)
{
    int world;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    /* In double: P identical float replicas sum and divide back to the
     * same value exactly, so a full average reads as distance 0. */
    for (size_t i = 0; i < n; i++) avg[i] = w[i];
    MPI_Allreduce(MPI_IN_PLACE, avg, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double d2 = 0.0, a2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        avg[i] /= world;
        double d = w[i] - avg[i];
        d2 += d * d;
        a2 += avg[i] * avg[i];
    }
    double d = sqrt(d2);
    MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    *dist = d / world;
    *rel = a2 > 0 ? *dist / sqrt(a2) : 0.0;
}

double lab4_eval_average(Model *m, const double *avg, const Dataset *test)
{
    /* Through host copies: the model may live on a device. */
    float *mine = ddl_alloc(m->nparams * sizeof(float)), *mean = ddl_alloc(m->nparams * sizeof(float));
    model_params_to_host(m, mine);
    for (size_t i = 0; i < m->nparams; i++) mean[i] = (float)avg[i];
    model_params_from_host(m, mean);
    double accuracy, loss;
    eval_shard(m, test, &accuracy, &loss);
    model_params_from_host(m, mine);
    ddl_free(mean);
    ddl_free(mine);
    return accuracy;
}
