/* data.h - what every reader fills: a Dataset (one split, in memory), the
 * split names (the readers report errors through common.h's ddl_errf). Its own
 * header so the readers (idx.c, cifar.c, sdss.c, synthetic.c) depend on
 * this alone and not on dataset.h, whose loader calls them: no circle. */
#ifndef DDL_DATA_H
#define DDL_DATA_H

#include <stdbool.h>
#include <stdint.h>
#include "../util/common.h"

typedef enum { SPLIT_TRAIN = 0, SPLIT_TEST = 1 } Split;

/* Room for per-channel / per-feature constants: images use 1 or 3, the
 * SDSS table 10 features. */
#define DDL_DATA_MAXCH 16

/* SDSS DR14 class labels (the CSV's "class" column). */
enum { SDSS_GALAXY = 0, SDSS_STAR = 1, SDSS_QSO = 2 };

typedef struct Dataset {
    char name[32];        /* "mnist", "fashion-mnist", "cifar10", "sdss" */
    char source[512];     /* files read, e.g. "datasets/mnist/train-images-idx3-ubyte.gz
                           * + train-labels-idx1-ubyte.gz", or
                           * "synthetic mnist (seed S, n N)" */
    bool synthetic;
    int n;                /* examples */
    int c, h, w;          /* per-example shape; tabular: c = features, h = w = 1 */
    int classes;
    float *x;             /* n * c*h*w floats */
    int32_t *y;           /* n labels in [0, classes) */
    /* Normalisation constants per channel (per feature for tabular data),
     * applied by the Batcher: MNIST 0.1307/0.3081, Fashion-MNIST
     * 0.2860/0.3530, CIFAR-10 the usual per-channel values, SDSS and
     * synthetic data computed from their train split. Entries >= c are
     * mean 0, std 1. */
    float mean[DDL_DATA_MAXCH], std[DDL_DATA_MAXCH];
    int files_found;      /* files read: CIFAR train = how many of the 5
                           * data_batch_*.bin were present; 0 if synthetic */
    char dir[1024];       /* real data: the directory of its files ... */
    char files[192];      /* ... and their names, space-separated ("" when
                           * synthetic): what dataset_identity hashes */
} Dataset;


#endif
