/* harness.h - the tiny test protocol every tests/test_*.c and mpi_*.c uses.
 *
 * A test program prints one line per check:
 *   "ok - <name>"            passed
 *   "not ok - <name>: <why>" failed
 *   "skip - <name>: <why>"   not runnable here (no GPU, no data, no torch)
 * and exits non-zero if any check failed. tests/run.sh counts the lines
 * and prints the closing "N passed, M failed". In MPI tests only rank 0
 * prints, after reducing each check over ranks (t_check_all). */
#ifndef DDL_TEST_HARNESS_H
#define DDL_TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

/* Record a check. fmt names it; returns cond. */
bool t_check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same, with a reason printed on failure (why is a printf format after name). */
bool t_checkf(bool cond, const char *name, const char *why_fmt, ...) __attribute__((format(printf, 3, 4)));
void t_skip(const char *name, const char *why);
/* A case the method leaves out by design (not a skip: skips are for
 * missing hardware or upstream features): one "# left out - NAME: WHY"
 * line, counted nowhere. */
void t_left_out(const char *name, const char *why);
/* MPI: AND of cond over MPI_COMM_WORLD, printed once by rank 0. */
bool t_check_all(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Exit status: 0 if nothing failed. */
int t_done(void);
/* An MPI test's start: MPI_Init, this rank named in messages (ddl_set_rank)
 * and c over MPI_COMM_WORLD. Returns the world's size, *rank its rank. */
struct Comm;
int t_mpi_comm_start(int *argc, char ***argv, struct Comm *c, int *rank);
/* An MPI test's end: c freed, MPI_Finalize; returns t_done()'s status. */
int t_mpi_comm_done(struct Comm *c);
/* The program's scratch folder: $TMPDIR/<prefix>.XXXXXX (/tmp without
 * TMPDIR), made on the first call (exit 2 when it cannot be); its path. */
const char *t_scratch(const char *prefix);
/* scratch/rel, in one of 4 buffers used in turn (4 may be live at once). */
const char *t_at(const char *rel);
/* Remove the scratch folder and everything in it. */
void t_scratch_remove(void);
/* A value in [-1, 1) that depends on (k, i) alone (splitmix64's
 * finaliser): test vectors every rank can make without communicating. */
float t_hash_value(int k, size_t i);
/* The test tier (tests/run.sh exports DDL_TEST_TIER): true in the quick
 * tier of `make test`, where a program with a long matrix samples it;
 * false in `make test-full` and when run by hand without the variable.
 * When true, prints "# quick tier: <left>" once per call (rank 0 only
 * in MPI programs): `left` says what the quick form leaves to make
 * test-full. */
bool t_quick(const char *left_fmt, ...) __attribute__((format(printf, 1, 2)));
/* True in the ASan+UBSan build (the sanitizer pass), whose 2-3x slower
 * runs some programs sample further in the quick tier. */
bool t_sanitized(void);
/* Tests that vary ddlab's own thread count: OpenBLAS reads its thread cap
 * when it loads, so unless OMP_NUM_THREADS is 1 already, set it (and
 * OPENBLAS_NUM_THREADS) to 1 and run this program again (execv; returns
 * only if that failed, after saying so). */
void t_reexec_one_blas_thread(char **argv, const char *name);

/* Relative error max|a-b| / max(max|b|, floor). */
double t_rel_err(const float *a, const float *b, size_t n, double floor);
double t_max_abs_diff(const float *a, const float *b, size_t n);

/* Fill with a poison pattern (NaN) so unwritten outputs are caught. */
void t_poison(float *p, size_t n);

/* Data-parallel tests: every rank and the one-process reference must see
 * the same batches and the same initial model. */
#include <stdint.h>
#include "model/model.h"
/* n inputs of shape `in` drawn from N(0,1), then n labels below
 * `classes`, from the stream (seed, name, step). */
void t_random_batch(uint64_t seed, const char *name, int step, Shape in, int classes, int n, float *x, int32_t *y);
/* Build `name` for inputs `in` and `classes` classes (width > 0 overrides
 * the model's default) with room for `batch`, initialised from `seed`, in
 * eval mode: batch norm uses running statistics and dropout is off, so
 * only float reassociation separates a sharded batch from a whole one.
 * Dies with the model's message on failure. */
void t_build_eval(Model *m, const char *name, Shape in, int classes, float width, int batch, uint64_t seed);

/* Tests that build one model twice and compare the two (on two backends,
 * or two settings): a zoo model on its home input at `width` (dropout < 0:
 * the model's default) on backend `be`, from seed 11, with an SGD trainer
 * (lr 0.05, momentum 0.9, weight decay 5e-4), and one batch (host x, y of
 * `batch` examples) uploaded there. */
#include "train/train.h"
typedef struct TSide {
    Model m;
    Trainer t;
    float *x;
    int32_t *y;
} TSide;
/* How the models the harness builds pick their convolution paths (the
 * --conv of a program): a test's forced passes set it. */
extern ConvAlgo t_conv;

void t_side_init(TSide *s, const char *model, float width, float dropout, int batch, const Backend *be,
                 const float *x, const int32_t *y);
void t_side_free(TSide *s);
/* A t_random_batch of `batch` examples for `model`'s home input and
 * classes, in new host arrays (ddl_free both). */
void t_zoo_batch(const char *model, int batch, uint64_t seed, const char *name, int step, float **x, int32_t **y);

/* The data-parallel side of an MPI test of a sync strategy: `model`
 * built as t_build_eval does (seed 3) for `micro` examples a step, SGD
 * (lr 0.05, momentum 0.9, weight decay 5e-4), a Sync of cfg over c, and
 * host room for one batch of `global` examples (x, y; `per` floats an
 * example). Dies with sync_init's message when cfg is refused. */
#include "sync/sync.h"
typedef struct TDist {
    Model m;
    Trainer t;
    Sync s;
    float *x;
    int32_t *y;
    size_t per;
} TDist;
void t_dist_init(TDist *d, struct Comm *c, const SyncConfig *cfg, const char *model, Shape in, int classes,
                 float width, int micro, int global);
void t_dist_free(TDist *d);

/* Path of a fixture: tests/fixtures/<name> relative to the repo root
 * (DDL_TEST_ROOT overrides the root). */
const char *t_fixture(const char *name);
/* Data root with real files, or NULL when DDL_DATA lacks `sub`. */
const char *t_data_root(const char *sub);

#endif
