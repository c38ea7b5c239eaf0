/* readers.h - the file-format readers dataset_load() chooses between
 * (and the synthetic generator it falls back to). */
#ifndef DDL_DATA_READERS_H
#define DDL_DATA_READERS_H

#include "data.h"

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

#endif
