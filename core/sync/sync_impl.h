/* sync_impl.h - what the sync strategy files share (not for labs). */
#ifndef DDL_SYNC_IMPL_H
#define DDL_SYNC_IMPL_H

#include "sync.h"

struct SyncBucketState {
    CommRequest *req;
    int layers;        /* distinct layers whose tensors the bucket holds */
    int pending;       /* of those, layers whose backward has not finished */
    bool launched, done;
    double t0, t1;     /* seconds since the step began */
};

/* Append an event (grows the buffer); a no-op unless tracing. */
void sync_event(Sync *s, SyncTrack track, const char *name, double t0, double t1, double bytes);
/* A gradient communication interval: counted for the overlap figures
 * (always) and traced (when tracing). */
void sync_comm_event(Sync *s, const char *name, double t0, double t1, double bytes);
/* Seconds since the current step began. */
double sync_clock(const Sync *s);

/* gather_scatter.c: one allreduce AVG of m->grads per tensor (weight,
 * then bias, layer by layer in model order) with `alg`, each recorded by
 * sync_comm_event as "<layer>.weight" / "<layer>.bias". */
void sync_per_parameter(Sync *s, CommAlg alg);

/* ddp.c */
int ddp_setup(Sync *s, char err[256]);
void ddp_teardown(Sync *s);
void ddp_begin_backward(Sync *s);
void ddp_layer_done(Sync *s, int layer);
void ddp_finish(Sync *s);

#endif
