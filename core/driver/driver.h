/* driver.h - the experiment driver every lab and bench runs on.
 *
 * What the programs share lives here once: the options (model, dataset,
 * width, limits, batch, SGD, seed, device, profile, out, tag, quiet) as
 * one CLI fragment a program appends its own options to, with their
 * values checked before any work starts; program start (MPI, threads,
 * device); data and model set-up; a training loop with hooks for what a
 * lab measures; per-rank numbers gathered to rank 0; and the result files
 * with their provenance. A lab's own files keep what the lab studies.
 *
 * A run, in the order a lab calls it (every call collective):
 *   driver_start     MPI, threads, the command line (exit on --help or a bad value)
 *   driver_open      the device check, --out writable, --checkpoint locked, the world Comm
 *   driver_load      the training (and test) split of --dataset
 *   driver_build     the model; driver_trainer the optimizer;
 *   driver_sync      the synchronisation strategy (core/sync: sync.h)
 *   driver_batches   this rank's batches (DistributedSampler)
 *   driver_train     the loop: hooks before/after every batch and period
 *   driver_meta, driver_gather, driver_write, driver_write_trace
 *   driver_end       everything freed, MPI finalised; returns the status
 *
 * The loop keeps where it stands in one struct (DriverState: batches
 * done, the batcher's epoch, periods, training time), so a checkpoint can
 * be taken between batches and a run resumed from it. */
#ifndef DDL_DRIVER_H
#define DDL_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "../backend/device_batch.h"
#include "../util/cli.h"
#include "../comm/comm.h"
#include "../data/dataset.h"
#include "../platform/device.h"
#include "../model/model.h"
#include "../results/results.h"
#include "../sync/sync.h"
#include "../train/train.h"
#include "environment.h"

/* The options every program shares (which of them it offers on its
 * command line: DriverSpec.shared). */
typedef struct DriverOptions {
    const char *model, *dataset;
    float width;
    int limit, test_limit;     /* first N training / test examples (0: all) */
    int batch;                 /* examples per step on each rank */
    float lr, momentum, wd;
    uint64_t seed;
    uint64_t data_seed;        /* the synthetic data's generator and SDSS's split
                                * (--data-seed; 0 reads as 1): fixed while --seed
                                * varies, so a run's repeats train on one dataset */
    const char *device;        /* cpu | cuda | cuda-emu ($DDL_DEVICE) */
    const char *profile;       /* quick | paper | smoke | custom ($DDL_PROFILE) */
    const char *out;           /* directory of the result files */
    const char *tag;           /* name part of the output files; NULL: the program's default */
    const char *tex;           /* the table job's LaTeX file */
    const char *checkpoint;    /* write checkpoints into this directory (resume.c) */
    int checkpoint_every;      /* every N iterations (rounds); 0: each epoch */
    const char *resume;        /* continue from the checkpoint in this directory */
    const char *conv;          /* how convolutions run (core/conv/pick.c); NULL: auto */
    bool synthetic;            /* synthetic data even when files exist */
    bool no_synthetic;         /* fail instead of generating data */
    bool quiet;                /* no progress output */
} DriverOptions;

enum {
    DRV_MODEL = 1 << 0, DRV_DATASET = 1 << 1, DRV_WIDTH = 1 << 2, DRV_LIMITS = 1 << 3, DRV_BATCH = 1 << 4,
    DRV_LR = 1 << 5, DRV_MOMENTUM = 1 << 6, DRV_WD = 1 << 7, DRV_SEED = 1 << 8, DRV_DEVICE = 1 << 9,
    DRV_PROFILE = 1 << 10, DRV_OUT = 1 << 11, DRV_TAG = 1 << 12, DRV_QUIET = 1 << 13, DRV_SYNTHETIC = 1 << 14,
    DRV_TEX = 1 << 15, DRV_CHECKPOINT = 1 << 16, DRV_CONV = 1 << 17,
    DRV_SGD = DRV_LR | DRV_MOMENTUM | DRV_WD,
    DRV_RUN = DRV_LIMITS | DRV_BATCH | DRV_SEED | DRV_DEVICE | DRV_PROFILE | DRV_OUT | DRV_TAG | DRV_QUIET |
              DRV_SYNTHETIC | DRV_CONV,
    DRV_TRAIN = DRV_RUN | DRV_CHECKPOINT, /* a run long enough to checkpoint (resume.c) */
};

/* The longest --checkpoint / --resume / $DDL_CHECKPOINT_ROOT accepted:
 * a program's scope, the run's name and the rank files' names still fit
 * after it (a longer one is refused, never cut). */
#define DRIVER_CKPT_PATH_MAX 800

typedef struct Driver Driver;

