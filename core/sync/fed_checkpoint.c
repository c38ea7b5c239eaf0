/* fed_checkpoint.c - the cloud-and-users rows' state in a checkpoint
 * (fed.h): a trainer's sampler, local epoch and running loss, its
 * mixed-precision state; the cloud's global model state; the link's
 * traffic. The model and its optimizer are saved by the caller. */
#include "fed.h"

#include <string.h>

typedef struct LocalSaved {
    int32_t epoch, pad;
    double loss_sum;
    int64_t seen, correct;
} LocalSaved;

void fed_save(const Sync *s, Ckpt *c)
{
    const FedState *f = s->priv;
    if (f->linked) ckpt_put(c, "fed.link", &f->link.ctr, sizeof f->link.ctr);
    if (!f->trains) {
        mixed_save(&f->cloud_mx, c, "fed.cloud");
        return;
    }
    const FedLocal *u = &f->local;
    LocalSaved v = { u->epoch, 0, u->loss_sum, u->seen, u->correct };
    ckpt_put(c, "fed.local", &v, sizeof v);
    ckpt_put_batcher(c, "fed.batcher", &u->b);
    mixed_save(&u->mx, c, "fed.mixed");
}

int fed_load(Sync *s, const Ckpt *c, char err[DDL_ERRLEN])
{
    FedState *f = s->priv;
    if (f->linked && ckpt_get(c, "fed.link", &f->link.ctr, sizeof f->link.ctr, err)) return -1;
    if (!f->trains) return mixed_restore(&f->cloud_mx, c, "fed.cloud", err);
    FedLocal *u = &f->local;
    LocalSaved v;
    if (ckpt_get(c, "fed.local", &v, sizeof v, err) || ckpt_get_batcher(c, "fed.batcher", &u->b, err) ||
        mixed_restore(&u->mx, c, "fed.mixed", err))
        return -1;
    u->epoch = v.epoch;
    u->loss_sum = v.loss_sum;
    u->seen = (long)v.seen;
    u->correct = (long)v.correct;
    return 0;
}
