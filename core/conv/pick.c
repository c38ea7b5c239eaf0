/* pick.c - which path each convolution takes: --conv's values, and the
 * rules measured per kind of place the kernels run.
 *
 * A layer is one of six kinds (LayerKindOf): depthwise; 1x1 with stride 1
 * or 2 (no padding, ungrouped); 3x3 with stride 1 or 2 (padding 1,
 * ungrouped); or any other, which always runs the reference.
 * For each kind an --conv value names a path, or RULE: then the first
 * line of the place's rule (HOST_RULE or DEVICE_RULE) that matches the
 * layer and whose path can run it decides, and the reference where none
 * does. A forced path that cannot run a layer (fused Winograd on an odd
 * plane, cuDNN on a device without it) leaves it to the rule too; the
 * programs refuse --conv cudnn where cuDNN is absent before that
 * (conv_algo_check).
 *
 * Each rule line is the place's measurement, a layer step (forward and
 * both gradients) against the reference's: the numbers, machines, dates
 * and commands are in bench/RESULTS.md, "Convolution path picks: the
 * measurements behind the rules". The line's why says it in one line. */
#include "paths.h"

#include <stdio.h>
#include <string.h>
#include "../util/common.h"

typedef enum LayerKindOf {
    KIND_DEPTHWISE, KIND_1X1_S1, KIND_1X1_S2, KIND_3X3_S1, KIND_3X3_S2, KIND_OTHER, KIND_COUNT
} LayerKindOf;

/* "the rule decides" in an --conv row */
#define RULE CONV_PATH_COUNT

typedef struct AlgoRow {
    const char *name;
    ConvPath kind[KIND_COUNT]; /* the path per kind of layer, or RULE */
} AlgoRow;

static const AlgoRow ALGOS[CONV_ALGO_COUNT] = {
    /* the measured rule of the place where the kernels run */
    [CONV_ALGO_AUTO] = { .name = "auto", .kind = { [KIND_DEPTHWISE] = CONV_PATH_DEPTHWISE, [KIND_1X1_S1] = RULE, [KIND_1X1_S2] = RULE,
                                                   [KIND_3X3_S2] = RULE, [KIND_3X3_S1] = RULE,
                                                   [KIND_OTHER] = CONV_PATH_IM2COL } },
    /* im2col + GEMM everywhere, depthwise too (and no activation fusion:
     * core/models/zoo.c): the code the handouts describe */
    [CONV_ALGO_REFERENCE] = { .name = "reference", .kind = { [KIND_DEPTHWISE] = CONV_PATH_IM2COL,
                                                             [KIND_1X1_S1] = CONV_PATH_IM2COL, [KIND_1X1_S2] = CONV_PATH_IM2COL,
                                                             [KIND_3X3_S2] = CONV_PATH_IM2COL,
                                                             [KIND_3X3_S1] = CONV_PATH_IM2COL,
                                                             [KIND_OTHER] = CONV_PATH_IM2COL } },
    /* im2col + GEMM on every layer a fast path could take */
    [CONV_ALGO_IM2COL] = { .name = "im2col", .kind = { [KIND_DEPTHWISE] = CONV_PATH_DEPTHWISE,
                                                       [KIND_1X1_S1] = CONV_PATH_IM2COL, [KIND_1X1_S2] = CONV_PATH_IM2COL,
                                                       [KIND_3X3_S2] = CONV_PATH_IM2COL,
                                                       [KIND_3X3_S1] = CONV_PATH_IM2COL,
                                                       [KIND_OTHER] = CONV_PATH_IM2COL } },
    /* the 3x3 stride-1 paths, forced there (tests compare them) */
    [CONV_ALGO_WINOGRAD] = { .name = "winograd", .kind = { [KIND_DEPTHWISE] = CONV_PATH_DEPTHWISE, [KIND_1X1_S1] = RULE, [KIND_1X1_S2] = RULE,
                                                           [KIND_3X3_S2] = CONV_PATH_IM2COL,
                                                           [KIND_3X3_S1] = CONV_PATH_WINOGRAD,
                                                           [KIND_OTHER] = CONV_PATH_IM2COL } },
    [CONV_ALGO_WINOGRAD4] = { .name = "winograd4", .kind = { [KIND_DEPTHWISE] = CONV_PATH_DEPTHWISE,
                                                             [KIND_1X1_S1] = RULE, [KIND_1X1_S2] = RULE, [KIND_3X3_S2] = CONV_PATH_IM2COL,
                                                             [KIND_3X3_S1] = CONV_PATH_WINOGRAD4,
                                                             [KIND_OTHER] = CONV_PATH_IM2COL } },
    [CONV_ALGO_WINOFUSED] = { .name = "winofused", .kind = { [KIND_DEPTHWISE] = CONV_PATH_DEPTHWISE,
                                                             [KIND_1X1_S1] = RULE, [KIND_1X1_S2] = RULE, [KIND_3X3_S2] = CONV_PATH_IM2COL,
                                                             [KIND_3X3_S1] = CONV_PATH_WINOFUSED,
                                                             [KIND_OTHER] = CONV_PATH_IM2COL } },
    /* the direct kernels, stride 1 and 2 */
    [CONV_ALGO_DIRECT] = { .name = "direct", .kind = { [KIND_DEPTHWISE] = CONV_PATH_DEPTHWISE, [KIND_1X1_S1] = RULE, [KIND_1X1_S2] = RULE,
                                                       [KIND_3X3_S2] = CONV_PATH_DIRECT,
                                                       [KIND_3X3_S1] = CONV_PATH_DIRECT,
                                                       [KIND_OTHER] = CONV_PATH_IM2COL } },
    /* cuDNN's own algorithms on every convolution, depthwise too (only
     * where the device has cuDNN: conv_algo_check) */
    [CONV_ALGO_CUDNN] = { .name = "cudnn", .kind = { [KIND_DEPTHWISE] = CONV_PATH_CUDNN,
                                                     [KIND_1X1_S1] = CONV_PATH_CUDNN, [KIND_1X1_S2] = CONV_PATH_CUDNN,
                                                     [KIND_3X3_S2] = CONV_PATH_CUDNN, [KIND_3X3_S1] = CONV_PATH_CUDNN,
                                                     [KIND_OTHER] = CONV_PATH_CUDNN } },
    /* the pointwise kernels on every 1x1 layer */
    [CONV_ALGO_POINTWISE] = { .name = "pointwise", .kind = { [KIND_DEPTHWISE] = CONV_PATH_DEPTHWISE,
                                                             [KIND_1X1_S1] = CONV_PATH_POINTWISE, [KIND_1X1_S2] = CONV_PATH_POINTWISE,
                                                             [KIND_3X3_S2] = CONV_PATH_IM2COL,
                                                             [KIND_3X3_S1] = RULE,
                                                             [KIND_OTHER] = CONV_PATH_IM2COL } },
};

