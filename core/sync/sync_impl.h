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

/* Make this Sync's gradient-ready hook the model's (a step's own, even
 * when several Syncs take turns on one model). */
void sync_own_hook(Sync *s);

/* horovod.c */
int horovod_setup(Sync *s, char err[256]);
void horovod_teardown(Sync *s);
void horovod_replan(Sync *s);
void horovod_begin_backward(Sync *s);
void horovod_layer_done(Sync *s, int layer);
void horovod_finish(Sync *s);

/* ps.c */
int ps_setup(Sync *s, char err[256]);
void ps_teardown(Sync *s);
double ps_train_step(Sync *s, const float *x, const int32_t *y, int n, int *correct, bool *stepped);

#endif
