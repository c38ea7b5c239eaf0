/* test_gradcheck.c - finite-difference checks of every layer kind's
 * backward, of the softmax cross-entropy, and of whole small models; plus
 * the conventions a finite difference cannot see (gradients at relu/relu6
 * kinks, max-pool ties, dropout masks, running statistics, SGD).
 *
 * Method. A small Model is built with the mb_* API: the model input, an
 * identity (dropout with p = 0) whose output tensor t is what the checked
 * layer reads - model_backward computes no gradient for the model input
 * itself, but it does for t, so dL/dt is the input gradient - then the
 * layer. Parameters and inputs are random (fixed seeds). The scalar loss is
 * L = sum_i r_i y_i for a fixed random r (so dL/dy = r reaches every output
 * with weight O(1)), or the mean cross-entropy against fixed labels.
 * Analytic gradients: zero_grad, forward, backward (activation gradients
 * poisoned with NaN first, so one read before it is written fails).
 * Numeric: central differences (L(v+h) - L(v-h)) / (actual 2h), the loss
 * accumulated in double from the float outputs.
 *
 * Error per tensor: max |analytic - numeric| / max(max |numeric|, floor)
 * over the checked entries (all of a small tensor, otherwise first, last
 * and a spread sample); tolerance 1e-2 throughout (TOL). A wrong backward
 * (a sign, a missing term, a wrong index) gives O(1); the float forward
 * gives the numeric side ~1e-4 (single layers) to ~4e-3 (resnet18) noise.
 *
 * Kinks. Single layers avoid them by construction: relu/relu6 inputs stay
 * >= 0.1 away from 0 and 6, pooling inputs are distinct and >= 0.05 apart,
 * and h = 1e-2, so no step crosses a kink or a tie; every step is verified
 * to keep the activation pattern (relu sides, max-pool winners), else the
 * check fails. Whole models cannot avoid them: a width-0.125 resnet18 on
 * 16x16 has ~30k relu units and any step >= 3e-5 moves one across zero
 * (measured), while float noise needs h >~ 1e-3. So for models the numeric
 * loss runs the layers one by one with every relu/relu6 mask and max-pool
 * winner frozen as at the unperturbed point (freeze, frozen_forward): the
 * same function at that point, smooth around it, with the same gradient.
 * The backward under test is untouched, and the unfrozen relu/max-pool
 * gradients are what the single-layer checks cover. Models use h = 3e-3
 * (h = 1e-2 meets batch norm's curvature over 8 values, 1e-3 float noise)
 * and a floor of 1e-2 x the model's largest gradient, so tensors whose true
 * gradient is zero (a conv bias right before a batch norm) compare noise
 * with the model's gradient scale.
 *
 * With "shared input", the checked layer's input tensor has a second
 * reader (a linear head; the two heads are summed), so the kernels'
 * accumulate path (acc_dx) is checked too.
 *
 * Quick tier (make test; make test-full runs the rest): every check
 * above runs, with the same inputs, but a whole model's tensors compare
 * QUICK_MODEL_ENTRIES of their sampled entries (the first and the middle
 * one; the others are still drawn, so every later draw is the same), not
 * 4 to 24. Whole models were 95% of this program's time (2026-11-27, c53debc) (each entry is
 * two forwards of the model), and a wrong backward (a sign, a missing
 * term, a wrong index) is O(1) off at almost every entry of a tensor; the
 * single layers, whose entries are cheap, still compare all of theirs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#include "backend/backend.h"
#include "conv/depthwise_kernels.h"
#include "conv/paths.h"
#include "cpu/kernels.h"
#include "harness.h"
#include "layers/layers.h"
#include "model/model.h"
#include "util/rng.h"

#define TOL 1e-2
#define QUICK_MODEL_ENTRIES 2

static bool g_quick; /* the quick tier (see the header) */

/* ---- a model under check ---------------------------------------------- */

typedef struct Gc {
    const char *name;
    Model m;
    int n;
    float *x;          /* n examples of the model input */
    int dx_tensor;     /* tensor whose gradient is dL/dinput, or -1 */
    bool ce;           /* cross-entropy (labels) or r-projection */
    int32_t *labels;
    float *r;
    uint64_t step;     /* fixed: dropout draws the same mask in every forward */
    float *probs, *dlogits;
    /* frozen kinks (whole models): per layer, relu/relu6 y = mask*x + cst and
     * max-pool y = x[arg], recorded at the unperturbed point */
    bool frozen;
    float **mask, **cst;
    int **arg;
} Gc;

/* The loss with every relu/relu6 and max-pooling selection frozen as it was
 * at the unperturbed point (see freeze()); other layers run as they are. */
static const float *frozen_forward(Gc *g)
{
    Model *m = &g->m;
    m->batch = g->n;
    memcpy(model_tensor(m, m->input), g->x, sizeof(float) * (size_t)g->n * shape_numel(m->tensors[m->input].shape));
    for (int li = 0; li < m->nlayers; li++) {
        const Layer *l = &m->layers[li];
        const float *x = model_tensor(m, l->in);
        float *y = model_tensor(m, l->out);
        size_t count = (size_t)g->n * shape_numel(m->tensors[l->out].shape);
        if (l->kind == LAYER_RELU || l->kind == LAYER_RELU6)
            for (size_t i = 0; i < count; i++) y[i] = g->mask[li][i] * x[i] + g->cst[li][i];
        else if (l->kind == LAYER_MAXPOOL)
            for (size_t i = 0; i < count; i++) y[i] = x[g->arg[li][i]];
        else
            layer_forward(m, l);
    }
    return model_tensor(m, m->output);
}

static double loss_at(Gc *g)
{
    Model *m = &g->m;
    m->step = g->step;
    const float *y = g->frozen ? frozen_forward(g) : model_forward(m, g->x, g->n);
    int classes = model_classes(m);
    double L = 0.0;
    if (g->ce) { /* double-precision reference, independent of softmax_ce_*_cpu */
        for (int i = 0; i < g->n; i++) {
            const float *z = y + (size_t)i * classes;
            double mx = z[0], s = 0.0;
            for (int j = 1; j < classes; j++) mx = fmax(mx, z[j]);
            for (int j = 0; j < classes; j++) s += exp((double)z[j] - mx);
            L += -((double)z[g->labels[i]] - mx - log(s));
        }
        return L / g->n;
    }
    for (size_t i = 0; i < (size_t)g->n * classes; i++) L += (double)g->r[i] * (double)y[i];
    return L;
}

static void analytic(Gc *g)
{
    Model *m = &g->m;
    int classes = model_classes(m);
    model_zero_grad(m);
    t_poison(m->dacts, m->nacts);
    m->step = g->step;
    const float *y = model_forward(m, g->x, g->n);
    if (g->ce) {
        softmax_ce_forward_cpu(y, g->labels, g->n, classes, g->probs, NULL);
        softmax_ce_backward_cpu(g->probs, g->labels, g->n, classes, 1.0f / (float)g->n, g->dlogits);
    } else {
        memcpy(g->dlogits, g->r, sizeof(float) * (size_t)g->n * classes);
    }
    model_backward(m, g->dlogits);
}

static uint64_t fnv(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001B3ULL; }

/* Max pooling layer l's winner for output i (plane-major, then row,
 * column) over input x of shape s: the index in x of its window's first
 * largest value, as the kernels pick it; -1 for a window wholly in the
 * padding. */
static int pool_winner(const Layer *l, Shape s, Shape o, const float *x, size_t i)
{
    int ow = (int)(i % (size_t)o.w), oh = (int)(i / (size_t)o.w % (size_t)o.h), pl = (int)(i / ((size_t)o.w * o.h));
    int best = -1;
    for (int ki = 0; ki < l->k; ki++)
        for (int kj = 0; kj < l->k; kj++) {
            int ih = oh * l->stride - l->pad + ki, iw = ow * l->stride - l->pad + kj;
            if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
            int at = (pl * s.h + ih) * s.w + iw;
            if (best < 0 || x[at] > x[best]) best = at;
        }
    return best;
}

