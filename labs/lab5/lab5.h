/* lab5.h - C-SGD vs D-SGD vs FedAvg, FP32 vs FP16 mixed precision (seed 004).
 * main.c parses; the jobs live one per file:
 *   run.c      `lab5 run`: one scheme in one precision (csgd on 1 rank;
 *              dsgd and fedavg on 1 + U ranks: rank 0 the cloud, 1..U the
 *              users), accuracy after every epoch, bytes by kind, the loss
 *              scale; writes epochs-, summary- and lossscale-<LABEL>.csv;
 *   table.c    `lab5 table`: every run in --out into the seed's Section 3.2
 *              table (closed form next to measured), final accuracies,
 *              rounds and bytes to a target accuracy, report/tables/lab5.tex,
 *              and the combined CSVs the figures plot. */
#ifndef LAB5_H
#define LAB5_H

#include <stdbool.h>

#include "driver/driver.h"
#include "sync/fed.h"

typedef struct Lab5Options {
    DriverOptions run;           /* dataset, limits, batch, SGD, width, seed, out, tag (the run's label), ... */
    const char *scheme;          /* csgd | dsgd | fedavg */
    const char *precision;       /* fp32 | fp16 */
    const char *shards;          /* iid | sorted | dirichlet */
    int local_epochs;            /* fedavg: E */
    int epochs;
    int scale_window;
    int eval_batch;
    float alpha, target, loss_scale;
    bool augment;
    /* from lab5_check */
    SyncKind kind;
    FedSharding sharding;
    bool fp16;
    int users;                   /* 0 for csgd */
    int local_batch;             /* run.batch is csgd's batch, dsgd's sum over users, fedavg's per user */
} Lab5Options;

/* The choices and the rank count checked, the derived fields set, before
 * any work: 0, or 2 after a message. */
int lab5_check(void *ctx, int ranks);
int lab5_run(void *ctx, Driver *d);
int lab5_table(const void *ctx);

#endif
