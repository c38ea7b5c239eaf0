/* test_backend_models.c - whole models on every usable backend against the
 * CPU backend: cnn3 (with dropout), vgg11, resnet18 and mobilenetv2 at
 * narrow widths, one training step in FP32 and in FP16 mixed precision,
 * and an eval-mode forward; then the FP32 step again once per --conv
 * value past auto and reference, from the rows of core/conv/conv.c's
 * table (im2col, Winograd F(2x2) and F(4x4), fused Winograd, the direct
 * 3x3 and the pointwise 1x1 kernels, cuDNN), the path forced on both
 * sides on every layer its row forces and it can take, on each model
 * where it takes a layer; cuDNN runs on the backends that have it (a GPU,
 * in a build with cuDNN: the CPU side then runs its own rule), twice (the
 * same bits); a backend that cannot run a value prints one skip line,
 * saying why.
 *
 * For each backend of backend_usable() (the CPU always; a GPU or an
 * emulated GPU where the build and the machine have one), the model is
 * built twice from one seed: on the CPU (the reference) and on that
 * backend. Both see the same batch. Compared, through the host views:
 *   initial parameters      bit for bit (drawn on the host, uploaded)
 *   logits and loss         TOL_FWD relative (to the largest |value|)
 *   weight gradients        TOL_GRAD per parameter tensor (relative to the
 *                           tensor's largest |value|, but at least
 *                           ARENA_FLOOR of the whole arena's: a tensor
 *                           whose true gradient is 0, e.g. a conv bias or
 *                           a BN shift right before a batch norm, holds
 *                           only rounding noise)
 *   BN running statistics   TOL_GRAD
 *   parameters after SGD    TOL_STEP
 *   eval-mode logits        TOL_FWD (running statistics, no dropout)
 *   FP16 mixed precision    loss TOL_F16_LOSS; the weight gradients'
 *                           direction (cosine >= MIN_F16_COSINE); master
 *                           weights after the step TOL_F16_STEP relative
 *                           to the largest |weight|. Looser: a GPU stores
 *                           FP16 GEMM operands and the CPU emulates by
 *                           rounding, so only summation order differs,
 *                           but an ulp of difference before a rounding
 *                           point is a half-ulp (1e-3) after it, and deep
 *                           nets at batch 3 amplify that through batch
 *                           norm and ReLU masks (MobileNetV2 at this size
 *                           moves more between FP16 and FP32 on the CPU
 *                           than between backends, so it is left out).
 * Up to MAX_CLAMP_FLIPS clamp flips allow looser limits for the gradients
 * and the step (TOL_GRAD_FLIP, TOL_STEP_FLIP: why, where they are defined).
 * On a device backend the FP32 step runs twice: both runs must agree bit
 * for bit (determinism).
 * Against the CPU backend itself every tolerance is 0: two builds of one
 * model must agree bit for bit. Shapes are small: the emulated GPU runs
 * every CUDA thread on the CPU.
 *
 * Quick tier (make test; make test-full runs the rest): the default pass
 * on all four models and every backend, as above, but the FP16 step and
 * the determinism rerun on resnet18 only (batch norm and residual adds
 * under mixed precision; the most kernels with reductions for a rerun)
 * and each forced pass on one model (forced_models: the first, in SPECS'
 * order, cheapest first, where the path takes the largest share of the
 * convolutions: seen 2026-11-29, cnn3 for im2col, Winograd F(2x2) and
 * F(4x4) and the direct kernels, vgg11 for fused Winograd, which leaves
 * some of cnn3's layers to the rule, mobilenetv2 for the pointwise
 * kernels, and cnn3 for cuDNN where it runs (every layer of every
 * model); the program took 28 s as with the former hand-picked models.
 * Cheapest first: the direct and fused Winograd kernels cost 10-20x more
 * on resnet18 than on cnn3 on the emulated GPU, measured 2026-11-27 at
 * c53debc, wall at load 8: 24 and 16 s against 2 and 0.9 s).
 * That runs every path, every check and every model once; what it leaves out is
 * the same kernels again on other models' shapes, which the kernels'
 * own tests (test_conv_paths, test_cuda_kernels) sweep. The sanitizer
 * build, 2-3x slower, runs the forced passes on mobilenetv2 (the
 * pointwise one) on the CPU only (san_quick_cpu): whole mobilenetv2 on
 * the emulated GPU there was 40% of this program's time (2026-11-27,
 * c53debc), and test_cuda_kernels_emu runs the emulated pointwise kernels
 * under the sanitizers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/registry.h"
#include "util/common.h"
#include "harness.h"
#include "mixed/mixed.h"
#include "model/model.h"
#include "train/train.h"

#define TOL_FWD 1e-4
#define TOL_GRAD 1e-3
#define TOL_STEP 1e-4
/* Up to MAX_CLAMP_FLIPS clamp flips (clamp_flips) allow TOL_GRAD_FLIP and
 * TOL_STEP_FLIP instead. Seen on an NVIDIA H200: mobilenetv2 with its
 * first convolution by Winograd, whose GEMMs cuBLAS sums in another order
 * than OpenBLAS, had 1 of 61440 ReLU6 outputs clamped on one side only;
 * that one value moved the gradients by 1.7e-3 and the stepped parameters
 * by 3.4e-4, while the logits agreed within TOL_FWD. The same model with
 * 1-ulp noise on its input (30 draws, on the CPU) moves them by 2e-5 at
 * most, flipping nothing. More flips than MAX_CLAMP_FLIPS keep the strict
 * limits: a wrong kernel flips many. */
