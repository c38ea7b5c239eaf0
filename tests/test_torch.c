/* test_torch.c - ddlab against PyTorch: every layer kind and the zoo models
 * on the committed fixtures of tests/gen_fixtures.py (PyTorch 1.13 CPU).
 *
 * For each fixture: build the same network in ddlab (model_build for the
 * zoo, mb_* for single layers and the resblock graph), copy the parameters
 * in by name (the fixture's names and sizes must equal model_param_list()
 * one to one, in order), run one training step's forward and backward with
 * the mean softmax cross-entropy, and compare with what PyTorch computed.
 * Single layers sit behind an identity (dropout p = 0) so that the input
 * gradient exists in ddlab (model_backward skips the model input's).
 *
 * Tolerances (relative error = max|ddlab - torch| / max(max|torch|, floor),
 * per tensor):
 *   logits            1e-4  float32 forward; only the summation order
 *                           differs (BLAS blocking vs PyTorch's kernels);
 *                           measured <= ~1e-6.
 *   loss              1e-5  relative; ddlab sums the loss in double.
 *   gradients, dx     1e-3  batch-norm backward and deep chains amplify
 *                           rounding; measured <= ~1e-5, except MobileNetV2
 *                           (16x16, batch 2: batch norm over 8 values per
 *                           channel in its 2x2 stages) at 4e-4, where
 *                           PyTorch's own float32 gradients are 1.5e-4 from
 *                           float64. floor = 1e-2 x the
 *                           largest gradient of the model, so tensors whose
 *                           true gradient is zero (a conv bias right before
 *                           a batch norm) compare rounding noise against
 *                           the model's gradient scale, not against itself.
 *   running stats     1e-4  a forward quantity.
 *   SGD (2 steps)     1e-3  on the parameter change p2 - p0 (not on p2,
 *                           where the weights would swamp the update: a
 *                           missing weight decay moves p2 by ~5e-5 of p
 *                           but the change by ~0.5%); floor 1e-2 x the
 *                           largest change.
 * A missing fixture is a failure: they are committed. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "conv/paths.h"
#include "cpu/kernels.h"
#include "fixture.h"
#include "harness.h"
#include "model/model.h"
#include "train/optim.h"

static const char *FIXTURES[] = {
    "layer_linear", "layer_linear_nobias", "layer_linear_chw",
    "layer_conv_k3s1p1", "layer_conv_k3s2p1_g2", "layer_conv_k1s1p0", "layer_conv_k1s2p0",
    "layer_conv_k3s1p2_dw", "layer_conv_k3s2p1_dw", "layer_conv_k3s2p0", "layer_conv_k3s1p0_g2",
    "layer_relu", "layer_relu6", "layer_maxpool_k2s2", "layer_maxpool_k3s2p1",
    "layer_avgpool_k2s2", "layer_avgpool_k3s2p1", "layer_avgpool_k3s1p1", "layer_global_avgpool",
    "layer_flatten", "layer_dropout_eval",
    "layer_bn_train", "layer_bn_eval", "layer_bn_notrack_train", "layer_bn_notrack_eval", "layer_bn1d_train",
    "graph_resblock",
    "model_mlp", "model_cnn3", "model_vgg11", "model_resnet18",
    "model_resnet50", "model_mobilenetv2", "model_sdss_dnn",
};

enum { MAXP = 256 };
#define TOL_LOGITS 1e-4
#define TOL_LOSS 1e-5
#define TOL_GRAD 1e-3
#define TOL_STATS 1e-4
#define TOL_SGD 1e-3

typedef struct Case {
    const char *name;
    const char *label; /* in the checks' names: the fixture, and how convolutions ran */
    Fixture fx;
    Model m;
    int n;           /* batch */
    int dx_tensor;   /* tensor whose gradient is the input gradient, or -1 */
    ParamInfo params[MAXP];
    int np;
    double max_err;  /* worst relative error of this fixture, for the summary */
} Case;

