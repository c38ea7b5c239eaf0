/* test_isa_kernels.c - every kernel of the CPU backend's table (core/cpu:
 * bias, activations, pooling, batch norm, dropout, products and adds,
 * softmax cross-entropy, SGD, FP16) in each instruction-set build this
 * CPU runs (core/cpu/isa.h: AVX2, AVX-512; the others skipped, saying
 * why) against the portable build, the CPU reference, on the same seeded
 * inputs, the variant's outputs poisoned (NaN) first, or, for the
 * kernels that add (acc), the same random values on both sides.
 *
 * Bit for bit: the variants are the same C compiled for wider vectors,
 * and C11 forbids the compiler to contract a*b + c into an FMA
 * (-ffp-contract=off under -std=c11) or to reorder a sum; the hand-made
 * vectors of batch norm's statistics sum in the same 8 lanes on every
 * instruction set (core/cpu/simd.h). The convolutions' kernels of the
 * variants are checked by test_path_<name>.c and test_backend_kernels.c.
 *
 * One table row per kernel call: what it runs on a backend, how many
 * floats it writes, and whether it adds into them. Odd sizes (3 images, 7
 * channels, 37 pixels) leave a remainder past every vector width. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend/registry.h"
#include "cpu/isa.h"
#include "harness.h"
#include "util/bn_act.h"
#include "util/common.h"
#include "util/rng.h"

enum { N = 3, C = 7, P = 37, COUNT = N * C * P, PLANES = N * C, HW = 9, K = 3, S = 2, PAD = 1, OHW = 5 };
enum { OHW2 = HW / 2 }; /* 2x2 stride-2 windows on the odd plane: pool.c's fast paths, and the row and column in none */
enum { OUT = 8 * COUNT };

/* The inputs every row reads, made once. */
typedef struct Fix {
    float x[COUNT], y[COUNT], dy[COUNT], mask[COUNT], gamma[C], beta[C], mean[C], var[C], logits[COUNT];
    float pool_x[PLANES * HW * HW], pool_dy[PLANES * OHW * OHW];
    float pool_ties[PLANES * HW * HW]; /* values in {-1, 0, 1}: windows with equal maxima */
    int32_t labels[N * C];
} Fix;

static Fix F;

typedef void (*Call)(const Backend *b, float *o, bool acc);

/* The rows' calls: o is the outputs, one after another. */
static void bias_add(const Backend *b, float *o, bool acc)
{
    memcpy(o, F.x, sizeof F.x), b->bias_add(o, F.gamma, N, C, P);
}
static void bias_grad(const Backend *b, float *o, bool acc) { b->bias_grad(F.dy, o, N, C, P); }
/* every element-wise activation of the kernel list (core/cpu/kernels.def) */
#define ACTIVATION(KIND, name)                                                                                  \
    static void name##_fwd(const Backend *b, float *o, bool acc) { b->name##_forward(F.x, o, COUNT); }         \
    static void name##_bwd(const Backend *b, float *o, bool acc) { b->name##_backward(F.x, F.dy, o, COUNT, acc); }
#include "cpu/kernels.def"
static void maxpool(const Backend *b, float *o, bool acc)
{
    b->maxpool_forward(F.pool_x, o, PLANES, HW, HW, K, S, PAD, OHW, OHW);
}
static void maxpool_bwd(const Backend *b, float *o, bool acc)
{
    b->maxpool_backward(F.pool_x, F.pool_dy, o, PLANES, HW, HW, K, S, PAD, OHW, OHW, acc);
}
static void maxpool2(const Backend *b, float *o, bool acc)
{
    b->maxpool_forward(F.pool_ties, o, PLANES, HW, HW, 2, 2, 0, OHW2, OHW2);
}
static void maxpool2_bwd(const Backend *b, float *o, bool acc)
{
    b->maxpool_backward(F.pool_ties, F.pool_dy, o, PLANES, HW, HW, 2, 2, 0, OHW2, OHW2, acc);
}
static void avgpool(const Backend *b, float *o, bool acc)
{
    b->avgpool_forward(F.pool_x, o, PLANES, HW, HW, K, S, PAD, OHW, OHW);
}
static void avgpool_bwd(const Backend *b, float *o, bool acc)
{
    b->avgpool_backward(F.pool_dy, o, PLANES, HW, HW, K, S, PAD, OHW, OHW, acc);
}
static void gap(const Backend *b, float *o, bool acc) { b->global_avgpool_forward(F.x, o, PLANES, P); }
static void gap_bwd(const Backend *b, float *o, bool acc) { b->global_avgpool_backward(F.dy, o, PLANES, P, acc); }
/* batch norm, training: y, then the running mean and variance (updated
 * from F's), then the saved mean and inverse deviation; with each act */