/* One line of a rule: the path, for layers of this kind within these
 * bounds (0: no bound; side: the input plane's smaller side). */
typedef struct RuleLine {
    ConvPath path;
    LayerKindOf kind;
    int min_cin, max_cin, max_cout, min_side, max_side;
    const char *why;
} RuleLine;

/* Host memory (the CPU), measured on a 2-core AMD EPYC with AVX-512,
 * OpenBLAS SGEMM at 480 GFLOP/s. Asked in this order. */
static const RuleLine HOST_RULE[] = {
    { .path = CONV_PATH_WINOFUSED, .kind = KIND_3X3_S1, .min_cin = 32, .max_cin = 128, .max_cout = 128, .min_side = 4,
      .why = "0.42-0.66 of im2col's step for 32-128 channels on 8x8 to 32x32, 0.67-0.92 on 4x4: ahead of the rest" },
    { .path = CONV_PATH_WINOFUSED, .kind = KIND_3X3_S1, .min_cin = 16, .max_cin = 64, .max_cout = 64, .min_side = 4,
      .max_side = 16, .why = "0.35-0.46 for 16 channels on 8x8 and 16x16 (direct 0.35-0.52); direct wins on 32x32" },
    { .path = CONV_PATH_WINOGRAD4, .kind = KIND_3X3_S1, .min_cin = 128, .min_side = 4,
      .why = "0.57-0.84 for 128-512 channels on 4x4 to 16x16: 36 GEMMs, 4x fewer products" },
    { .path = CONV_PATH_WINOGRAD, .kind = KIND_3X3_S1, .min_cin = 64, .min_side = 16,
      .why = "0.60-0.70 for 64 channels on 16x16 and 32x32; 0.95-1.0 on 8x8" },
    { .path = CONV_PATH_DIRECT, .kind = KIND_3X3_S1, .max_cin = 64, .min_side = 16,
      .why = "0.32-0.83 for 3-64 channels on 16x16 or more: no 9x larger column matrix to write" },
    { .path = CONV_PATH_DIRECT, .kind = KIND_3X3_S1, .max_cin = 64, .max_cout = 64, .min_side = 8,
      .why = "0.77-0.94 for up to 64 channels in and out on 8x8; 1.4-4 on 4x4 and 2x2" },
    { .path = CONV_PATH_DIRECT, .kind = KIND_3X3_S2, .max_cin = 16, .min_side = 16,
      .why = "0.79-0.83 for 16 into 32 channels on 32x32: im2col writes 2.25x its input as columns" },
    { .path = CONV_PATH_DIRECT, .kind = KIND_3X3_S2, .max_cin = 32, .max_cout = 64, .min_side = 16, .max_side = 16,
      .why = "0.93 for 32 into 64 on 16x16; 1.04-1.47 for more channels or larger planes" },
    { .path = CONV_PATH_POINTWISE, .kind = KIND_1X1_S1, .min_side = 14,
      .why = "0.42-0.85 on MobileNetV2's 28x28 and 14x14 planes; 1.01-1.84 on 7x7 and 4x4" },
    { .path = CONV_PATH_POINTWISE, .kind = KIND_1X1_S2, .max_cin = 64,
      .why = "0.44-0.99 for 16-64 channels in (ResNet's shortcuts); 1.08-1.28 for 128-256" },
};

