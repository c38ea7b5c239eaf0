/* device_batch.h - batches to the model's backend, the next one's copy
 * overlapping the current step.
 *
 * Two slots. The loader writes batch k+1 into the host buffers of one slot
 * (page-locked memory on a GPU, so the copy runs at full speed and
 * asynchronously) while the step of batch k reads the other slot's device
 * buffers; put() starts the copy on a stream of its own and returns at
 * once, get() makes the kernels queued after it wait for that copy (the
 * host does not wait). On a backend whose memory is the host's (the CPU)
 * the host buffers are the batch: put and get only hand pointers over,
 * with no copy.
 *
 *   DeviceBatch db;
 *   device_batch_init(&db, m->be, batch, floats_per_example);
 *   device_batch_put(&db, batcher_next(&b, device_batch_x(&db), device_batch_y(&db)));
 *   const float *x; const int32_t *y; int n;
 *   while ((n = device_batch_get(&db, &x, &y)) > 0) {
 *       ... queue the step on x, y ...
 *       device_batch_put(&db, batcher_next(&b, device_batch_x(&db), device_batch_y(&db)));
 *   }
 *   device_batch_free(&db); */
#ifndef DDL_DEVICE_BATCH_H
#define DDL_DEVICE_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include "backend.h"

typedef struct DeviceBatchSlot {
    float *xh, *xd;          /* host (pinned) and device inputs; the same buffer on the CPU */
    int32_t *yh, *yd;        /* labels */
    int n;                   /* examples put, 0: none */
    void *copied;            /* event: its host -> device copy is done */
    void *consumed;          /* event: the kernels that read it are done */
    bool copying, consumer;  /* whether those events were recorded */
} DeviceBatchSlot;

typedef struct DeviceBatch {
    const Backend *be;
    int cap;                 /* examples per batch */
    size_t per;              /* floats per example */
    DeviceBatchSlot slot[2];
    int fill;                /* the slot device_batch_x/y/put fill next */
    int ready;               /* the slot get() returns, -1: none */
    void *stream;            /* the copy stream (NULL on the CPU) */
} DeviceBatch;

void device_batch_init(DeviceBatch *b, const Backend *be, int cap, size_t per_example);
void device_batch_free(DeviceBatch *b);
/* The host buffers for the next batch: cap * per_example inputs, cap
 * labels. They stay valid until the next put. */
float *device_batch_x(DeviceBatch *b);
int32_t *device_batch_y(DeviceBatch *b);
/* The next batch is the n examples just written (n <= 0: there is none):
 * starts its copy and returns. */
void device_batch_put(DeviceBatch *b, int n);
/* The batch put last, in backend memory, for the kernels queued from now
 * on; returns its size (0: none). Its buffers stay untouched until the
 * kernels queued before the next get() have run. */
int device_batch_get(DeviceBatch *b, const float **x, const int32_t **y);

#endif
