/* sync.h - how data-parallel ranks stay consistent: one table of
 * synchronisation strategies, and the training step (or round) that runs
 * them.
 *
 * Every rank holds a full model and trains on its shard of each global
 * batch; a strategy keeps the replicas together. The rows of the table
 * (each a file of its own in core/sync; how to add one: README.md):
 *
 *   none            single process: nothing to do.
 *   gather_scatter  per parameter tensor, in model order: every rank sends
 *                   its gradient to rank 0, which sums and divides and sends
 *                   the mean back to each rank (seed 001's Listing 3; the
 *                   comm layer's "linear" algorithm is exactly this pattern,
 *                   with its traffic counted).
 *   allreduce       per parameter tensor, one blocking allreduce then divide
 *                   (seed 001's Listing 4).
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
 *                   all buckets before the optimizer (ddp.c).
 *   horovod         Horovod 0.28's design (Sergeev & Del Balso 2018): tensor
 *                   fusion up to 128 MiB per 1 ms cycle, ring allreduce with
 *                   Average during backward, optional FP16 compression
 *                   (horovod.c).
 *   ps, ps_async    parameter server: rank 0 the server, ranks 1..P the
 *                   workers; workers push gradients and BN statistics, the
 *                   server averages and applies SGD (ps_step.c), workers pull
 *                   the weights; ps_async applies each push on arrival
 *                   (stale gradients). The server computes no forward (ps.c).
 *   weight_avg      after every local SGD step, the weights are averaged over
 *                   all ranks with one allreduce (seed 002's Genann runs).
 *   group_avg       after every local SGD step, rotating groups of k+1 ring
 *                   neighbours average their weights (seed 000; group_avg.h).
 *   csgd, dsgd,     a cloud (rank 0) and its users: one process on the whole
 *   fedavg          training set, users uploading a gradient per local batch,
 *                   or users uploading their model after E local epochs
 *                   (seed 004; fed.h). These train in rounds on their own
 *                   data (sync_round), FP32 or FP16 mixed precision.
 *
 * Overlap is real but explicit: there is no communication thread (one
 * would compete with BLAS for the cores); the hook calls comm_test between
 * layers, which posts the next messages of each allreduce and completes
 * transfers that have arrived. A bucket's "end" is therefore the first
 * progress point at which it was seen complete.
 *
 * Batch norm: `broadcast_buffers` copies rank 0's running statistics to all
 * ranks before each forward, as DDP does by default; without it each rank
 * keeps its own. Parameters and buffers are broadcast from rank 0 once at
 * sync_init for every strategy, as DDP's constructor does.
 *
 * Accumulation (DDP's no_sync): with accumulate = K, gradients of K
 * micro-batches add up locally and are synchronised and applied once, scaled
 * by 1/K, so K micro-batches of b equal one batch of K*b. */
#ifndef DDL_SYNC_H
#define DDL_SYNC_H

#include "buckets.h"
#include "strategy.h"
#include "trace.h"

#define SYNC_DEFAULT_FIRST_BUCKET_BYTES ((size_t)1 << 20)
#define SYNC_DEFAULT_BUCKET_CAP_BYTES ((size_t)25 << 20)
/* Horovod 0.28's defaults (HOROVOD_FUSION_THRESHOLD, HOROVOD_CYCLE_TIME). */
#define SYNC_HOROVOD_FUSION_BYTES ((size_t)128 << 20)
#define SYNC_HOROVOD_CYCLE_MS 1.0

/* The row's defaults (algorithm, BN buffers), DDP's and Horovod's sizes,
 * accumulate 1, groups of 2 that rotate. */
SyncConfig sync_config_default(SyncKind kind);
/* A DDP bucket cap given in MiB, as PyTorch's bucket_cap_mb and the
 * programs' --bucket-cap-mb / --cap-mb take it, in bytes (x 1048576,
 * rounded down): the one place that unit is converted. */
size_t sync_mib_bytes(double mib);

/* Collective over c (NULL for a one-process row). Broadcasts rank 0's
 * parameters and buffers, sets the row up and installs the
 * gradient-ready hook. Returns 0, or -1 with a message (e.g. a strategy
 * that needs ranks given none) the same on every rank. */
int sync_init(Sync *s, const SyncConfig *cfg, Trainer *t, Comm *c, char err[256]);
void sync_free(Sync *s);

/* One micro-batch: forward, loss, backward (with the strategy's overlap),
 * and, on the last micro-batch of a step, synchronisation and the optimizer
 * step. Collective. Returns the batch's mean loss; *correct as the trainer.
 * *stepped (may be NULL) says whether the optimizer ran. Not for round
 * rows. */
double sync_train_step(Sync *s, const float *x, const int32_t *y, int n, int *correct, bool *stepped);
/* Rank 0's batch-norm statistics to every rank, as DDP broadcasts them
 * before each forward pass (lab3 also before its evaluation). Collective;
 * on a device model through the same host staging as training. */
void sync_broadcast_buffers(Sync *s);
/* Round rows (csgd, dsgd, fedavg): one round of the row's own schedule on
 * its own data. Collective. */
bool sync_has_rounds(const Sync *s);
void sync_round(Sync *s, SyncRound *out);
/* Rounds in one report period: csgd 1 (an epoch), dsgd the batches of the
 * largest user's shard (an epoch), fedavg 1 (E local epochs). */
int sync_rounds_per_epoch(const Sync *s);

/* What this rank sent and received for the strategy so far: ddlab's
 * collectives (comm counters) plus what the row moved itself. */
CommCounters sync_counters(const Sync *s);
/* Whether this rank computes gradients (not the ps server, not the cloud),
 * and how many ranks do (the workers, the users). */
bool sync_computes(const Sync *s);
int sync_workers(const Sync *s);
/* Buckets (ddp) or fusion groups (horovod, the plan in use); 0 for others. */
int sync_groups(const Sync *s);

/* A checkpoint of the strategy (checkpoint.h): its step count, its
 * traffic so far and its row's own state ("sync.*" sections); the model
 * and the optimizer are the caller's to save. Load after sync_init with
 * the same settings: 0, or -1 with a message in err. */
void sync_save(const Sync *s, Ckpt *c);
int sync_load(Sync *s, const Ckpt *c, char err[DDL_ERRLEN]);

const char *sync_kind_name(SyncKind k);          /* "none", "gather_scatter", ... */
const char *sync_kind_description(SyncKind k);   /* one line for legends */
int sync_kind_from_name(const char *name, SyncKind *out); /* 0, or -1 */
/* Whether lab `lab`'s strategy option offers row k (SyncRow.offered_in). */
bool sync_kind_offered(SyncKind k, int lab);
/* Whether row k runs one process only (none, csgd), and whether its
 * rank 0 serves instead of computing (ps, ps_async, the cloud rows). */
bool sync_kind_one_process(SyncKind k);
bool sync_kind_rank0_serves(SyncKind k);
/* The names of the rows lab `lab` offers, in table order, joined by sep
 * ("none|gather_scatter|...": the lab's choices; one per line: its
 * listing). Dies when cap is too small. Returns buf. */
const char *sync_kind_names(char *buf, size_t cap, const char *sep, int lab);
/* The longest name among the rows lab `lab` offers, at least `least`: the
 * width of the names' column in its --help. */
int sync_kind_name_width(int lab, int least);

#endif