/* One comparison, one line; the line names the worst element on failure. */
static bool compare(Case *c, const char *what, const float *got, const float *want, size_t n, double tol,
                    double floor)
{
    double maxd = 0.0, maxw = floor;
    size_t at = 0;
    bool nan = false;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)want[i]);
        if (isnan(d)) { nan = true; at = i; break; }
        if (d > maxd) { maxd = d; at = i; }
        if (fabs((double)want[i]) > maxw) maxw = fabs((double)want[i]);
    }
    double rel = nan ? INFINITY : maxd / maxw;
    if (rel > c->max_err) c->max_err = rel;
    char name[256];
    snprintf(name, sizeof name, "torch %s: %s rel err %.1e (tol %.0e)", c->label, what, rel, tol);
    return t_checkf(rel <= tol, name, "at [%zu] of %zu: ddlab %.9g, torch %.9g (max |torch| %.3g)", at, n,
                    n ? (double)got[at] : 0.0, n ? (double)want[at] : 0.0, maxw);
}

static const FixRec *need(Case *c, const char *rec)
{
    const FixRec *r = fix_get(&c->fx, rec);
    if (!r) {
        char name[256];
        snprintf(name, sizeof name, "torch %s: record %s", c->label, rec);
        t_checkf(false, name, "missing from %s (regenerate with tests/gen_fixtures.py)", c->fx.path);
    }
    return r;
}

static Shape shape_from(const FixRec *x)
{
    Shape s = { 1, 1, 1 };
    if (x->ndims >= 2) s.c = x->dims[1];
    if (x->ndims >= 3) s.h = x->dims[2];
    if (x->ndims >= 4) s.w = x->dims[3];
    return s;
}

/* A single layer of kind `kind` after an identity; returns 0 or -1. */
static int build_layer(Case *c, const char *kind, Shape in, const float *meta, const float *mode)
{
    Model *m = &c->m;
    int cout = (int)meta[0], k = (int)meta[1], stride = (int)meta[2], pad = (int)meta[3], groups = (int)meta[4];
    bool bias = meta[5] != 0.0f;
    model_begin(m, c->name, in);
    m->conv_algo = t_conv;
    m->bn_track_stats = mode[1] != 0.0f;
    int t = mb_dropout(m, m->input, 0.0f);
    c->dx_tensor = t;
    if (!strcmp(kind, "linear")) mb_linear(m, "layer", t, cout, bias);
    else if (!strcmp(kind, "conv2d")) mb_conv2d(m, "layer", t, cout, k, stride, pad, groups, bias);
    else if (!strcmp(kind, "relu")) mb_relu(m, t);
    else if (!strcmp(kind, "relu6")) mb_relu6(m, t);
    else if (!strcmp(kind, "maxpool")) mb_maxpool(m, t, k, stride, pad);
    else if (!strcmp(kind, "avgpool")) mb_avgpool(m, t, k, stride, pad);
    else if (!strcmp(kind, "global_avgpool")) mb_global_avgpool(m, t);
    else if (!strcmp(kind, "batchnorm")) mb_batchnorm(m, "layer", t);
    else if (!strcmp(kind, "dropout")) mb_dropout(m, t, meta[6]);
    else if (!strcmp(kind, "flatten")) mb_flatten(m, t);
    else {
        model_free(m);
        return -1;
    }
    /* the layer really is of that kind (guards the table above) */
    if (strcmp(layer_kind_name(m->layers[m->nlayers - 1].kind), kind) != 0) {
        model_free(m);
        return -1;
    }
    model_finalize(m, c->n, 1);
    m->training = mode[0] != 0.0f;
    return 0;
}

/* The resblock graph of gen_fixtures.py (ResBlock): the identity's output
 * is read by conv1 and by the residual add. */
static void build_resblock(Case *c, Shape in, int classes)
{
    Model *m = &c->m;
    model_begin(m, c->name, in);
    m->conv_algo = t_conv;
    int x = mb_dropout(m, m->input, 0.0f);
    c->dx_tensor = x;
    int t = mb_conv2d(m, "conv1", x, in.c, 3, 1, 1, 1, false);
    t = mb_relu(m, mb_batchnorm(m, "bn1", t));
    t = mb_conv2d(m, "conv2", t, in.c, 3, 1, 1, 2, false);
    t = mb_batchnorm(m, "bn2", t);
    t = mb_relu(m, mb_add(m, t, x));
    t = mb_global_avgpool(m, t);
    mb_linear(m, "fc", t, classes, true);
    model_finalize(m, c->n, 1);
}