#define MAX_CLAMP_FLIPS 2
#define TOL_GRAD_FLIP 1e-2
#define TOL_STEP_FLIP 1e-3
#define TOL_F16_LOSS 1e-2
#define MIN_F16_COSINE 0.98
#define TOL_F16_STEP 3e-2
#define REL_FLOOR 1e-6
#define ARENA_FLOOR 1e-2

typedef struct Spec {
    const char *name;
    float width;
    int batch;
    float dropout; /* <0: the model's default */
    bool fp16;     /* also one mixed-precision step */
    bool san_quick_cpu; /* the sanitizer build's quick tier runs its forced passes on the CPU only */
} Spec;

/* Cheapest first: the quick tier's forced passes take the first of the
 * models where their path's share of the convolutions is largest. */
static const Spec SPECS[] = {
    { "cnn3", 0.25f, 4, 0.25f, true, false },
    { "vgg11", 0.0625f, 3, -1.0f, false, false },
    { "resnet18", 0.0625f, 3, -1.0f, true, false }, /* its 1x1 shortcuts have stride 2 */
    { "mobilenetv2", 0.125f, 3, -1.0f, false, true },
};

/* One model on one backend, with its trainer and its batch there. */
typedef TSide Side;

static void side_init(Side *s, const Spec *sp, const Backend *be, const float *x, const int32_t *y)
{
    t_side_init(s, sp->name, sp->width, sp->dropout, sp->batch, be, x, y);
}

/* Worst relative error over the parameter tensors of two host copies of
 * a parameter-shaped arena; *worst names the tensor. */
static double worst_tensor(const Model *m, const float *got, const float *want, char *worst, size_t cap)
{
    ParamInfo pi[256];
    int np = model_param_list(m, pi, 256);
    if (np > 256) ddl_die("more than 256 parameter tensors");
    double amax = 0.0, e = 0.0;
    for (size_t i = 0; i < m->nparams; i++) amax = fmax(amax, fabs((double)want[i]));
    double lo = fmax(REL_FLOOR, ARENA_FLOOR * amax);
    for (int i = 0; i < np; i++) {
        double d = t_rel_err(got + pi[i].off, want + pi[i].off, pi[i].count, lo);
        if (d > e || (i == 0 && d == e)) {
            e = d;
            ddl_strlcpy(worst, pi[i].name, cap);
        }
    }
    return e;
}

static float *host_params(const Model *m, bool grads)
{
    float *h = ddl_alloc(sizeof(float) * m->nparams);
    if (grads) model_grads_to_host(m, h);
    else model_params_to_host(m, h);
    return h;
}

