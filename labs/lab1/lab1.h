/* lab1.h - options and the two jobs of lab1: a training run, the table. */
#ifndef LAB1_H
#define LAB1_H

#include <stdbool.h>
#include <stdint.h>

typedef struct Lab1Options {
    const char *model, *dataset, *device, *profile, *out, *figures, *tag, *tex, *augment;
    int epochs, iters, batch, limit, test_limit;
    float lr, momentum, wd, width;
    bool nesterov, force_synthetic, no_synthetic, table_only, quiet;
    uint64_t seed;
} Lab1Options;

Lab1Options lab1_defaults(void);
int lab1_run(const Lab1Options *o);          /* 0 on success */
int lab1_write_table(const Lab1Options *o);  /* 0 on success */

#endif
