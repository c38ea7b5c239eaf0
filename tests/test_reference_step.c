/* test_reference_step.c - the one-file reference step
 * (core/reference/step.c) and libddl's step give the same numbers.
 *
 * cnn3 at width 0.25 (8, 16, 16 channels, fc1 32), built by libddl from
 * one seed, copied into the reference's parameter vector (the same order:
 * the counts must agree), then two SGD steps (lr 0.05, momentum 0.9,
 * weight decay 5e-4: the second step uses the momentum) on two batches of
 * 4, on each side: libddl with its convolution paths as --conv auto picks
 * them, and with --conv reference (im2col alone).
 *
 * Checked: each step's loss within 1e-5 relative, and each parameter
 * tensor's change in each step within 1e-3 of that change's largest
 * magnitude. Not bit for bit: the two sides sum in other orders (libddl's
 * direct and Winograd paths, float against double softmax sums); measured
 * 2026-12-06 on the build machine (AMD EPYC, OpenBLAS 0.3.21), the
 * changes agreed to 5e-5 of their size at worst (conv1's bias under
 * auto) and the losses to 1e-8, so 1e-3 leaves room for other BLAS builds while a broken line of step.c (a wrong index, a missed term)
 * moves a change by its own size. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "model/model.h"
#include "reference/step.h"
#include "train/train.h"
#include "util/common.h"

enum { BATCH = 4, STEPS = 2 };

static int scaled(int c, float w)
{
    int v = (int)(c * w + 0.5f);
    return v < 1 ? 1 : v;
}

/* The largest |a - b| over one tensor, against the largest |b|. */
static double rel_diff(const float *a, const float *b, size_t n, double *scale)
{
    double d = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs((double)a[i] - b[i]));
        s = fmax(s, fabs((double)b[i]));
    }
    *scale = s;
    return s > 0 ? d / s : d;
}

static void compare(ConvAlgo conv, const char *label)
{
    const float width = 0.25f;
    ModelConfig cfg = model_config_default("cnn3", (Shape){ 0, 0, 0 }, 0);
    cfg.width = width;
    cfg.dropout = 0.0f;
    cfg.conv = conv;
    Model m;
    char err[256];
    if (model_build(&m, "cnn3", &cfg, BATCH, 5, err) != 0) ddl_die("%s", err);
    RefCnn3 net = { scaled(32, width), scaled(64, width), scaled(64, width), scaled(128, width), 10 };
    size_t np = ref_cnn3_params(&net);
    char what[160];
    snprintf(what, sizeof what, "%s: the same parameter vector", label);
    if (!t_checkf(np == m.nparams, what, "the reference's count %zu against libddl's %zu", np, m.nparams)) {
        model_free(&m);
        return;
    }
    int n;
    ParamInfo *list = model_param_list_alloc(&m, &n);
    float *ref = ddl_alloc(np * sizeof(float)), *vel = ddl_alloc(np * sizeof(float));
    float *before = ddl_alloc(np * sizeof(float)), *after = ddl_alloc(np * sizeof(float));
    model_params_to_host(&m, ref);
    memset(vel, 0, np * sizeof(float));
    Trainer t;
    SgdConfig sc = { 0.05f, 0.9f, 5e-4f, false };
    RefSgd rs = { sc.lr, sc.momentum, sc.weight_decay };
    trainer_init(&t, &m, &sc);
    for (int step = 0; step < STEPS; step++) {
        float *x;
        int32_t *y;
        t_zoo_batch("cnn3", BATCH, 17, "reference step", step, &x, &y);
        memcpy(before, ref, np * sizeof(float));
        int correct;
        double lib = trainer_forward_backward(&t, x, y, BATCH, &correct);
        trainer_step(&t);
        double own = ref_cnn3_step(&net, &rs, ref, vel, x, y, BATCH);
        char name[160];
        snprintf(name, sizeof name, "%s: step %d's loss", label, step);
        t_checkf(fabs(lib - own) <= 1e-5 * fabs(lib), name, "%.9g here, %.9g in libddl", own, lib);
        model_params_to_host(&m, after);
        double worst = 0;
        const char *where = "";
        for (int p = 0; p < n; p++) { /* each tensor's change: reference against libddl */
            size_t off = list[p].off, cnt = list[p].count;
            for (size_t i = off; i < off + cnt; i++) after[i] -= before[i], before[i] = ref[i] - before[i];
            double scale, r = rel_diff(before + off, after + off, cnt, &scale);
            if (r > worst) worst = r, where = list[p].name;
            memcpy(after + off, ref + off, cnt * sizeof(float)); /* both sides go on from the reference's */
        }
        snprintf(name, sizeof name, "%s: step %d's change of every parameter tensor", label, step);
        t_checkf(worst <= 1e-3, name, "%s's change is %.3g of its size apart from libddl's", where, worst);
        printf("# %s, step %d: loss %.9g (libddl %.9g), changes apart by at most %.2g of their size (%s)\n", label,
               step, own, lib, worst, where);
        model_params_from_host(&m, after); /* the same weights on both sides for the next step */
        ddl_free(x);
        ddl_free(y);
    }
    trainer_free(&t);
    ddl_free(list);
    ddl_free(ref);
    ddl_free(vel);
    ddl_free(before);
    ddl_free(after);
    model_free(&m);
}

int main(void)
{
    compare(CONV_ALGO_AUTO, "reference step: cnn3 against libddl (--conv auto)");
    compare(CONV_ALGO_REFERENCE, "reference step: cnn3 against libddl (--conv reference)");
    return t_done();
}