static void bn_train(const Backend *b, float *o, int act)
{
    memcpy(o + COUNT, F.mean, sizeof F.mean), memcpy(o + COUNT + C, F.var, sizeof F.var);
    b->batchnorm_forward_train(F.x, o, F.gamma, F.beta, N, C, P, 1e-5f, 0.1f, o + COUNT, o + COUNT + C,
                               o + COUNT + 2 * C, o + COUNT + 3 * C, act);
}
static void bn_train_none(const Backend *b, float *o, bool acc) { bn_train(b, o, BN_ACT_NONE); }
static void bn_train_relu(const Backend *b, float *o, bool acc) { bn_train(b, o, BN_ACT_RELU); }
static void bn_train_relu6(const Backend *b, float *o, bool acc) { bn_train(b, o, BN_ACT_RELU6); }
static void bn_eval(const Backend *b, float *o, bool acc)
{
    b->batchnorm_forward_eval(F.x, o, F.gamma, F.beta, N, C, P, 1e-5f, F.mean, F.var, BN_ACT_RELU6);
}
static void bn_stats(const Backend *b, float *o, bool acc)
{
    b->batchnorm_eval_stats(F.mean, F.var, C, 1e-5f, o, o + C);
}
/* backward: dx, then dgamma and dbeta (added to), from the portable
 * build's saved statistics, with batch and with fixed statistics */
static void bn_bwd(const Backend *b, float *o, bool batch_stats, int act)
{
    float y[COUNT], stats[4 * C];
    memcpy(stats, F.mean, sizeof F.mean), memcpy(stats + C, F.var, sizeof F.var);
    ddl_backend_cpu.batchnorm_forward_train(F.x, y, F.gamma, F.beta, N, C, P, 1e-5f, 0.1f, stats, stats + C,
                                            stats + 2 * C, stats + 3 * C, act);
    memcpy(o + COUNT, F.gamma, sizeof F.gamma), memcpy(o + COUNT + C, F.beta, sizeof F.beta);
    b->batchnorm_backward(F.x, F.dy, o, F.gamma, o + COUNT, o + COUNT + C, N, C, P, stats + 2 * C, stats + 3 * C,
                          batch_stats, false, F.beta, act);
}
static void bn_bwd_batch(const Backend *b, float *o, bool acc) { bn_bwd(b, o, true, BN_ACT_NONE); }
static void bn_bwd_relu(const Backend *b, float *o, bool acc) { bn_bwd(b, o, true, BN_ACT_RELU); }
static void bn_bwd_fixed(const Backend *b, float *o, bool acc) { bn_bwd(b, o, false, BN_ACT_RELU6); }
static void dropout(const Backend *b, float *o, bool acc) { b->dropout_mask(o, COUNT, 0.3f, 7, 11); }
static void mul(const Backend *b, float *o, bool acc) { b->mul(F.x, F.mask, o, COUNT); }
static void mul_bwd(const Backend *b, float *o, bool acc) { b->mul_backward(F.dy, F.mask, o, COUNT, acc); }
static void add(const Backend *b, float *o, bool acc) { b->add(F.x, F.y, o, COUNT); }
static void copy_grad(const Backend *b, float *o, bool acc) { b->copy_grad(F.dy, o, COUNT, acc); }
static void add_relu(const Backend *b, float *o, bool acc) { b->add_relu(F.x, F.y, o, COUNT); }
static void add_relu_bwd(const Backend *b, float *o, bool acc)
{
    b->add_relu_backward(F.y, F.dy, o, acc, o + COUNT, !acc, COUNT);
}
static void scale(const Backend *b, float *o, bool acc) { memcpy(o, F.x, sizeof F.x), b->scale(o, COUNT, 0.37f); }
/* softmax: probs, then the loss and the count of correct predictions */
static void softmax(const Backend *b, float *o, bool acc)
{
    int correct = 0;
    o[N * C * P] = (float)b->softmax_ce_forward(F.logits, F.labels, N * C, P, o, &correct);
    o[N * C * P + 1] = (float)correct;
}
static void softmax_bwd(const Backend *b, float *o, bool acc)
{
    b->softmax_ce_backward(F.y, F.labels, N * C, P, 0.25f, o);
}
/* SGD: the weights, then the velocity, after two steps from F's */
static void sgd(const Backend *b, float *o, bool nesterov)
{
    memcpy(o, F.x, sizeof F.x), memset(o + COUNT, 0, sizeof F.x);
    for (int i = 0; i < 2; i++) b->sgd_update(o, F.dy, o + COUNT, COUNT, 0.1f, 0.9f, 5e-4f, nesterov);
}
static void sgd_plain(const Backend *b, float *o, bool acc) { sgd(b, o, false); }
static void sgd_nesterov(const Backend *b, float *o, bool acc) { sgd(b, o, true); }
static void half_round(const Backend *b, float *o, bool acc)
{
    memcpy(o, F.logits, sizeof F.logits), b->half_round(o, COUNT);
}
static void to_f16(const Backend *b, float *o, bool acc) { b->f32_to_f16(F.logits, (uint16_t *)o, COUNT); }
static void nonfinite(const Backend *b, float *o, bool acc)
{
    float v[COUNT];
    memcpy(v, F.x, sizeof v);
    o[0] = (float)b->nonfinite(v, COUNT);
    v[COUNT - 1] = INFINITY;
    o[1] = (float)b->nonfinite(v, COUNT);
    o[2] = (float)b->labels_outside(F.labels, N * C, 5);
}

