/* test_fuse.c - batch norm + ReLU/ReLU6 and residual add + ReLU fused
 * (core/model/fuse.c) give the same bits as the two layers run apart.
 *
 * For each model (vgg11, resnet18 and mobilenetv2 at narrow widths, and
 * cnn3, which has no batch norm) and each usable backend (the CPU; the
 * emulated GPU or a GPU where there is one), two copies are built from one
 * seed, one with m->fuse_act on (the default) and one off, and given
 * the same batch. Checked, bit for bit (memcmp): the logits and the loss
 * of a training forward, every weight gradient, the running statistics,
 * the parameters after two SGD steps, and the logits of an eval-mode
 * forward. And the marks: which activations were fused (every ReLU/ReLU6
 * that alone reads a batch norm's output, every ReLU that alone reads an
 * add's; none in cnn3), and that a batch
 * norm whose output two layers read keeps its activation apart.
 *
 * Quick tier (make test; make test-full runs the rest): resnet18 on every
 * backend (batch norm + ReLU and add + ReLU fused), mobilenetv2 (batch
 * norm + ReLU6) and cnn3 (nothing to fuse) on the CPU only, vgg11 (batch
 * norm + ReLU again) not at all. Every fused kind runs, and on the device
 * too; mobilenetv2 on the emulated GPU was 75% of this program's time
 * (2026-11-27, c53debc),
 * and test_cuda_kernels checks the device's batch norm + ReLU6 kernels
 * against the CPU's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/registry.h"
#include "util/common.h"
#include "util/bn_act.h"
#include "harness.h"
#include "layers/layers.h"
#include "model/model.h"
#include "train/train.h"

typedef struct Spec {
    const char *name;
    float width;
    int batch;
    int fused; /* activations the rule must fuse */
    int quick; /* the quick tier: QUICK_ALL backends, QUICK_CPU only, or QUICK_NONE */
} Spec;

enum { QUICK_NONE, QUICK_CPU, QUICK_ALL };

/* vgg11: 8 conv+BN+ReLU; resnet18: the ReLU after bn1 of the stem and of
 * each block's first conv (9), and the one after each block's add (8);
 * mobilenetv2: each conv+BN+ReLU6 (35; its adds have no activation after
 * them); cnn3: none. */
static const Spec SPECS[] = {
    { "vgg11", 0.0625f, 3, 8, QUICK_NONE },
    { "resnet18", 0.0625f, 3, 17, QUICK_ALL },
    { "mobilenetv2", 0.125f, 3, 35, QUICK_CPU },
    { "cnn3", 0.25f, 4, 0, QUICK_CPU },
};

typedef TSide Side;

/* dropout 0: its masks are drawn per step (equal on both sides anyway). */
static void side_init(Side *s, const Spec *sp, const Backend *be, bool fuse, const float *x, const int32_t *y)
{
    t_side_init(s, sp->name, sp->width, 0.0f, sp->batch, be, x, y);
    s->m.fuse_act = fuse;
}

/* n floats of both sides' host copies equal, bit for bit. */
static void same(const char *label, const char *what, const float *a, const float *b, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += memcmp(&a[i], &b[i], sizeof(float)) != 0;
    t_checkf(bad == 0, label, "%s: %zu of %zu values differ", what, bad, n);
}

static void same_tensor(const char *label, const char *what, const Side *a, const Side *b, int id, size_t n)
{
    float *ha = ddl_alloc(sizeof(float) * n), *hb = ddl_alloc(sizeof(float) * n);
    model_tensor_to_host(&a->m, id, false, ha);
    model_tensor_to_host(&b->m, id, false, hb);
    same(label, what, ha, hb, n);
    ddl_free(ha), ddl_free(hb);
}

static void same_arena(const char *label, const char *what, const Side *a, const Side *b, int which)
{
    size_t n = which == 2 ? a->m.nstate : a->m.nparams;
    float *ha = ddl_alloc(sizeof(float) * (n ? n : 1)), *hb = ddl_alloc(sizeof(float) * (n ? n : 1));
    if (which == 0) model_params_to_host(&a->m, ha), model_params_to_host(&b->m, hb);
    if (which == 1) model_grads_to_host(&a->m, ha), model_grads_to_host(&b->m, hb);
    if (which == 2) model_state_to_host(&a->m, ha), model_state_to_host(&b->m, hb);
    same(label, what, ha, hb, n);
    ddl_free(ha), ddl_free(hb);
}