/* What a program is, for its command line, its jobs and its outputs. */
typedef struct DriverSpec {
    const char *program;       /* "lab3": messages, the outputs' program key */
    const char *usage;         /* "lab3 run|table [options]" */
    const char *description;   /* --help's paragraph */
    const char *modes;         /* "run|table": the first word picks the job; NULL: none */
    const char *datasets;      /* what --dataset accepts, "|"-separated ("mnist|fashion-mnist") */
    unsigned shared;           /* the DRV_* options it offers */
    const CliOption *own;      /* its own options, listed before the shared ones */
    int nown;
    const char *tag_default;   /* for --help: "<sync>-np<ranks>" */
    const char *batch_help;    /* NULL: "examples per step on each rank" */
    int batch_min;             /* 1 unless the program gives 0 a meaning */
    const char *width_help;    /* NULL: "channel width multiplier (1 = as published)" */
    float width_min;           /* 0.001 unless the program gives 0 a meaning */
    /* The jobs (driver_main): */
    void *ctx;                 /* the program's options, handed to its jobs */
    int (*check)(void *ctx, int ranks); /* its own choices, before any work; 0, or 2 after a message */
    int (*run)(void *ctx, Driver *d);   /* every mode but "table" (d->mode says which) */
    int (*table)(const void *ctx);      /* the "table" mode, on rank 0, after --tex is checked */
    const bool *table_flag;    /* a flag that picks the table job instead (lab1's --table) */
    /* Its whole run (model, training, data, the numbers it reads back)
     * works on the device's backend, so DEVICE=cuda is accepted where a GPU
     * answers (every lab, bench/train_step). Others read arenas on the host,
     * and are refused a GPU with a clear message (device_check: ddp_bar). */
    bool on_backend;
} DriverSpec;

/* Where the loop stands: everything a run resumed between batches needs
 * besides the model, the optimizer and the strategy's own state. */
typedef struct DriverState {
    long batch;                /* micro-batches (or rounds) done */
    int epoch;                 /* the batcher's epoch */
    int period;                /* report periods done */
    double train_s;            /* this rank's wall time inside periods */
    double open_s;             /* a checkpoint taken inside a period: the period's time so far */
} DriverState;

struct Driver {
    const DriverSpec *spec;
    DriverOptions *opt;        /* the program's shared options, parsed and checked */
    DriverEnv env;             /* the DDL_ environment, read once by driver_start */
    const char *mode;          /* the job word ("run"), "" without modes */
    int status;                /* driver_start's verdict when it says stop */
    int rank, world;
    Comm comm;                 /* the world, after driver_open */
    bool opened;
    char device_desc[256];
    Dataset train, test;
    bool has_train, has_test;
    Model m;
    bool has_model;
    Trainer t;
    bool has_trainer;
    Sync own;                  /* driver_sync's */
    bool has_sync;
    Sync *sync;                /* the strategy of the next batch (a bench may switch it) */
    const Backend *be;         /* DEVICE's kernel table (driver_open) */
    Batcher b;
    bool has_batcher;
    DeviceBatch db;            /* the batches, staged to the backend */
    bool prefetched;           /* db holds the next batch already (on a device) */
    int fetch_epoch;           /* the batcher's epoch of the latest batch fetched */
    int put_epoch;             /* the epoch of the batch in db */
    struct {                   /* the batcher before the latest fetch: a checkpoint */
        int epoch, pos, fetch_epoch; /* taken while the next batch is staged on a */
        Rng aug;               /* device resumes from here */
    } unfetched;
    DriverState st;
    CliOption cli[64];         /* the command line's table: a checkpoint's settings (resume.c) */
    int ncli;
    char ckpt_dir[1024];       /* where checkpoints go ("": none) */
    char resume_dir[1024];     /* where the run continues from ("": a fresh start) */
    long ckpt_at;              /* d->st.batch of the latest checkpoint (-1: none) */
    char ckpt_scope[64];       /* a program of several trainings: this one's sub-directory */
    char data_identity[2048];  /* the loaded data's identity (dataset_identity; "" until asked) */
    int lock_fd[2];            /* rank 0: the checkpoint directories' locks (lock.c; -1 none) */
    char lock_dir[2][1024];    /* ... and the directories they lock */
    bool ckpt_failed;          /* a checkpoint could not be written: the run went on without */
    bool resumed;              /* a training of this program continued from a checkpoint */
    long resumed_at;           /* ... at this batch (the latest resumed training's) */
    SyncEvent *events;         /* driver_take_trace: rank 0's copy of every rank's events */
    int *event_ranks, nevents;
    bool state_shared;         /* a simulated run some of whose ranks share their training state and run
                                * no kernels (core/compute): a NaN loss is not an error (theirs is NaN, and
                                * after the first average the others' may be) */
    int weight_copies;         /* host copies of the weights the program keeps itself (driver_build's
                                * memory check counts them; 0: none) */
    char tag[128];             /* the run's name (driver_tag) */
    char opt_help[4][160];     /* help lines built from the spec */
    char conv_help[640];       /* --conv's, which says whether this build has cuDNN */
    ConvAlgo conv_algo;        /* --conv, parsed once (options.c); AUTO without it */
};