/* Parameters and (when given) initial running statistics from the fixture.
 * Names must match one to one; returns false after reporting otherwise. */
static bool load_params(Case *c, bool report)
{
    Model *m = &c->m;
    c->np = model_param_list(m, c->params, MAXP);
    int nfix = 0;
    char why[512] = "";
    for (int i = 0; i < c->fx.n; i++) {
        const FixRec *r = &c->fx.recs[i];
        if (strncmp(r->name, "param:", 6) != 0) continue;
        if (!why[0]) {
            if (nfix >= c->np)
                snprintf(why, sizeof why, "fixture has extra parameter %s", r->name + 6);
            else if (strcmp(r->name + 6, c->params[nfix].name) != 0)
                snprintf(why, sizeof why, "parameter %d: ddlab %s, fixture %s", nfix, c->params[nfix].name,
                         r->name + 6);
            else if (r->count != c->params[nfix].count)
                snprintf(why, sizeof why, "parameter %s: ddlab %zu values, fixture %zu", r->name + 6,
                         c->params[nfix].count, r->count);
            else
                memcpy(m->params + c->params[nfix].off, r->data, sizeof(float) * r->count);
        }
        nfix++;
    }
    if (!why[0] && nfix != c->np)
        snprintf(why, sizeof why, "ddlab has %d parameters, fixture %d (first missing: %s)", c->np, nfix,
                 c->params[nfix < c->np ? nfix : 0].name);
    /* running statistics: a "buffer:" record for every tracking BN layer, and back */
    int nbuf = 0, nbn = 0;
    for (int i = 0; i < c->fx.n; i++)
        if (!strncmp(c->fx.recs[i].name, "buffer:", 7)) nbuf++;
    for (int li = 0; li < m->nlayers && !why[0]; li++) {
        const Layer *l = &m->layers[li];
        if (l->kind != LAYER_BATCHNORM || !m->bn_track_stats) continue;
        int ch = (int)l->weight_count;
        for (int part = 0; part < 2; part++) {
            char rec[128];
            float *st = m->state + l->state_off + (size_t)part * ch;
            nbn++;
            snprintf(rec, sizeof rec, "buffer:%s.%s", l->name, part ? "running_var" : "running_mean");
            const FixRec *after = fix_get(&c->fx, rec);
            if (!after || after->count != (size_t)ch) {
                snprintf(why, sizeof why, "no %s record of %d values", rec, ch);
                break;
            }
            snprintf(rec, sizeof rec, "buffer0:%s.%s", l->name, part ? "running_var" : "running_mean");
            const FixRec *before = fix_get(&c->fx, rec);
            if (before) memcpy(st, before->data, sizeof(float) * (size_t)ch);
            else for (int j = 0; j < ch; j++) st[j] = part ? 1.0f : 0.0f; /* PyTorch's defaults, as init.c */
        }
    }
    if (!why[0] && nbuf != nbn) snprintf(why, sizeof why, "fixture has %d running-stat records, ddlab %d", nbuf, nbn);
    if (report || why[0]) {
        char name[256];
        snprintf(name, sizeof name, "torch %s: %d parameter names and sizes match the fixture", c->label, c->np);
        t_checkf(!why[0], name, "%s", why);
    }
    return !why[0];
}

static int32_t *labels_of(const FixRec *y)
{
    int32_t *v = malloc(sizeof(int32_t) * y->count);
    if (!v) abort();
    for (size_t i = 0; i < y->count; i++) v[i] = (int32_t)y->data[i];
    return v;
}

/* zero_grad, forward, mean cross-entropy, backward (what the Trainer does). */
static double step(Model *m, const float *x, const int32_t *y, int n, float *probs, float *dlogits)
{
    int classes = model_classes(m);
    model_zero_grad(m);
    t_poison(m->dacts, m->nacts); /* a gradient read before it is written shows up */
    const float *logits = model_forward(m, x, n);
    double loss = softmax_ce_forward_cpu(logits, y, n, classes, probs, NULL) / n;
    softmax_ce_backward_cpu(probs, y, n, classes, 1.0f / (float)n, dlogits);
    model_backward(m, dlogits);
    return loss;
}

