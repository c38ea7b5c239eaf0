/* conv2d_pick.c - which path each convolution takes (conv2d.c's table).
 *
 * Depthwise convolutions take the depthwise kernels. 3x3 convolutions
 * with stride 1, padding 1 and no groups may take Winograd F(2x2,3x3) or
 * the direct 3x3 kernels, 1x1 ones with stride 1 the pointwise kernels;
 * everything else takes im2col + GEMM.
 * m->conv_algo (DDL_CONV) decides: im2col, winograd, direct or pointwise
 * force that path on every eligible layer (tests compare them on all
 * shapes; im2col forces 1x1 layers too, the others leave them to the rule
 * and 3x3 ones likewise); auto,
 * the default, applies the rule of the place where the kernels run, each
 * measured there per layer shape (below): one for host memory (the CPU),
 * one for device memory (a GPU, and the emulated GPU, which runs its
 * kernels). */
#include "conv2d_paths.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "../common.h"

/* The rules, one per kind of place the kernels run, as ratios of a layer's
 * step (forward + both gradients) to im2col's (below 1: faster).
 *
 * Host memory (the CPU), measured on the 2-core dev VM (AMD EPYC with
 * AVX-512, OpenBLAS SGEMM at 480 GFLOP/s on 2 threads; bin/bench/conv_algo,
 * batch 64; bench/RESULTS.md has the table):
 *  - direct (before stop 27's Winograd): 0.32 for 3 or 16 channels on 32x32, 0.47-0.83 for the first
 *    layers (3 channels in), 0.49 for 16-32 channels on 16x16, 0.74-0.78
 *    for 32-64 channels on 16x16 and 64 on 32x32, 0.87-0.94 for 32-64
 *    channels into 64 on 8x8; but 0.97 for 128 channels on 16x16, 1.14
 *    for 64 or 128 into 128 on 8x8, and 1.4-4 on 4x4 and 2x2 planes, where
 *    the padded plane computes (H+2)(W+2) positions for H*W outputs. So:
 *    up to 64 channels in on planes of 16x16 or more; up to 64 in and out
 *    on 8x8.
 *  - Winograd, since its transforms work on blocks of tiles (stop 27):
 *    0.61-0.64 for 64 channels in and out on 32x32 and 16x16 (direct:
 *    0.85-0.86, so Winograd is asked first), 0.78 for 128 on 16x16, 0.96-0.98
 *    for 128 on 8x8 and 256 on 8x8; but 1.10-1.42 where a layer widens
 *    (64 into 128 on 16x16, 128 into 256 on 8x8: the GEMMs' short inner
 *    dimension is the narrow side), 1.2-2.8 on 4x4 and 2x2 planes, and
 *    0.74 against direct's 0.61 for 32 channels on 32x32. On the machine
 *    of stop 23 (SGEMM at 210 GFLOP/s) it was 0.66-0.74 for 64-256
 *    channels on 32x32 to 8x8 and 0.82-0.87 for 512 on 4x4: it saves
 *    multiplications, which pays most where they are slow. So: at least
 *    64 channels, as many out as in, 16384 values per image and planes of
 *    at least 8x8.
 *    Winograd also suffers more than im2col when other jobs take a core:
 *    it runs more, smaller parallel regions (transforms and 16 GEMMs per
 *    chunk), each waiting for its slowest thread.
 *
 * Device memory (a GPU, and the emulated GPU, which runs the same
 * kernels), measured on an NVIDIA H200 (cuBLAS SGEMM at 51 TFLOP/s;
 * train_step --profile-layers on cuda, DDL_CONV forced each way, resnet18
 * and vgg11 at widths 0.25 to 1, batch 64 and 256, and cnn3):
 *  - direct: 0.16-0.30 for the first layers (1 or 3 channels in), 0.44 for
 *    16 channels on 32x32, 0.76 for 16 into 32 on 16x16, 0.88 for 32 on
 *    32x32; but 1.26 for 32 on 16x16, 1.24 for cnn3's 32 into 64 on 14x14,
 *    2.0 for 64 on 32x32 and 4-20 for wider layers: one thread per output
 *    reloads its inputs where cuBLAS tiles them through shared memory. So:
 *    up to 16 channels in on planes of 16x16 or more, up to 32 on 32x32.
 *  - Winograd: 2.4-10 almost everywhere (16 GEMM launches per chunk of
 *    1024 tiles, each too small for the GPU); 0.75 only for 512 channels
 *    on 4x4 at batch 256 (1.2 ms of a 74 ms resnet18 step). So: never. */
