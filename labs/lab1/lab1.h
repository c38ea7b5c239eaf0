/* lab1.h - options and the two jobs of lab1: a training run, the table. */
#ifndef LAB1_H
#define LAB1_H

#include <stdbool.h>

#include "driver/driver.h"

typedef struct Lab1Options {
    DriverOptions run;         /* model, dataset, batch, SGD, seed, out, tag, ... */
    const char *figures, *augment;
    int epochs, iters;
    bool nesterov, table_only;
} Lab1Options;

/* The jobs (driver.h's DriverSpec; ctx is the Lab1Options). */
int lab1_check(void *ctx, int ranks);
int lab1_run(void *ctx, Driver *d);
int lab1_write_table(const void *ctx);

#endif
