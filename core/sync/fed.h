/* fed.h - a cloud and its users (seed 004): centralized SGD, distributed
 * SGD and federated averaging, FP32 or FP16 on the wire; the csgd, dsgd
 * and fedavg rows of the strategy table (sync.h) and what they are made of.
 *
 * Roles: rank 0 of the communicator is the CLOUD, ranks 1..U are the
 * USERS (seed 004: 4 users + the cloud = 5 ranks). The cloud does not
 * train: it holds the global model (FP32 master weights, the optimizer
 * state for D-SGD), averages what the users upload, sends the model back
 * down and evaluates it. Users hold their own shard of the training set.
 *
 *   csgd    one process, the baseline: plain SGD on the whole training
 *           set (no link, no bytes);
 *   dsgd    every round each user computes the gradient of one local
 *           batch and uploads it; the cloud averages the gradients
 *           (weighted by batch size), takes one SGD step on the global
 *           model and every user downloads the model (seed 004, 1.2.1);
 *   fedavg  every round each user runs E local epochs of SGD on its shard
 *           from the global model and uploads its model; the cloud
 *           replaces the global model by the average weighted by the
 *           users' example counts (fedavg_aggregate.h); users download it
 *           (seed 004, 1.2.2; McMahan et al. 2017).
 *
 * Payload: the parameters (seed 004 counts 11,173,962 for ResNet-18), as
 * float32, or as IEEE half bit patterns in FP16 runs (half.h): what goes
 * over the wire is then 2 bytes per parameter. Two other kinds of traffic
 * are counted apart, so the payload can be held against the closed form:
 *   state    BN running statistics (FP32 buffers): FedAvg averages them
 *            with the model every round; D-SGD users upload theirs only
 *            when the cloud evaluates;
 *   control  a few bytes per message: the example count a user trained
 *            on (up) and the loss scale (down, FP16 D-SGD).
 * Every message goes through fed_upload/fed_download (fed_link.c), which
 * count it when it is posted. */
#ifndef DDL_SYNC_FED_H
#define DDL_SYNC_FED_H

#include "fed_closed_form.h"
#include "fed_link.h"
#include "fed_local.h"
#include "fed_shard.h"
#include "strategy.h"

/* ---- the rows (csgd.c, dsgd.c, fedavg.c; what they share: fed.c) ---- */

/* SyncConfig.fed for the csgd, dsgd and fedavg rows. The Sync's trainer
 * holds the model and the optimizer settings: the process's or a user's
 * local SGD, the cloud's global steps (D-SGD). */
typedef struct FedConfig {
    const Dataset *data;  /* the training set: csgd trains on it, users on their shard */
    FedSharding sharding;
    double alpha;         /* Dirichlet concentration */
    bool fp16;            /* mixed precision, FP16 payload on the wire */
    float loss_scale;     /* initial (LOSS_SCALE_INITIAL) */
    int scale_window;     /* LOSS_SCALE_WINDOW */
    int batch;            /* local batch: csgd's, each user's */
    int local_epochs;     /* fedavg: E */
    bool augment;         /* CIFAR pad-4 crop + flip */
    uint64_t seed;        /* shards; shuffling and augmentation (per rank) */
} FedConfig;

/* The rows' state (theirs alone: programs use the functions below). */
typedef struct FedState {
    bool linked;          /* dsgd, fedavg: a cloud and users */
    bool cloud_steps;     /* dsgd: the cloud steps the global model (users never do) */
    bool trains;          /* csgd's process or a user */
    FedLink link;
    FedLocal local;       /* a trainer's local SGD */
    Mixed cloud_mx;       /* the cloud's global model */
    float **bufs, **state_bufs; /* the cloud: one upload per user */
    Dataset shard;        /* a user's part of the training set */
    bool has_shard;
    int rounds_per_epoch; /* rounds per report period */
} FedState;
/* A row's setup and teardown (collective). */
int fed_setup(Sync *s, bool linked, bool cloud_steps, char err[256]);
void fed_teardown(Sync *s);
/* The rows' save and load operations (fed_checkpoint.c). */
void fed_save(const Sync *s, Ckpt *c);
int fed_load(Sync *s, const Ckpt *c, char err[DDL_ERRLEN]);
/* What every scheme's row (csgd.c, dsgd.c, fedavg.c) has the same: its
 * state is a FedState, freed, saved and loaded by the calls above, and
 * its default algorithm is MPI's own. */
#define FED_ROW_STATE                                                                                      \
    .state_bytes = sizeof(FedState), .default_alg = COMM_ALG_MPI, .teardown = fed_teardown, .save = fed_save, \
    .load = fed_load
/* D-SGD, before the cloud evaluates: users upload their BN statistics,
 * the cloud puts their (example-weighted, here equal) average into its
 * model. Counted as FED_STATE. */
void fed_sync_state(FedLink *l, Model *m, float *const *state_bufs);

/* What lab5 reads between rounds of a csgd, dsgd or fedavg Sync. */
/* The link's counters (the cloud's: every upload and download), or NULL
 * for csgd (no link). */
const FedLink *fed_link_of(const Sync *s);
/* Mean training loss and accuracy over every trainer since the last call.
 * Collective. */
void fed_take_train_stats(Sync *s, double *loss, double *accuracy);
/* Before the cloud evaluates: D-SGD users upload their BN statistics
 * (fed_sync_state); the other rows' cloud already holds them. Collective. */
void fed_prepare_eval(Sync *s);
/* This rank's mixed precision state (its loss scale). */
const Mixed *fed_mixed(const Sync *s);
/* The loss scaler that speaks for the run, on rank 0: csgd's, the D-SGD
 * cloud's, FedAvg user 1's (each user scales its own local steps; the
 * trace is copied, free it); overflows summed over every scaler.
 * Collective (point-to-point on the link's communicator: reporting). */
void fed_scaler_report(Sync *s, LossScaler *out, long *overflows);

#endif
