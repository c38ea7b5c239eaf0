/* inflight.c - see inflight.h. */
#include "inflight.h"

#include <stdio.h>
#include "../util/common.h"
#include "../util/half.h"

void inflight_init(InFlight *f, Comm *c, Bucket *slice, int n, const char *label, uint16_t *half)
{
    *f = (InFlight){ .slice = slice, .n = n, .label = label, .half = half };
    f->req = ddl_alloc(sizeof *f->req * (size_t)n);
    f->done = ddl_alloc(sizeof *f->done * (size_t)n);
    f->t0 = ddl_alloc(sizeof *f->t0 * (size_t)n);
    for (int b = 0; b < n; b++) f->req[b] = comm_request_new(c);
    inflight_arm(f);
}

void inflight_free(InFlight *f)
{
    for (int b = 0; b < f->n; b++) comm_request_free(f->req[b]);
    ddl_free(f->req);
    ddl_free(f->done);
    ddl_free(f->t0);
    ddl_free(f->slice);
    *f = (InFlight){ 0 };
}

void inflight_arm(InFlight *f)
{
    for (int b = 0; b < f->n; b++) {
        f->done[b] = false;
        f->t0[b] = 0.0;
    }
    f->next = 0;
}

void inflight_launch(Sync *s, InFlight *f)
{
    int b = f->next++;
    const Bucket *k = &f->slice[b];
    f->t0[b] = sync_clock(s);
    if (f->half) {
        half_from_float_array(f->half + k->off, s->m->grads + k->off, k->count);
        comm_iallreduce(f->req[b], f->half + k->off, k->count, COMM_FP16, COMM_AVG, s->cfg.alg);
    } else {
        comm_iallreduce(f->req[b], s->m->grads + k->off, k->count, COMM_FP32, COMM_AVG, s->cfg.alg);
    }
}

static void slice_done(Sync *s, InFlight *f, int b)
{
    const Bucket *k = &f->slice[b];
    f->done[b] = true;
    double t1 = sync_clock(s);
    if (f->half) half_to_float_array(s->m->grads + k->off, f->half + k->off, k->count);
    char name[40];
    snprintf(name, sizeof name, "%s %d", f->label, b);
    sync_comm_event(s, name, f->t0[b], t1, (double)k->count * (f->half ? 2.0 : 4.0));
}

void inflight_progress(Sync *s, InFlight *f)
{
    for (int b = 0; b < f->next; b++)
        if (!f->done[b] && comm_test(f->req[b])) slice_done(s, f, b);
}

void inflight_wait(Sync *s, InFlight *f)
{
    for (bool all = false; !all;) {
        all = true;
        for (int b = 0; b < f->n; b++) {
            if (f->done[b]) continue;
            if (comm_test(f->req[b])) slice_done(s, f, b);
            else all = false;
        }
    }
}
