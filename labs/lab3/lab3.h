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
#include <stdint.h>

#include "comm/comm.h"
#include "sync/sync.h"

typedef struct Lab3Options {
    const char *mode;          /* run | table */
    const char *sync, *alg, *bn, *augment;
    const char *task;          /* seed task label: 1, 2a, 2b, 3 (or empty) */
    const char *series;        /* what the run is part of: task | scale | buckets | custom */
    float bucket_cap_mb, first_bucket_mb;
    int accumulate;
    int batch, global_batch;   /* per rank; or total split over ranks */
    int iters, timed, trace_iter;
    float width;
    int limit, test_limit;
    const char *model, *dataset, *device;
    float lr, momentum, wd;
    bool no_eval, force_synthetic, quiet;
    uint64_t seed;
    const char *profile, *tag, *out, *tex;
} Lab3Options;

Lab3Options lab3_defaults(void);
int lab3_run(const Lab3Options *o, Comm *c);
int lab3_table(const Lab3Options *o);

#endif
