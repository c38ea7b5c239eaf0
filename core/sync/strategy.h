/* strategy.h - what a synchronisation strategy is, for the files that
 * implement one; programs use sync.h.
 *
 * A strategy is one row of operations (SyncRow) over state of its own: the
 * row says how many bytes (state_bytes), sync_init hands it Sync.priv
 * zeroed, and nothing outside the row's file looks inside. rows.def
 * lists the rows; sync.c keeps the table made from it and runs a
 * training step through them:
 *
 *   micro-batch 0       begin_step (before the step's clock starts), then
 *                       zero the gradients
 *   forward
 *   begin_backward      syncing micro-batch: arm what backward will launch
 *   backward            the model calls layer_done(layer) after each layer
 *                       (the gradient-ready hook)
 *   finish              syncing micro-batch: make the gradients equal
 *   optimizer           last micro-batch
 *   after_step          last micro-batch: average the weights
 *
 * A row with its own step (the parameter server: the server computes no
 * forward) replaces all of that; a row with its own round (the cloud and
 * its users) trains on its own schedule and data instead. Every operation
 * but the row's name may be NULL.
 *
 * Rows depend on this header (and comm, model, train below it) and never
 * on sync.h or on each other; strategy.c holds what all of them share: the
 * step's clock, its events and communication intervals, the hook. */
#ifndef DDL_SYNC_STRATEGY_H
#define DDL_SYNC_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../comm/comm.h"
#include "../model/model.h"
#include "../train/checkpoint_state.h"
#include "../train/train.h"

/* SYNC_NONE, SYNC_GATHER_SCATTER, ...: one per row of rows.def, in its
 * order. */
typedef enum SyncKind {
#define SYNC_ROW(NAME) SYNC_##NAME,
#include "rows.def"
#undef SYNC_ROW
    SYNC_KIND_COUNT
} SyncKind;

struct FedConfig; /* fed.h: the cloud-and-users rows' settings */

typedef struct SyncConfig {
    SyncKind kind;
    CommAlg alg;               /* the allreduce the row uses (per tensor, flat, buckets, averaging) */
    int accumulate;            /* micro-batches per optimizer step (>= 1) */
    bool broadcast_buffers;    /* rank 0's BN running stats to all before each forward */
    bool trace;                /* record per-layer / per-bucket events of each step */
    struct {
        size_t first_bytes;    /* the first bucket's cap */
        size_t cap_bytes;      /* later buckets' cap; 0 = one bucket per layer */
    } ddp;
    struct {
        size_t fusion_bytes;   /* fusion threshold; 0 = no fusion (one allreduce per tensor) */
        double cycle_ms;       /* cycle time; 0 = every layer's gradients are their own cycle */
        bool fp16;             /* Compression.fp16: allreduce gradients as halves */
    } horovod;
    struct {
        int passes;            /* k: groups of k+1 ring neighbours (1..P-1) */
        bool rotate;           /* shift the grouping one position per round */
    } group;
    const struct FedConfig *fed; /* csgd, dsgd, fedavg (fed.h) */
} SyncConfig;

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

typedef struct SyncRow SyncRow;

/* SyncRow.offered_in: lab n's strategy option offers the row. */
#define SYNC_LAB(n) (1u << (n))

/* A strategy at work on one trainer: what every row shares. */
typedef struct Sync {
    SyncConfig cfg;
    const SyncRow *row;
    void *priv;                /* the row's own state (row->state_bytes) */
    Model *m;
    Trainer *t;
    Comm *c;                   /* NULL: one process */
    int rank, world;
    /* the step in progress */
    int micro;                 /* micro-batch index within the step */
    bool syncing;              /* this micro-batch synchronises */
    double t_step, t_bwd0, t_bwd1, t_last_hook;
    SyncTimes last;            /* the last optimizer step */
    long steps;                /* optimizer steps (a round-based row: rounds) */
    /* gradient communication intervals of the step in progress */
    double (*iv)[2];
    int niv, capiv;
    /* trace of the last step (cfg.trace) */
    SyncEvent *events;
    int nevents, capevents;
    /* a resumed run: the traffic before the checkpoint, less what setting
     * up again moved (sync_counters adds it) */
    CommCounters resumed;
    /* A model on a device (device_stage.c): dev is the trainer's model, m
     * the host view the rows work on; NULL on the CPU, where m is it. */
    Model *dev;
    Model view;
    size_t *layer_lo, *layer_hi; /* each layer's slice of the gradient arena */
    bool grads_on_device;      /* the view's gradients are the device's (NCCL reduces them there) */
} Sync;

/* One round of a row that trains on its own schedule. */
typedef struct SyncRound {
    long examples;             /* trained on by this rank in the round */
    bool stepped;              /* the global model moved (an FP16 overflow skips) */
} SyncRound;