/* A whole program: driver_start, then the table job or the check and the
 * run job, then driver_end. Returns the exit status. */
int driver_main(const DriverSpec *spec, DriverOptions *opt, int argc, char **argv);

/* The option lines of a program's own table (cli.h's CliOption). */
#define OPTION_STR(name, target, help) { name, OPT_STR, target, help, 0, 0 }
#define OPTION_FLAG(name, target, help) { name, OPT_FLAG, target, help, 0, 0 }
#define OPTION_INT(name, target, help, min, max) { name, OPT_INT, target, help, min, max }
#define OPTION_FLOAT(name, target, help, min, max) { name, OPT_FLOAT, target, help, min, max }
#define OPTION_SIZE(name, target, help, min, max) { name, OPT_SIZE, target, help, min, max }


/* MPI, threads, and the command line: argv[1] is the mode word when the
 * spec has modes. Returns 0 to go on; otherwise the program returns
 * driver_end(d, d->status) at once: 0 after --help, 2 after a message
 * naming the bad option and what it accepts (on rank 0). Checks every
 * shared value that needs no file system: --profile, --tag, --dataset
 * (the spec's list), --device, an empty --out. Then every rank's settings
 * are compared (agree.c): ranks started with other options stop, all of
 * them, with status 2. */
int driver_start(Driver *d, const DriverSpec *spec, DriverOptions *opt, int argc, char **argv);
/* The work starts: the device is checked on every rank (DEVICE=cuda is
 * refused clearly until it can run), --out is created and written to
 * once (rank 0), --checkpoint created and locked for this run (another
 * run holding it is refused; $DDL_CHECKPOINT_ROOT checked writable), the
 * world Comm opened. 0, or 2 after a message. */
int driver_open(Driver *d);
/* An extra output directory (lab1's --figures): non-empty, created,
 * writable. 0, or 2 after a message naming the flag. Rank 0 checks, all
 * agree. */
int driver_check_dir(Driver *d, const char *flag, const char *dir);
/* An output file's path (--tex): non-empty, its directory writable. */
int driver_check_file(Driver *d, const char *flag, const char *path);
/* `value` is one of the "|"-separated `choices`: its index, or -1 after
 * "error: unknown --flag 'value': a, b or c" (rank 0). */
int driver_choice(const char *flag, const char *value, const char *choices);
/* The data's seed (--data-seed, 1 when unset): apart from --seed, so that
 * repeats with other seeds vary initialisation and batch order on the
 * same data, synthetic or real. */
uint64_t driver_data_seed(const DriverOptions *o);
/* A comma list of such choices ("scale,buckets"): 0, or -1 after the
 * message about the first that is not one. */
int driver_choice_list(const char *flag, const char *value, const char *choices);
/* Frees what the run set up (data, model, trainer, strategy, batches). */
void driver_release(Driver *d);
/* driver_release, the world Comm, MPI_Finalize; returns status. */
int driver_end(Driver *d, int status);