/* The activation pattern: which side of every relu/relu6 kink each input
 * is on and which element wins every max-pooling window, hashed. A finite
 * difference whose two evaluations have the pattern of the unperturbed
 * point stays on one smooth piece of the loss (batch norm, softmax and
 * everything else here are smooth). */
static uint64_t pattern(Model *m)
{
    uint64_t h = 0xCBF29CE484222325ULL;
    for (int li = 0; li < m->nlayers; li++) {
        const Layer *l = &m->layers[li];
        Shape s = m->tensors[l->in].shape;
        const float *x = model_tensor(m, l->in);
        size_t count = (size_t)m->batch * shape_numel(s);
        if (l->kind == LAYER_RELU)
            for (size_t i = 0; i < count; i++) h = fnv(h, x[i] > 0.0f);
        if (l->kind == LAYER_RELU6)
            for (size_t i = 0; i < count; i++) h = fnv(h, (x[i] > 0.0f) + 2 * (x[i] < 6.0f));
        if (l->kind == LAYER_MAXPOOL) {
            Shape o = m->tensors[l->out].shape;
            for (size_t i = 0; i < (size_t)m->batch * shape_numel(o); i++)
                h = fnv(h, (uint64_t)pool_winner(l, s, o, x, i));
        }
    }
    return h;
}

/* Central difference of the loss in v. Returns false when the step
 * changes the activation pattern base (it crossed a kink or a tie). */
static bool numeric(Gc *g, float *v, float h, uint64_t base, double *out)
{
    float orig = *v;
    *v = orig + h;
    float up = *v;
    double lp = loss_at(g);
    uint64_t pp = g->frozen ? base : pattern(&g->m);
    *v = orig - h;
    float dn = *v;
    double lm = loss_at(g);
    uint64_t pm = g->frozen ? base : pattern(&g->m);
    *v = orig;
    *out = (lp - lm) / ((double)up - (double)dn);
    return pp == base && pm == base;
}

/* Record the relu/relu6 masks and max-pooling winners of the forward that
 * just ran (the unperturbed point), and switch loss_at to frozen_forward. */
static void freeze(Gc *g)
{
    Model *m = &g->m;
    g->mask = calloc((size_t)m->nlayers, sizeof(float *));
    g->cst = calloc((size_t)m->nlayers, sizeof(float *));
    g->arg = calloc((size_t)m->nlayers, sizeof(int *));
    for (int li = 0; li < m->nlayers; li++) {
        const Layer *l = &m->layers[li];
        Shape s = m->tensors[l->in].shape, o = m->tensors[l->out].shape;
        const float *x = model_tensor(m, l->in);
        size_t count = (size_t)g->n * shape_numel(o);
        if (l->kind == LAYER_RELU || l->kind == LAYER_RELU6) {
            g->mask[li] = malloc(sizeof(float) * count);
            g->cst[li] = malloc(sizeof(float) * count);
            for (size_t i = 0; i < count; i++) {
                bool inside = x[i] > 0.0f && (l->kind == LAYER_RELU || x[i] < 6.0f);
                g->mask[li][i] = inside ? 1.0f : 0.0f;
                g->cst[li][i] = (l->kind == LAYER_RELU6 && x[i] >= 6.0f) ? 6.0f : 0.0f;
            }
        }
        if (l->kind == LAYER_MAXPOOL) {
            g->arg[li] = malloc(sizeof(int) * count);
            for (size_t i = 0; i < count; i++) g->arg[li][i] = pool_winner(l, s, o, x, i);
        }
    }
    g->frozen = true;
}

static Rng g_rng;

static float urand(float lo, float hi) { return rng_uniform_range(&g_rng, lo, hi); }

/* Inputs */
enum XKind { X_UNIFORM, X_AWAY, X_AWAY6, X_SPACED };

static void fill_x(float *x, size_t count, enum XKind kind)
{
    for (size_t i = 0; i < count; i++) {
        float v = urand(-1.0f, 1.0f);
        if (kind == X_AWAY) v = (v < 0 ? -0.1f : 0.1f) + 0.9f * v;           /* |v| >= 0.1 */
        if (kind == X_AWAY6) {                                               /* (-2, 8) away from 0 and 6 */
            v = urand(-2.0f, 8.0f);
            if (fabsf(v) < 0.1f || fabsf(v - 6.0f) < 0.1f) v += 0.25f;
        }
        x[i] = v;
    }
    if (kind == X_SPACED) { /* a shuffled ladder: distinct values 0.05 apart */
        int32_t *idx = malloc(sizeof(int32_t) * count);
        for (size_t i = 0; i < count; i++) idx[i] = (int32_t)i;
        rng_shuffle(&g_rng, idx, (int)count);
        for (size_t i = 0; i < count; i++) x[i] = 0.05f * ((float)idx[i] - 0.5f * (float)count);
        free(idx);
    }
}

/* After model_finalize: random BN gamma/beta (not 1/0) and, for eval
 * checks, random running statistics. Linear/conv keep init.c's values. */
static void randomize_bn(Model *m, bool running)
{
    for (int i = 0; i < m->nlayers; i++) {
        const Layer *l = &m->layers[i];
        if (l->kind != LAYER_BATCHNORM) continue;
        int c = (int)l->weight_count;
        float *p = m->params + l->param_off;
        for (int j = 0; j < c; j++) { p[j] = urand(0.5f, 1.5f); p[c + j] = urand(-0.5f, 0.5f); }
        if (running && m->bn_track_stats) {
            float *st = m->state + l->state_off;
            for (int j = 0; j < c; j++) { st[j] = urand(-0.5f, 0.5f); st[c + j] = urand(0.5f, 1.5f); }
        }
    }
}

/* Allocate the loss side once the model is final. */
static void gc_setup(Gc *g, int n, enum XKind xk, bool ce)
{
    Model *m = &g->m;
    /* Every layer on its own: the frozen forward replaces each relu layer,
     * which a batch norm with the relu fused in would have done itself.
     * tests/test_fuse.c checks the fused layers give the same bits. */
    m->fuse_act = false;
    int classes = model_classes(m);
    size_t nx = (size_t)n * shape_numel(m->tensors[m->input].shape), ny = (size_t)n * classes;
    g->n = n;
    g->ce = ce;
    g->step = 7;
    g->x = malloc(sizeof(float) * nx);
    g->r = malloc(sizeof(float) * ny);
    g->labels = malloc(sizeof(int32_t) * (size_t)n);
    g->probs = malloc(sizeof(float) * ny);
    g->dlogits = malloc(sizeof(float) * ny);
    fill_x(g->x, nx, xk);
    for (size_t i = 0; i < ny; i++) g->r[i] = urand(-1.0f, 1.0f);
    for (int i = 0; i < n; i++) g->labels[i] = (int32_t)rng_below(&g_rng, (uint32_t)classes);
}

static void gc_free(Gc *g)
{
    for (int li = 0; g->frozen && li < g->m.nlayers; li++) {
        free(g->mask[li]);
        free(g->cst[li]);
        free(g->arg[li]);
    }
    free(g->mask);
    free(g->cst);
    free(g->arg);
    model_free(&g->m);
    free(g->x);
    free(g->r);
    free(g->labels);
    free(g->probs);
    free(g->dlogits);
}

typedef struct CheckOpt {
    float h;           /* finite-difference step */
    int max_samples;   /* entries per tensor; all when the tensor is smaller */
    bool model;        /* whole model: frozen kinks, floor relative to the largest gradient */
    double floor;      /* absolute floor of the error's denominator */
    bool quick;        /* compare QUICK_MODEL_ENTRIES of the samples (the quick tier) */
} CheckOpt;

/* Whether sample s of ns is compared: all, or in the quick tier the first
 * and the middle one. */
static bool compared(const CheckOpt *o, size_t s, size_t ns)
{
    return !o->quick || ns <= QUICK_MODEL_ENTRIES || s == 0 || s == ns / 2;
}

