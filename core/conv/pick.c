/* pick.c - which path each convolution takes: --conv's values, and the
 * rules measured per kind of place the kernels run.
 *
 * A layer is one of six kinds (kind_of; ConvLayerKind, paths.h):
 * depthwise; 1x1 with stride 1 or 2 (no padding, ungrouped); 3x3 with
 * stride 1 or 2 (padding 1, ungrouped); or any other, which always runs
 * the reference. The --conv values come from conv.c's table: auto,
 * reference, and one per row that forces its path on some kinds (the
 * row's key and forces), so a new path adds its value with its row.
 * For each kind a value names a path, or RULE: then the first
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

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "../util/common.h"

#define RULE (-1) /* the rule decides */

/* The path a kind of layer takes by name (NULL: the rule) where the
 * --conv value does not force one: under auto, and beside a forced path.
 * Depthwise layers run their own kernels; the kinds no fast path serves,
 * im2col. Beside a forced path, 3x3 stride-2 layers run im2col too
 * (unless the path forces them, as direct does), so that --conv winograd
 * compares Winograd with im2col alone (test_conv_paths.c checks it). */
static const char *const UNFORCED[CONV_KIND_COUNT] = { [CONV_KIND_DEPTHWISE] = "depthwise",
                                                        [CONV_KIND_OTHER] = "im2col" };
static const char *const BESIDE_FORCED[CONV_KIND_COUNT] = { [CONV_KIND_DEPTHWISE] = "depthwise",
                                                             [CONV_KIND_3X3_S2] = "im2col",
                                                             [CONV_KIND_OTHER] = "im2col" };

/* The row a forced value forces (ConvAlgo past auto and reference: the
 * rows with a --conv value, in order), or -1. */
static ConvPath forced_row(ConvAlgo a)
{
    int i = (int)a - CONV_ALGO_REFERENCE;
    for (ConvPath p = 0; p < conv_path_count(); p++)
        if (CONV_PATHS[p].forces && --i == 0) return p;
    return -1;
}

int conv_algo_count(void)
{
    int n = CONV_ALGO_REFERENCE + 1;
    for (ConvPath p = 0; p < conv_path_count(); p++) n += CONV_PATHS[p].forces != 0;
    return n;
}

static void check_algo(ConvAlgo a)
{
    if (a < 0 || a >= conv_algo_count()) ddl_die("convolution algorithm %d does not exist", (int)a);
}

/* The path algo sends a kind of layer to, or RULE. */
static ConvPath path_for(ConvAlgo algo, ConvLayerKind kind)
{
    if (algo == CONV_ALGO_REFERENCE) return CONV_PATH_IM2COL; /* depthwise too (and no fusion: core/model/zoo.c) */
    ConvPath forced = forced_row(algo);
    if (forced >= 0 && CONV_PATHS[forced].forces & (1u << kind)) return forced;
    const char *key = (forced >= 0 ? BESIDE_FORCED : UNFORCED)[kind];
    return key ? conv_path_named(key) : RULE;
}

/* One line of a rule: the path, for layers of this kind within these
 * bounds (0: no bound; side: the input plane's smaller side). */
typedef struct RuleLine {
    const char *path; /* its row's key */
    ConvLayerKind kind;
    int min_cin, max_cin, max_cout, min_side, max_side;
    const char *why;
} RuleLine;

/* Host memory (the CPU), measured on a 2-core AMD EPYC with AVX-512,
 * OpenBLAS SGEMM at 480 GFLOP/s. Asked in this order. */
