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
#include <stddef.h>
#include <stdint.h>
#include "../rng.h"
#include "../common.h"

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
} Dataset;

/* Which on-disk files to use. */
typedef struct DataOptions {
    const char *root;     /* NULL: getenv("DDL_DATA") or "datasets" */
    bool allow_synthetic; /* true: generate when files are absent */
    bool force_synthetic; /* true: never read files */
    uint64_t seed;        /* synthetic generator seed; SDSS split seed */
    int limit;            /* >0: keep only the first `limit` examples */
    int synthetic_n;      /* >0: synthetic size (default: real sizes) */
    bool cifar_partial;   /* true (or DDL_CIFAR_PARTIAL=1): CIFAR batch files
                           * of other than 10000 records are accepted */
} DataOptions;

/* The data root: opt->root, else $DDL_DATA (if non-empty), else "datasets". */
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
/* What every lab does: real files under the data root, else labelled
 * synthetic data when allow_synthetic; limit > 0 keeps the first examples.
 * On failure the reason is printed once (ddl_error) and -1 returned. */
int dataset_load_for_run(const char *name, Split split, int limit, uint64_t seed, bool allow_synthetic,
                         bool force_synthetic, Dataset *out);

/* printf into err, cut to DDL_ERRLEN on purpose (messages name files whose
 * paths can be long); returns -1 so readers can `return ddl_data_errf(...)`. */
int ddl_data_errf(char err[DDL_ERRLEN], const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Format-level readers, exposed for tests. Each overwrites *out; on failure
 * it returns -1 with *out empty and a message naming the file. The _fd and
 * _buffer forms read an open file or memory (tests, fuzzing: tests/fuzz/),
 * with `name` in messages; the path forms are built on them.
 * IDX: path may be plain or gzip (zlib reads both); labels must be 0..9.
 * The _fd forms take over fd (closed when they return). */
int idx_read_images(const char *path, Dataset *out, char err[DDL_ERRLEN]);
int idx_read_labels(const char *path, Dataset *out, char err[DDL_ERRLEN]);
int idx_read_images_fd(int fd, const char *name, Dataset *out, char err[DDL_ERRLEN]);
int idx_read_labels_fd(int fd, const char *name, Dataset *out, char err[DDL_ERRLEN]);
/* CIFAR-10 binary: train reads whichever of data_batch_1..5.bin exist.
 * Every batch file must hold exactly 10000 records unless partial. */
int cifar_read_batches(const char *dir, Split split, bool partial, Dataset *out, char err[DDL_ERRLEN]);
/* One batch file's bytes. */
int cifar_read_buffer(const unsigned char *data, size_t len, const char *name, bool partial, Dataset *out,
                      char err[DDL_ERRLEN]);
/* SDSS DR14 CSV (header row; CRLF or LF). Features u, g, r, i, z, u-g, g-r,
 * r-i, i-z, redshift (c = 10, h = w = 1); labels SDSS_GALAXY/STAR/QSO. Split
 * by a seeded stratified 80/20 shuffle (per class round(0.8 n_c) to train);
 * mean/std are fitted on the train split and stored in both splits. */
int sdss_read_csv(const char *path, Split split, uint64_t seed, Dataset *out, char err[DDL_ERRLEN]);
/* The same from the file's bytes. A NUL byte anywhere is a bad row. */
int sdss_read_buffer(const char *data, size_t len, const char *name, Split split, uint64_t seed, Dataset *out,
                     char err[DDL_ERRLEN]);
/* Deterministic, learnable synthetic data shaped like `like` ("mnist",
 * "fashion-mnist", "cifar10", "sdss"): class prototypes plus noise and
 * random shifts (images), overlapping Gaussian clusters (sdss). n <= 0 means
 * the real split size. Example i of a split depends only on (seed, split,
 * i), so a smaller n is a prefix of a larger one; labels are i % classes.
 * mean/std come from the first 4096 train examples, the same in both splits.
 * Aborts (ddl_die) on an unknown `like`. */
void synthetic_generate(const char *like, Split split, int n, uint64_t seed, Dataset *out);
/* The real split size synthetic data defaults to (e.g. 60000 for mnist
 * train); 0 for an unknown `like`. */
int synthetic_default_n(const char *like, Split split);

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
