/* fed_local.c - SGD on one holder's data: a user's local batches (D-SGD),
 * local epochs (FedAvg), or the whole training set (C-SGD), FP32 or mixed
 * precision (core/mixed). */
#include <math.h>
#include <string.h>

#include "fed_local.h"
#include "../util/common.h"

void fed_local_init(FedLocal *u, Trainer *t, const Dataset *data, const FedLocalConfig *c)
{
    Model *m = t->m;
    memset(u, 0, sizeof *u);
    u->m = m;
    u->t = t;
    u->data = data;
    mixed_init(&u->mx, m, c->fp16, c->loss_scale, c->scale_window);
    if (c->batch > m->max_batch) ddl_die("fed_local_init: batch %d > the model's %d", c->batch, m->max_batch);
    BatcherOptions bo = { .batch = c->batch, .rank = 0, .world = 1, .shuffle = true, .drop_last = false,
                          .augment = c->augment, .normalize = true, .seed = c->seed };
    batcher_init(&u->b, data, &bo);
    u->epoch = 0;
    size_t per = (size_t)data->c * data->h * data->w;
    u->x = ddl_alloc(sizeof(float) * per * (size_t)c->batch);
    u->y = ddl_alloc(sizeof(int32_t) * (size_t)c->batch);
    u->xd = m->be->host_memory ? u->x : m->be->alloc(sizeof(float) * per * (size_t)c->batch);
    u->yd = m->be->host_memory ? u->y : m->be->alloc(sizeof(int32_t) * (size_t)c->batch);
}

void fed_local_free(FedLocal *u)
{
    if (u->xd != u->x) u->m->be->release(u->xd);
    if (u->yd != u->y) u->m->be->release(u->yd);
    ddl_free(u->x);
    ddl_free(u->y);
    batcher_free(&u->b);
    mixed_free(&u->mx);
    memset(u, 0, sizeof *u);
}

static int run_batch(FedLocal *u, int got)
{
    int correct = 0;
    if (u->xd != u->x) { /* a device: the batch goes there first */
        const Dataset *d = u->data;
        u->m->be->to_device(u->xd, u->x, sizeof(float) * (size_t)d->c * d->h * d->w * (size_t)got);
        u->m->be->to_device(u->yd, u->y, sizeof(int32_t) * (size_t)got);
    }
    double loss = mixed_forward_backward(&u->mx, u->t, u->xd, u->yd, got, &correct);
    if (!isfinite(loss)) ddl_die("training loss became %g: lower the learning rate", loss);
    u->loss_sum += loss * got;
    u->seen += got;
    u->correct += correct;
    return got;
}

int fed_local_gradient(FedLocal *u)
{
    /* local epochs are numbered 0, 1, ... as a plain SGD loop would */
    int got = u->epoch > 0 ? batcher_next(&u->b, u->x, u->y) : 0;
    if (got == 0) {
        batcher_epoch(&u->b, u->epoch++);
        got = batcher_next(&u->b, u->x, u->y);
    }
    return run_batch(u, got);
}

long fed_local_epochs(FedLocal *u, int epochs)
{
    long n = 0;
    for (int e = 0; e < epochs; e++) {
        /* a fresh local epoch each time, whatever a previous call left */
        batcher_epoch(&u->b, u->epoch++);
        int got;
        while ((got = batcher_next(&u->b, u->x, u->y)) > 0) {
            n += run_batch(u, got);
            mixed_step(&u->mx, &u->t->opt, u->m->grads);
        }
    }
    return n;
}

void fed_local_take_loss(FedLocal *u, double *loss, double *accuracy, long *examples)
{
    *loss = u->seen ? u->loss_sum / (double)u->seen : NAN;
    *accuracy = u->seen ? (double)u->correct / (double)u->seen : NAN;
    *examples = u->seen;
    u->loss_sum = 0;
    u->seen = u->correct = 0;
}