static bool compare_arena(const char *what, const Side *ref, const Side *dev, bool grads, double tol,
                          const char *label)
{
    float *a = host_params(&dev->m, grads), *b = host_params(&ref->m, grads);
    char worst[48] = "";
    double e = worst_tensor(&ref->m, a, b, worst, sizeof worst);
    bool ok = t_checkf(e <= tol, label, "%s: relative error %.3g in %s (limit %.0e)", what, e, worst, tol);
    if (ok && tol > 0.0) printf("# %s: relative error %.3g in %s\n", what, e, worst); /* how close, in a GPU's log */
    ddl_free(a);
    ddl_free(b);
    return ok;
}

/* Clamp flips: layer outputs that hold an exact 0 or 6 (a ReLU or ReLU6
 * clamp) on one side only. A rounding-level difference that moves one
 * value across a clamp changes which gradients pass, by far more than the
 * rounding itself (see TOL_GRAD_FLIP). print: name the layers. */
static size_t clamp_flips(const Side *ref, const Side *dev, bool print)
{
    size_t all = 0;
    for (int i = 0; i < ref->m.nlayers; i++) {
        int t = ref->m.layers[i].out;
        size_t n = (size_t)ref->m.batch * shape_numel(ref->m.tensors[t].shape), flips = 0;
        float *a = ddl_alloc(sizeof(float) * (n ? n : 1)), *b = ddl_alloc(sizeof(float) * (n ? n : 1));
        model_tensor_to_host(&dev->m, t, false, a);
        model_tensor_to_host(&ref->m, t, false, b);
        for (size_t j = 0; j < n; j++) flips += ((a[j] == 0.0f) != (b[j] == 0.0f)) || ((a[j] == 6.0f) != (b[j] == 6.0f));
        if (flips && print)
            printf("# layer %d (%s %s): %zu of %zu outputs clamped (0 or 6) on one side only\n", i,
                   layer_kind_name(ref->m.layers[i].kind), ref->m.layers[i].name, flips, n);
        all += flips;
        ddl_free(a);
        ddl_free(b);
    }
    if (!all && print) printf("# no layer output is clamped (0 or 6) on one side only\n");
    return all;
}

static void compare_output(const Side *ref, const Side *dev, double tol, const char *label)
{
    size_t n = (size_t)ref->m.batch * (size_t)model_classes(&ref->m);
    float *a = ddl_alloc(sizeof(float) * n), *b = ddl_alloc(sizeof(float) * n);
    t_poison(a, n);
    model_tensor_to_host(&dev->m, dev->m.output, false, a);
    model_tensor_to_host(&ref->m, ref->m.output, false, b);
    double e = t_rel_err(a, b, n, REL_FLOOR);
    t_checkf(e <= tol, label, "relative error %.3g (limit %.0e)", e, tol);
    ddl_free(a);
    ddl_free(b);
}

static void compare_state(const Side *ref, const Side *dev, double tol, const char *label)
{
    size_t n = ref->m.nstate;
    float *a = ddl_alloc(sizeof(float) * (n ? n : 1)), *b = ddl_alloc(sizeof(float) * (n ? n : 1));
    model_state_to_host(&dev->m, a);
    model_state_to_host(&ref->m, b);
    double e = n ? t_rel_err(a, b, n, REL_FLOOR) : 0.0;
    t_checkf(e <= tol, label, "relative error %.3g (limit %.0e)", e, tol);
    ddl_free(a);
    ddl_free(b);
}

static double tol(const Backend *be, double t) { return backend_is_cpu(be) ? 0.0 : t; }

static bool same_bits(const float *a, const float *b, size_t n) { return memcmp(a, b, sizeof(float) * n) == 0; }

/* The same step once more on the same backend, from the same seed and
 * batch: every value must come out with the same bits (core/cuda/README.md
 * promises determinism: no atomics, fixed reduction trees, cuBLAS with a
 * fixed configuration). A GPU's differences from the CPU are rounding; a
 * difference between two runs on the GPU is a race or an uninitialised
 * read. `done` has run trainer_forward_backward, trainer_step and an
 * eval-mode forward. */
