/* sync.h - gradient synchronisation strategies for data-parallel SGD
 * (lab3, seed 001), and the training step that runs them.
 *
 * Every rank holds a full model and trains on its shard of each global
 * batch; a strategy makes the gradients identical on every rank (their mean
 * over ranks) before the optimizer steps, so the replicas never diverge.
 *
 *   none            single process: nothing to do.
 *   gather_scatter  per parameter tensor, in model order: every rank sends
 *                   its gradient to rank 0, which sums and divides and sends
 *                   the mean back to each rank (the seed's Listing 3; the
 *                   comm layer's "linear" algorithm is exactly this pattern,
 *                   with its traffic counted).
 *   allreduce       per parameter tensor, one blocking allreduce then divide
 *                   (the seed's Listing 4).
 *   allreduce_flat  one allreduce of the whole flat gradient arena after
 *                   backward: fusion without overlap, the control that
 *                   separates the two effects DDP combines.
 *   ddp             PyTorch DDP's design (Li et al., VLDB 2020): the arena is
 *                   cut into buckets in reverse layer order (first bucket
 *                   1 MiB, then up to 25 MiB); the gradient-ready hook starts
 *                   a bucket's non-blocking allreduce as soon as every layer
 *                   in it has finished backward, and keeps the ones in flight
 *                   moving (comm_test) after every later layer, so their
 *                   traffic overlaps the rest of backward; the step waits for
 *                   all buckets before the optimizer.
 *
 *   horovod         Horovod's design (Sergeev & Del Balso 2018), mimicking
 *                   Horovod 0.28's defaults: tensor fusion threshold
 *                   128 MiB (HOROVOD_FUSION_THRESHOLD; 64 MiB before 0.21)
 *                   and cycle time 1 ms (HOROVOD_CYCLE_TIME; 5 ms before
 *                   0.21). Gradients that become ready during backward are
 *                   fused (up to the threshold) with the others ready in
 *                   the same cycle and ring-allreduced (ddlab's ring, with
 *                   Average), optionally as FP16 (Compression.fp16);
 *                   backward_passes_per_step = accumulate. See horovod.c
 *                   for how cycles are made identical on every rank.
 *   ps              parameter server, synchronous: rank 0 is the server and
 *                   holds the model, ranks 1..P are the workers ("2 workers"
 *                   = 3 ranks). Workers push their gradients (and BN running
 *                   statistics), the server averages them and applies SGD
 *                   (ps_step.c), workers pull the new weights. The server
 *                   computes no forward or backward. ps_async: the server
 *                   applies each push as it arrives and answers that worker
 *                   at once (asynchronous SGD, stale gradients). See ps.c.
 *
 * Overlap here is real but explicit: there is no communication thread
 * (one would compete with BLAS for the cores); the hook calls comm_test
 * between layers, which posts the next messages of each allreduce and
 * completes transfers that have arrived. A bucket's "end" is therefore the
 * first progress point at which it was seen complete.
 *
 * Batch norm: `broadcast_buffers` copies rank 0's running statistics to all
 * ranks before each forward, as DDP does by default; without it each rank
 * keeps its own (the seed's Task 2), or the model is built with
 * bn_track_stats off (the seed's fix). Parameters and buffers are broadcast
 * from rank 0 once at sync_init for every strategy, as DDP's constructor does.
 *
 * Accumulation (DDP's no_sync): with accumulate = K, gradients of K
 * micro-batches add up locally and are synchronised and applied once, scaled
 * by 1/K, so K micro-batches of b equal one batch of K*b. */
#ifndef DDL_SYNC_H
#define DDL_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../comm/comm.h"
#include "../model/model.h"
#include "../train/train.h"

typedef enum SyncKind {
    SYNC_NONE,
    SYNC_GATHER_SCATTER,
    SYNC_ALLREDUCE,
    SYNC_ALLREDUCE_FLAT,
    SYNC_DDP,
    SYNC_HOROVOD,
    SYNC_PS,
    SYNC_KIND_COUNT
} SyncKind;

#define SYNC_DEFAULT_FIRST_BUCKET_BYTES ((size_t)1 << 20)
#define SYNC_DEFAULT_BUCKET_CAP_BYTES ((size_t)25 << 20)
/* Horovod 0.28's defaults (HOROVOD_FUSION_THRESHOLD, HOROVOD_CYCLE_TIME). */
#define SYNC_HOROVOD_FUSION_BYTES ((size_t)128 << 20)
#define SYNC_HOROVOD_CYCLE_MS 1.0

typedef struct SyncConfig {
    SyncKind kind;
    CommAlg alg;               /* allreduce, allreduce_flat, ddp (default: mpi) */
    size_t first_bucket_bytes; /* ddp: the first bucket's cap */
    size_t bucket_cap_bytes;   /* ddp: later buckets' cap; 0 = one bucket per layer */
    bool broadcast_buffers;    /* rank 0's BN running stats to all before each forward */
    int accumulate;            /* micro-batches per optimizer step (>= 1) */
    bool trace;                /* record per-layer / per-bucket events of each step */
    /* horovod */
    size_t fusion_bytes;       /* fusion threshold; 0 = no fusion (one allreduce per tensor) */
    double cycle_ms;           /* cycle time; 0 = every layer's gradients are their own cycle */
    bool fp16;                 /* Compression.fp16: allreduce gradients as halves */
    /* ps */
    bool ps_async;             /* apply each push on arrival (see ps.c) */
} SyncConfig;