/* Check dL/dv for count floats at v against ga; one line. */
static bool check_array(Gc *g, const char *what, float *v, const float *ga, size_t count, const CheckOpt *o)
{
    size_t ns = count <= (size_t)o->max_samples ? count : (size_t)o->max_samples;
    size_t *at = malloc(sizeof(size_t) * ns);
    double *num = malloc(sizeof(double) * ns);
    bool *have = malloc(sizeof(bool) * ns);
    for (size_t s = 0; s < ns; s++) {
        if (ns == count) at[s] = s;
        else if (s == 0) at[s] = 0;
        else if (s == ns - 1) at[s] = count - 1;
        else at[s] = (size_t)((double)s / (double)ns * (double)count) + rng_below(&g_rng, (uint32_t)(count / ns));
        if (at[s] >= count) at[s] = count - 1;
    }
    loss_at(g);
    uint64_t base = pattern(&g->m);
    double den = o->floor;
    size_t kinks = 0, ne = 0;
    for (size_t s = 0; s < ns; s++) {
        if (!compared(o, s, ns)) continue;
        ne++;
        have[s] = numeric(g, &v[at[s]], o->h, base, &num[s]);
        den = fmax(den, fabs(num[s]));
        if (!have[s]) kinks++;
    }
    double worst = 0.0;
    size_t worst_at = 0;
    for (size_t s = 0; s < ns; s++) {
        if (!compared(o, s, ns)) continue;
        double e = fabs((double)ga[at[s]] - num[s]) / den;
        if (isnan(e)) e = INFINITY;
        if (e > worst) { worst = e; worst_at = s; }
    }
    /* inputs are nudged away from kinks and ties, models run frozen: a
     * finite difference that crosses one anyway is a broken check */
    bool kink_ok = kinks == 0;
    char name[400], kinkmsg[64] = "";
    if (kinks) snprintf(kinkmsg, sizeof kinkmsg, "; %zu cross a kink", kinks);
    snprintf(name, sizeof name, "gradcheck %.120s: d%.60s rel err %.1e (tol %.0e, %zu/%zu entries%s)", g->name, what, worst,
             TOL, ne, count, kinkmsg);
    bool ok = t_checkf(worst <= TOL && kink_ok, name, "at [%zu]: analytic %.7g, numeric %.7g%s", at[worst_at],
                       (double)ga[at[worst_at]], have[worst_at] ? num[worst_at] : NAN,
                       kink_ok ? "" : " (a step crossed a kink or a tie)");
    free(at);
    free(num);
    free(have);
    return ok;
}

/* Every parameter tensor (except the "head" layers of SHARED) and dL/dx. */
static void check_model(Gc *g, const CheckOpt *o, bool params_only)
{
    Model *m = &g->m;
    analytic(g);
    float *grads = malloc(sizeof(float) * (m->nparams ? m->nparams : 1));
    memcpy(grads, m->grads, sizeof(float) * m->nparams);
    size_t nx = (size_t)g->n * shape_numel(m->tensors[m->input].shape);
    float *dx = NULL;
    if (g->dx_tensor >= 0 && !params_only) {
        dx = malloc(sizeof(float) * nx);
        memcpy(dx, model_tensor_grad(m, g->dx_tensor), sizeof(float) * nx);
    }
    ParamInfo pl[256]; /* resnet50: 161 tensors */
    int np = model_param_list(m, pl, 256);
    CheckOpt oo = *o;
    if (o->model) { /* the floor is relative to the model's largest gradient */
        double gmax = 0.0;
        for (size_t j = 0; j < m->nparams; j++) gmax = fmax(gmax, fabs((double)grads[j]));
        oo.floor = fmax(o->floor, 1e-2 * gmax);
        freeze(g);
    }
    for (int i = 0; i < np && i < 256; i++)
        if (strncmp(pl[i].name, "head", 4) != 0)
            check_array(g, pl[i].name, m->params + pl[i].off, grads + pl[i].off, pl[i].count, &oo);
    if (dx) check_array(g, "input", g->x, dx, nx, &oo);
    free(grads);
    free(dx);
}

/* ---- single layers --------------------------------------------------------- */

typedef struct Spec {
    const char *name;
    LayerKind kind;
    Shape in;
    int n;
    int cout, k, stride, pad, groups;
    bool bias;
    float p;           /* dropout */
    bool eval, notrack;
    enum XKind x;
    float hx;          /* step for inputs (params: 1e-2) */
    int max_samples;
} Spec;

static int build_layer(Model *m, int t, const Spec *s)
{
    switch (s->kind) {
    case LAYER_LINEAR: return mb_linear(m, "layer", t, s->cout, s->bias);
    case LAYER_CONV2D: return mb_conv2d(m, "layer", t, s->cout, s->k, s->stride, s->pad, s->groups, s->bias);
    case LAYER_RELU: return mb_relu(m, t);
    case LAYER_RELU6: return mb_relu6(m, t);
    case LAYER_MAXPOOL: return mb_maxpool(m, t, s->k, s->stride, s->pad);
    case LAYER_AVGPOOL: return mb_avgpool(m, t, s->k, s->stride, s->pad);
    case LAYER_GLOBAL_AVGPOOL: return mb_global_avgpool(m, t);
    case LAYER_BATCHNORM: return mb_batchnorm(m, "layer", t);
    case LAYER_DROPOUT: return mb_dropout(m, t, s->p);
    case LAYER_FLATTEN: return mb_flatten(m, t);
    default: return -1;
    }
}

static void check_layer(const Spec *s, bool shared)
{
    Gc g;
    memset(&g, 0, sizeof g);
    char name[160];
    snprintf(name, sizeof name, "%s%s", s->name, shared ? " [shared input]" : "");
    g.name = name;
    Model *m = &g.m;
    model_begin(m, s->name, s->in);
    m->conv_algo = t_conv;
    m->bn_track_stats = !s->notrack;
    int t = mb_dropout(m, m->input, 0.0f); /* identity: its output's gradient is dL/dx */
    g.dx_tensor = t;
    int y = build_layer(m, t, s);
    if (shared) { /* t read twice: y's path and a head of its own */
        int a = mb_linear(m, "head_a", y, 5, true), b = mb_linear(m, "head_b", t, 5, true);
        mb_add(m, a, b);
    }
    model_finalize(m, s->n + 1, 11); /* max batch > batch: the last, partial batch of an epoch */
    randomize_bn(m, s->eval);
    m->training = !s->eval;
    gc_setup(&g, s->n, s->x, false);
    CheckOpt o = { 1e-2f, s->max_samples ? s->max_samples : 100000, false, 1e-3, false };
    /* parameters with h = 1e-2 (the loss is linear in them, except BN gamma/beta
     * which it is also linear in); inputs with the spec's step */
    analytic(&g);
    float *grads = malloc(sizeof(float) * (m->nparams ? m->nparams : 1));
    memcpy(grads, m->grads, sizeof(float) * m->nparams);
    size_t nx = (size_t)g.n * shape_numel(s->in);
    float *dx = malloc(sizeof(float) * nx);
    memcpy(dx, model_tensor_grad(m, t), sizeof(float) * nx);
    ParamInfo pl[8];
    int np = model_param_list(m, pl, 8);
    for (int i = 0; i < np && i < 8; i++)
        if (strncmp(pl[i].name, "head", 4) != 0)
            check_array(&g, pl[i].name, m->params + pl[i].off, grads + pl[i].off, pl[i].count, &o);
    o.h = s->hx ? s->hx : 1e-2f;
    check_array(&g, "input", g.x, dx, nx, &o);
    free(grads);
    free(dx);
    gc_free(&g);
}