static const RuleLine HOST_RULE[] = {
    { .path = "winofused", .kind = CONV_KIND_3X3_S1, .min_cin = 32, .max_cin = 128, .max_cout = 128, .min_side = 4,
      .why = "0.42-0.66 of im2col's step for 32-128 channels on 8x8 to 32x32, 0.67-0.92 on 4x4: ahead of the rest" },
    { .path = "winofused", .kind = CONV_KIND_3X3_S1, .min_cin = 16, .max_cin = 64, .max_cout = 64, .min_side = 4,
      .max_side = 16, .why = "0.35-0.46 for 16 channels on 8x8 and 16x16 (direct 0.35-0.52); direct wins on 32x32" },
    { .path = "winograd4", .kind = CONV_KIND_3X3_S1, .min_cin = 128, .min_side = 4,
      .why = "0.57-0.84 for 128-512 channels on 4x4 to 16x16: 36 GEMMs, 4x fewer products" },
    { .path = "winograd", .kind = CONV_KIND_3X3_S1, .min_cin = 64, .min_side = 16,
      .why = "0.60-0.70 for 64 channels on 16x16 and 32x32; 0.95-1.0 on 8x8" },
    { .path = "direct", .kind = CONV_KIND_3X3_S1, .max_cin = 64, .min_side = 16,
      .why = "0.32-0.83 for 3-64 channels on 16x16 or more: no 9x larger column matrix to write" },
    { .path = "direct", .kind = CONV_KIND_3X3_S1, .max_cin = 64, .max_cout = 64, .min_side = 8,
      .why = "0.77-0.94 for up to 64 channels in and out on 8x8; 1.4-4 on 4x4 and 2x2" },
    { .path = "direct", .kind = CONV_KIND_3X3_S2, .max_cin = 16, .min_side = 16,
      .why = "0.79-0.83 for 16 into 32 channels on 32x32: im2col writes 2.25x its input as columns" },
    { .path = "direct", .kind = CONV_KIND_3X3_S2, .max_cin = 32, .max_cout = 64, .min_side = 16, .max_side = 16,
      .why = "0.93 for 32 into 64 on 16x16; 1.04-1.47 for more channels or larger planes" },
    { .path = "pointwise", .kind = CONV_KIND_1X1_S1, .min_side = 14,
      .why = "0.42-0.85 on MobileNetV2's 28x28 and 14x14 planes; 1.01-1.84 on 7x7 and 4x4" },
    { .path = "pointwise", .kind = CONV_KIND_1X1_S2, .max_cin = 64,
      .why = "0.44-0.99 for 16-64 channels in (ResNet's shortcuts); 1.08-1.28 for 128-256" },
};

/* Device memory (a GPU, and the emulated GPU, which runs the same
 * kernels), measured on an NVIDIA H200 (cuBLAS SGEMM at 51 TFLOP/s). */
static const RuleLine DEVICE_RULE[] = {
    /* CUDNN_RULE_LINES: where cuDNN ("cudnn") beats the paths
     * below, its lines go first, here. None yet: cuDNN has not been
     * measured on a GPU, so auto never picks it (bench/RESULTS.md, "cuDNN
     * on a GPU: unmeasured"). make gpu-check's step 5d times resnet18 and
     * vgg11 at batch 256 with --conv cudnn against --conv auto, and each
     * layer of both (--profile-layers), which is what a line needs; on a
     * device without cuDNN (the emulated GPU) a cuDNN line never holds
     * (line_holds asks conv_path_usable). */
    { .path = "direct", .kind = CONV_KIND_3X3_S1, .max_cin = 16, .min_side = 16,
      .why = "0.16-0.76 for 1-16 channels in; one thread per output reloads what cuBLAS tiles" },
    { .path = "direct", .kind = CONV_KIND_3X3_S1, .max_cin = 32, .min_side = 32,
      .why = "0.88 for 32 channels on 32x32; 1.24-20 for wider layers or smaller planes" },
    /* Winograd F(2x2): 2.4-10 almost everywhere (16 GEMM launches per
     * chunk, each too small for the GPU): never; F(4x4), fused Winograd,
     * stride-2 direct and pointwise were not measured there: never. */
};

static ConvLayerKind kind_of(const ConvShape *s)
{
    if (CONV_PATHS[conv_path_named("depthwise")].fits(s)) return CONV_KIND_DEPTHWISE;
    bool ungrouped = s->groups == 1, s12 = s->stride == 1 || s->stride == 2;
    if (s->k == 1 && s->pad == 0 && ungrouped && s12) return s->stride == 1 ? CONV_KIND_1X1_S1 : CONV_KIND_1X1_S2;
    if (s->k == 3 && s->pad == 1 && ungrouped && s12) return s->stride == 1 ? CONV_KIND_3X3_S1 : CONV_KIND_3X3_S2;
    return CONV_KIND_OTHER;
}

static bool within(int v, int lo, int hi) { return v >= lo && (!hi || v <= hi); }

static bool line_holds(const RuleLine *r, const ConvShape *s, ConvLayerKind kind, const ConvKernels *k)
{
    int side = DDL_MIN(s->h, s->w);
    return r->kind == kind && within(s->cin, r->min_cin, r->max_cin) && within(s->cout, 0, r->max_cout) &&
           within(side, r->min_side, r->max_side) && conv_path_usable(&CONV_PATHS[conv_path_named(r->path)], s, k);
}

