/* inflight.h - slices of the gradient arena allreduced while backward
 * still runs: DDP's buckets and Horovod's fusion groups.
 *
 * Slices are launched strictly in their order, so every rank starts the
 * same non-blocking allreduces in the same order whatever its timing
 * (which the operations need to match). After every layer the owner calls
 * inflight_progress: comm_test on each slice in flight is where its
 * messages get posted, received and reduced while backward goes on. A
 * slice's end is the first progress point that saw it complete. */
#ifndef DDL_SYNC_INFLIGHT_H
#define DDL_SYNC_INFLIGHT_H

#include "buckets.h"
#include "strategy.h"

typedef struct InFlight {
    Bucket *slice;             /* n slices of the arena, in launch order (owned) */
    int n;
    int next;                  /* the next one to launch */
    CommRequest **req;
    bool *done;
    double *t0;                /* launch times, seconds since the step began */
    const char *label;         /* events are "<label> <index>" */
    uint16_t *half;            /* FP16 staging of the whole arena (not owned), or NULL: FP32 */
} InFlight;

/* Takes ownership of slice (ddl_alloc'ed). */
void inflight_init(InFlight *f, Comm *c, Bucket *slice, int n, const char *label, uint16_t *half);
void inflight_free(InFlight *f);
/* A new backward: nothing launched, nothing done. */
void inflight_arm(InFlight *f);
/* Start the allreduce (Average, s->cfg.alg) of slice f->next. */
void inflight_launch(Sync *s, InFlight *f);
/* Test every slice in flight; record the ones that completed. */
void inflight_progress(Sync *s, InFlight *f);
/* After backward: every slice launched; poll all of them rather than
 * waiting on each in turn, so each end time is when that slice finished,
 * not when its turn came. */
void inflight_wait(Sync *s, InFlight *f);

#endif