static const Spec SPECS[] = {
    /* name                        kind                  in          n  cout k s p g  bias  p  eval notrack x */
    { "linear 10->6 +bias", LAYER_LINEAR, { 10, 1, 1 }, 3, 6, 0, 1, 0, 1, true, 0, false, false, X_UNIFORM, 0, 0 },
    { "linear 2x3x3->4 nobias", LAYER_LINEAR, { 2, 3, 3 }, 2, 4, 0, 1, 0, 1, false, 0, false, false, X_UNIFORM, 0, 0 },
    { "conv k3 s1 p1 g1 +bias", LAYER_CONV2D, { 3, 6, 6 }, 2, 4, 3, 1, 1, 1, true, 0, false, false, X_UNIFORM, 0, 0 },
    { "conv k3 s2 p1 g2 nobias", LAYER_CONV2D, { 4, 7, 7 }, 2, 6, 3, 2, 1, 2, false, 0, false, false, X_UNIFORM, 0, 0 },
    { "conv k3 s1 p2 depthwise +bias", LAYER_CONV2D, { 4, 5, 5 }, 2, 4, 3, 1, 2, 4, true, 0, false, false, X_UNIFORM, 0, 0 },
    { "conv k3 s2 p2 depthwise nobias", LAYER_CONV2D, { 3, 6, 6 }, 2, 3, 3, 2, 2, 3, false, 0, false, false, X_UNIFORM, 0, 0 },
    /* depthwise convs run the direct kernels (core/conv/path_depthwise.c): MobileNetV2's
     * k3 s1/s2 p1; blocks of several images with a partial last block (15x15: 3
     * images per block, batch 4; 36x36 s2: 2 per block, batch 3); stride 3 (9
     * phase planes), k5 (taps two phase rows deep), k1 */
    { "dw conv k3 s1 p1 nobias", LAYER_CONV2D, { 6, 7, 7 }, 2, 6, 3, 1, 1, 6, false, 0, false, false, X_UNIFORM, 0, 0 },
    { "dw conv k3 s2 p1 nobias", LAYER_CONV2D, { 5, 8, 8 }, 2, 5, 3, 2, 1, 5, false, 0, false, false, X_UNIFORM, 0, 0 },
    { "dw conv k3 s1 p1 blocks 3+1", LAYER_CONV2D, { 3, 15, 15 }, 4, 3, 3, 1, 1, 3, true, 0, false, false, X_UNIFORM, 0, 300 },
    { "dw conv k3 s2 p1 blocks 2+1", LAYER_CONV2D, { 2, 36, 36 }, 3, 2, 3, 2, 1, 2, false, 0, false, false, X_UNIFORM, 0, 300 },
    { "dw conv k3 s3 p0 nobias", LAYER_CONV2D, { 3, 10, 11 }, 2, 3, 3, 3, 0, 3, false, 0, false, false, X_UNIFORM, 0, 0 },
    { "dw conv k5 s2 p2 +bias", LAYER_CONV2D, { 3, 9, 9 }, 2, 3, 5, 2, 2, 3, true, 0, false, false, X_UNIFORM, 0, 0 },
    { "dw conv k1 s1 p0 +bias", LAYER_CONV2D, { 4, 3, 3 }, 2, 4, 1, 1, 0, 4, true, 0, false, false, X_UNIFORM, 0, 0 },
    { "conv k3 s1 p1 g4 channel multiplier 2", LAYER_CONV2D, { 4, 5, 5 }, 2, 8, 3, 1, 1, 4, false, 0, false, false, X_UNIFORM, 0, 0 },
    { "conv k1 s1 p0 g1 +bias", LAYER_CONV2D, { 3, 5, 5 }, 2, 5, 1, 1, 0, 1, true, 0, false, false, X_UNIFORM, 0, 0 },
    { "conv k1 s2 p0 g2 nobias", LAYER_CONV2D, { 4, 6, 6 }, 2, 2, 1, 2, 0, 2, false, 0, false, false, X_UNIFORM, 0, 0 },
    { "conv k3 s2 p0 g1 +bias", LAYER_CONV2D, { 2, 8, 8 }, 2, 3, 3, 2, 0, 1, true, 0, false, false, X_UNIFORM, 0, 0 },
    { "conv k3 s1 p0 g2 +bias", LAYER_CONV2D, { 4, 6, 6 }, 2, 4, 3, 1, 0, 2, true, 0, false, false, X_UNIFORM, 0, 0 },
    { "conv k3 s1 p1 batch 1", LAYER_CONV2D, { 2, 5, 5 }, 1, 3, 3, 1, 1, 1, true, 0, false, false, X_UNIFORM, 0, 0 },
    /* 48x48 planes: conv2d_chunk puts 2 images per GEMM, so batch 3 takes two chunks */
    { "conv k3 s1 p1 chunked 3x48x48", LAYER_CONV2D, { 1, 48, 48 }, 3, 2, 3, 1, 1, 1, true, 0, false, false, X_UNIFORM, 0, 300 },
    { "relu", LAYER_RELU, { 3, 4, 4 }, 2, 0, 0, 1, 0, 1, false, 0, false, false, X_AWAY, 0, 0 },
    { "relu6", LAYER_RELU6, { 3, 4, 4 }, 2, 0, 0, 1, 0, 1, false, 0, false, false, X_AWAY6, 0, 0 },
    { "maxpool k2 s2", LAYER_MAXPOOL, { 2, 6, 6 }, 2, 0, 2, 2, 0, 1, false, 0, false, false, X_SPACED, 0, 0 },
    { "maxpool k3 s2 p1", LAYER_MAXPOOL, { 2, 7, 7 }, 2, 0, 3, 2, 1, 1, false, 0, false, false, X_SPACED, 0, 0 },
    { "avgpool k2 s2", LAYER_AVGPOOL, { 2, 6, 6 }, 2, 0, 2, 2, 0, 1, false, 0, false, false, X_UNIFORM, 0, 0 },
    { "avgpool k3 s2 p1", LAYER_AVGPOOL, { 2, 7, 7 }, 2, 0, 3, 2, 1, 1, false, 0, false, false, X_UNIFORM, 0, 0 },
    { "avgpool k3 s1 p1", LAYER_AVGPOOL, { 2, 5, 5 }, 2, 0, 3, 1, 1, 1, false, 0, false, false, X_UNIFORM, 0, 0 },
    { "global avgpool", LAYER_GLOBAL_AVGPOOL, { 4, 3, 5 }, 2, 0, 0, 1, 0, 1, false, 0, false, false, X_UNIFORM, 0, 0 },
    { "batchnorm train", LAYER_BATCHNORM, { 3, 4, 4 }, 3, 0, 0, 1, 0, 1, false, 0, false, false, X_UNIFORM, 1e-3f, 0 },
    { "batchnorm eval (running stats)", LAYER_BATCHNORM, { 3, 4, 4 }, 3, 0, 0, 1, 0, 1, false, 0, true, false, X_UNIFORM, 1e-3f, 0 },
    { "batchnorm untracked train", LAYER_BATCHNORM, { 3, 4, 4 }, 3, 0, 0, 1, 0, 1, false, 0, false, true, X_UNIFORM, 1e-3f, 0 },
    { "batchnorm untracked eval", LAYER_BATCHNORM, { 3, 4, 4 }, 3, 0, 0, 1, 0, 1, false, 0, true, true, X_UNIFORM, 1e-3f, 0 },
    { "batchnorm on vectors train", LAYER_BATCHNORM, { 6, 1, 1 }, 5, 0, 0, 1, 0, 1, false, 0, false, false, X_UNIFORM, 1e-3f, 0 },
    { "dropout p=0.3 train", LAYER_DROPOUT, { 3, 4, 4 }, 2, 0, 0, 1, 0, 1, false, 0.3f, false, false, X_UNIFORM, 0, 0 },
    { "dropout p=0.3 eval", LAYER_DROPOUT, { 3, 4, 4 }, 2, 0, 0, 1, 0, 1, false, 0.3f, true, false, X_UNIFORM, 0, 0 },
    { "flatten", LAYER_FLATTEN, { 2, 3, 3 }, 2, 0, 0, 1, 0, 1, false, 0, false, false, X_UNIFORM, 0, 0 },
};

/* ---- add: the graph shapes that make gradients accumulate ------------------ */