static void compare_stats(Case *c, const char *prefix, const char *label)
{
    Model *m = &c->m;
    for (int li = 0; li < m->nlayers; li++) {
        const Layer *l = &m->layers[li];
        if (l->kind != LAYER_BATCHNORM || !m->bn_track_stats) continue;
        int ch = (int)l->weight_count;
        for (int part = 0; part < 2; part++) {
            char rec[160], what[200];
            const char *leaf = part ? "running_var" : "running_mean";
            snprintf(rec, sizeof rec, "%s%s.%s", prefix, l->name, leaf);
            const FixRec *r = need(c, rec);
            if (!r) continue;
            snprintf(what, sizeof what, "%s%s.%s", label, l->name, leaf);
            compare(c, what, m->state + l->state_off + (size_t)part * ch, r->data, (size_t)ch, TOL_STATS, 1e-6);
        }
    }
}

static void run_case(Case *c)
{
    char path[1024], name[300], file[160];
    snprintf(file, sizeof file, "%s.fix", c->name);
    snprintf(path, sizeof path, "%s", t_fixture(file));
    snprintf(name, sizeof name, "torch %s: load %s.fix", c->label, c->name);
    if (!t_checkf(fix_load(&c->fx, path) == 0, name, "%s", c->fx.err)) return;
    const FixRec *x = need(c, "x"), *y = need(c, "y"), *logits = need(c, "logits"), *loss = need(c, "loss");
    const FixRec *mode = need(c, "meta:mode");
    if (!x || !y || !logits || !loss || !mode) goto out;
    c->n = x->dims[0];
    c->dx_tensor = -1;
    Shape in = shape_from(x);
    int classes = logits->dims[1];
    const FixRec *kind = fix_get(&c->fx, "meta:kind"), *mdl = fix_get(&c->fx, "meta:model");
    const FixRec *graph = fix_get(&c->fx, "meta:graph");
    char err[256] = "";
    int rc = -1;
    if (kind) {
        const FixRec *meta = need(c, "meta:layer");
        if (!meta) goto out;
        rc = build_layer(c, kind->text, in, meta->data, mode->data);
        if (rc) snprintf(err, sizeof err, "unknown layer kind %s", kind->text);
    } else if (mdl) {
        const FixRec *cf = need(c, "meta:config");
        if (!cf) goto out;
        ModelConfig cfg = model_config_default(mdl->text, in, (int)cf->data[1]);
        cfg.width = cf->data[0];
        for (int i = 0; i < 4; i++) cfg.hidden[i] = (int)cf->data[2 + i];
        cfg.bn_track_stats = cf->data[6] != 0.0f;
        cfg.dropout = cf->data[7];
        cfg.conv = t_conv;
        rc = model_build(&c->m, mdl->text, &cfg, c->n, 1, err);
        c->m.training = mode->data[0] != 0.0f;
    } else if (graph && !strcmp(graph->text, "resblock")) {
        build_resblock(c, in, classes);
        rc = 0;
    } else {
        snprintf(err, sizeof err, "no meta:kind, meta:model or known meta:graph record");
    }
    snprintf(name, sizeof name, "torch %s: build", c->label);
    if (!t_checkf(rc == 0, name, "%s", err)) goto out;
    Model *m = &c->m;
    snprintf(name, sizeof name, "torch %s: %d outputs per example, as PyTorch", c->label, model_classes(m));
    if (!t_checkf(model_classes(m) == classes && (size_t)c->n * classes == logits->count && y->count == (size_t)c->n,
                  name, "ddlab %d outputs, fixture %d (batch %d, %zu labels)", model_classes(m), classes, c->n,
                  y->count))
        goto free_model;
    if (!load_params(c, true)) goto free_model;

    int32_t *labels = labels_of(y);
    float *probs = malloc(sizeof(float) * logits->count), *dlogits = malloc(sizeof(float) * logits->count);
    if (!probs || !dlogits) abort();
    double l = step(m, x->data, labels, c->n, probs, dlogits);
    compare(c, "logits", model_tensor(m, m->output), logits->data, logits->count, TOL_LOGITS, 1e-6);
    float lf = (float)l;
    compare(c, "loss", &lf, loss->data, 1, TOL_LOSS, 1e-6);

    double gscale = 0.0; /* the model's gradient scale, for the floor */
    for (int i = 0; i < c->np; i++) {
        char rec[160];
        snprintf(rec, sizeof rec, "grad:%s", c->params[i].name);
        const FixRec *g = fix_get(&c->fx, rec);
        for (size_t j = 0; g && j < g->count; j++) gscale = fmax(gscale, fabs((double)g->data[j]));
    }
    for (int i = 0; i < c->np; i++) {
        char rec[160], what[200];
        snprintf(rec, sizeof rec, "grad:%s", c->params[i].name);
        const FixRec *g = need(c, rec);
        if (!g) continue;
        snprintf(what, sizeof what, "grad %s", c->params[i].name);
        compare(c, what, m->grads + c->params[i].off, g->data, g->count, TOL_GRAD, 1e-2 * gscale + 1e-12);
    }
    if (c->dx_tensor >= 0) {
        const FixRec *dx = need(c, "dx");
        if (dx) compare(c, "input grad", model_tensor_grad(m, c->dx_tensor), dx->data, dx->count, TOL_GRAD, 1e-12);
    }
    compare_stats(c, "buffer:", "running stat ");

    const FixRec *sgd = fix_get(&c->fx, "meta:sgd");
    if (sgd) {
        const FixRec *x2 = need(c, "x2"), *y2 = need(c, "y2");
        if (x2 && y2) {
            int32_t *labels2 = labels_of(y2);
            SgdConfig sc = { sgd->data[0], sgd->data[1], sgd->data[2], false };
            float *p0 = malloc(sizeof(float) * m->nparams), *dd = malloc(sizeof(float) * m->nparams);
            float *dt = malloc(sizeof(float) * m->nparams);
            if (!p0 || !dd || !dt) abort();
            for (int nesterov = 0; nesterov < 2; nesterov++) {
                sc.nesterov = nesterov != 0;
                load_params(c, false); /* fresh weights and running statistics */
                memcpy(p0, m->params, sizeof(float) * m->nparams);
                Sgd opt;
                sgd_init(&opt, &sc, m->nparams);
                step(m, x->data, labels, c->n, probs, dlogits);
                sgd_step(&opt, m->params, m->grads);
                step(m, x2->data, labels2, c->n, probs, dlogits);
                sgd_step(&opt, m->params, m->grads);
                sgd_free(&opt);
                double dscale = 0.0;
                for (int i = 0; i < c->np; i++) {
                    char rec[160];
                    snprintf(rec, sizeof rec, "sgd%d:%s", nesterov, c->params[i].name);
                    const FixRec *r = need(c, rec);
                    if (!r || r->count != c->params[i].count) continue;
                    for (size_t j = 0; j < r->count; j++) {
                        size_t o = c->params[i].off + j;
                        dd[o] = m->params[o] - p0[o];
                        dt[o] = r->data[j] - p0[o];
                        dscale = fmax(dscale, fabs((double)dt[o]));
                    }
                }
                for (int i = 0; i < c->np; i++) {
                    char what[200];
                    snprintf(what, sizeof what, "sgd nesterov=%d 2 steps: change of %s", nesterov,
                             c->params[i].name);
                    compare(c, what, dd + c->params[i].off, dt + c->params[i].off, c->params[i].count, TOL_SGD,
                            1e-2 * dscale + 1e-12);
                }
                char prefix[32], label[64];
                snprintf(prefix, sizeof prefix, "sgd%dbuf:", nesterov);
                snprintf(label, sizeof label, "sgd nesterov=%d 2 steps: ", nesterov);
                compare_stats(c, prefix, label);
            }
            free(p0);
            free(dd);
            free(dt);
            free(labels2);
        }
    }
    free(labels);
    free(probs);
    free(dlogits);
free_model:
    model_free(&c->m);
out:
    fix_free(&c->fx);
}