/* 1x1 convolutions with stride 1 (MobileNetV2's expand and project
 * layers), pointwise kernels against im2col + GEMM, per layer step:
 *  - host memory (dev VM, bin/bench/conv_algo --1x1: MobileNetV2's
 *    shapes, batch 64, 2 threads): 0.42-0.70 on 28x28 planes (16-144
 *    channels either side), 0.69-0.85 on 14x14; 1.01-1.80 on 7x7 and
 *    1.15-1.84 on 4x4, where im2col's GEMM over several images has long
 *    rows and the kernel's per-image blocks are short, and its weight
 *    gradient (4x4 blocks, 2 FMAs per load) falls behind the GEMM's. So:
 *    planes of 14x14 or more.
 *  - device memory: not measured on a GPU; cuBLAS runs these as one GEMM
 *    per chunk of images, so never (DDL_CONV=pointwise tests the twin). */
typedef struct Clause { int max_c, max_k, min_side; } Clause;
typedef struct ConvRule {
    Clause direct[2];                              /* either clause picks direct */
    int wino_min_c, wino_min_image, wino_min_side; /* wino_min_c INT_MAX: never; in = out channels */
    Clause pointwise[2];                           /* either clause picks pointwise */
} ConvRule;

enum { NEVER = INT_MAX };
static const ConvRule HOST_RULE = { { { 64, NEVER, 16 }, { 64, 64, 8 } },
                                    64, 16384, 8,
                                    { { NEVER, NEVER, 14 }, { 0, 0, NEVER } } };
static const ConvRule DEVICE_RULE = { { { 16, NEVER, 16 }, { 32, NEVER, 32 } },
                                      NEVER, 0, 0,
                                      { { 0, 0, NEVER }, { 0, 0, NEVER } } };

static bool clause_holds(const Clause c[2], Shape in, int K)
{
    int side = DDL_MIN(in.h, in.w);
    for (int i = 0; i < 2; i++)
        if (in.c <= c[i].max_c && K <= c[i].max_k && side >= c[i].min_side) return true;
    return false;
}

static const ConvRule *rule_of(const Model *m) { return m->be->host_memory ? &HOST_RULE : &DEVICE_RULE; }

/* DDL_CONV's values, in ConvAlgo's order. */
static const char *const ALGO_NAMES[] = { "auto", "im2col", "winograd", "direct", "pointwise" };

const char *conv_algo_name(ConvAlgo a) { return ALGO_NAMES[a]; }

ConvAlgo conv_algo_from_env(void)
{
    const char *v = getenv("DDL_CONV");
    if (!v || !*v) return CONV_ALGO_AUTO;
    for (size_t i = 0; i < sizeof ALGO_NAMES / sizeof ALGO_NAMES[0]; i++)
        if (strcmp(v, ALGO_NAMES[i]) == 0) return (ConvAlgo)i;
    ddl_die("DDL_CONV=%s: use auto, im2col, winograd, direct or pointwise", v);
}

static bool is_depthwise(const Model *m, const Layer *l)
{
    int cin = m->tensors[l->in].shape.c;
    return l->groups == cin && l->cout == cin;
}

static ConvPath auto_path(const ConvRule *r, Shape in, int K)
{
    int side = DDL_MIN(in.h, in.w);
    if (in.c >= r->wino_min_c && K == in.c && shape_numel(in) >= (size_t)r->wino_min_image &&
        side >= r->wino_min_side)
        return CONV_PATH_WINOGRAD;
    if (clause_holds(r->direct, in, K)) return CONV_PATH_DIRECT;
    return CONV_PATH_IM2COL;
}

ConvPath conv2d_pick_path(const Model *m, const Layer *l)
{
    if (is_depthwise(m, l)) return CONV_PATH_DEPTHWISE;
    Shape in = m->tensors[l->in].shape;
    if (l->k == 1 && l->stride == 1 && l->pad == 0 && l->groups == 1) {
        if (m->conv_algo == CONV_ALGO_IM2COL) return CONV_PATH_IM2COL;
        if (m->conv_algo == CONV_ALGO_POINTWISE) return CONV_PATH_POINTWISE;
        return clause_holds(rule_of(m)->pointwise, in, l->cout) ? CONV_PATH_POINTWISE : CONV_PATH_IM2COL;
    }
    bool same3x3 = l->k == 3 && l->stride == 1 && l->pad == 1 && l->groups == 1;
    if (!same3x3) return CONV_PATH_IM2COL;
    switch (m->conv_algo) {
    case CONV_ALGO_IM2COL: return CONV_PATH_IM2COL;
    case CONV_ALGO_WINOGRAD: return CONV_PATH_WINOGRAD;
    case CONV_ALGO_DIRECT: return CONV_PATH_DIRECT;
    default: return auto_path(rule_of(m), in, l->cout);
    }
}
