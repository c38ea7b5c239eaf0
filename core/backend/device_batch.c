/* device_batch.c - see device_batch.h.
 *
 * Ordering on a device (slot s, batches alternating between the slots):
 *  - the host may write slot s's pinned buffers once their last copy is
 *    done (event `copied`; long done in a steady loop);
 *  - the copy into slot s's device buffers waits, on the copy stream, for
 *    event `consumed`: recorded on the compute stream by the get() that
 *    hands out the other slot, i.e. after every kernel of the step that
 *    last read slot s and before any of the next step;
 *  - the compute stream waits for `copied` before the step that reads s;
 *  - a slot's first copy waits, the same way, for the memset that
 *    be->alloc queued on the compute stream (device memory starts zeroed):
 *    init records `consumed` right after it, as if a step had read the slot. */
#include "device_batch.h"

#include <string.h>
#include "../util/common.h"

static bool staged(const DeviceBatch *b) { return !b->be->host_memory; }

void device_batch_init(DeviceBatch *b, const Backend *be, int cap, size_t per_example)
{
    if (cap < 1) ddl_die("device batch: capacity %d must be >= 1", cap);
    memset(b, 0, sizeof *b);
    b->be = be;
    b->cap = cap;
    b->per = per_example;
    b->ready = -1;
    size_t xbytes = sizeof(float) * per_example * (size_t)cap, ybytes = sizeof(int32_t) * (size_t)cap;
    for (int i = 0; i < 2; i++) {
        DeviceBatchSlot *s = &b->slot[i];
        s->xh = be->host_alloc(xbytes);
        s->yh = be->host_alloc(ybytes);
        if (staged(b)) {
            s->xd = be->alloc(xbytes);
            s->yd = be->alloc(ybytes);
            s->copied = be->event_new();
            s->consumed = be->event_new();
            be->event_record(s->consumed, NULL); /* after the allocation's memset */
            s->consumer = true;
        } else {
            s->xd = s->xh;
            s->yd = s->yh;
        }
    }
    if (staged(b)) b->stream = be->stream_new();
}

void device_batch_free(DeviceBatch *b)
{
    const Backend *be = b->be;
    if (!be) return;
    if (staged(b)) be->synchronize();
    for (int i = 0; i < 2; i++) {
        DeviceBatchSlot *s = &b->slot[i];
        if (staged(b)) {
            be->release(s->xd);
            be->release(s->yd);
            be->event_free(s->copied);
            be->event_free(s->consumed);
        }
        be->host_free(s->xh);
        be->host_free(s->yh);
    }
    if (b->stream) be->stream_free(b->stream);
    memset(b, 0, sizeof *b);
}

/* The host may write the fill slot once its previous copy has finished. */
static DeviceBatchSlot *fill_slot(DeviceBatch *b)
{
    DeviceBatchSlot *s = &b->slot[b->fill];
    if (s->copying) {
        b->be->event_wait_host(s->copied);
        s->copying = false;
    }
    return s;
}

float *device_batch_x(DeviceBatch *b) { return fill_slot(b)->xh; }
int32_t *device_batch_y(DeviceBatch *b) { return fill_slot(b)->yh; }

void device_batch_put(DeviceBatch *b, int n)
{
    if (n > b->cap) ddl_die("device batch: %d examples put into a batch of %d", n, b->cap);
    DeviceBatchSlot *s = fill_slot(b);
    s->n = n > 0 ? n : 0;
    b->ready = b->fill;
    b->fill ^= 1;
    if (!staged(b) || s->n == 0) return;
    const Backend *be = b->be;
    if (s->consumer) be->stream_wait(b->stream, s->consumed);
    be->to_device_async(s->xd, s->xh, sizeof(float) * b->per * (size_t)s->n, b->stream);
    be->to_device_async(s->yd, s->yh, sizeof(int32_t) * (size_t)s->n, b->stream);
    be->event_record(s->copied, b->stream);
    s->copying = true;
}

int device_batch_get(DeviceBatch *b, const float **x, const int32_t **y)
{
    if (b->ready < 0) return 0;
    DeviceBatchSlot *s = &b->slot[b->ready], *other = &b->slot[b->ready ^ 1];
    b->ready = -1;
    *x = s->xd;
    *y = s->yd;
    if (staged(b) && s->n > 0) {
        const Backend *be = b->be;
        be->stream_wait(NULL, s->copied);
        /* every kernel of the step that read the other slot is queued by now */
        be->event_record(other->consumed, NULL);
        other->consumer = true;
    }
    return s->n;
}
