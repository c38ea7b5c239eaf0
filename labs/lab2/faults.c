/* faults.c - lab2 train --fault: the seed's plausible bugs, put into the
 * ring rows on purpose, to see which (if any) gives the seed's 7-10 point
 * gap between its rings and MPI_Allreduce.
 *
 * Each fault is a row: how it changes the data each rank reads, and what
 * it does to the weights after every step, once the row's algorithm has
 * averaged them (the averaging itself always runs, so the rows' times stay
 * the algorithm's). The rows that are not rings (MPI_Allreduce, the
 * reference, among them) train without the fault, so a faulty ring is
 * measured against a correct MPI_Allreduce as the seed's were.
 *
 * A replica's own update, before the averaging, is rebuilt from its
 * weights before the step and its gradient: lab2 trains with plain SGD
 * (no momentum, no weight decay), whose update w -= lr * (g + 0 * w) is
 * w - lr * g to the bit (sgd_update_cpu), so no hook into the optimizer
 * is needed. At 2 ranks "neighbour" averaging is the full average, which
 * tests/e2e_lab2_faults.sh uses to check that rebuild. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "util/common.h"
#include "lab2.h"

/* w = the replica's own update: its weights before the step less lr times
 * its gradient (before: nparams floats, read by before_step). */
static void own_update(Lab2FaultState *s, Driver *d)
{
    size_t n = d->m.nparams;
    model_grads_to_host(&d->m, s->work);
    for (size_t i = 0; i < n; i++) s->work[i] = s->before[i] - s->lr * s->work[i];
}

/* Each replica keeps its own update: the average is computed and dropped,
 * and rank 0's replica is the one evaluated. */
static void unaveraged(Lab2FaultState *s, Driver *d)
{
    own_update(s, d);
    model_params_from_host(&d->m, s->work);
}

/* Each replica averages its own update with its left ring neighbour's
 * only: a ring that stops after its first hop. */
static void neighbour(Lab2FaultState *s, Driver *d)
{
    own_update(s, d);
    size_t n = d->m.nparams;
    int right = (d->rank + 1) % d->world, left = (d->rank + d->world - 1) % d->world;
    for (size_t off = 0; off < n;) { /* MPI counts are ints */
        int count = (int)DDL_MIN(n - off, (size_t)1 << 28);
        MPI_Sendrecv(s->work + off, count, MPI_FLOAT, right, 0, s->before + off, count, MPI_FLOAT, left, 0,
                     d->comm.mpi, MPI_STATUS_IGNORE);
        off += (size_t)count;
    }
    for (size_t i = 0; i < n; i++) s->work[i] = (s->work[i] + s->before[i]) * 0.5f;
    model_params_from_host(&d->m, s->work);
}

/* The sum, not the average: the divide by the ranks forgotten. */
static void no_divide(Lab2FaultState *s, Driver *d)
{
    size_t n = d->m.nparams;
    model_params_to_host(&d->m, s->work);
    for (size_t i = 0; i < n; i++) s->work[i] *= (float)d->world;
    model_params_from_host(&d->m, s->work);
}

static const Lab2Fault FAULTS[] = {
    { "none", "no fault", false, NULL, false },
    { "neighbour", "each ring replica averages with its left neighbour only (a ring stopped after one hop)", false,
      neighbour, true },
    { "no-divide", "the ring rows sum the weights and forget to divide by the ranks", false, no_divide, false },
    { "same-shard", "every rank of the ring rows reads rank 0's shard of the data", true, NULL, false },
    { "unaveraged", "the ring rows compute the average and drop it: each replica trains alone on its shard, "
                    "and rank 0's is evaluated", false, unaveraged, true },
};
enum { FAULT_COUNT = (int)(sizeof FAULTS / sizeof FAULTS[0]) };

void lab2_fault_names(char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (int f = 0; f < FAULT_COUNT && used < cap; f++)
        used += (size_t)snprintf(out + used, cap - used, "%s%s", f ? ", " : "", FAULTS[f].name);
}

const Lab2Fault *lab2_fault_named(const char *name)
{
    for (int f = 0; f < FAULT_COUNT; f++)
        if (!strcmp(FAULTS[f].name, name)) return &FAULTS[f];
    char known[256];
    lab2_fault_names(known, sizeof known);
    ddl_error("--fault '%s': no such fault (%s)", name, known);
    return NULL;
}

bool lab2_fault_active(const Lab2Fault *f) { return f != &FAULTS[0]; }

const Lab2Fault *lab2_fault_for(const Lab2Fault *f, CommAlg alg)
{
    return alg == COMM_ALG_RING || alg == COMM_ALG_RING_ASYNC ? f : &FAULTS[0];
}

void lab2_fault_begin(Lab2FaultState *s, const Lab2Fault *f, Driver *d, float lr)
{
    memset(s, 0, sizeof *s);
    s->fault = f;
    s->lr = lr;
    if (!f->after_step) return;
    s->before = ddl_alloc(d->m.nparams * sizeof(float));
    s->work = ddl_alloc(d->m.nparams * sizeof(float));
}

void lab2_fault_before_step(Lab2FaultState *s, Driver *d)
{
    if (s->before) model_params_to_host(&d->m, s->before);
}

void lab2_fault_after_step(Lab2FaultState *s, Driver *d)
{
    if (s->fault->after_step) s->fault->after_step(s, d);
}

void lab2_fault_end(Lab2FaultState *s)
{
    ddl_free(s->before);
    ddl_free(s->work);
    s->before = s->work = NULL;
}