static ConvPath by_rule(const ConvShape *s, ConvLayerKind kind, const ConvKernels *k, bool host_memory)
{
    const RuleLine *rule = host_memory ? HOST_RULE : DEVICE_RULE;
    size_t lines = host_memory ? sizeof HOST_RULE / sizeof HOST_RULE[0] : sizeof DEVICE_RULE / sizeof DEVICE_RULE[0];
    for (size_t i = 0; i < lines; i++)
        if (line_holds(&rule[i], s, kind, k)) return conv_path_named(rule[i].path);
    return CONV_PATH_IM2COL;
}

ConvPath conv_pick(const ConvShape *s, ConvAlgo algo, const ConvKernels *k, bool host_memory)
{
    check_algo(algo);
    ConvLayerKind kind = kind_of(s);
    ConvPath p = path_for(algo, kind);
    if (p != RULE && conv_path_usable(&CONV_PATHS[p], s, k)) return p;
    return by_rule(s, kind, k, host_memory);
}

const char *conv_algo_name(ConvAlgo a)
{
    if (a == CONV_ALGO_AUTO) return "auto";
    if (a == CONV_ALGO_REFERENCE) return "reference";
    ConvPath p = forced_row(a);
    return p >= 0 ? CONV_PATHS[p].key : "?";
}

int conv_algo_parse(const char *name, ConvAlgo *out)
{
    for (ConvAlgo a = 0; name && a < conv_algo_count(); a++)
        if (strcmp(name, conv_algo_name(a)) == 0) {
            *out = a;
            return 0;
        }
    return -1;
}

ConvAlgo conv_algo_named(const char *name)
{
    ConvAlgo a;
    if (conv_algo_parse(name, &a) != 0) ddl_die("--conv has no value %s", name ? name : "(null)");
    return a;
}

/* The values joined by sep, from a (what conv_algo_check lists: those
 * that run on k where k is not NULL). */
static size_t join_algos(char *buf, size_t cap, const char *sep, const ConvKernels *k);

static char choices[256];
static void make_choices(void) { join_algos(choices, sizeof choices, "|", NULL); }

const char *conv_algo_choices(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_choices);
    return choices;
}

/* Why k cannot run algo's paths (the first that it cannot), or NULL. */
static const char *algo_absent(ConvAlgo a, const ConvKernels *k)
{
    for (int kind = 0; kind < CONV_KIND_COUNT; kind++) {
        ConvPath p = path_for(a, (ConvLayerKind)kind);
        const char *why = p == RULE ? NULL : conv_path_absent(&CONV_PATHS[p], k);
        if (why) return why;
    }
    return NULL;
}

static size_t join_algos(char *buf, size_t cap, const char *sep, const ConvKernels *k)
{
    size_t n = 0;
    const char *before = "";
    buf[0] = '\0';
    for (ConvAlgo a = 0; a < conv_algo_count() && n < cap; a++) {
        if (k && algo_absent(a, k)) continue;
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", before, conv_algo_name(a));
        before = sep;
    }
    return n;
}

int conv_algo_check(ConvAlgo algo, const ConvKernels *k, char *why, size_t cap)
{
    check_algo(algo);
    const char *absent = algo_absent(algo, k);
    if (!absent) return 0;
    size_t n = (size_t)snprintf(why, cap, "--conv %s: %s; the values that run here: ", conv_algo_name(algo), absent);
    if (n < cap) join_algos(why + n, cap - n, ", ", k);
    return -1;
}

/* For outputs (conv.h): how the convolutions ran, under which --conv. */
void conv_summary(const int count[CONV_PATHS_MAX], int fused_acts, ConvAlgo algo, char *buf, size_t cap)
{
    int total = 0, rows = conv_path_count();
    for (int p = 0; p < rows; p++) total += count[p];
    size_t n = (size_t)snprintf(buf, cap, "%d convolutions:", total);
    const char *sep = " ";
    /* in the table's order, the reference last: "the rest" in a reader's eye */
    for (int i = 1; i <= rows && n < cap; i++) {
        ConvPath p = i % rows;
        if (!count[p]) continue;
        bool all = count[p] == total;
        n += (size_t)snprintf(buf + n, cap - n, "%s%s%d %s", sep, all ? "all " : "", count[p], conv_path_name(p));
        sep = ", ";
    }
    if (n >= cap) return;
    if (fused_acts)
        snprintf(buf + n, cap - n, "; %d activations fused into batch norm or add (--conv %s)", fused_acts,
                 conv_algo_name(algo));
    else
        snprintf(buf + n, cap - n, "; no fused activation (--conv %s)", conv_algo_name(algo));
}