static const struct {
    const char *name;
    Call call;
    size_t floats; /* written */
    bool acc;      /* adds into them: the run starts them from the same random values */
} ROWS[] = {
    {"bias_add", bias_add, COUNT, false},
    {"bias_grad", bias_grad, C, true},
#define ACTIVATION(KIND, name)                                                                                  \
    {#name "_forward", name##_fwd, COUNT, false}, {#name "_backward", name##_bwd, COUNT, false},                \
        {#name "_backward acc", name##_bwd, COUNT, true},
#include "cpu/kernels.def"
    {"maxpool_forward", maxpool, PLANES *OHW *OHW, false},
    {"maxpool_backward", maxpool_bwd, PLANES *HW *HW, false},
    {"maxpool_backward acc", maxpool_bwd, PLANES *HW *HW, true},
    {"maxpool_forward 2x2", maxpool2, PLANES *OHW2 *OHW2, false},
    {"maxpool_backward 2x2", maxpool2_bwd, PLANES *HW *HW, false},
    {"maxpool_backward 2x2 acc", maxpool2_bwd, PLANES *HW *HW, true},
    {"avgpool_forward", avgpool, PLANES *OHW *OHW, false},
    {"avgpool_backward acc", avgpool_bwd, PLANES *HW *HW, true},
    {"global_avgpool_forward", gap, PLANES, false},
    {"global_avgpool_backward", gap_bwd, COUNT, false},
    {"batchnorm_forward_train", bn_train_none, COUNT + 4 * C, false},
    {"batchnorm_forward_train relu", bn_train_relu, COUNT + 4 * C, false},
    {"batchnorm_forward_train relu6", bn_train_relu6, COUNT + 4 * C, false},
    {"batchnorm_forward_eval relu6", bn_eval, COUNT, false},
    {"batchnorm_eval_stats", bn_stats, 2 * C, false},
    {"batchnorm_backward", bn_bwd_batch, COUNT + 2 * C, false},
    {"batchnorm_backward relu", bn_bwd_relu, COUNT + 2 * C, false},
    {"batchnorm_backward fixed stats relu6", bn_bwd_fixed, COUNT + 2 * C, false},
    {"dropout_mask", dropout, COUNT, false},
    {"mul", mul, COUNT, false},
    {"mul_backward acc", mul_bwd, COUNT, true},
    {"add", add, COUNT, false},
    {"copy_grad acc", copy_grad, COUNT, true},
    {"add_relu", add_relu, COUNT, false},
    {"add_relu_backward", add_relu_bwd, 2 * COUNT, false},
    {"add_relu_backward acc", add_relu_bwd, 2 * COUNT, true},
    {"scale", scale, COUNT, false},
    {"softmax_ce_forward", softmax, COUNT + 2, false},
    {"softmax_ce_backward", softmax_bwd, COUNT, false},
    {"sgd_update", sgd_plain, 2 * COUNT, false},
    {"sgd_update nesterov", sgd_nesterov, 2 * COUNT, false},
    {"half_round", half_round, COUNT, false},
    {"f32_to_f16", to_f16, COUNT / 2, false},
    {"nonfinite, labels_outside", nonfinite, 3, false},
};

static void fill(Rng *r, float *p, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++) p[i] = rng_uniform_range(r, lo, hi);
}

static void make_inputs(void)
{
    Rng r = rng_make(2026, "isa_kernels");
    fill(&r, F.x, COUNT, -3, 3), fill(&r, F.y, COUNT, -3, 3), fill(&r, F.dy, COUNT, -1, 1);
    for (int i = 0; i < COUNT; i++) F.mask[i] = rng_uniform(&r) < 0.3f ? 0.0f : 1.0f / 0.7f;
    for (int i = 0; i < COUNT; i += 13) F.x[i] = (i % 2) ? 6.0f : 0.0f; /* the activations' kinks */
    fill(&r, F.gamma, C, 0.5f, 1.5f), fill(&r, F.beta, C, -0.5f, 0.5f), fill(&r, F.mean, C, -0.2f, 0.2f);
    fill(&r, F.var, C, 0.5f, 2.0f), fill(&r, F.logits, COUNT, -70000, 70000);
    fill(&r, F.pool_x, PLANES * HW * HW, -2, 2), fill(&r, F.pool_dy, PLANES * OHW * OHW, -1, 1);
    for (int i = 0; i < PLANES * HW * HW; i++) F.pool_ties[i] = (float)(int)(rng_uniform_range(&r, -1.0f, 1.0f) * 1.5f);
    for (int i = 0; i < N * C; i++) F.labels[i] = (int32_t)(rng_uniform(&r) * P);
    F.labels[4] = 9; /* outside 5 classes */
}

static float WANT[OUT], GOT[OUT], START[OUT];

static void check_variant(const Backend *be, const char *isa)
{
    for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
        bool acc = ROWS[i].acc;
        if (acc)
            memcpy(WANT, START, sizeof START), memcpy(GOT, START, sizeof START);
        else
            t_poison(WANT, OUT), t_poison(GOT, OUT);
        ROWS[i].call(&ddl_backend_cpu, WANT, acc);
        ROWS[i].call(be, GOT, acc);
        size_t bad = 0;
        for (size_t k = 0; k < ROWS[i].floats; k++)
            bad += memcmp(&GOT[k], &WANT[k], sizeof(float)) != 0 && !(isnan(GOT[k]) && isnan(WANT[k]));
        if (!t_check(bad == 0, "%s %s: bit-exact vs the portable build", isa, ROWS[i].name))
            printf("# %zu of %zu differ\n", bad, ROWS[i].floats);
    }
}

