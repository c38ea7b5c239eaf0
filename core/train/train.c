/* train.c - see train.h. */
#include "train.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../util/common.h"

void trainer_init(Trainer *t, Model *m, const SgdConfig *cfg)
{
    memset(t, 0, sizeof *t);
    t->m = m;
    sgd_init_on(&t->opt, cfg, m->be, m->nparams);
    size_t k = (size_t)m->max_batch * (size_t)model_classes(m);
    t->probs = m->be->alloc(sizeof(float) * k);
    t->dlogits = m->be->alloc(sizeof(float) * k);
}

void trainer_free(Trainer *t)
{
    sgd_free(&t->opt);
    if (t->m) {
        t->m->be->release(t->probs);
        t->m->be->release(t->dlogits);
    }
    memset(t, 0, sizeof *t);
}

double trainer_forward(Trainer *t, const float *x, const int32_t *y, int n, int *correct)
{
    Model *m = t->m;
    const Backend *be = m->be;
    int classes = model_classes(m);
    int bad = be->labels_outside(y, n, classes);
    if (bad) ddl_die("%d of %d labels outside 0..%d", bad, n, classes - 1);
    const float *logits = model_forward(m, x, n);
    /* a rank whose compute is modelled and not run has no loss */
    if (!model_stage_begin(m, MODEL_STAGE_LOSS, false)) {
        if (correct) *correct = 0;
        return NAN;
    }
    double loss = be->softmax_ce_forward(logits, y, n, classes, t->probs, correct);
    be->softmax_ce_backward(t->probs, y, n, classes, 1.0f / (float)n, t->dlogits);
    model_stage_end(m, MODEL_STAGE_LOSS, false);
    return loss / n;
}

void trainer_backward(Trainer *t) { model_backward(t->m, t->dlogits); }

double trainer_forward_backward(Trainer *t, const float *x, const int32_t *y, int n, int *correct)
{
    model_zero_grad(t->m);
    double loss = trainer_forward(t, x, y, n, correct);
    trainer_backward(t);
    return loss;
}

void trainer_step(Trainer *t)
{
    if (!model_stage_begin(t->m, MODEL_STAGE_OPTIMIZER, false)) return;
    sgd_step(&t->opt, t->m->params, t->m->grads);
    model_stage_end(t->m, MODEL_STAGE_OPTIMIZER, false);
}

void stats_mean_std(const double *v, int n, int skip, double *mean, double *std)
{
    int k = n - skip;
    double s = 0.0, ss = 0.0;
    if (k <= 0) { *mean = NAN; *std = NAN; return; }
    for (int i = skip; i < n; i++) s += v[i];
    double mu = s / k;
    for (int i = skip; i < n; i++) ss += (v[i] - mu) * (v[i] - mu);
    *mean = mu;
    *std = k > 1 ? sqrt(ss / (k - 1)) : 0.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_median(const double *v, int n)
{
    if (n <= 0) return NAN;
    double *t = malloc(sizeof(double) * (size_t)n);
    if (!t) ddl_die("out of memory");
    memcpy(t, v, sizeof(double) * (size_t)n);
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    double r = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    free(t);
    return r;
}

void progress_init(Progress *p, const char *label, int every)
{
    p->tty = isatty(STDERR_FILENO);
    p->every = every > 0 ? every : 1;
    p->t0 = ddl_now();
    ddl_strlcpy(p->label, label, sizeof p->label);
}

void progress_update(Progress *p, long done, long total, const char *fmt, ...)
{
    bool last = done == total;
    if (!p->tty && !last && done % p->every != 0) return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    double el = ddl_now() - p->t0;
    double eta = done > 0 ? el * (double)(total - done) / (double)done : 0.0;
    if (p->tty)
        fprintf(stderr, "\r\033[K%s %ld/%ld (%3.0f%%) %s  [%.0fs, eta %.0fs]", p->label, done, total,
                total ? 100.0 * done / total : 0.0, msg, el, eta);
    else
        fprintf(stderr, "%s %ld/%ld %s [%.1fs]\n", p->label, done, total, msg, el);
    fflush(stderr);
}

void progress_end(Progress *p)
{
    if (p->tty) fputc('\n', stderr);
}
