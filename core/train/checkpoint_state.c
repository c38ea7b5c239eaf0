/* checkpoint_state.c - the state of the pieces every run shares, into and
 * out of a checkpoint (checkpoint.h). Arrays go through the backend, so a
 * model on a device is saved from and restored to device memory. */
#include "checkpoint_state.h"

#include <stdio.h>
#include <string.h>

static void section(char *out, size_t cap, const char *prefix, const char *what)
{
    snprintf(out, cap, "%s.%s", prefix, what);
}

/* n floats of backend memory into a section. */
static void put_floats(Ckpt *c, const char *name, const Backend *be, const float *src, size_t n)
{
    float *host = ddl_alloc(sizeof(float) * (n ? n : 1));
    if (n) be->to_host(host, src, sizeof(float) * n);
    ckpt_put(c, name, host, sizeof(float) * n);
    ddl_free(host);
}

static int get_floats(const Ckpt *c, const char *name, const Backend *be, float *dst, size_t n,
                      char err[DDL_ERRLEN])
{
    float *host = ddl_alloc(sizeof(float) * (n ? n : 1));
    int rc = ckpt_get(c, name, host, sizeof(float) * n, err);
    if (rc == 0 && n) be->to_device(dst, host, sizeof(float) * n);
    ddl_free(host);
    return rc;
}

void ckpt_put_model(Ckpt *c, const char *prefix, const Model *m)
{
    char name[CKPT_NAME_MAX];
    section(name, sizeof name, prefix, "params");
    put_floats(c, name, m->be, m->params, m->nparams);
    section(name, sizeof name, prefix, "state");
    put_floats(c, name, m->be, m->state, m->nstate);
    section(name, sizeof name, prefix, "step");
    ckpt_put_u64(c, name, m->step);
}

int ckpt_get_model(const Ckpt *c, const char *prefix, Model *m, char err[DDL_ERRLEN])
{
    char name[CKPT_NAME_MAX];
    section(name, sizeof name, prefix, "params");
    if (get_floats(c, name, m->be, m->params, m->nparams, err)) return -1;
    section(name, sizeof name, prefix, "state");
    if (get_floats(c, name, m->be, m->state, m->nstate, err)) return -1;
    section(name, sizeof name, prefix, "step");
    return ckpt_get_u64(c, name, &m->step, err);
}

void ckpt_put_sgd(Ckpt *c, const char *prefix, const Sgd *s)
{
    char name[CKPT_NAME_MAX];
    section(name, sizeof name, prefix, "velocity");
    if (s->velocity) put_floats(c, name, s->be, s->velocity, s->n);
    section(name, sizeof name, prefix, "steps");
    ckpt_put_u64(c, name, (uint64_t)s->steps);
}

int ckpt_get_sgd(const Ckpt *c, const char *prefix, Sgd *s, char err[DDL_ERRLEN])
{
    char name[CKPT_NAME_MAX];
    section(name, sizeof name, prefix, "velocity");
    if (s->velocity && get_floats(c, name, s->be, s->velocity, s->n, err)) return -1;
    section(name, sizeof name, prefix, "steps");
    uint64_t steps;
    if (ckpt_get_u64(c, name, &steps, err)) return -1;
    s->steps = (long)steps;
    return 0;
}

/* What of a batcher is not rebuilt from its options. */
typedef struct BatcherPos { int32_t epoch, pos, count, pad; uint64_t aug; } BatcherPos;

void ckpt_put_batcher(Ckpt *c, const char *prefix, const Batcher *b)
{
    char name[CKPT_NAME_MAX];
    section(name, sizeof name, prefix, "pos");
    BatcherPos p = { b->epoch, b->pos, b->count, 0, b->aug.state };
    ckpt_put(c, name, &p, sizeof p);
}

int ckpt_get_batcher(const Ckpt *c, const char *prefix, Batcher *b, char err[DDL_ERRLEN])
{
    char name[CKPT_NAME_MAX];
    section(name, sizeof name, prefix, "pos");
    BatcherPos p;
    if (ckpt_get(c, name, &p, sizeof p, err)) return -1;
    batcher_epoch(b, p.epoch);
    if (p.count != b->count || p.pos < 0 || p.pos > b->count)
        return ddl_errf(err, "checkpoint's sampler stood at %d of %d examples; this run has %d", p.pos, p.count,
                             b->count);
    b->pos = p.pos;
    b->aug.state = p.aug;
    return 0;
}
