/* lab3.h - the jobs of lab3 (seed 001: data-parallel SGD, gather/scatter
 * vs allreduce vs DDP bucketing) and their options. main.c parses; the
 * jobs live one per file:
 *   run.c     one training run with one sync strategy: per-iteration times
 *             (forward, backward, exposed sync, optimizer, communication and
 *             the part of it hidden behind backward), test loss/accuracy on
 *             every rank, a timeline of one iteration;
 *   table.c   report/tables/lab3.tex (the seed's Table 1, the bucket sweep)
 *             and the combined CSVs the figures read;
 *   syncs.c   the strategies it offers, from core/sync's table. */
#ifndef LAB3_H
#define LAB3_H

#include <stdbool.h>

#include "compute/compute.h"
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
    const char *calibrate_compute; /* native: write <out>/<this>.csv, every stage's time (core/compute) */
    const char *compute_model;     /* simulated: charge each stage from this model instead of its CPU time */
    int private_ranks;             /* with compute_model: ranks from this one share their state, run no kernels
                                    * (-1: none shares) */
} Lab3Options;

/* syncs.c: the strategies lab3 offers (the rows of core/sync with
 * SYNC_LAB(3)), in table order: --sync's choices ("none|gather_scatter|
 * ..."), the multi-rank ones joined by sep (what `make lab3` sweeps and
 * plots: bin/lab3 --list-syncs), --help's lines (name, description, the
 * seed's task), and the strategy a seed task stands for (NULL: no task). */
const char *lab3_sync_choices(void);
const char *lab3_multirank_syncs(const char *sep);
const char *lab3_sync_help(void);
const char *lab3_task_sync(const char *task);

/* The labels and choices checked before any work: 0, or 2 after a message. */
int lab3_check(void *ctx, int ranks);
int lab3_run(void *ctx, Driver *d);
int lab3_table(const void *ctx);

/* compute.c: the step's computation measured per stage (native) or
 * charged from that model (simulated), and the shared training state of
 * the ranks that run no kernels. */
typedef struct Lab3Compute {
    bool shared;               /* this rank's state is shared by the ranks that run no kernels */
    ComputeModel cm;
    ComputeModelled modelled;
    ComputeCalibration calib;
    bool has_model, calibrating;
} Lab3Compute;
/* Before the model is built: shared allocation on for a shared rank. */
int lab3_compute_share(Lab3Compute *c, const Lab3Options *o, Driver *d);
/* Sharing off (for the data and the outputs) or back on (for training). */
void lab3_compute_sharing(const Lab3Compute *c, bool on);
/* After the model and strategy are set up: the runner, per the options;
 * 0 or 2 after a message. */
int lab3_compute_begin(Lab3Compute *c, const Lab3Options *o, Driver *d, int batch);
void lab3_compute_meta(const Lab3Compute *c, const Lab3Options *o, const Driver *d, Meta *meta);
/* The calibration's CSV on rank 0; 0 or 1. */
int lab3_compute_end(Lab3Compute *c, const Lab3Options *o, const Driver *d, const Meta *meta);

#endif