static void check_add(int variant)
{
    static const char *names[] = { "add(t, t)", "residual add(conv(t), t)", "add(add(t, conv(t)), t)",
                                   "add(input, conv(input))", "add(conv(input), input)" };
    Gc g;
    memset(&g, 0, sizeof g);
    g.name = names[variant];
    Model *m = &g.m;
    Shape in = { 3, 5, 5 };
    model_begin(m, g.name, in);
    int x = m->input, t = variant < 3 ? mb_dropout(m, x, 0.0f) : -1;
    g.dx_tensor = t;
    if (variant == 0) mb_add(m, t, t); /* one layer reads t twice */
    if (variant == 1) mb_add(m, mb_conv2d(m, "conv", t, 3, 3, 1, 1, 1, true), t);
    if (variant == 2) /* t read three times; the inner add writes dt after the outer one did */
        mb_add(m, mb_add(m, t, mb_conv2d(m, "conv", t, 3, 3, 1, 1, 1, true)), t);
    /* the model input as an operand: the other operand still needs its gradient */
    if (variant == 3) mb_add(m, x, mb_conv2d(m, "conv", x, 3, 3, 1, 1, 1, true));
    if (variant == 4) mb_add(m, mb_conv2d(m, "conv", x, 3, 3, 1, 1, 1, true), x);
    model_finalize(m, 2, 5);
    gc_setup(&g, 2, X_UNIFORM, false);
    CheckOpt o = { 1e-2f, 100000, false, 1e-3, false };
    check_model(&g, &o, false);
    gc_free(&g);
}

/* ---- the loss ------------------------------------------------------------------ */

static void check_softmax_ce(void)
{
    enum { N = 3, C = 7 };
    float z[N * C], probs[N * C], d[N * C];
    int32_t y[N] = { 2, 0, 6 };
    for (int i = 0; i < N * C; i++) z[i] = urand(-3.0f, 3.0f);
    z[1 * C + 4] = 12.0f; /* a confident wrong answer: large logits stay stable */
    int correct = -1;
    double sum = softmax_ce_forward_cpu(z, y, N, C, probs, &correct);
    double ref = 0.0;
    int ref_correct = 0;
    for (int i = 0; i < N; i++) {
        double s = 0.0;
        int arg = 0;
        for (int j = 0; j < C; j++) {
            s += exp((double)z[i * C + j]);
            if (z[i * C + j] > z[i * C + arg]) arg = j;
        }
        ref += log(s) - z[i * C + y[i]];
        ref_correct += arg == y[i];
    }
    t_checkf(fabs(sum - ref) <= 1e-6 * fabs(ref) && correct == ref_correct,
             "softmax_ce_forward_cpu: summed loss and correct count match a double reference", "loss %.10g vs %.10g, correct %d vs %d",
             sum, ref, correct, ref_correct);
    softmax_ce_backward_cpu(probs, y, N, C, 1.0f / N, d);
    double worst = 0.0, den = 1e-3;
    double num[N * C];
    for (int i = 0; i < N * C; i++) {
        float orig = z[i];
        double l[2];
        for (int s = 0; s < 2; s++) {
            z[i] = orig + (s ? -1e-3f : 1e-3f);
            l[s] = 0.0;
            for (int a = 0; a < N; a++) {
                double mx = -INFINITY, e = 0.0;
                for (int j = 0; j < C; j++) mx = fmax(mx, z[a * C + j]);
                for (int j = 0; j < C; j++) e += exp((double)z[a * C + j] - mx);
                l[s] += (mx + log(e) - z[a * C + y[a]]) / N;
            }
        }
        float up = orig + 1e-3f, dn = orig - 1e-3f;
        z[i] = orig;
        num[i] = (l[0] - l[1]) / ((double)up - (double)dn);
        den = fmax(den, fabs(num[i]));
    }
    for (int i = 0; i < N * C; i++) worst = fmax(worst, fabs(num[i] - d[i]) / den);
    char name[200];
    snprintf(name, sizeof name, "gradcheck softmax cross-entropy (mean): dlogits rel err %.1e (tol %.0e)", worst, TOL);
    t_checkf(worst <= TOL, name, "worst entry off");
}

static void check_ce_linear(void)
{
    Gc g;
    memset(&g, 0, sizeof g);
    g.name = "linear 8->5 + cross-entropy loss";
    Model *m = &g.m;
    model_begin(m, g.name, (Shape){ 8, 1, 1 });
    g.dx_tensor = mb_dropout(m, m->input, 0.0f);
    mb_linear(m, "fc", g.dx_tensor, 5, true);
    model_finalize(m, 4, 3);
    gc_setup(&g, 4, X_UNIFORM, true);
    for (size_t i = 0; i < 4 * 8; i++) g.x[i] *= 3.0f; /* logits of a few units */
    CheckOpt o = { 1e-3f, 100000, false, 1e-3, false };
    check_model(&g, &o, false);
    gc_free(&g);
}

/* ---- whole models ------------------------------------------------------------------ */

static void check_zoo(const char *label, const char *model, Shape in, int n, float width, int h0, int h1,
                      float dropout, bool eval, int samples)
{
    Gc g;
    memset(&g, 0, sizeof g);
    g.name = label;
    g.dx_tensor = -1;
    ModelConfig cfg = model_config_default(model, in, 5);
    cfg.conv = t_conv;
    cfg.width = width;
    cfg.hidden[0] = h0;
    cfg.hidden[1] = h1;
    cfg.dropout = dropout;
    char err[256];
    char name[160];
    snprintf(name, sizeof name, "gradcheck %s: model_build", label);
    if (!t_checkf(model_build(&g.m, model, &cfg, n, 21, err) == 0, name, "%s", err)) return;
    randomize_bn(&g.m, false);
    gc_setup(&g, n, X_UNIFORM, true);
    if (eval) { /* running statistics from a few training forwards, then eval */
        for (int i = 0; i < 3; i++) loss_at(&g);
        g.m.training = false;
    }
    CheckOpt o = { 3e-3f, samples, true, 1e-6, g_quick };
    check_model(&g, &o, true);
    gc_free(&g);
}

/* ---- conventions a finite difference cannot see ----------------------------------- */

static void check_kinks_and_ties(void)
{
    float x[6] = { -1.0f, 0.0f, 0.5f, 6.0f, 7.0f, 3.0f }, dy[6] = { 1, 1, 1, 1, 1, 1 }, dx[6];
    relu_backward_cpu(x, dy, dx, 6, false);
    t_checkf(dx[0] == 0 && dx[1] == 0 && dx[2] == 1 && dx[3] == 1 && dx[4] == 1,
             "relu backward: gradient 0 at x <= 0 (exactly 0 included), 1 above", "dx = %g %g %g %g %g",
             dx[0], dx[1], dx[2], dx[3], dx[4]);
    relu6_backward_cpu(x, dy, dx, 6, false);
    t_checkf(dx[0] == 0 && dx[1] == 0 && dx[2] == 1 && dx[3] == 0 && dx[4] == 0 && dx[5] == 1,
             "relu6 backward: gradient only strictly inside (0, 6)", "dx = %g %g %g %g %g %g", dx[0], dx[1], dx[2],
             dx[3], dx[4], dx[5]);
    /* 1 plane 2x4, k2 s2: window 0 = {5, 5 | 1, 5} (tie), window 1 = {2, 3 | 3, 0} */
    float p[8] = { 5, 5, 2, 3, 1, 5, 3, 0 }, py[2], pdy[2] = { 1.0f, 2.0f }, pdx[8];
    maxpool_forward_cpu(p, py, 1, 2, 4, 2, 2, 0, 1, 2);
    maxpool_backward_cpu(p, pdy, pdx, 1, 2, 4, 2, 2, 0, 1, 2, false);
    t_checkf(py[0] == 5 && py[1] == 3 && pdx[0] == 1 && pdx[1] == 0 && pdx[5] == 0 && pdx[3] == 2 && pdx[6] == 0,
             "maxpool ties: the first maximum in scan order takes the gradient", "dx = %g %g %g %g %g %g %g %g",
             pdx[0], pdx[1], pdx[2], pdx[3], pdx[4], pdx[5], pdx[6], pdx[7]);
    /* all-padding-free edge: a window whose values are all negative */
    float q[4] = { -3, -1, -2, -4 }, qy[1], qdx[4];
    float qdy[1] = { 1.0f };
    maxpool_forward_cpu(q, qy, 1, 2, 2, 3, 2, 1, 1, 1);
    maxpool_backward_cpu(q, qdy, qdx, 1, 2, 2, 3, 2, 1, 1, 1, false);
    t_checkf(qy[0] == -1 && qdx[1] == 1 && qdx[0] == 0,
             "maxpool with padding: padding never wins over negative inputs", "y = %g, dx[1] = %g", qy[0], qdx[1]);
    /* avg pooling counts padding: k3 s1 p1 on a 1x1 plane of 9 -> 1 */
    float a[1] = { 9.0f }, ay[1];
    avgpool_forward_cpu(a, ay, 1, 1, 1, 3, 1, 1, 1, 1);
    t_checkf(ay[0] == 1.0f, "avgpool counts padding (count_include_pad=True)", "9 / 9 expected 1, got %g", ay[0]);
}