/* The run's name: --tag, else the printf-formatted default. */
const char *driver_tag(Driver *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The run named d->tag starts: rank 0 removes what an earlier run of that
 * name left in dir (results_run_begin: names are its templates, '*' the
 * tag), so a folder never mixes two runs' files. Stops the job when a file
 * cannot be removed. */
void driver_run_begin(Driver *d, const char *dir, const char *const *names);

/* The training split of --dataset (and the test split when test), real or
 * labelled synthetic; a test split of another example shape or class count
 * is refused, naming both splits' files, and so are ranks that loaded
 * different data (agree.c: one on synthetic data). 0, or 1 after a message
 * (every rank agrees). */
int driver_load(Driver *d, bool test);
/* model_config_default for `model` on the loaded data's shape (none
 * loaded: the model's home input and classes), with --width. */
ModelConfig driver_model_config(const Driver *d, const char *model);
/* Build `model` (cfg NULL: driver_model_config) for batches up to
 * max_batch, seeded by --seed. 0, or 2 after a message; a model that
 * cannot fit in the memory a rank has here (with d->weight_copies more
 * copies of its weights) is refused before it is allocated, with both
 * numbers (memory.c). */
int driver_build(Driver *d, const char *model, const ModelConfig *cfg, int max_batch);
/* A fresh trainer (SGD from the options, or sgd when given). */
void driver_trainer(Driver *d, const SgdConfig *sgd);
/* A fresh strategy on the trainer, over the world. 0, or 2 after a
 * message. */
int driver_sync(Driver *d, const SyncConfig *cfg);
/* This rank's batches of the training split. */
void driver_batches(Driver *d, const BatcherOptions *bo);

/* ---- the loop (loop.c) ---- */

typedef struct DriverLoop {
    long batches;              /* micro-batches to run (steps x accumulate), or rounds of a round row */
    int period;                /* batches per report period (an epoch, an iteration); 0: the whole run */
    bool report_start;         /* after_period(0) before the first batch */
    bool barrier_start;        /* line the ranks up before each period's clock starts */
    bool barrier_end;          /* and before it stops */
    const char *progress;      /* progress label on rank 0 ("train"; "epoch" counts periods); NULL: none */
    int progress_every;        /* a plain line every N batches when stderr is no terminal */
    bool nonfinite_ok;         /* a loss that is not finite is what the run measures (lab2's
                                * faults), not an error that stops it: training goes on, and
                                * the outputs carry the NaN */
} DriverLoop;

/* What one micro-batch (or round) did on this rank. */
typedef struct DriverBatch {
    long index;                /* 0.. over the run */
    int epoch;                 /* the batcher's epoch it came from */
    int n, correct;            /* examples (a round: trained on), right answers */
    double loss;               /* the batch's mean loss (0 on a rank that computes none) */
    double data_ms;            /* fetching it */
    bool stepped;              /* the optimizer ran: d->sync->last holds the step's times */
} DriverBatch;

typedef struct DriverHooks {
    void *ctx;
    void (*before_batch)(Driver *d, long index, void *ctx);
    void (*after_batch)(Driver *d, const DriverBatch *b, void *ctx);
    /* period = 1.. (0: report_start); period_s: this rank's time in it */
    void (*after_period)(Driver *d, int period, double period_s, void *ctx);
    /* Where batches come from; NULL: the batcher. Points x, y at the
     * batch and returns its examples. */
    int (*fetch)(Driver *d, const float **x, const int32_t **y, void *ctx);
    /* What the lab keeps across batches (its tables so far, running sums),
     * into a checkpoint and back ("lab.*" sections); NULL: nothing. load
     * returns 0, or -1 with a message in err. */
    void (*save)(Driver *d, Ckpt *c, void *ctx);
    int (*load)(Driver *d, const Ckpt *c, void *ctx, char err[DDL_ERRLEN]);
} DriverHooks;

/* Runs loop->batches batches (rounds) from where d->st stands. A loss
 * that is not finite stops the program with a message.
 *
 * Checkpoints (programs that offer DRV_CHECKPOINT; resume.c): with
 * --resume (or $DDL_RESUME=1 and a checkpoint of this run under
 * $DDL_CHECKPOINT_ROOT) the run first continues from the checkpoint, which
 * must come from the same settings, ranks and strategy; with --checkpoint
 * (or $DDL_CHECKPOINT_ROOT) every rank writes its state every
 * --checkpoint-every optimizer steps (default: each epoch) and at the end.
 * Returns 0, or 2 after a message (on every rank) when a checkpoint was
 * refused (other settings or data, a rank file of another rank, a file
 * that is no checkpoint) or its directory is another run's. A checkpoint
 * that cannot be written is reported, the loop goes on without more of
 * them, and driver_end turns the program's status 0 into 1. */
int driver_train(Driver *d, const DriverLoop *loop, const DriverHooks *h);
/* A program that trains several times (lab4's configurations) names each
 * training: its checkpoints go into that sub-directory, and only the first
 * training that finds one continues from it. */
void driver_checkpoint_scope(Driver *d, const char *scope);
/* Collective: whether the training named scope would continue from a
 * checkpoint (a resumed program skips the trainings before it). */
bool driver_checkpoint_found(Driver *d, const char *scope);

/* ---- results (report.c) ---- */

/* meta_collect (collective) and what every run says: run, model, width,
 * params, dataset, data, data_source, train/test examples, device,
 * device_detail, profile, seed, BLAS (whatever is set up so far). */
void driver_meta(Driver *d, Meta *m);
/* Every rank's n doubles, rank after rank, on rank 0 (NULL elsewhere;
 * ddl_free it). */
double *driver_gather(Driver *d, const double *mine, int n);
/* Rank 0 writes each table (CSV + JSON) into --out; the status (0, or 1
 * when a write failed) on every rank. */
int driver_write(Driver *d, Table *const *tables, int n);
/* Collective: keep every rank's events of the step just done (rank 0). */
void driver_take_trace(Driver *d);
/* Rank 0: <tag>-trace.csv (rank, track, name, start_ms, end_ms, bytes)
 * and <tag>-trace.json (Chrome trace) from driver_take_trace's events.
 * Status on every rank. */
int driver_write_trace(Driver *d, const Meta *meta);

#endif
