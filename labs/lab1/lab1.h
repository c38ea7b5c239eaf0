/* lab1.h - options and the two jobs of lab1: a training run, the table. */
#ifndef LAB1_H
#define LAB1_H

#include <stdbool.h>

#include "driver/driver.h"

typedef struct Lab1Options {
    DriverOptions run;         /* model, dataset, batch, SGD, seed, out, tag, ... */
    const char *figures, *tex, *augment;
    int epochs, iters;
    bool nesterov, table_only;
} Lab1Options;

int lab1_run(const Lab1Options *o, Driver *d);  /* 0 on success */
int lab1_write_table(const Lab1Options *o);    /* 0 on success */

#endif