static void check_dropout_masks(void)
{
    Model m;
    enum { N = 4, C = 250 };
    model_begin(&m, "dropout", (Shape){ C, 1, 1 });
    mb_dropout(&m, mb_dropout(&m, m.input, 0.0f), 0.4f);
    model_finalize(&m, N, 99);
    float *x = malloc(sizeof(float) * N * C), *a = malloc(sizeof(float) * N * C), *b = malloc(sizeof(float) * N * C);
    for (int i = 0; i < N * C; i++) x[i] = urand(0.5f, 1.5f);
    m.step = 3;
    memcpy(a, model_forward(&m, x, N), sizeof(float) * N * C);
    t_check(m.step == 4, "dropout: a training forward advances the step");
    m.step = 3;
    memcpy(b, model_forward(&m, x, N), sizeof(float) * N * C);
    t_check(memcmp(a, b, sizeof(float) * N * C) == 0, "dropout: same seed and step -> same mask");
    model_forward(&m, x, N); /* step 4 */
    int differ = 0, zeros = 0, scaled = 0;
    const float *c = model_tensor(&m, m.output);
    for (int i = 0; i < N * C; i++) {
        differ += (c[i] == 0.0f) != (b[i] == 0.0f);
        zeros += b[i] == 0.0f;
        scaled += b[i] != 0.0f && fabsf(b[i] - x[i] / 0.6f) <= 1e-6f * fabsf(b[i]);
    }
    t_checkf(differ > 0, "dropout: the next step draws a different mask", "identical masks at steps 3 and 4");
    double frac = (double)zeros / (N * C);
    t_checkf(frac > 0.3 && frac < 0.5 && scaled == N * C - zeros,
             "dropout p=0.4: ~40% dropped, survivors scaled by 1/(1-p)", "dropped %.3f, %d of %d kept scaled right",
             frac, scaled, N * C - zeros);
    /* backward of step 3's forward uses step 3's mask */
    m.step = 3;
    model_forward(&m, x, N);
    float *dl = malloc(sizeof(float) * N * C);
    for (int i = 0; i < N * C; i++) dl[i] = 1.0f;
    model_backward(&m, dl);
    const float *g = model_tensor_grad(&m, 1);
    int bad = 0;
    for (int i = 0; i < N * C; i++) bad += (g[i] == 0.0f) != (b[i] == 0.0f);
    t_checkf(bad == 0 && m.step == 4, "dropout: backward uses its forward's mask and leaves the step",
             "%d gradients disagree with the mask, step %llu", bad, (unsigned long long)m.step);
    m.training = false;
    const float *e = model_forward(&m, x, N);
    t_check(memcmp(e, x, sizeof(float) * N * C) == 0 && m.step == 4, "dropout: eval mode is the identity");
    free(x);
    free(a);
    free(b);
    free(dl);
    model_free(&m);
}

/* The depthwise kernels split work over (image block, channel) units and
 * sum the weight gradient over blocks in a fixed order: the same bits on
 * any thread count (a data-parallel run must not change with cores). */
static void check_depthwise_threads(void)
{
#ifdef _OPENMP
    enum { N = 9, C = 16, H = 14, K = 3, P = 1 };
    int threads0 = omp_get_max_threads();
    for (int s = 1; s <= 2; s++) {
        int O = (H + 2 * P - K) / s + 1;
        size_t nx = (size_t)N * C * H * H, ny = (size_t)N * C * O * O, nw = (size_t)C * K * K;
        float *x = malloc(sizeof(float) * nx), *w = malloc(sizeof(float) * nw), *dy = malloc(sizeof(float) * ny);
        float *y[2], *dx[2], *dw[2];
        for (size_t i = 0; i < nx; i++) x[i] = urand(-1.0f, 1.0f);
        for (size_t i = 0; i < ny; i++) dy[i] = urand(-1.0f, 1.0f);
        for (size_t i = 0; i < nw; i++) w[i] = urand(-1.0f, 1.0f);
        for (int v = 0; v < 2; v++) {
            omp_set_num_threads(v ? 3 : 1);
            y[v] = malloc(sizeof(float) * ny);
            dx[v] = malloc(sizeof(float) * nx);
            dw[v] = calloc(nw, sizeof(float));
            depthwise_forward_cpu(x, w, NULL, y[v], N, C, H, H, K, s, P, O, O);
            depthwise_backward_cpu(x, dy, w, dw[v], dx[v], N, C, H, H, K, s, P, O, O, false);
        }
        omp_set_num_threads(threads0);
        char name[160];
        snprintf(name, sizeof name, "depthwise kernels stride %d: output and gradients bit-identical on 1 and 3 threads", s);
        t_check(!memcmp(y[0], y[1], sizeof(float) * ny) && !memcmp(dx[0], dx[1], sizeof(float) * nx) &&
                    !memcmp(dw[0], dw[1], sizeof(float) * nw), name);
        for (int v = 0; v < 2; v++) {
            free(y[v]);
            free(dx[v]);
            free(dw[v]);
        }
        free(x);
        free(w);
        free(dy);
    }
#else
    t_skip("depthwise kernels on 1 and 3 threads", "built without OpenMP");
#endif
}

/* Channel j's mean and sum of squared deviations, two passes in double. */
static void channel_reference(const float *x, int N, int C, int P, int j, double *mean, double *ss)
{
    double s = 0;
    for (int i = 0; i < N; i++)
        for (int q = 0; q < P; q++) s += x[(i * C + j) * P + q];
    *mean = s / (N * P);
    *ss = 0;
    for (int i = 0; i < N; i++)
        for (int q = 0; q < P; q++) *ss += pow(x[(i * C + j) * P + q] - *mean, 2);
}

static void check_running_stats(void)
{
    enum { N = 3, C = 2, P = 5 };
    float x[N * C * P], y[N * C * P], gamma[C] = { 1.2f, 0.7f }, beta[C] = { 0.1f, -0.2f };
    float rm[C] = { 0.3f, -0.1f }, rv[C] = { 1.5f, 0.8f }, sm[C], si[C];
    for (int i = 0; i < N * C * P; i++) x[i] = urand(-2.0f, 3.0f);
    batchnorm_forward_train_cpu(x, y, gamma, beta, N, C, P, 1e-5f, 0.1f, rm, rv, sm, si, 0);
    double worst = 0.0;
    float rm0[C] = { 0.3f, -0.1f }, rv0[C] = { 1.5f, 0.8f };
    for (int j = 0; j < C; j++) {
        double mean, ss;
        channel_reference(x, N, C, P, j, &mean, &ss);
        double em = 0.9 * rm0[j] + 0.1 * mean, ev = 0.9 * rv0[j] + 0.1 * ss / (N * P - 1);
        worst = fmax(worst, fmax(fabs(rm[j] - em) / fabs(em), fabs(rv[j] - ev) / ev));
        double inv = 1.0 / sqrt(ss / (N * P) + 1e-5);
        for (int i = 0; i < N; i++)
            for (int q = 0; q < P; q++) {
                int k = (i * C + j) * P + q;
                worst = fmax(worst, fabs(y[k] - ((x[k] - mean) * inv * gamma[j] + beta[j])) / 3.0);
            }
    }
    char name[200];
    snprintf(name, sizeof name,
             "batchnorm train: output, running mean and unbiased running var (momentum 0.1) rel err %.1e (tol 1e-5)",
             worst);
    t_checkf(worst <= 1e-5, name, "off");
}