/* Device memory (a GPU, and the emulated GPU, which runs the same
 * kernels), measured on an NVIDIA H200 (cuBLAS SGEMM at 51 TFLOP/s). */
static const RuleLine DEVICE_RULE[] = {
    /* CUDNN_RULE_LINES: where cuDNN (CONV_PATH_CUDNN) beats the paths
     * below, its lines go first, here. None yet: cuDNN has not been
     * measured on a GPU, so auto never picks it (bench/RESULTS.md, "cuDNN
     * on a GPU: unmeasured"). make gpu-check's step 5d times resnet18 and
     * vgg11 at batch 256 with --conv cudnn against --conv auto, and each
     * layer of both (--profile-layers), which is what a line needs; on a
     * device without cuDNN (the emulated GPU) a cuDNN line never holds
     * (line_holds asks conv_path_usable). */
    { .path = CONV_PATH_DIRECT, .kind = KIND_3X3_S1, .max_cin = 16, .min_side = 16,
      .why = "0.16-0.76 for 1-16 channels in; one thread per output reloads what cuBLAS tiles" },
    { .path = CONV_PATH_DIRECT, .kind = KIND_3X3_S1, .max_cin = 32, .min_side = 32,
      .why = "0.88 for 32 channels on 32x32; 1.24-20 for wider layers or smaller planes" },
    /* Winograd F(2x2): 2.4-10 almost everywhere (16 GEMM launches per
     * chunk, each too small for the GPU): never; F(4x4), fused Winograd,
     * stride-2 direct and pointwise were not measured there: never. */
};

static LayerKindOf kind_of(const ConvShape *s)
{
    if (CONV_PATHS[CONV_PATH_DEPTHWISE].fits(s)) return KIND_DEPTHWISE;
    bool ungrouped = s->groups == 1, s12 = s->stride == 1 || s->stride == 2;
    if (s->k == 1 && s->pad == 0 && ungrouped && s12) return s->stride == 1 ? KIND_1X1_S1 : KIND_1X1_S2;
    if (s->k == 3 && s->pad == 1 && ungrouped && s12) return s->stride == 1 ? KIND_3X3_S1 : KIND_3X3_S2;
    return KIND_OTHER;
}

static bool within(int v, int lo, int hi) { return v >= lo && (!hi || v <= hi); }

static bool line_holds(const RuleLine *r, const ConvShape *s, LayerKindOf kind, const ConvKernels *k)
{
    int side = DDL_MIN(s->h, s->w);
    return r->kind == kind && within(s->cin, r->min_cin, r->max_cin) && within(s->cout, 0, r->max_cout) &&
           within(side, r->min_side, r->max_side) && conv_path_usable(&CONV_PATHS[r->path], s, k);
}

static ConvPath by_rule(const ConvShape *s, LayerKindOf kind, const ConvKernels *k, bool host_memory)
{
    const RuleLine *rule = host_memory ? HOST_RULE : DEVICE_RULE;
    size_t lines = host_memory ? sizeof HOST_RULE / sizeof HOST_RULE[0] : sizeof DEVICE_RULE / sizeof DEVICE_RULE[0];
    for (size_t i = 0; i < lines; i++)
        if (line_holds(&rule[i], s, kind, k)) return rule[i].path;
    return CONV_PATH_IM2COL;
}