struct SyncRow {
    const char *name;          /* "ddp": --sync and --style values, output columns */
    const char *description;   /* one line for legends */
    /* The labs whose strategy option offers the row, SYNC_LAB(n) bits:
     * lab3's --sync, lab5's --scheme, lab6's --style list their choices
     * (and lab3 its sweeps) from these, in table order. 0: a lab reaches
     * it otherwise (lab2's weight_avg and lab4's group_avg are each
     * lab's one strategy; lab6's --async turns ps into ps_async). */
    unsigned offered_in;
    size_t state_bytes;        /* Sync.priv, zeroed before setup */
    CommAlg default_alg;
    bool broadcast_buffers;    /* default of SyncConfig.broadcast_buffers */
    bool one_process;          /* refuses more than one rank (none, csgd) */
    bool rank0_serves;         /* rank 0 computes no gradients (server, cloud) */
    /* Its only use of the gradients: allreduces of arena slices through
     * the Comm. On a device with --alg nccl they then stay in device
     * memory (device_stage.c). */
    bool grads_in_place;
    int (*setup)(Sync *s, char err[256]);      /* collective; 0, or -1 with a reason */
    void (*teardown)(Sync *s);
    void (*begin_step)(Sync *s);
    void (*begin_backward)(Sync *s);
    void (*layer_done)(Sync *s, int layer);
    void (*finish)(Sync *s);
    void (*after_step)(Sync *s);
    double (*step)(Sync *s, const float *x, const int32_t *y, int n, int *correct, bool *stepped);
    void (*round)(Sync *s, SyncRound *out);
    int (*rounds_per_epoch)(const Sync *s);    /* round rows: rounds that make one report period */
    void (*counters)(const Sync *s, CommCounters *add); /* traffic the row moved outside s->c */
    int (*groups)(const Sync *s);              /* buckets / fusion groups in use */
    /* State that outlives a step (rounds, a user's sampler, the cloud's
     * master weights) into a checkpoint and back; rows without any need
     * neither (the model and its optimizer are saved by the caller). */
    void (*save)(const Sync *s, Ckpt *c);
    int (*load)(Sync *s, const Ckpt *c, char err[DDL_ERRLEN]);
};

/* ---- shared by every row (strategy.c) ---- */

/* Seconds since the current step began. */
double sync_clock(const Sync *s);
/* Append an event (grows the buffer); a no-op unless tracing. */
void sync_event(Sync *s, SyncTrack track, const char *name, double t0, double t1, double bytes);
/* A gradient communication interval: counted for the overlap figures
 * (always) and traced (when tracing). */
void sync_comm_event(Sync *s, const char *name, double t0, double t1, double bytes);
/* One allreduce (SyncConfig.alg) of a whole nparams-float arena of the
 * model (its gradients or its weights) to the ranks' mean, recorded as the
 * communication event `name`. */
void sync_average_arena(Sync *s, float *arena, const char *name);
/* Make this Sync's gradient-ready hook the model's (a step's own, even
 * when several Syncs take turns on one model). */
void sync_own_hook(Sync *s);

/* device_stage.c: rows on a model whose arenas are device memory. */
enum { STAGE_PARAMS = 1, STAGE_GRADS = 2, STAGE_STATE = 4 };
void sync_stage_init(Sync *s); /* sets s->m: the trainer's model, or its host view on a device */
void sync_stage_free(Sync *s);
bool sync_staged(const Sync *s);
void sync_stage_in(Sync *s, unsigned what);  /* device -> host view (no-op on the CPU) */
void sync_stage_out(Sync *s, unsigned what); /* host view -> device */
void sync_stage_layer_grads(Sync *s, int layer);
/* For outputs, on a device: where the gradients are reduced ("in device
 * memory by NCCL 2.28.9", "staged through page-locked host memory (...)");
 * NULL on the CPU. */
const char *sync_gradients_where(const Sync *s, char *buf, size_t cap);
/* The model the kernels run on: the trainer's (s->m is its host view on a device). */
Model *sync_device_model(Sync *s);
/* The parts of a step that rows with a step of their own reuse:
 * begin (micro-batch 0: clock, events, times and gradients reset),
 * forward (+ loss; returns the batch's mean loss), backward (the hook
 * fires), scaling accumulated gradients by 1/accumulate, and the end
 * (times, step count, micro-batch index; returns whether it stepped). */
void sync_step_begin(Sync *s);
double sync_step_forward(Sync *s, const float *x, const int32_t *y, int n, int *correct);
void sync_step_backward(Sync *s);
void sync_step_scale_accumulated(Sync *s);
bool sync_step_end(Sync *s);
/* Union of the step's communication intervals (last.comm) and the part of
 * it before backward ended (last.hidden). */
void sync_account_comm(Sync *s);
/* MPI counts are ints: broadcast big float arrays in slices. */
void sync_bcast_floats(float *p, size_t n, MPI_Comm comm);

#endif
