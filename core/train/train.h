/* train.h - one training step split where a sync strategy goes between,
 * evaluation, timing statistics, and progress output.
 *
 *   trainer_forward_backward()   zero grads, forward, loss, backward
 *   (a sync strategy may average m->grads here; the gradient-ready hook
 *    already fired during backward)
 *   trainer_step()               SGD update
 */
#ifndef DDL_TRAIN_H
#define DDL_TRAIN_H

#include <stdbool.h>
#include <stdio.h>
#include "../data/dataset.h"
#include "../model/model.h"
#include "optim.h"

typedef struct Trainer {
    Model *m;
    Sgd opt;
    float *probs, *dlogits; /* max_batch * classes */
} Trainer;

void trainer_init(Trainer *t, Model *m, const SgdConfig *cfg);
void trainer_free(Trainer *t);
/* Returns the mean loss of the batch; *correct gets the right answers. */
double trainer_forward_backward(Trainer *t, const float *x, const int32_t *y, int n, int *correct);
void trainer_step(Trainer *t);
/* The same step in two halves, for sync strategies that work between
 * them: forward + loss + loss gradient (gradients are NOT zeroed, so
 * micro-batches can accumulate), then backward (fires the hook). */
double trainer_forward(Trainer *t, const float *x, const int32_t *y, int n, int *correct);
void trainer_backward(Trainer *t);

/* Mean and sample standard deviation of v[skip..n). */
void stats_mean_std(const double *v, int n, int skip, double *mean, double *std);
double stats_median(const double *v, int n);

/* Progress: a redrawn line on a terminal, a plain line every `every`
 * calls otherwise (logs and CI stay readable). */
typedef struct Progress {
    bool tty;
    int every;
    double t0;
    char label[64];
} Progress;
void progress_init(Progress *p, const char *label, int every);
void progress_update(Progress *p, long done, long total, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void progress_end(Progress *p);

#endif