ConvPath conv_pick(const ConvShape *s, ConvAlgo algo, const ConvKernels *k, bool host_memory)
{
    if ((int)algo < 0 || algo >= CONV_ALGO_COUNT) ddl_die("convolution algorithm %d does not exist", (int)algo);
    LayerKindOf kind = kind_of(s);
    ConvPath p = ALGOS[algo].kind[kind];
    if (p != RULE && conv_path_usable(&CONV_PATHS[p], s, k)) return p;
    return by_rule(s, kind, k, host_memory);
}

const char *conv_algo_name(ConvAlgo a) { return (int)a >= 0 && a < CONV_ALGO_COUNT ? ALGOS[a].name : "?"; }

int conv_algo_parse(const char *name, ConvAlgo *out)
{
    for (int a = 0; name && a < CONV_ALGO_COUNT; a++)
        if (strcmp(name, ALGOS[a].name) == 0) {
            *out = (ConvAlgo)a;
            return 0;
        }
    return -1;
}

const char *conv_algo_choices(void)
{
    return "auto|reference|im2col|winograd|winograd4|winofused|direct|pointwise|cudnn";
}

/* Why k cannot run algo's paths (the first that it cannot), or NULL. */
static const char *algo_absent(ConvAlgo a, const ConvKernels *k)
{
    for (int kind = 0; kind < KIND_COUNT; kind++) {
        ConvPath p = ALGOS[a].kind[kind];
        const char *why = p == RULE ? NULL : conv_path_absent(&CONV_PATHS[p], k);
        if (why) return why;
    }
    return NULL;
}

int conv_algo_check(ConvAlgo algo, const ConvKernels *k, char *why, size_t cap)
{
    if ((int)algo < 0 || algo >= CONV_ALGO_COUNT) ddl_die("convolution algorithm %d does not exist", (int)algo);
    const char *absent = algo_absent(algo, k);
    if (!absent) return 0;
    size_t n = (size_t)snprintf(why, cap, "--conv %s: %s; the values that run here:", ALGOS[algo].name, absent);
    const char *sep = " ";
    /* in the order of the choices (auto and reference first) */
    for (const char *c = conv_algo_choices(); *c && n < cap;) {
        size_t len = strcspn(c, "|");
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)len, c);
        ConvAlgo a;
        if (conv_algo_parse(name, &a) == 0 && !algo_absent(a, k)) {
            n += (size_t)snprintf(why + n, cap - n, "%s%s", sep, name);
            sep = ", ";
        }
        c += len + (c[len] == '|');
    }
    return -1;
}

/* For outputs (conv.h): how the convolutions ran, under which --conv. */
void conv_summary(const int count[CONV_PATH_COUNT], int fused_acts, ConvAlgo algo, char *buf, size_t cap)
{
    int total = 0;
    for (int p = 0; p < CONV_PATH_COUNT; p++) total += count[p];
    size_t n = (size_t)snprintf(buf, cap, "%d convolutions:", total);
    const char *sep = " ";
    /* the reference last: "the rest" in a reader's eye */
    static const ConvPath ORDER[] = { CONV_PATH_CUDNN,     CONV_PATH_WINOFUSED, CONV_PATH_WINOGRAD4,
                                      CONV_PATH_WINOGRAD,  CONV_PATH_DIRECT,    CONV_PATH_POINTWISE,
                                      CONV_PATH_DEPTHWISE, CONV_PATH_IM2COL };
    for (size_t i = 0; i < sizeof ORDER / sizeof ORDER[0] && n < cap; i++) {
        if (!count[ORDER[i]]) continue;
        bool all = count[ORDER[i]] == total;
        n += (size_t)snprintf(buf + n, cap - n, "%s%s%d %s", sep, all ? "all " : "", count[ORDER[i]],
                              conv_path_name(ORDER[i]));
        sep = ", ";
    }
    if (n >= cap) return;
    if (fused_acts)
        snprintf(buf + n, cap - n, "; %d activations fused into batch norm or add (--conv %s)", fused_acts,
                 conv_algo_name(algo));
    else
        snprintf(buf + n, cap - n, "; no fused activation (--conv %s)", conv_algo_name(algo));
}
