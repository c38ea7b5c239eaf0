/* dataset.h - in-memory datasets, loaders, synthetic fallbacks, batching.
 *
 * A Dataset holds every example of one split as float32, already scaled to
 * [0,1] (images) or raw (tabular), in NCHW order, plus int32 labels. Loading
 * is done once per process; per-epoch work (shuffle, shard, augment,
 * normalise) happens in the Batcher so the dataset stays read-only.
 *
 * Real files are looked up under the data root (DDL_DATA, default
 * "datasets"): mnist/, fashion-mnist/, cifar-10-batches-bin/, sdss/. When the
 * files are absent, dataset_load() generates a deterministic synthetic
 * dataset with the same shapes and class count, and sets synthetic = true;
 * every output must then say "synthetic". When files are present but
 * corrupt, loading fails with a clear message: it never silently falls back.
 */
#ifndef DDL_DATASET_H
#define DDL_DATASET_H

#include <stdbool.h>
#include <stdint.h>
#include "../rng.h"
#include "../common.h"

typedef enum { SPLIT_TRAIN = 0, SPLIT_TEST = 1 } Split;

typedef struct Dataset {
    char name[32];        /* "mnist", "fashion-mnist", "cifar10", "sdss" */
    char source[512];     /* files read, or "synthetic (seed S)" */
    bool synthetic;
    int n;                /* examples */
    int c, h, w;          /* per-example shape; tabular: c = features, h = w = 1 */
    int classes;
    float *x;             /* n * c*h*w floats */
    int32_t *y;           /* n labels in [0, classes) */
    /* Normalisation constants per channel (mean/std as used by the labs,
     * e.g. MNIST 0.1307/0.3081), applied by the Batcher. */
    float mean[8], std[8];
    int files_found;      /* e.g. CIFAR data_batch_*.bin present */
} Dataset;

/* Which on-disk files to use. */
typedef struct DataOptions {
    const char *root;     /* NULL: getenv("DDL_DATA") or "datasets" */
    bool allow_synthetic; /* true: generate when files are absent */
    bool force_synthetic; /* true: never read files */
    uint64_t seed;        /* synthetic generator seed */
    int limit;            /* >0: keep only the first `limit` examples */
    int synthetic_n;      /* >0: synthetic size (default: real sizes) */
} DataOptions;

/* Load `name` ("mnist", "fashion-mnist", "cifar10", "sdss", "synthetic-mnist"
 * ...) for `split`. Returns 0 on success; on failure returns -1 and writes a
 * one-line reason into err (file name, what was wrong, what was expected). */
int dataset_load(const char *name, Split split, const DataOptions *opt,
                 Dataset *out, char err[DDL_ERRLEN]);
void dataset_free(Dataset *d);

/* Format-level readers, exposed for tests. path may end in .gz (zlib). */
int idx_read_images(const char *path, Dataset *out, char err[DDL_ERRLEN]);
int idx_read_labels(const char *path, Dataset *out, char err[DDL_ERRLEN]);
int cifar_read_batches(const char *dir, Split split, Dataset *out, char err[DDL_ERRLEN]);
/* SDSS DR14 CSV; split by a seeded stratified 80/20 shuffle. */
int sdss_read_csv(const char *path, Split split, uint64_t seed, Dataset *out, char err[DDL_ERRLEN]);
/* Deterministic, learnable synthetic data shaped like `like` ("mnist",
 * "cifar10", "sdss"...): class prototypes plus noise and random shifts. */
void synthetic_generate(const char *like, Split split, int n, uint64_t seed, Dataset *out);

/* Batching with DistributedSampler semantics: each epoch the index list
 * 0..n-1 is shuffled with (seed, epoch), padded by wrapping to a multiple
 * of world size, and rank r takes indices r, r+W, r+2W, ... */
typedef struct BatcherOptions {
    int batch;            /* examples per batch on this rank */
    int rank, world;      /* sharding; 0,1 for a single process */
    bool shuffle;
    bool drop_last;
    bool augment;         /* CIFAR: pad-4 random crop + horizontal flip */
    bool normalize;       /* subtract mean, divide by std per channel */
    uint64_t seed;
} BatcherOptions;

typedef struct Batcher {
    const Dataset *d;
    BatcherOptions o;
    int32_t *order;       /* this rank's indices for the current epoch */
    int count;            /* entries in order */
    int pos;
    int epoch;
    Rng aug;
} Batcher;

void batcher_init(Batcher *b, const Dataset *d, const BatcherOptions *o);
void batcher_free(Batcher *b);
/* Start epoch e: reshuffle and reshard. */
void batcher_epoch(Batcher *b, int epoch);
/* Batches per epoch on this rank. */
int batcher_batches(const Batcher *b);
/* Fill x (batch*c*h*w) and y (batch). Returns the number of examples put
 * in (< batch only for the last batch when !drop_last), 0 at epoch end. */
int batcher_next(Batcher *b, float *x, int32_t *y);

#endif
