/* mixed_checkpoint.c - a mixed-precision trainer's own state into and out
 * of a checkpoint (mixed.h): the FP32 master weights (when they are not
 * the model's parameters), the loss scaler with its history, and the step
 * count. The model's working copy is saved with the model. */
#include "mixed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scaler's numbers, without its trace pointer. */
typedef struct ScalerState {
    float scale;
    int32_t window;
    int64_t clean, updates, overflows, skips, growths, steps;
} ScalerState;

static void name_of(char *out, size_t cap, const char *prefix, const char *what)
{
    snprintf(out, cap, "%s.%s", prefix, what);
}

void mixed_save(const Mixed *mx, Ckpt *c, const char *prefix)
{
    char name[CKPT_NAME_MAX];
    const LossScaler *ls = &mx->ls;
    ScalerState st = { ls->scale, ls->window, ls->clean, ls->updates, ls->overflows, ls->skips, ls->growths,
                       mx->steps };
    name_of(name, sizeof name, prefix, "scaler");
    ckpt_put(c, name, &st, sizeof st);
    name_of(name, sizeof name, prefix, "trace");
    ckpt_put(c, name, ls->trace, sizeof *ls->trace * (size_t)ls->ntrace);
    if (mx->master == mx->m->params) return;
    size_t n = mx->m->nparams;
    float *host = ddl_alloc(sizeof(float) * (n ? n : 1));
    mx->m->be->to_host(host, mx->master, sizeof(float) * n);
    name_of(name, sizeof name, prefix, "master");
    ckpt_put(c, name, host, sizeof(float) * n);
    ddl_free(host);
}

static int restore_trace(LossScaler *ls, const Ckpt *c, const char *name, char err[DDL_ERRLEN])
{
    size_t len;
    const void *p = ckpt_find(c, name, &len);
    if (!p || len % sizeof *ls->trace)
        return ddl_errf(err, "checkpoint section '%s' is missing or not a loss-scale history", name);
    int n = (int)(len / sizeof *ls->trace);
    free(ls->trace);
    ls->trace = n ? malloc(len) : NULL;
    if (n && !ls->trace) ddl_die("out of memory");
    if (n) memcpy(ls->trace, p, len);
    ls->ntrace = ls->captrace = n;
    return 0;
}

int mixed_restore(Mixed *mx, const Ckpt *c, const char *prefix, char err[DDL_ERRLEN])
{
    char name[CKPT_NAME_MAX];
    ScalerState st;
    name_of(name, sizeof name, prefix, "scaler");
    if (ckpt_get(c, name, &st, sizeof st, err)) return -1;
    LossScaler *ls = &mx->ls;
    ls->scale = st.scale;
    ls->window = st.window;
    ls->clean = st.clean;
    ls->updates = st.updates;
    ls->overflows = st.overflows;
    ls->skips = st.skips;
    ls->growths = st.growths;
    mx->steps = st.steps;
    name_of(name, sizeof name, prefix, "trace");
    if (restore_trace(ls, c, name, err)) return -1;
    if (mx->master == mx->m->params) return 0;
    size_t n = mx->m->nparams;
    float *host = ddl_alloc(sizeof(float) * (n ? n : 1));
    name_of(name, sizeof name, prefix, "master");
    int rc = ckpt_get(c, name, host, sizeof(float) * n, err);
    if (rc == 0) mx->m->be->to_device(mx->master, host, sizeof(float) * n);
    ddl_free(host);
    return rc;
}