static void same_again(const Spec *sp, const Backend *be, const float *x, const int32_t *y, const Side *done)
{
    Side again;
    side_init(&again, sp, be, x, y);
    int c = 0;
    trainer_forward_backward(&again.t, again.x, again.y, sp->batch, &c);
    float *g1 = host_params(&done->m, true), *g2 = host_params(&again.m, true);
    trainer_step(&again.t);
    float *p1 = host_params(&done->m, false), *p2 = host_params(&again.m, false);
    model_set_training(&again.m, false);
    model_forward(&again.m, again.x, sp->batch);
    size_t n = (size_t)sp->batch * (size_t)model_classes(&again.m), np = done->m.nparams;
    float *o1 = ddl_alloc(sizeof(float) * n), *o2 = ddl_alloc(sizeof(float) * n);
    model_tensor_to_host(&done->m, done->m.output, false, o1);
    model_tensor_to_host(&again.m, again.m.output, false, o2);
    size_t dg = 0;
    for (size_t i = 0; i < np; i++) dg += memcmp(&g1[i], &g2[i], sizeof(float)) != 0;
    bool sp_same = same_bits(p1, p2, np), so_same = same_bits(o1, o2, n);
    char label[160];
    snprintf(label, sizeof label, "%s %s: a second run gives the same bits (gradients, stepped parameters, eval logits)",
             be->name, sp->name);
    t_checkf(dg == 0 && sp_same && so_same, label, "%zu of %zu gradients differ; parameters %s; eval logits %s", dg,
             np, sp_same ? "same" : "differ", so_same ? "same" : "differ");
    float *frees[] = { g1, g2, p1, p2, o1, o2 };
    for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++) ddl_free(frees[i]);
    t_side_free(&again);
}

/* The quick tier's one model for the FP16 step and the determinism rerun (see the header). */
#define QUICK_MODEL "resnet18"

static void fp32_step(const Spec *sp, const Backend *be, const float *x, const int32_t *y, bool again)
{
    Side ref, dev;
    side_init(&ref, sp, backend_cpu(), x, y);
    side_init(&dev, sp, be, x, y);
    char label[160], who[64];
    const char *algo = t_conv == CONV_ALGO_AUTO ? NULL : conv_algo_name(t_conv); /* the forced passes (main) say so */
    snprintf(who, sizeof who, "%s%s%s", be->name, algo ? " conv=" : "", algo ? algo : "");
    snprintf(label, sizeof label, "%s %s w%g: initial parameters equal the cpu's", who, sp->name, (double)sp->width);
    compare_arena("params", &ref, &dev, false, 0.0, label);

    int cr = 0, cd = 0;
    double lr = trainer_forward_backward(&ref.t, ref.x, ref.y, sp->batch, &cr);
    double ld = trainer_forward_backward(&dev.t, dev.x, dev.y, sp->batch, &cd);
    snprintf(label, sizeof label, "%s %s: training logits vs cpu", who, sp->name);
    compare_output(&ref, &dev, tol(be, TOL_FWD), label);
    snprintf(label, sizeof label, "%s %s: loss and correct count vs cpu", who, sp->name);
    t_checkf(fabs(ld - lr) <= tol(be, TOL_FWD) * fabs(lr) && (backend_is_cpu(be) ? cd == cr : abs(cd - cr) <= 1),
             label, "loss %.9g vs %.9g, correct %d vs %d", ld, lr, cd, cr);
    size_t flips = backend_is_cpu(be) ? 0 : clamp_flips(&ref, &dev, false);
    bool few = flips > 0 && flips <= MAX_CLAMP_FLIPS;
    char note[64] = "";
    if (few) snprintf(note, sizeof note, " (%zu clamp flip%s)", flips, flips > 1 ? "s" : "");
    snprintf(label, sizeof label, "%s %s: weight gradients vs cpu%s", who, sp->name, note);
    if (!compare_arena("grads", &ref, &dev, true, tol(be, few ? TOL_GRAD_FLIP : TOL_GRAD), label))
        clamp_flips(&ref, &dev, true);
    snprintf(label, sizeof label, "%s %s: batch-norm running statistics vs cpu", who, sp->name);
    compare_state(&ref, &dev, tol(be, TOL_GRAD), label);

    trainer_step(&ref.t);
    trainer_step(&dev.t);
    snprintf(label, sizeof label, "%s %s: parameters after one SGD step vs cpu%s", who, sp->name, note);
    compare_arena("params", &ref, &dev, false, tol(be, few ? TOL_STEP_FLIP : TOL_STEP), label);

    model_set_training(&ref.m, false);
    model_set_training(&dev.m, false);
    model_forward(&ref.m, ref.x, sp->batch);
    model_forward(&dev.m, dev.x, sp->batch);
    snprintf(label, sizeof label, "%s %s: eval-mode logits vs cpu", who, sp->name);
    compare_output(&ref, &dev, tol(be, TOL_FWD), label);
    /* cuDNN's algorithms are chosen deterministic (core/cuda/conv_cudnn.cu): checked too */
    if (again && !backend_is_cpu(be) && (!algo || t_conv == conv_algo_named("cudnn")))
        same_again(sp, be, x, y, &dev);
    t_side_free(&ref);
    t_side_free(&dev);
}

