/* fed.h - a cloud and its users (seed 004): centralized SGD, distributed
 * SGD and federated averaging, FP32 or FP16 on the wire.
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
 * Every message goes through fed_upload/fed_download (link.c), which count
 * it when it is posted. */
#ifndef DDL_FED_H
#define DDL_FED_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../comm/comm.h"
#include "../data/dataset.h"
#include "../mixed/mixed.h"
#include "../model/model.h"
#include "../optim/optim.h"
#include "../train/train.h"
#include "fedavg_aggregate.h"

typedef enum FedScheme { FED_CSGD, FED_DSGD, FED_FEDAVG } FedScheme;
typedef enum FedTraffic { FED_PAYLOAD, FED_STATE, FED_CONTROL, FED_TRAFFIC_KINDS } FedTraffic;

const char *fed_scheme_name(FedScheme s);               /* "csgd", "dsgd", "fedavg" */
int fed_scheme_from_name(const char *name, FedScheme *out); /* 0, or -1 */

/* ---- the link between the cloud and the users (link.c) ---- */

typedef struct FedCounters {
    uint64_t bytes_up[FED_TRAFFIC_KINDS];   /* user -> cloud (a user: sent; the cloud: received) */
    uint64_t bytes_down[FED_TRAFFIC_KINDS]; /* cloud -> user (the cloud: sent; a user: received) */
    uint64_t msgs_up, msgs_down;
    uint64_t rounds;                        /* uploads of the payload, one per round */
} FedCounters;

typedef struct FedLink {
    MPI_Comm comm;      /* private duplicate */
    int rank, size, users;
    bool cloud;         /* rank 0 */
    CommDtype dtype;    /* payload on the wire: COMM_FP32 or COMM_FP16 */
    uint16_t *wire;     /* FP16 staging, cap halves */
    size_t cap;
    FedCounters ctr;
} FedLink;

/* Collective over parent (size >= 2: the cloud and at least one user). */
int fed_link_init(FedLink *l, MPI_Comm parent, CommDtype dtype, char err[DDL_ERRLEN]);
void fed_link_free(FedLink *l);
/* Users send n floats of `mine` (kind FED_PAYLOAD: as l->dtype; state and
 * control: always FP32); the cloud receives user u's into at_cloud[u-1]
 * (FP16 decoded to float, exactly). Collective. */
void fed_upload(FedLink *l, FedTraffic kind, const float *mine, float *const *at_cloud, size_t n);
/* The cloud sends n floats of vec to every user, users receive into vec
 * (FP16: the cloud's values are rounded to half on the way, so users get
 * half values). Collective. */
void fed_download(FedLink *l, FedTraffic kind, float *vec, size_t n);

/* ---- closed forms (closed_form.c), the seed's Section 3.2 ---- */

/* Bytes one user uploads per round (= what it downloads): params x 4 in
 * FP32, x 2 in FP16. The seed's "size per round". */
uint64_t fed_bytes_per_round(size_t params, CommDtype dtype);
/* Rounds per epoch as the seed computes them: csgd 0, dsgd
 * train_n / global_batch (not rounded: 50000/256 = 195.3), fedavg
 * 1 / local_epochs. */
double fed_rounds_per_epoch(FedScheme s, long train_n, int global_batch, int local_epochs);

/* ---- shards (shard.c) ---- */

typedef enum FedSharding { FED_IID, FED_LABEL_SORTED, FED_DIRICHLET } FedSharding;
const char *fed_sharding_name(FedSharding s);           /* "iid", "sorted", "dirichlet" */
int fed_sharding_from_name(const char *name, FedSharding *out);
/* Split d's examples among `users` (seeded):
 *   iid         a random permutation cut into near-equal parts;
 *   sorted      examples ordered by label (ties in random order) cut into
 *               near-equal contiguous parts: each user sees few classes;
 *   dirichlet   per class, proportions ~ Dir(alpha) over users (small alpha:
 *               skewed; Hsu et al. 2019); every user keeps at least one
 *               example.
 * Writes user `user`'s (0-based) examples into out, a Dataset of its own
 * (dataset_free it). Deterministic in (seed, users, kind, alpha). */
void fed_shard(const Dataset *d, int user, int users, FedSharding kind, double alpha, uint64_t seed, Dataset *out);

/* ---- a user's (or the csgd process's) local training (local.c) ---- */

typedef struct FedLocal {
    Model *m;
    Trainer t;
    Mixed mx;
    Batcher b;
    const Dataset *data;
    float *x;
    int32_t *y;
    int epoch;            /* local epochs started (the first is epoch 0) */
    double loss_sum;      /* since fed_local_take_loss */
    long seen, correct;
} FedLocal;

typedef struct FedLocalConfig {
    SgdConfig sgd;
    bool fp16;
    float loss_scale;     /* initial (LOSS_SCALE_INITIAL) */
    int scale_window;     /* LOSS_SCALE_WINDOW */
    int batch;
    bool augment;         /* CIFAR pad-4 crop + flip */
    uint64_t seed;        /* shuffling / augmentation of this user's data */
} FedLocalConfig;

void fed_local_init(FedLocal *u, Model *m, const Dataset *data, const FedLocalConfig *c);
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

/* ---- rounds (dsgd.c, fedavg.c): collective over the link ---- */

/* One D-SGD round. Users: m->grads holds the scaled gradient of `batch`
 * examples (fed_local_gradient); they upload it and the batch size, then
 * download the new global model (and, FP16, the loss scale) into mx.
 * Cloud: mx/opt are the global model's; bufs holds U arrays of params
 * floats; it averages the gradients weighted by batch size, steps
 * (mixed_step: an FP16 overflow halves the scale and skips) and sends the
 * model down. Returns, on every rank, whether the cloud stepped. */
bool dsgd_round(FedLink *l, Mixed *mx, Sgd *opt, int batch, float *const *bufs);
/* One FedAvg round after the users' local epochs. Users upload their
 * model (master weights: FP16 runs send them rounded to half), their BN
 * statistics and the examples they trained on, then download the global
 * model and statistics. Cloud: fedavg_aggregate of models and of
 * statistics (bufs/state_bufs: U arrays each), then sends them down. */
void fedavg_round(FedLink *l, Mixed *mx, double examples, float *const *bufs, float *const *state_bufs);
/* D-SGD, before the cloud evaluates: users upload their BN statistics,
 * the cloud puts their (example-weighted, here equal) average into its
 * model. Counted as FED_STATE. */
void fed_sync_state(FedLink *l, Model *m, float *const *state_bufs);

#endif
