/* lab4.h - group / pairwise averaging vs full allreduce (seed 000).
 * main.c parses; the jobs live one per file:
 *   run.c      `lab4 run` at P ranks: every configuration of the seed's
 *              Table 2 for this P, one after the other, from the same
 *              initial weights; writes runs-, iters- and ranks-npP.csv;
 *   train.c    one configuration: local SGD steps, averaging rounds,
 *              per-iteration metrics, exact bytes;
 *   metrics.c  what is measured between iterations (not timed, not
 *              counted): Horovod-style test accuracy, consensus distance;
 *   table.c    `lab4 table`: the seed's Table 2 (CSV + report/tables/lab4.tex),
 *              Figure 3's bars, and the combined per-iteration CSV. */
#ifndef LAB4_H
#define LAB4_H

#include <stdbool.h>
#include <stdint.h>

#include "comm/monitor.h"
#include "driver/driver.h"

/* How the workers are kept together after each local step. */
typedef enum Lab4Scheme {
    SCHEME_ALLREDUCE, /* one ring allreduce over all P workers (Horovod's; the seed's "all-reduce") */
    SCHEME_GROUP,     /* rotating groups of k+1 (core/sync/group_avg.h): the seed's description */
    SCHEME_LGA        /* Horovod's backward_passes_per_step = k, taken literally: gradients of k
                       * local backward passes summed, then one full allreduce and one step */
} Lab4Scheme;

typedef struct Lab4Config {
    Lab4Scheme scheme;
    int passes;   /* group: k; allreduce: P (as the seed's Table 2 writes it); lga: k */
    int iters;    /* iterations (the seed's unit; see steps_per_iter) */
} Lab4Config;

typedef struct Lab4Options {
    DriverOptions run;         /* dataset, limits, batch (per worker), lr (per worker), momentum,
                                * width (cnn3), seed, out, tag, ... */
    const char *scheme;        /* group | lga | group,lga */
    const char *passes;        /* "all" or a comma list of "ar" and numbers */
    int iters;                 /* > 0: every configuration runs this many iterations */
    int iters_base, iters_step;/* else iterations = base + step (P - passes): 12, 15, 18, .. */
    int steps_per_iter;        /* 0: one pass over the worker's shard of the subset (an epoch) */
    bool no_lr_scale;          /* default: lr x P, as Horovod's MNIST example */
    bool no_rotate;            /* group: keep the first grouping (exercise: no mixing) */
} Lab4Options;

/* The jobs (driver.h's DriverSpec; ctx is the Lab4Options). */
int lab4_run(void *ctx, Driver *d);
int lab4_table(const void *ctx);

/* The configurations to run at P workers, in the seed's Table 2 order
 * (all-reduce first, then passes P-1 .. 1). Returns how many, or -1 with
 * a message (unknown token, passes >= P, ...). */
int lab4_configs(const Lab4Options *o, int P, Lab4Config *out, int cap);
const char *lab4_scheme_name(Lab4Scheme s);      /* "allreduce", "group", "lga" */
/* Short label for legends and CSVs: "all-reduce", "k=1", "lga-k=2". */
void lab4_label(const Lab4Config *c, char *out, size_t cap);

/* ---- one configuration (train.c) ---- */

typedef struct Lab4Setup {
    const Lab4Options *o;
    Driver *d;                  /* the world, the data, the model */
    const float *init;          /* initial weights, the same for every configuration */
    float lr;                   /* after scaling */
    Table *iters;               /* per-iteration rows (every rank fills; rank 0 writes) */
    Table *runs, *ranks;        /* per-configuration rows (rank 0): in checkpoints too */
    int status;                 /* the worst configuration's so far */
    CommMonitor *monitor;       /* Open MPI's pvars, read around each round; NULL: unavailable */
} Lab4Setup;

typedef struct Lab4Result {
    long rounds;                     /* averaging rounds (local steps) */
    double wall_s, sync_s;           /* training + averaging; averaging only (max over ranks) */
    double accuracy, test_loss;      /* final, Horovod style (each worker's own model on its test shard) */
    double accuracy_avg_model;       /* the workers' average model on the whole test subset */
    double consensus, consensus_rel; /* final mean distance of the workers' weights from their average */
    double train_loss;               /* mean over the last iteration's batches and workers */
    CommCounters ctr;                /* this rank, ddlab's counters */
    uint64_t want_sent, want_recv;   /* this rank, closed form for the groups used */
    bool monitored;                  /* the pvars were read */
    uint64_t mon_msgs, mon_bytes;    /* this rank, Open MPI's count of what it sent in the rounds */
} Lab4Result;

int lab4_train(Lab4Setup *s, const Lab4Config *cfg, Lab4Result *r);

/* ---- between iterations (metrics.c): raw MPI on MPI_COMM_WORLD, so
 * ddlab's counters keep only the averaging traffic ---- */

/* The part of d that rank r of w evaluates: contiguous, near-equal. A view:
 * never dataset_free it. */
Dataset lab4_shard(const Dataset *d, int rank, int world);
/* Each worker's own model on its shard of the test set, combined over
 * workers (what Horovod's MNIST example reports). Collective. */
void lab4_eval_workers(Model *m, const Dataset *test, double *accuracy, double *loss);
/* Mean over workers of ||w_i - w_avg||_2, and that divided by ||w_avg||.
 * avg (n doubles) receives the average. Collective. */
void lab4_consensus(const float *w, size_t n, double *avg, double *dist, double *rel);
/* Accuracy of the average model (avg, from lab4_consensus) over the whole
 * test set, evaluated in shards; m's weights are restored. Collective. */
double lab4_eval_average(Model *m, const double *avg, const Dataset *test);

#endif