static double cosine(const float *a, const float *b, size_t n)
{
    double ab = 0.0, aa = 0.0, bb = 0.0;
    for (size_t i = 0; i < n; i++) {
        ab += (double)a[i] * b[i];
        aa += (double)a[i] * a[i];
        bb += (double)b[i] * b[i];
    }
    return aa > 0.0 && bb > 0.0 ? ab / sqrt(aa * bb) : (aa == bb ? 1.0 : 0.0);
}

static void fp16_step(const Spec *sp, const Backend *be, const float *x, const int32_t *y)
{
    Side ref, dev;
    side_init(&ref, sp, backend_cpu(), x, y);
    side_init(&dev, sp, be, x, y);
    Mixed mr, md;
    mixed_init(&mr, &ref.m, true, 1024.0f, 2000);
    mixed_init(&md, &dev.m, true, 1024.0f, 2000);
    int cr = 0, cd = 0;
    double lr = mixed_forward_backward(&mr, &ref.t, ref.x, ref.y, sp->batch, &cr);
    double ld = mixed_forward_backward(&md, &dev.t, dev.x, dev.y, sp->batch, &cd);
    char label[160];
    snprintf(label, sizeof label, "%s %s: fp16 mixed-precision loss vs cpu [%s]", be->name, sp->name, mixed_kind(&md));
    t_checkf(fabs(ld - lr) <= tol(be, TOL_F16_LOSS) * fabs(lr), label, "loss %.9g vs %.9g", ld, lr);
    float *a = host_params(&dev.m, true), *b = host_params(&ref.m, true);
    double c = cosine(a, b, ref.m.nparams), want = backend_is_cpu(be) ? 1.0 : MIN_F16_COSINE;
    snprintf(label, sizeof label, "%s %s: fp16 weight gradients point the cpu's way", be->name, sp->name);
    t_checkf(backend_is_cpu(be) ? memcmp(a, b, sizeof(float) * ref.m.nparams) == 0 : c >= want, label,
             "cosine %.6f (at least %.2f)", c, want);
    bool sr = mixed_step(&mr, &ref.t.opt, ref.m.grads), sd = mixed_step(&md, &dev.t.opt, dev.m.grads);
    dev.m.be->to_host(a, md.master, sizeof(float) * dev.m.nparams);
    ref.m.be->to_host(b, mr.master, sizeof(float) * ref.m.nparams);
    double e = t_rel_err(a, b, ref.m.nparams, REL_FLOOR);
    snprintf(label, sizeof label, "%s %s: fp16 master weights after the step vs cpu", be->name, sp->name);
    t_checkf(e <= tol(be, TOL_F16_STEP) && sr == sd, label, "relative error %.3g (limit %.0e), step taken %d vs %d",
             e, tol(be, TOL_F16_STEP), sd, sr);
    ddl_free(a);
    ddl_free(b);
    mixed_free(&mr);
    mixed_free(&md);
    t_side_free(&ref);
    t_side_free(&dev);
}

/* The convolutions of a model, and how many of them take path p under
 * t_conv on be (where the model is sized: core/conv/pick.c). */