static int count_fused(const Model *m)
{
    int n = 0, marks = 0;
    for (int i = 0; i < m->nlayers; i++) {
        n += m->layers[i].fused;
        marks += m->layers[i].fused_out >= 0;
    }
    return n == marks ? n : -1;
}

static void check_model(const Spec *sp, const Backend *be, const float *x, const int32_t *y)
{
    Side on, off;
    side_init(&on, sp, be, true, x, y);
    side_init(&off, sp, be, false, x, y);
    char label[160];
    snprintf(label, sizeof label, "fuse %s %s: %d activations fused into their batch norms and adds", be->name, sp->name,
             sp->fused);
    t_checkf(count_fused(&on.m) == sp->fused, label, "%d fused (-1: marks disagree)", count_fused(&on.m));
    size_t nlog = (size_t)sp->batch * (size_t)model_classes(&on.m);
    for (int step = 0; step < 2; step++) {
        int ca = 0, cb = 0;
        double la = trainer_forward_backward(&on.t, on.x, on.y, sp->batch, &ca);
        double lb = trainer_forward_backward(&off.t, off.x, off.y, sp->batch, &cb);
        snprintf(label, sizeof label, "fuse %s %s step %d: fused and apart give the same bits", be->name, sp->name,
                 step);
        t_checkf(la == lb && ca == cb, label, "loss %.9g vs %.9g, correct %d vs %d", la, lb, ca, cb);
        same_tensor(label, "logits", &on, &off, on.m.output, nlog);
        same_arena(label, "weight gradients", &on, &off, 1);
        same_arena(label, "running statistics", &on, &off, 2);
        trainer_step(&on.t);
        trainer_step(&off.t);
        same_arena(label, "parameters after SGD", &on, &off, 0);
    }
    model_set_training(&on.m, false);
    model_set_training(&off.m, false);
    model_forward(&on.m, on.x, sp->batch);
    model_forward(&off.m, off.x, sp->batch);
    snprintf(label, sizeof label, "fuse %s %s eval: fused and apart give the same bits", be->name, sp->name);
    same_tensor(label, "logits", &on, &off, on.m.output, nlog);
    t_side_free(&on);
    t_side_free(&off);
}

/* A batch norm read by its ReLU and by a second layer keeps the ReLU
 * apart (the batch norm's own output is needed). */
static void check_rule(void)
{
    Model m;
    model_begin(&m, "fuse rule", (Shape){ 4, 6, 6 });
    int a = mb_batchnorm(&m, "bn_shared", m.input);
    int r = mb_relu(&m, a);
    int s = mb_add(&m, r, a); /* a read twice */
    int b = mb_batchnorm(&m, "bn_alone", s);
    mb_relu6(&m, b);
    model_finalize(&m, 2, 1);
    bool ok = m.layers[0].fused_out < 0 && !m.layers[1].fused && m.layers[3].fused_out == m.layers[4].out &&
              m.layers[3].fused_act == BN_ACT_RELU6 && m.layers[4].fused;
    t_check(ok, "fuse: a batch norm read twice keeps its relu apart; one read once by a relu6 runs it");
    model_free(&m);
}

int main(void)
{
    check_rule();
    const Backend *bes[8];
    int nb = backend_usable(bes, 8);
    bool quick = t_quick("vgg11, and mobilenetv2 and cnn3 on the device backends (here: resnet18 on every backend, "
                         "mobilenetv2 and cnn3 on the cpu)");
    for (size_t s = 0; s < sizeof SPECS / sizeof SPECS[0]; s++) {
        const Spec *sp = &SPECS[s];
        if (quick && sp->quick == QUICK_NONE) continue;
        float *x;
        int32_t *y;
        t_zoo_batch(sp->name, sp->batch, 7, "fuse", (int)s, &x, &y);
        for (int b = 0; b < nb; b++)
            if (!quick || sp->quick == QUICK_ALL || backend_is_cpu(bes[b])) check_model(sp, bes[b], x, y);
        ddl_free(x);
        ddl_free(y);
    }
    return t_done();
}