/* Every *.fix in tests/fixtures is in FIXTURES (none is silently skipped). */
static void check_listed(int nf)
{
    const char *dir = t_fixture("");
    DIR *d = opendir(dir);
    char unlisted[512] = "";
    int seen = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".fix") != 0) continue;
            seen++;
            bool listed = false;
            for (int i = 0; i < nf; i++)
                listed |= strlen(FIXTURES[i]) == len - 4 && !strncmp(FIXTURES[i], e->d_name, len - 4);
            if (!listed && strlen(unlisted) + len + 2 < sizeof unlisted) {
                strcat(unlisted, " ");
                strcat(unlisted, e->d_name);
            }
        }
        closedir(d);
    }
    char name[160];
    snprintf(name, sizeof name, "torch: all %d fixture files in tests/fixtures are checked", seen);
    t_checkf(d && !unlisted[0], name, "%s", d ? unlisted : "cannot list the fixture folder");
}

int main(void)
{
    int nf = (int)(sizeof FIXTURES / sizeof FIXTURES[0]);
    check_listed(nf);
    /* Once with convolutions as --conv auto picks them, then once per
     * --conv value past auto and reference, from the table's rows
     * (core/conv/conv.c: im2col, Winograd F(2x2) and F(4x4), fused
     * Winograd and the direct kernels forced on every 3x3 layer they
     * take, the pointwise kernels on every 1x1 one; t_conv), so that a new
     * path is checked here without a line of this file. The same
     * tolerances hold for all, but a path whose row allows more error
     * than CONV_REL_ERROR (F(4x4)) leaves out model_mobilenetv2 (batch 2,
     * width 0.125: its last batch norms normalize 2 values per channel),
     * which turns any error in its first layer into percent-size gradient
     * errors: random noise of 1e-6 of the largest value added to that
     * layer's im2col output fails 144 of its checks (3e-7: 8). F(4x4)'s
     * error there is 2.3e-6 (test_conv_paths), F(2x2)'s 4e-7; that layer,
     * 1 channel in, never takes F(4x4) but forced. A value the CPU cannot
     * run (cudnn) prints one skip line saying why. */
    for (ConvAlgo a = CONV_ALGO_REFERENCE; a < conv_algo_count(); a++) {
        t_conv = a == CONV_ALGO_REFERENCE ? CONV_ALGO_AUTO : a; /* the first pass: auto */
        char tag[48] = "", why[512];
        if (t_conv != CONV_ALGO_AUTO) snprintf(tag, sizeof tag, " [%s]", conv_algo_name(a));
        if (conv_algo_check(t_conv, ddl_backend_cpu.conv, why, sizeof why) != 0) {
            char name[96];
            snprintf(name, sizeof name, "torch: every fixture%s", tag);
            t_skip(name, why);
            continue;
        }
        const char *skip = t_conv != CONV_ALGO_AUTO &&
                                   conv_row_rel_error(&CONV_PATHS[conv_path_named(conv_algo_name(a))]) > CONV_REL_ERROR
                               ? "model_mobilenetv2"
                               : NULL; /* a fixture this pass leaves out */
        double worst = 0.0;
        const char *worst_name = "";
        for (int i = 0; i < nf; i++) {
            static Case c;
            static char label[160];
            memset(&c, 0, sizeof c);
            c.name = FIXTURES[i];
            snprintf(label, sizeof label, "%s%s", FIXTURES[i], tag);
            if (skip && !strcmp(FIXTURES[i], skip)) {
                t_left_out(label, "its batch norms over 2 values amplify this path's first-layer rounding (see main)");
                continue;
            }
            c.label = label;
            run_case(&c);
            if (c.max_err > worst) { worst = c.max_err; worst_name = FIXTURES[i]; }
        }
        printf("# worst relative error over all comparisons%s: %.2e (%s)\n", tag, worst, worst_name);
    }
    t_conv = CONV_ALGO_AUTO;
    return t_done();
}
