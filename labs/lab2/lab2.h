/* lab2.h - the jobs of lab2 (seed 002: allreduce algorithms) and their
 * options. main.c parses, the jobs live one per file:
 *   bench.c   microbenchmark: every algorithm, 4 B .. 64 MiB, with the
 *             alpha-beta-gamma model next to each measurement;
 *   train.c   the seed's training: an MLP whose second hidden width sets
 *             the message size, weights averaged by each algorithm;
 *   table.c   report/tables/lab2.tex and the combined CSVs the figures use. */
#ifndef LAB2_H
#define LAB2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comm/costmodel.h"
#include "driver/driver.h"

typedef struct Lab2Options {
    DriverOptions run;        /* dataset, limits, batch (per rank), lr, seed, out, tag, ... */
    const char *algs;         /* "all" or a comma list of algorithm names */
    const char *sizes;        /* bench: comma list of sizes ("64", "64k"; "" = the sweep) */
    size_t min_bytes, max_bytes;
    const char *hidden;       /* train: comma list of second hidden widths */
    const char *dtype;        /* bench: fp32 | fp16 payload */
    int reps;                 /* bench: timed calls per point, 0 = from the warm-up */
    int warmups;              /* bench: untimed calls before them, -1 = 2 from 1 MiB, else 10 */
    int epochs, h1;
    int segment_kib;          /* ring_async segment size */
    size_t sim_shared_bytes;  /* bench, simulated builds: sizes from this many
                               * bytes are timed on SMPI shared buffers,
                               * unchecked (0: never) */
    bool no_calibrate;
    const char *fault;        /* train: a fault for the ring rows (faults.c), "none" */
} Lab2Options;

/* train --fault: one of the seed's plausible bugs, put into the ring rows
 * (faults.c). A fault may change the data each rank reads and the weights
 * after each step's averaging. */
typedef struct Lab2FaultState Lab2FaultState;
typedef struct Lab2Fault {
    const char *name, *what;
    bool same_shard;                                  /* every rank reads rank 0's shard */
    void (*after_step)(Lab2FaultState *s, Driver *d); /* after the averaging, or NULL */
    bool replicas_differ;                             /* by design: not an error */
} Lab2Fault;
struct Lab2FaultState {
    const Lab2Fault *fault;
    float lr;
    float *before, *work; /* the weights before the step; scratch (nparams each) */
};
/* The fault named (NULL after a message naming those there are); the
 * fault a row of algorithm alg runs (the rings': f; the others': none). */
const Lab2Fault *lab2_fault_named(const char *name);
const Lab2Fault *lab2_fault_for(const Lab2Fault *f, CommAlg alg);
bool lab2_fault_active(const Lab2Fault *f); /* not "none" */
void lab2_fault_names(char *out, size_t cap);
void lab2_fault_begin(Lab2FaultState *s, const Lab2Fault *f, Driver *d, float lr);
void lab2_fault_before_step(Lab2FaultState *s, Driver *d);
void lab2_fault_after_step(Lab2FaultState *s, Driver *d);
void lab2_fault_end(Lab2FaultState *s);

int lab2_bench(const Lab2Options *o, Driver *d);
int lab2_train(const Lab2Options *o, Driver *d);
int lab2_table(const void *ctx);

/* lab2 algs: every algorithm of core/comm's table, in its order, one a
 * line on rank 0: "name host|device description". Returns 0. */
int lab2_list_algs(const Driver *d);
/* Parse o->algs into algs[]; returns how many, or -1 with a message. */
int lab2_parse_algs(const char *list, CommAlg *algs);
/* --hidden: a comma list of widths 1..65536 (at most cap); the count, or
 * -1 after a message saying why. */
int lab2_parse_hidden(const char *list, int *h, int cap);
/* Metadata every lab2 output carries (driver_meta: ranks, cores,
 * oversubscribed, git...), plus the lab's own keys: alg_order (every
 * algorithm of the table, in its order: the figures' order and colours)
 * and the ring_async segment. Collective. */
void lab2_meta(Meta *m, const Lab2Options *o, Driver *d, const char *what);
/* Fitted alpha, beta (ping-pong between rank 0 and the first rank on
 * another host, else rank 1) and gamma; writes <out>/calibration-<tag>.csv.
 * Collective. NAN alpha/beta with one rank. */
CostParams lab2_calibrate(const Lab2Options *o, Driver *d, double *fit_error);

#endif