/* Statistics of channels far from zero (mean 1e6, std ~1-2; -3e4, std
 * ~0.5): the one-pass shifted moments (core/cpu/batchnorm.c) must match a
 * two-pass double reference. Unshifted sums would lose them: at 1e6 the
 * sum of squares cancels 12 digits, and their error (~1e-4 of var even in
 * double) fails the 1e-5 here. P = 300: whole lanes and a tail. */
static void check_stats_far_from_zero(void)
{
    enum { N = 4, C = 2, P = 300 };
    static float x[N * C * P], y[N * C * P];
    float gamma[C] = { 1.0f, 1.0f }, beta[C] = { 0.0f, 0.0f }, rm[C] = { 0, 0 }, rv[C] = { 1, 1 }, sm[C], si[C];
    const float centre[C] = { 1e6f, -3e4f }, spread[C] = { 3.0f, 0.8f };
    for (int i = 0; i < N; i++)
        for (int j = 0; j < C; j++)
            for (int q = 0; q < P; q++) x[(i * C + j) * P + q] = centre[j] + urand(-spread[j], spread[j]);
    batchnorm_forward_train_cpu(x, y, gamma, beta, N, C, P, 1e-5f, 1.0f, rm, rv, sm, si, 0);
    double worst = 0.0;
    for (int j = 0; j < C; j++) {
        double mean, ss;
        channel_reference(x, N, C, P, j, &mean, &ss);
        double inv = 1.0 / sqrt(ss / (N * P) + 1e-5), unbiased = ss / (N * P - 1);
        worst = fmax(worst, fmax(fabs(si[j] - inv) / inv, fabs(rv[j] - unbiased) / unbiased));
        float mf = (float)mean, ulp = nextafterf(fabsf(mf), INFINITY) - fabsf(mf);
        if (fabs(sm[j] - mean) > ulp) worst = fmax(worst, 1.0); /* the mean: within a float step of the exact one */
    }
    char name[200];
    snprintf(name, sizeof name, "batchnorm train: statistics of channels at mean 1e6 and -3e4 rel err %.1e (tol 1e-5)",
             worst);
    t_checkf(worst <= 1e-5, name, "off");
}

static void check_sgd(void)
{
    enum { K = 5 };
    const float w0[K] = { 0.5f, -1.0f, 2.0f, 0.0f, -0.25f };
    const float g1[K] = { 0.1f, 0.2f, -0.3f, 0.4f, 0.0f }, g2[K] = { -0.2f, 0.1f, 0.1f, -0.5f, 0.3f };
    for (int variant = 0; variant < 3; variant++) {
        float lr = 0.1f, mu = variant == 0 ? 0.0f : 0.9f, wd = 0.01f;
        bool nesterov = variant == 2;
        float w[K], v[K] = { 0 };
        double rw[K], rv[K] = { 0 };
        memcpy(w, w0, sizeof w);
        for (int i = 0; i < K; i++) rw[i] = w0[i];
        for (int s = 0; s < 2; s++) {
            const float *g = s ? g2 : g1;
            sgd_update_cpu(w, g, v, K, lr, mu, wd, nesterov);
            for (int i = 0; i < K; i++) { /* torch.optim.SGD, dampening 0, buffer starts as the first d_p */
                double d = g[i] + wd * rw[i];
                rv[i] = s == 0 ? d : mu * rv[i] + d;
                double stepv = mu == 0.0f ? d : (nesterov ? d + mu * rv[i] : rv[i]);
                rw[i] -= lr * stepv;
            }
        }
        double worst = 0.0;
        for (int i = 0; i < K; i++) worst = fmax(worst, fabs(w[i] - rw[i]));
        char name[200];
        snprintf(name, sizeof name, "sgd %s, weight decay: two steps as torch.optim.SGD, max err %.1e (tol 1e-6)",
                 variant == 0 ? "no momentum" : nesterov ? "momentum 0.9 nesterov" : "momentum 0.9", worst);
        t_checkf(worst <= 1e-6, name, "off");
    }
}

/* init.c: PyTorch's reset_parameters ranges (weights and biases uniform on
 * +-1/sqrt(fan_in), fan_in = (cin/groups)*k*k), BN 1/0 with running 0/1,
 * and when asked torchvision's kaiming_normal(fan_out) for convs and
 * MobileNetV2's N(0, 0.01) weights with zero biases for linears. Checked
 * by range and by the sample standard deviation (bound/sqrt(3) for the
 * uniform, sqrt(2/fan_out) or 0.01 for the normals; 10% covers sampling
 * error at these sizes), plus a different seed giving different weights. */
static void check_init(void)
{
    for (int variant = 0; variant < 3; variant++) {
        bool kaiming = variant > 0, lin001 = variant == 2;
        Model m;
        model_begin(&m, "init", (Shape){ 16, 12, 12 });
        m.conv_init = kaiming ? INIT_KAIMING_OUT : INIT_TORCH_DEFAULT;
        m.linear_init = lin001 ? INIT_NORMAL_001 : INIT_TORCH_DEFAULT;
        int t = mb_conv2d(&m, "conv", m.input, 64, 3, 1, 1, 2, true);
        t = mb_batchnorm(&m, "bn", t);
        mb_linear(&m, "fc", mb_global_avgpool(&m, t), 300, true);
        model_finalize(&m, 1, 5);
        ParamInfo pl[8];
        int np = model_param_list(&m, pl, 8);
        bool ok = np == 6;
        char why[256] = "";
        for (int i = 0; i < np && ok; i++) {
            const float *w = m.params + pl[i].off;
            size_t n = pl[i].count;
            double s = 0, ss = 0, lo = INFINITY, hi = -INFINITY;
            for (size_t j = 0; j < n; j++) {
                s += w[j];
                ss += (double)w[j] * w[j];
                lo = fmin(lo, w[j]);
                hi = fmax(hi, w[j]);
            }
            double mean = s / n, sd = sqrt(fmax(ss / n - mean * mean, 0.0));
            const Layer *l = &m.layers[pl[i].layer];
            if (l->kind == LAYER_BATCHNORM) {
                double want = strstr(pl[i].name, "weight") ? 1.0 : 0.0;
                if (lo != want || hi != want) snprintf(why, sizeof why, "%.47s not all %g", pl[i].name, want);
                continue;
            }
            double fan_in = (double)(l->weight_count / (size_t)l->cout), bound = 1.0 / sqrt(fan_in);
            if (lin001 && l->kind == LAYER_LINEAR && strstr(pl[i].name, "bias")) {
                if (lo != 0.0 || hi != 0.0) snprintf(why, sizeof why, "%.47s not all 0", pl[i].name);
                continue;
            }
            bool conv_normal = kaiming && l->kind == LAYER_CONV2D && strstr(pl[i].name, "weight");
            bool lin_normal = lin001 && l->kind == LAYER_LINEAR;
            bool normal = conv_normal || lin_normal;
            double want_sd = conv_normal ? sqrt(2.0 / (l->cout * l->k * l->k)) : lin_normal ? 0.01 : bound / sqrt(3.0);
            if ((!normal && (lo < -bound || hi > bound)) || fabs(sd / want_sd - 1.0) > 0.1)
                snprintf(why, sizeof why, "%.47s: range [%.4g, %.4g], sd %.4g; want %s %.4g, sd %.4g", pl[i].name, lo,
                         hi, sd, normal ? "normal, sd" : "within +-", normal ? want_sd : bound, want_sd);
            if (why[0]) ok = false;
        }
        const float *st = m.state;
        for (int j = 0; j < 64 && !why[0]; j++)
            if (st[j] != 0.0f || st[64 + j] != 1.0f) snprintf(why, sizeof why, "BN running stats not 0 / 1");
        Model m2;
        model_begin(&m2, "init", (Shape){ 16, 12, 12 });
        m2.conv_init = m.conv_init;
        m2.linear_init = m.linear_init;
        mb_linear(&m2, "fc", mb_global_avgpool(&m2, mb_batchnorm(&m2, "bn", mb_conv2d(&m2, "conv", m2.input, 64, 3, 1, 1, 2, true))), 300, true);
        model_finalize(&m2, 1, 6);
        if (!why[0] && memcmp(m.params, m2.params, sizeof(float) * pl[0].count) == 0)
            snprintf(why, sizeof why, "seeds 5 and 6 give the same conv weights");
        char name[160];
        snprintf(name, sizeof name, "init (%s): PyTorch's ranges, BN 1/0 and 0/1, seed-dependent",
                 lin001 ? "kaiming_normal convs, N(0, 0.01) linears" : kaiming ? "kaiming_normal fan_out convs" : "PyTorch defaults");
        t_checkf(!why[0], name, "%s", why);
        model_free(&m);
        model_free(&m2);
    }
}

