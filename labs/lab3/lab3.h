/* lab3.h - the jobs of lab3 (seed 001: data-parallel SGD, gather/scatter
 * vs allreduce vs DDP bucketing) and their options. main.c parses; the
 * jobs live one per file:
 *   run.c     one training run with one sync strategy: per-iteration times
 *             (forward, backward, exposed sync, optimizer, communication and
 *             the part of it hidden behind backward), test loss/accuracy on
 *             every rank, a timeline of one iteration;
 *   table.c   report/tables/lab3.tex (the seed's Table 1, the bucket sweep)
 *             and the combined CSVs the figures read. */
#ifndef LAB3_H
#define LAB3_H

#include <stdbool.h>

#include "driver/driver.h"

typedef struct Lab3Options {
    DriverOptions run;         /* model, dataset, batch (per rank; 0: --global-batch / ranks), SGD, ... */
    const char *sync, *alg, *bn, *augment;
    const char *task;          /* seed task label: 1, 2a, 2b, 3 (or empty) */
    const char *series;        /* what the run is part of: task | scale | buckets | custom */
    float bucket_cap_mb, first_bucket_mb;
    int accumulate;
    int global_batch;          /* total per step when run.batch is 0 */
    int iters, timed, trace_iter;
    bool no_eval;
} Lab3Options;

/* The labels and choices checked before any work: 0, or 2 after a message. */
int lab3_check(void *ctx, int ranks);
int lab3_run(void *ctx, Driver *d);
int lab3_table(const void *ctx);

#endif
