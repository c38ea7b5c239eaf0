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
#include <stdint.h>

typedef struct Lab5Options {
    const char *mode;            /* run | table */
    const char *scheme;          /* csgd | dsgd | fedavg */
    const char *precision;       /* fp32 | fp16 */
    const char *shards;          /* iid | sorted | dirichlet */
    const char *dataset, *profile, *out, *tex, *label;
    int batch;                   /* global batch: csgd's batch, dsgd's sum over users, fedavg's per user (seed: FL_BS256) */
    int local_epochs;            /* fedavg: E */
    int epochs;
    int limit, test_limit;
    int scale_window;
    int eval_batch;
    float lr, momentum, weight_decay, width, alpha, target, loss_scale;
    bool augment, force_synthetic, quiet;
    uint64_t seed;
} Lab5Options;

Lab5Options lab5_defaults(void);
int lab5_run(const Lab5Options *o);
int lab5_table(const Lab5Options *o);

#endif