/* The same checks with a path forced by its --conv value (core/conv/pick.c;
 * the default picks by shape): k, the filter side of the layers the
 * path takes (3 where its row forces 3x3 layers, 1 where 1x1 ones).
 * Their forward passes and input gradients against finite differences.
 * vgg_zoo false: a path whose row allows more error than CONV_REL_ERROR
 * (Winograd F(4x4,3x3)) leaves out the vgg11 model, whose first conv bias
 * (its true gradient 0: a batch norm follows) measured 4.6e-4 of
 * finite-difference noise, 1.1e-2 of the tensor's scale: F(4x4) rounds
 * about 20x more than im2col (test_conv_paths), and a float difference
 * quotient cannot resolve that; its layers are checked here, and vgg11
 * with F(4x4) against PyTorch in test_torch. */
static void check_forced(ConvAlgo algo, int k, bool vgg_zoo)
{
    t_conv = algo;
    const char *key = conv_algo_name(algo);
    char name[160];
    for (size_t i = 0; i < sizeof SPECS / sizeof SPECS[0]; i++) {
        const Spec *s = &SPECS[i];
        if (s->kind != LAYER_CONV2D || s->k != k || s->stride != 1 || s->pad != (k - 1) / 2 || s->groups != 1)
            continue;
        Spec w = *s;
        snprintf(name, sizeof name, "%s [%s]", s->name, key);
        w.name = name;
        check_layer(&w, false);
        check_layer(&w, true);
    }
    if (k == 3) {
        snprintf(name, sizeof name, "resnet18 x0.125 3x16x16 [%s]", key);
        check_zoo(name, "resnet18", (Shape){ 3, 16, 16 }, 2, 0.125f, 0, 0, -1.0f, false, 16);
        snprintf(name, sizeof name, "vgg11 x0.0625 3x32x32 [%s]", key);
        if (vgg_zoo) check_zoo(name, "vgg11", (Shape){ 3, 32, 32 }, 4, 0.0625f, 0, 0, -1.0f, false, 16);
        else t_left_out(name, "finite differences cannot resolve this path's rounding on this model; test_torch checks it "
                              "against PyTorch (check_forced)");
    } else {
        snprintf(name, sizeof name, "mobilenetv2 x0.125 1x16x16 eval [%s]", key);
        check_zoo(name, "mobilenetv2", (Shape){ 1, 16, 16 }, 2, 0.125f, 0, 0, -1.0f, true, 4);
    }
    t_conv = CONV_ALGO_AUTO;
}

/* check_forced for every --conv value past auto and reference, from the
 * table's rows (core/conv/conv.c): a new path is checked here without a
 * line of this file. A value the CPU cannot run (cudnn) prints one skip
 * line saying why. */
static void check_forced_paths(void)
{
    const unsigned K3 = CONV_KIND(3X3_S1) | CONV_KIND(3X3_S2), K1 = CONV_KIND(1X1_S1) | CONV_KIND(1X1_S2);
    for (ConvAlgo a = CONV_ALGO_REFERENCE + 1; a < conv_algo_count(); a++) {
        const ConvPathRow *row = &CONV_PATHS[conv_path_named(conv_algo_name(a))];
        char why[512], name[96];
        if (conv_algo_check(a, ddl_backend_cpu.conv, why, sizeof why) != 0) {
            snprintf(name, sizeof name, "finite differences [%s]", conv_algo_name(a));
            t_skip(name, why);
            continue;
        }
        bool vgg_zoo = conv_row_rel_error(row) <= CONV_REL_ERROR;
        if (row->forces & K3) check_forced(a, 3, vgg_zoo);
        if (row->forces & K1) check_forced(a, 1, vgg_zoo);
    }
}

int main(void)
{
    g_rng = rng_make(2024, "gradcheck");
    g_quick = t_quick("every sampled entry of the whole models' tensors (here %d of each tensor's 4-24)",
                      QUICK_MODEL_ENTRIES);
    for (size_t i = 0; i < sizeof SPECS / sizeof SPECS[0]; i++) {
        check_layer(&SPECS[i], false);
        check_layer(&SPECS[i], true);
    }
    for (int v = 0; v < 5; v++) check_add(v);
    check_softmax_ce();
    check_ce_linear();
    check_zoo("mlp 1x6x6 (12, 8)", "mlp", (Shape){ 1, 6, 6 }, 3, 1.0f, 12, 8, -1.0f, false, 24);
    check_zoo("cnn3 x0.125 1x12x12", "cnn3", (Shape){ 1, 12, 12 }, 3, 0.125f, 0, 0, -1.0f, false, 24);
    check_zoo("cnn3 x0.125 1x12x12 dropout 0.25", "cnn3", (Shape){ 1, 12, 12 }, 3, 0.125f, 0, 0, 0.25f, false, 24);
    check_zoo("resnet18 x0.125 3x16x16", "resnet18", (Shape){ 3, 16, 16 }, 2, 0.125f, 0, 0, -1.0f, false, 16);
    check_zoo("resnet18 x0.125 3x8x8 eval", "resnet18", (Shape){ 3, 8, 8 }, 2, 0.125f, 0, 0, -1.0f, true, 16);
    check_zoo("vgg11 x0.0625 3x32x32", "vgg11", (Shape){ 3, 32, 32 }, 4, 0.0625f, 0, 0, -1.0f, false, 16);
    /* seed 003's models: few entries per tensor (161 and 158 tensors; the
     * PyTorch fixtures check every gradient in full), in eval mode: fifty
     * layers of batch norm over a few values per channel in training mode
     * curve the loss too much for a float finite difference (measured: 4%
     * to 100% off at h = 3e-3; eval: <= 5e-3) */
    check_zoo("resnet50 x0.0625 1x16x16 eval", "resnet50", (Shape){ 1, 16, 16 }, 2, 0.0625f, 0, 0, -1.0f, true, 4);
    check_zoo("mobilenetv2 x0.125 1x16x16 eval", "mobilenetv2", (Shape){ 1, 16, 16 }, 2, 0.125f, 0, 0, -1.0f, true, 4);
    check_zoo("sdss_dnn 10 (12, 8)", "sdss_dnn", (Shape){ 10, 1, 1 }, 4, 1.0f, 12, 8, 0.25f, false, 24);
    check_forced_paths();
    check_kinks_and_ties();
    check_dropout_masks();
    check_depthwise_threads();
    check_running_stats();
    check_stats_far_from_zero();
    check_sgd();
    check_init();
    return t_done();
}
