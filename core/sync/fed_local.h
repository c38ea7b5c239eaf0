/* fed_local.h - SGD on one holder's data: a user's local batches
 * (D-SGD), local epochs (FedAvg), or the whole training set (C-SGD), FP32
 * or FP16 mixed precision (fed.h). */
#ifndef DDL_SYNC_FED_LOCAL_H
#define DDL_SYNC_FED_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include "../data/dataset.h"
#include "../mixed/mixed.h"
#include "../train/train.h"

typedef struct FedLocal {
    Model *m;
    Trainer *t;           /* the holder's model and optimizer */
    Mixed mx;
    Batcher b;
    const Dataset *data;
    float *x;
    int32_t *y;
    float *xd;            /* the batch on the model's backend: x, y themselves on the CPU */
    int32_t *yd;
    int epoch;            /* local epochs started (the first is epoch 0) */
    double loss_sum;      /* since fed_local_take_loss */
    long seen, correct;
} FedLocal;

typedef struct FedLocalConfig {
    bool fp16;
    float loss_scale;     /* initial (LOSS_SCALE_INITIAL) */
    int scale_window;     /* LOSS_SCALE_WINDOW */
    int batch;
    bool augment;         /* CIFAR pad-4 crop + flip */
    uint64_t seed;        /* shuffling / augmentation of this user's data */
} FedLocalConfig;

void fed_local_init(FedLocal *u, Trainer *t, const Dataset *data, const FedLocalConfig *c);
void fed_local_free(FedLocal *u);
/* Forward and backward of the next local batch (a new local epoch starts
 * when the last one ends): m->grads holds its scaled gradient. Returns the
 * batch's example count. */
int fed_local_gradient(FedLocal *u);
/* `epochs` passes over the local data, one SGD step per batch (overflowed
 * FP16 steps skipped). Returns the examples trained on. */
long fed_local_epochs(FedLocal *u, int epochs);
/* Mean training loss and accuracy since the last call, then reset. */
void fed_local_take_loss(FedLocal *u, double *loss, double *accuracy, long *examples);

#endif