static int layers_taking(const Spec *sp, const Backend *be, ConvPath p, int *convs)
{
    ModelConfig cfg = model_config_default(sp->name, (Shape){ 0, 0, 0 }, 0);
    char err[256];
    cfg.width = sp->width;
    cfg.dropout = sp->dropout;
    cfg.backend = be;
    cfg.conv = t_conv;
    Model m;
    if (model_build(&m, sp->name, &cfg, sp->batch, 11, err) != 0) ddl_die("%s", err);
    int n = 0;
    *convs = 0;
    for (int i = 0; i < m.nlayers; i++)
        if (m.layers[i].kind == LAYER_CONV2D) {
            ++*convs;
            n += m.layers[i].conv_path == p;
        }
    model_free(&m);
    return n;
}

/* Which models a forced pass runs on (takes[s]: the path takes a layer
 * of it; else the pass would repeat the default one), on be, a backend
 * that runs it; the quick tier's one model (the return): the first,
 * cheapest, of those where the path takes the largest share of the
 * convolutions, so that the path's kernels run between the fewest others
 * (cnn3 for the 3x3 paths, mobilenetv2 for the pointwise one). */
static int forced_models(ConvPath p, const Backend *be, bool takes[])
{
    int quick = -1;
    double best = 0.0;
    for (size_t s = 0; s < sizeof SPECS / sizeof SPECS[0]; s++) {
        int convs, n = layers_taking(&SPECS[s], be, p, &convs);
        takes[s] = n > 0;
        if (n > 0 && (double)n / convs > best) best = (double)n / convs, quick = (int)s;
    }
    return quick;
}

int main(void)
{
    const Backend *bes[8];
    int nb = backend_usable(bes, 8);
    bool quick = t_quick("the forced passes on the other models, FP16 and the determinism rerun on cnn3, vgg11 and "
                         "mobilenetv2 (here: one model per forced pass, FP16 and the rerun on " QUICK_MODEL "%s)",
                         t_sanitized() ? "; the forced passes on mobilenetv2 on the cpu only" : "");
    /* Then the FP32 step once more with each --conv value past auto and
     * reference forced, from the table's rows (core/conv/conv.c: im2col,
     * Winograd F(2x2) and F(4x4), fused Winograd, the direct kernels, the
     * pointwise kernels and cuDNN, each on the layers its row forces and
     * it can take): the CUDA twins of their kernels inside whole models.
     * A model none of whose layers the path takes is left out (the pass
     * would repeat the default one). */
    for (ConvAlgo pass = CONV_ALGO_REFERENCE; pass < conv_algo_count(); pass++) {
        bool forced = pass != CONV_ALGO_REFERENCE; /* the first pass: auto */
        t_conv = forced ? pass : CONV_ALGO_AUTO;
        /* a backend that cannot run the pass (cuDNN without a GPU): one skip line, no models */
        bool runs[8];
        const Backend *first = NULL; /* the first backend that runs it */
        for (int b = 0; b < nb; b++) {
            char why[512], name[96];
            runs[b] = conv_algo_check(t_conv, bes[b]->conv, why, sizeof why) == 0;
            snprintf(name, sizeof name, "%s conv=%s: whole models", bes[b]->name, conv_algo_name(t_conv));
            if (!runs[b]) t_skip(name, why);
            else if (!first) first = bes[b];
        }
        if (!first) continue;
        bool takes[sizeof SPECS / sizeof SPECS[0]];
        int quick_model = forced ? forced_models(conv_path_named(conv_algo_name(t_conv)), first, takes) : -1;
        for (size_t s = 0; s < sizeof SPECS / sizeof SPECS[0]; s++) {
            const Spec *sp = &SPECS[s];
            if (forced && !takes[s]) continue;
            if (quick && forced && (int)s != quick_model) continue;
            bool sampled = !quick || !strcmp(sp->name, QUICK_MODEL); /* FP16 and the rerun */
            float *x;
            int32_t *y;
            t_zoo_batch(sp->name, sp->batch, 5, "backend_models", (int)s, &x, &y);
            for (int b = 0; b < nb; b++) {
                if (!runs[b]) continue;
                if (quick && t_sanitized() && forced && sp->san_quick_cpu && !backend_is_cpu(bes[b])) continue;
                fp32_step(sp, bes[b], x, y, sampled);
                if (sp->fp16 && !forced && sampled) fp16_step(sp, bes[b], x, y);
            }
            ddl_free(x);
            ddl_free(y);
        }
    }
    t_conv = CONV_ALGO_AUTO;
    return t_done();
}