SyncConfig sync_config_default(SyncKind kind);

/* A DDP bucket: the slice [off, off+count) of the gradient arena, holding
 * whole parameter tensors of the layers first_layer..last_layer (forward
 * indices; the bucket fills in reverse, so last_layer's gradients are ready
 * first). */
typedef struct Bucket {
    size_t off, count;
    int first_layer, last_layer;
    int nparams;               /* parameter tensors in the bucket */
} Bucket;

/* Assign buckets as PyTorch's compute_bucket_assignment_by_size does for
 * one device: parameter tensors in reverse model order go into the current
 * bucket, which closes once it holds at least its cap in bytes (the first
 * bucket's cap is first_bytes, the others' cap_bytes); cap_bytes 0 puts each
 * layer's tensors in a bucket of their own. Returns the bucket count (<= the
 * number of parameter tensors); writes up to `cap` buckets to out. */
int sync_assign_buckets(const Model *m, size_t first_bytes, size_t cap_bytes, Bucket *out, int cap);

/* One recorded interval of a step, for timelines. */
typedef enum SyncTrack { TRACK_COMPUTE, TRACK_COMM } SyncTrack;
typedef struct SyncEvent {
    SyncTrack track;
    char name[40];             /* "forward", "features.3", "bucket 2", "optimizer" */
    double t0, t1;             /* seconds since the step began */
    double bytes;              /* comm: bytes of the bucket's gradient slice */
} SyncEvent;

/* Where the time of the last optimizer step went (milliseconds). With
 * accumulation, forward/backward sum over the micro-batches. */
typedef struct SyncTimes {
    double total, forward, backward, sync_wait, optimizer;
    double buffers;            /* broadcasting BN buffers before forward */
    /* Communication: the union of the intervals during which some bucket
     * or parameter allreduce was in flight; hidden = the part of it that
     * ended before backward did. */
    double comm, hidden;
} SyncTimes;

typedef struct SyncBucketState SyncBucketState;

typedef struct Sync {
    SyncConfig cfg;
    Model *m;
    Trainer *t;
    Comm *c;                   /* NULL for SYNC_NONE */
    int rank, world;
    /* ddp */
    Bucket *buckets;
    int nbuckets;
    SyncBucketState *bs;       /* per bucket: request, pending layers, times */
    int *layer_buckets;        /* per layer: up to 2 bucket ids (-1: none) */
    int next_launch;
    /* the step in progress */
    int micro;                 /* micro-batch index within the step */
    bool syncing;              /* this micro-batch synchronises */
    double t_step, t_bwd0, t_bwd1, t_last_hook;
    SyncTimes last;
    long steps;
    /* gradient communication intervals of the step in progress */
    double (*iv)[2];
    int niv, capiv;
    /* trace of the last step (cfg.trace) */
    SyncEvent *events;
    int nevents, capevents;
    /* horovod: fusion groups live in buckets/bs; the plan of step 0 fuses
     * everything (up to the threshold) at the end of backward; from step 1
     * on, rank 0's step-0 gradient-ready times decide the cycles. */
    double *layer_ready;       /* seconds after backward began, per layer */
    uint16_t *half;            /* fp16: the compressed gradient arena */
    bool replanned;
    /* ps: the server's receive buffer, and the traffic ps.c moved itself */
    float *ps_buf;
    CommCounters ps_count;
} Sync;

/* Collective over c (NULL for SYNC_NONE). Broadcasts rank 0's parameters
 * and buffers; installs the gradient-ready hook for ddp. Returns 0, or -1
 * with a message (e.g. a strategy that needs ranks given none). */
int sync_init(Sync *s, const SyncConfig *cfg, Trainer *t, Comm *c, char err[256]);
void sync_free(Sync *s);

/* One micro-batch: forward, loss, backward (with the strategy's overlap),
 * and, on the last micro-batch of a step, synchronisation and the optimizer
 * step. Collective. Returns the batch's mean loss; *correct as the trainer.
 * *stepped (may be NULL) says whether the optimizer ran. */
double sync_train_step(Sync *s, const float *x, const int32_t *y, int n, int *correct, bool *stepped);

/* What this rank sent and received for the strategy so far: ddlab's
 * collectives (comm counters) plus the parameter server's messages. */
CommCounters sync_counters(const Sync *s);
/* True on the rank that computes no gradients (the ps server). */
bool sync_is_server(const Sync *s);

const char *sync_kind_name(SyncKind k);          /* "none", "gather_scatter", ... */
const char *sync_kind_description(SyncKind k);   /* one line for legends */
int sync_kind_from_name(const char *name, SyncKind *out); /* 0, or -1 */

/* Every rank's events of the last step, gathered on rank 0: *out holds
 * *n events and (*ranks)[i] says whose event i is; other ranks get NULL
 * and 0. Collective. Free both with free(). */
void sync_gather_events(Sync *s, SyncEvent **out, int **ranks, int *n);
/* Chrome trace JSON ("traceEvents": one pid per rank, tid 0 compute, tid 1
 * communication, times in microseconds; opens in Perfetto or
 * chrome://tracing), written atomically. `about` goes into "otherData".
 * Returns 0, or -1 if the file could not be written. */
int sync_write_chrome_trace(const char *path, const SyncEvent *ev, const int *ranks, int n, const char *about);

#endif
