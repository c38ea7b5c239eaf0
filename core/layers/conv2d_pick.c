/* conv2d_pick.c - which path each convolution takes (conv2d.c's table).
 *
 * Depthwise convolutions take the depthwise kernels. 3x3 convolutions
 * with stride 1, padding 1 and no groups may take fused Winograd
 * F(2x2,3x3) (even planes, at most 128 channels in and out), Winograd
 * F(4x4,3x3) or F(2x2,3x3) or the direct 3x3 kernels, those with stride 2 the direct
 * kernels on the input's phases, 1x1 ones with stride 1 or 2 the pointwise
 * kernels; everything else takes im2col + GEMM.
 * m->conv_algo (DDL_CONV) decides: im2col, winograd4, winograd, winofused, direct or
 * pointwise force that path on every eligible layer (tests compare them on all
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
#include "../cpu/winofused_layout.h"

/* The rules, one per kind of place the kernels run, as ratios of a layer's
 * step (forward + both gradients) to im2col's (below 1: faster).
 *
 * Host memory (the CPU), measured on the 2-core dev VM (AMD EPYC with
 * AVX-512, OpenBLAS SGEMM at 480 GFLOP/s on 2 threads; bin/bench/conv_algo,
 * batch 64; bench/RESULTS.md has the table):
 *  - fused Winograd, asked first (stop 30, each shape in its own process,
 *    twice; core/cpu/conv_winofused.c): 0.42 for 32 channels on 16x16
 *    (direct 0.50), 0.49-0.50 for 32 on 32x32 (0.56-0.58), 0.54 for 64 on
 *    8x8 (0.72), 0.56-0.58 for 64 on 32x32 and 16x16 (Winograd F(2x2)
 *    0.64-0.65), 0.61-0.66 for 128 on 8x8 (F(4x4) 0.81-0.99), 0.64-0.65
 *    for 64 into 128 on 16x16 (0.70-0.73), 0.57-0.58 for 128 on 32x32
 *    (0.59-0.67), 0.59 for 128 on 16x16 (F(4x4) the same), and with batch
 *    lanes (winofused_layout.h) 0.76-0.83 for 128 on 4x4 (F(4x4)
 *    0.84-1.10), 0.69-0.72 for 64 on 4x4 (direct 0.86-0.99), 0.67-0.69 for
 *    32 on 4x4 (0.80), 0.91-0.92 for 64 into 128 on 4x4; 0.46 for 16 into
 *    32 on 16x16 (direct 0.52), 0.37-0.38 for 16 on 8x8 (0.42-0.43), 0.35
 *    for 16 on 16x16 (0.35-0.36); but 0.42-0.43 for 16 on 32x32 (direct
 *    0.36-0.37), 0.30 for 8 on 32x32 (0.23), 0.55-1.10 with 3 channels in
 *    (0.41-0.73), 1.09-1.19 on 2x2 planes (im2col): the transforms cost as
 *    much as the products save where channels are few, and its input
 *    gradient needs dy's phases besides the padded dy of the (direct)
 *    weight gradient. So: 32-128 channels in (at most 128 out) on planes
 *    of 4x4 or more, 16-64 on 4x4 to 16x16.
 *  - Winograd, stop 27, each shape in its own process, outside the VM's
 *    slow stretches (Winograd's memory passes then take up to 1.8x as
 *    long, im2col's GEMMs do not), after its transforms moved to blocks
 *    and groups of tiles
 *    (core/cpu/winograd_tiles.h) and F(4x4,3x3) joined F(2x2,3x3):
 *    F(4x4) 0.57 for 128 channels on 16x16 (F(2x2) 0.58-0.62), 0.66-0.68
 *    for 256 on 8x8 (0.77-0.78), 0.79 for 128 on 8x8 (0.85-0.87),
 *    0.73-0.75 for 512 on 4x4 (0.74-0.76), 0.71-0.73 for 256 on 4x4
 *    (0.74), 0.80 for 128 on 4x4 (0.82), 0.82-0.84 for 128 into 256 on
 *    8x8 (0.92-0.94), 0.80 for 256 into 512 on 4x4 (0.80-0.82); F(2x2)
 *    0.63 for 64 channels on 32x32 (F(4x4) 0.66-0.67; direct 0.81-0.83),
 *    0.60-0.63 for 64 on 16x16 (0.66-0.69; direct 0.79-0.87), 0.70 for 64
 *    into 128 on 16x16 (0.74; direct 1.05); but 0.95-1.0 for 64 on 8x8
 *    (direct and im2col alike), 1.1-2.0 on 2x2 planes (one tile, mostly
 *    padding), and 0.70-0.77 against direct's 0.56-0.61 for 32 channels on
 *    32x32 and 16x16. F(4x4) wins where channels are many (its 36 GEMMs
 *    have 1.8x fewer products than F(2x2)'s 16, but shorter ones). On the
 *    machine of stop 23 (SGEMM at 210 GFLOP/s) F(2x2) was already
 *    0.66-0.74 for 64-256 channels: Winograd saves multiplications, which
 *    pays most where they are slow. So: F(4x4) for at least 128 channels
 *    in on planes of 4x4 or more; F(2x2) for at least 64 on 16x16 or more.
 *  - direct, asked after Winograd (measured before stop 27): 0.32 for 3 or
 *    16 channels on 32x32, 0.47-0.83 for the first layers (3 channels in),
 *    0.49 for 16-32 channels on 16x16, 0.74-0.78 for 32-64 channels on
 *    16x16 and 64 on 32x32, 0.87-0.94 for 32-64 channels into 64 on 8x8;
 *    but 0.97 for 128 channels on 16x16, 1.14 for 64 or 128 into 128 on
 *    8x8, and 1.4-4 on 4x4 and 2x2 planes, where the padded plane computes
 *    (H+2)(W+2) positions for H*W outputs. So: up to 64 channels in on
 *    planes of 16x16 or more; up to 64 in and out on 8x8.
 *    Stop 28: planes up to 16 wide now interleave the images' rows
 *    (conv_direct_layout.h) and compute (W+2) positions per W outputs:
 *    0.77-0.80 for 64 channels on 8x8 (was 0.98-1.01; Winograd 0.95-1.03
 *    there), 0.53-0.55 for 32 on 16x16 (0.55-0.56), 0.98-1.00 for 128 on
 *    8x8 (1.17-1.22; F(4x4) 0.78-0.82), 1.03-1.08 for 64 into 128 on 8x8
 *    (F(4x4) 0.97-1.05), 1.19-1.25 for 128 on 4x4 (F(4x4) 0.84-0.86):
 *    the rule stands.
 *    Winograd also suffers more than im2col when other jobs take a core:
 *    it runs more, smaller parallel regions (transforms and 16 or 36 GEMMs
 *    per chunk), each waiting for its slowest thread.
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
 *  - Winograd F(2x2): 2.4-10 almost everywhere (16 GEMM launches per
 *    chunk of 1024 tiles, each too small for the GPU); 0.75 only for 512
 *    channels on 4x4 at batch 256 (1.2 ms of a 74 ms resnet18 step). So:
 *    never. F(4x4) (36 launches) and fused Winograd (one thread per output
 *    tile) were not measured on a GPU: never. */
