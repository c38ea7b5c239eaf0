/* lab6.h - the jobs of lab6 (seed 003: Horovod-style allreduce vs a
 * parameter server across three workloads, 1 vs 2 workers) and their
 * options. main.c parses; the jobs live one per file:
 *   run.c        one training run of one workload with one style: training
 *                time, iterations per second, test accuracy, bytes per
 *                rank, and where a step's time goes (compute vs
 *                communication);
 *   workload.c   the three workloads: model, dataset, quick widths;
 *   table.c      report/tables/lab6.tex (the seed's Table I layout), the
 *                grid CSV and the figures' CSVs;
 *   styles.c     the styles it offers, from core/sync's table. */
#ifndef LAB6_H
#define LAB6_H

#include <stdbool.h>
#include <stdint.h>

#include "driver/driver.h"

typedef struct Workload {
    const char *name;      /* resnet50-mnist, mobilenetv2-fashion, sdss_dnn-sdss */
    const char *label;     /* the seed's column: "ResNet50+MNIST" */
    const char *model, *dataset;
    float quick_width;     /* channel multiplier of the quick profile */
} Workload;

/* NULL for an unknown name. */
const Workload *workload_find(const char *name);
/* "resnet50-mnist, mobilenetv2-fashion, sdss_dnn-sdss" */
const char *workload_names(void);
int workload_count(void);
const Workload *workload_at(int i);

typedef struct Lab6Options {
    DriverOptions run;         /* batch per worker, SGD, seed, device, out, tag, ...; model and
                                * dataset from the workload; width 0: its quick width */
    const char *workload, *style;
    const Workload *w;         /* after lab6_check */
    int epochs, iters;         /* iters > 0 overrides epochs */
    float fusion_mb, cycle_ms; /* horovod */
    bool fp16;
    const char *alg;           /* horovod: the allreduce ("": ddlab's ring, as Horovod's MPI ring) */
    bool ps_async;             /* ps: apply each push on arrival */
    int accumulate;            /* backward_passes_per_step */
    const char *lr_scale;      /* none | linear: --lr x workers (Horovod's recipe) */
    int warmup;                /* linear: steps of the ramp from --lr to the scaled rate */
} Lab6Options;

/* styles.c: the rows of core/sync lab6 offers as --style (SYNC_LAB(6)),
 * in table order: the choices ("horovod|ps"), --help's lines, and
 * --list-styles' "NAME SERVERS" lines (SERVERS: 1 where rank 0 serves,
 * so P workers run on P+1 ranks; 0 otherwise). */
const char *lab6_style_choices(void);
const char *lab6_style_help(void);
void lab6_list_styles(void);

/* The workload and style checked (and the workload's model, dataset and
 * width put into o->run) before any work: 0, or 2 after a message. */
int lab6_check(void *ctx, int ranks);
int lab6_run(void *ctx, Driver *d);
int lab6_table(const void *ctx);

#endif