/* bias_grad_cpu's sum as kernels.def states it (each image's plane in
 * float, in order; the images' sums in double, in order), written out
 * here, against each build: the kernel sums several images' planes side
 * by side, which must leave every chain as it is. 11 images: a group of
 * side-by-side planes and a remainder. */
static void check_bias_grad_order(const Backend *be, const char *isa)
{
    enum { IMGS = 11 };
    static float dy[IMGS * C * P];
    Rng r = rng_make(2026, "isa_kernels_bias_grad");
    fill(&r, dy, IMGS * C * P, -1, 1);
    float want[C], got[C];
    for (int j = 0; j < C; j++) {
        double s = 0.0;
        for (int i = 0; i < IMGS; i++) {
            float t = 0.0f;
            for (int q = 0; q < P; q++) t += dy[((size_t)i * C + j) * P + q];
            s += t;
        }
        want[j] = 0.5f + (float)s, got[j] = 0.5f;
    }
    be->bias_grad(dy, got, IMGS, C, P);
    t_check(memcmp(want, got, sizeof want) == 0, "%s bias_grad of %d images: the sum in kernels.def's order, bit-exact",
            isa, IMGS);
}

int main(void)
{
    make_inputs();
    check_bias_grad_order(&ddl_backend_cpu, "portable");
    Rng r = rng_make(2026, "isa_kernels_start");
    fill(&r, START, OUT, -1, 1);
    int ran = 0;
    for (int i = DDL_ISA_PORTABLE + 1; i < DDL_ISA_COUNT; i++) {
        const char *why;
        if (!ddl_isa_runs((DdlIsa)i, &why)) {
            t_skip(ddl_isa_name((DdlIsa)i), why);
            continue;
        }
        check_variant(backend_cpu_isa(i), ddl_isa_name((DdlIsa)i));
        check_bias_grad_order(backend_cpu_isa(i), ddl_isa_name((DdlIsa)i));
        ran++;
    }
    if (!ran) printf("# no instruction-set variant runs here: nothing to compare with the portable build\n");
    return t_done();
}
