/* dataset.h - in-memory datasets, loaders, synthetic fallbacks, batching.
 *
 * A Dataset holds every example of one split as float32, already scaled to
 * [0,1] (images) or raw (tabular), in NCHW order, plus int32 labels. Loading
 * is done once per process; per-epoch work (shuffle, shard, augment,
 * normalise) happens in the Batcher so the dataset stays read-only.
 *
 * Real files are looked up under the data root (DataOptions.root: the
 * driver's DDL_DATA, default "datasets"): mnist/, fashion-mnist/, cifar-10-batches-bin/, sdss/. When the
 * files are absent, dataset_load() generates a deterministic synthetic
 * dataset with the same shapes and class count, and sets synthetic = true;
 * every output must then say "synthetic". When files are present but
 * corrupt, loading fails with a clear message: it never silently falls back.
 */
#ifndef DDL_DATASET_H
#define DDL_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../util/rng.h"
#include "../util/common.h"
#include "data.h"
#include "readers.h"

/* Which on-disk files to use. */
typedef struct DataOptions {
    const char *root;     /* NULL or "": "datasets" (the programs: DDL_DATA) */
    bool allow_synthetic; /* true: generate when files are absent */
    bool force_synthetic; /* true: never read files */
    uint64_t seed;        /* synthetic generator seed; SDSS split seed */
    int limit;            /* >0: keep only the first `limit` examples */
    int synthetic_n;      /* >0: synthetic size (default: real sizes) */
    bool cifar_partial;   /* true (the programs: DDL_CIFAR_PARTIAL=1): CIFAR
                           * batch files of other than 10000 records are accepted */
} DataOptions;

/* The data root: opt->root (if non-empty), else "datasets". */
const char *dataset_root(const DataOptions *opt);

/* Load `name` ("mnist", "fashion-mnist", "cifar10", "sdss"; a
 * "synthetic-" prefix, e.g. "synthetic-mnist", forces synthetic data) for
 * `split`. opt may be NULL (all defaults: no synthetic fallback, seed 0).
 * Returns 0 on success; on failure returns -1, leaves *out empty (nothing to
 * free) and writes a one-line reason into err (file name, what was wrong,
 * what was expected). A dataset counts as absent only when none of its
 * files (either split) exist; a partial set is an error, like a corrupt one. */
int dataset_load(const char *name, Split split, const DataOptions *opt,
                 Dataset *out, char err[DDL_ERRLEN]);
void dataset_free(Dataset *d);
/* A training split and the test split it is evaluated on must be the same
 * kind of example: the model is built for the training shape, and a test
 * image of another size would be read past its end. 0, or -1 with a
 * message naming both splits' files and shapes. */
int dataset_check_pair(const Dataset *train, const Dataset *test, char err[DDL_ERRLEN]);
/* What a checkpoint records of the data a run trained on, one line:
 * synthetic data by its generator, seed, size and shape; real data by
 * every file's name, size and CRC-32 (read here, so a download that
 * replaced a file between the parts of a run is seen), and shape. 0, or
 * -1 with a message (a file that cannot be read). */
int dataset_identity(const Dataset *d, char *out, size_t cap, char err[DDL_ERRLEN]);
/* What every lab does: dataset_load, and on failure the reason printed
 * (ddl_error) and -1 returned. */
int dataset_load_for_run(const char *name, Split split, const DataOptions *opt, Dataset *out);

/* Batching with DistributedSampler semantics: each epoch the index list
 * 0..n-1 is shuffled with (seed, "shuffle", epoch), padded by wrapping to a
 * multiple of world size, and rank r takes entries r, r+W, r+2W, ...
 * Augmentation draws from (seed, "augment", rank), advanced through the run
 * (not reset per epoch); it applies to images only, zero padding in [0,1]
 * pixel space before normalisation. */
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

/* Prepares epoch 0. Bad options (batch < 1, rank outside 0..world-1,
 * augment on tabular data) are programming errors: ddl_die. */
void batcher_init(Batcher *b, const Dataset *d, const BatcherOptions *o);
void batcher_free(Batcher *b);
/* Start epoch e: reshuffle and reshard. */
void batcher_epoch(Batcher *b, int epoch);
/* Batches per epoch on this rank. */
int batcher_batches(const Batcher *b);
/* Fill x (batch*c*h*w) and y (batch; may be NULL). Returns the number of
 * examples put in (< batch only for the last batch when !drop_last), 0 at
 * epoch end. */
int batcher_next(Batcher *b, float *x, int32_t *y);

#endif