/* 3x3 convolutions with stride 2 (resnet18's first of layers 2-4), the
 * direct kernels on the input's 4 phases (conv_direct_layout.h) against
 * im2col + GEMM, per layer step:
 *  - host memory (dev VM, bin/bench/conv_algo --stride 2, batch 64, 2
 *    threads, each shape in its own process, twice; stop 29): 0.79-0.83
 *    for 16 channels into 32 on 32x32 (forward 0.93-0.99 ms against
 *    1.43-1.53: im2col writes 2.25 times its input as columns), 0.93 for
 *    32 into 64 on 16x16; but 1.04-1.05 for 32 into 64 on 32x32, 1.10-1.13
 *    for 64 into 128 on 16x16, 1.28-1.32 on 8x8, 1.23-1.47 for 64-128
 *    channels in at width 1: the forward still wins or ties, but the
 *    weight gradient (reading x's 4 phase planes per channel) and the
 *    input gradient (4 phases of 1, 2, 2 and 4 taps, then interleaved back
 *    into dx) fall behind the GEMMs as the channels grow. So: up to 16
 *    channels in on 16x16 or more, and 32 into at most 64 on 16x16.
 *  - device memory: not measured on a GPU: never (DDL_CONV=direct tests
 *    the twin). */
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
 *    per chunk of images, so never (DDL_CONV=pointwise tests the twin).
 * 1x1 convolutions with stride 2 (ResNet's projection shortcuts), the
 * pointwise kernels on x's even rows and columns (conv2d_pointwise.c)
 * against im2col + GEMM, per layer step in the model (train_step
 * --profile-layers, DDL_CONV=pointwise against auto, 2 alternated pairs,
 * stop 30): resnet18 x0.25's 16 into 32 channels from 32x32 0.74-0.83 ms
 * against 1.69-1.71, 32 into 64 from 16x16 0.79-0.86 against 0.87-0.93,
 * 64 into 128 from 8x8 0.43-0.44 against 0.68-0.69; resnet18's 64 into 128
 * from 32x32 4.35-4.5 against 6.8-7.0; but 128 into 256 from 16x16 5.3-5.4
 * against 4.9 and 256 into 512 from 8x8 4.9-5.0 against 3.9-4.1 (the
 * pointwise weight gradient's blocks fall behind the GEMM as channels
 * grow). So: up to 64 channels in; never on device memory. */
typedef struct Clause { int max_c, max_k, min_side, max_side, min_c; } Clause; /* max_side 0: no bound */
typedef struct WinoClause { int min_c, min_side; } WinoClause; /* min_c NEVER: never */
typedef struct ConvRule {
    Clause fused[2];        /* asked first, where it can run (fused_fits): either clause picks fused Winograd */
    WinoClause wino4, wino; /* then F(4x4,3x3), then F(2x2,3x3) */
    Clause direct[2];       /* either clause picks direct */
    Clause pointwise[2];    /* either clause picks pointwise */
    Clause direct_s2[2];    /* 3x3 stride 2: either clause picks direct (side: the input's) */
    Clause pointwise_s2[2]; /* 1x1 stride 2: either clause picks pointwise (side: the input's) */
} ConvRule;

enum { NEVER = INT_MAX };
static const ConvRule HOST_RULE = { { { 128, 128, 4, 0, 32 }, { 64, 64, 4, 16, 16 } },
                                    { 128, 4 }, { 64, 16 },
                                    { { 64, NEVER, 16, 0, 0 }, { 64, 64, 8, 0, 0 } },
                                    { { NEVER, NEVER, 14, 0, 0 }, { 0, 0, NEVER, 0, 0 } },
                                    { { 16, NEVER, 16, 0, 0 }, { 32, 64, 16, 16, 0 } },
                                    { { 64, NEVER, 0, 0, 0 }, { 0, 0, NEVER, 0, 0 } } };
static const ConvRule DEVICE_RULE = { { { 0, 0, NEVER, 0, 0 }, { 0, 0, NEVER, 0, 0 } },
                                      { NEVER, 0 }, { NEVER, 0 },
                                      { { 16, NEVER, 16, 0, 0 }, { 32, NEVER, 32, 0, 0 } },
                                      { { 0, 0, NEVER, 0, 0 }, { 0, 0, NEVER, 0, 0 } },
                                      { { 0, 0, NEVER, 0, 0 }, { 0, 0, NEVER, 0, 0 } },
                                      { { 0, 0, NEVER, 0, 0 }, { 0, 0, NEVER, 0, 0 } } };

static bool clause_holds(const Clause c[2], Shape in, int K)
{
    int side = DDL_MIN(in.h, in.w);
    for (int i = 0; i < 2; i++)
        if (in.c <= c[i].max_c && in.c >= c[i].min_c && K <= c[i].max_k && side >= c[i].min_side &&
            (!c[i].max_side || side <= c[i].max_side))
            return true;
    return false;
}

static const ConvRule *rule_of(const Model *m) { return m->be->host_memory ? &HOST_RULE : &DEVICE_RULE; }

/* DDL_CONV's values, in ConvAlgo's order. */
static const char *const ALGO_NAMES[] = { "auto", "im2col", "winograd", "direct", "pointwise", "winograd4", "winofused" };

const char *conv_algo_name(ConvAlgo a) { return ALGO_NAMES[a]; }

ConvAlgo conv_algo_from_env(void)
{
    const char *v = getenv("DDL_CONV");
    if (!v || !*v) return CONV_ALGO_AUTO;
    for (size_t i = 0; i < sizeof ALGO_NAMES / sizeof ALGO_NAMES[0]; i++)
        if (strcmp(v, ALGO_NAMES[i]) == 0) return (ConvAlgo)i;
    ddl_die("DDL_CONV=%s: use auto, im2col, winograd, winograd4, winofused, direct or pointwise", v);
}

static bool is_depthwise(const Model *m, const Layer *l)
{
    int cin = m->tensors[l->in].shape.c;
    return l->groups == cin && l->cout == cin;
}

/* What the fused Winograd kernels can take: even planes (whole 2x2
 * tiles), at most WINOFUSED_MAX_C channels in and out (the input
 * gradient's input is the layer's output). */
static bool fused_fits(Shape in, int K)
{
    return in.h % 2 == 0 && in.w % 2 == 0 && in.c <= WINOFUSED_MAX_C && K <= WINOFUSED_MAX_C;
}

static ConvPath auto_path(const ConvRule *r, Shape in, int K)
{
    int side = DDL_MIN(in.h, in.w);
    if (fused_fits(in, K) && clause_holds(r->fused, in, K)) return CONV_PATH_WINOFUSED;
    if (in.c >= r->wino4.min_c && side >= r->wino4.min_side) return CONV_PATH_WINOGRAD4;
    if (in.c >= r->wino.min_c && side >= r->wino.min_side) return CONV_PATH_WINOGRAD;
    if (clause_holds(r->direct, in, K)) return CONV_PATH_DIRECT;
    return CONV_PATH_IM2COL;
}

ConvPath conv2d_pick_path(const Model *m, const Layer *l)
{
    if (is_depthwise(m, l)) return CONV_PATH_DEPTHWISE;
    Shape in = m->tensors[l->in].shape;
    if (l->k == 1 && (l->stride == 1 || l->stride == 2) && l->pad == 0 && l->groups == 1) {
        if (m->conv_algo == CONV_ALGO_IM2COL) return CONV_PATH_IM2COL;
        if (m->conv_algo == CONV_ALGO_POINTWISE) return CONV_PATH_POINTWISE;
        const Clause *c = l->stride == 2 ? rule_of(m)->pointwise_s2 : rule_of(m)->pointwise;
        return clause_holds(c, in, l->cout) ? CONV_PATH_POINTWISE : CONV_PATH_IM2COL;
    }
    bool ungrouped3x3 = l->k == 3 && l->pad == 1 && l->groups == 1;
    if (ungrouped3x3 && l->stride == 2) { /* only the direct kernels take stride 2 */
        if (m->conv_algo == CONV_ALGO_DIRECT) return CONV_PATH_DIRECT;
        if (m->conv_algo != CONV_ALGO_AUTO) return CONV_PATH_IM2COL;
        return clause_holds(rule_of(m)->direct_s2, in, l->cout) ? CONV_PATH_DIRECT : CONV_PATH_IM2COL;
    }
    bool same3x3 = ungrouped3x3 && l->stride == 1;
    if (!same3x3) return CONV_PATH_IM2COL;
    switch (m->conv_algo) {
    case CONV_ALGO_IM2COL: return CONV_PATH_IM2COL;
    case CONV_ALGO_WINOGRAD: return CONV_PATH_WINOGRAD;
    case CONV_ALGO_WINOGRAD4: return CONV_PATH_WINOGRAD4;
    case CONV_ALGO_DIRECT: return CONV_PATH_DIRECT;
    case CONV_ALGO_WINOFUSED:
        if (fused_fits(in, l->cout)) return CONV_PATH_WINOFUSED;
        return auto_path(rule_of(m), in, l->cout);
    default: return auto_path(rule_of(m), in, l->cout);
    }
}
