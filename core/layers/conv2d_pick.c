/* conv2d_pick.c - which path each convolution takes (conv2d.c's table).
 *
 * Depthwise convolutions take the depthwise kernels. 3x3 convolutions
 * with stride 1, padding 1 and no groups may take Winograd F(2x2,3x3) or
 * the direct 3x3 kernels; everything else takes im2col + GEMM.
 * m->conv_algo (DDL_CONV) decides: im2col, winograd or direct force that
 * path on every eligible layer (tests compare them on all shapes); auto,
 * the default, applies the rule below, measured per layer shape with
 * bin/bench/conv_algo (forward + both gradients, batch 64, 2 threads).
 * The thresholds were measured on the CPU; a GPU backend applies the same
 * ones (not measured there). */
#include "conv2d_paths.h"

#include <stdlib.h>
#include <string.h>
#include "../common.h"

/* The rule, measured per layer step on the 2-core dev VM (AMD EPYC with
 * AVX-512, OpenBLAS SGEMM at 480 GFLOP/s on 2 threads; bench/RESULTS.md
 * has the table), as ratios to im2col (below 1: faster):
 *  - direct: 0.32 for 3 or 16 channels on 32x32, 0.47-0.83 for the first
 *    layers (3 channels in), 0.49 for 16-32 channels on 16x16, 0.74-0.78
 *    for 32-64 channels on 16x16 and 64 on 32x32, 0.87-0.94 for 32-64
 *    channels into 64 on 8x8; but 0.97 for 128 channels on 16x16, 1.14
 *    for 64 or 128 into 128 on 8x8, and 1.4-4 on 4x4 and 2x2 planes, where
 *    the padded plane computes (H+2)(W+2) positions for H*W outputs. So:
 *    up to 64 channels in on planes of 16x16 or more; up to 64 in and out
 *    on 8x8.
 *  - Winograd: 0.95-0.98 for 128 channels on 16x16 and 256 on 8x8, 1.1-2.7
 *    elsewhere. On the machine of stop 23 (SGEMM at 210 GFLOP/s) it was
 *    0.66-0.74 for 64-256 channels on 32x32 to 8x8 and 0.82-0.87 for 512
 *    on 4x4: it saves multiplications, which pays most where they are
 *    slow. So: at least WINO_MIN_CHANNELS channels, WINO_MIN_IMAGE values
 *    per image and planes of at least WINO_MIN_SIDE, where direct does not
 *    apply.
 * Winograd also suffers more than im2col when other jobs take a core: it
 * runs more, smaller parallel regions (transforms and 16 GEMMs per
 * chunk), each waiting for its slowest thread. */
enum { WINO_MIN_CHANNELS = 64, WINO_MIN_IMAGE = 16384, WINO_MIN_SIDE = 8 };
enum { DIRECT_MAX_CHANNELS = 64, DIRECT_WIDE_SIDE = 16, DIRECT_MIN_SIDE = 8 };

ConvAlgo conv_algo_from_env(void)
{
    const char *v = getenv("DDL_CONV");
    if (!v || !*v || strcmp(v, "auto") == 0) return CONV_ALGO_AUTO;
    if (strcmp(v, "im2col") == 0) return CONV_ALGO_IM2COL;
    if (strcmp(v, "winograd") == 0) return CONV_ALGO_WINOGRAD;
    if (strcmp(v, "direct") == 0) return CONV_ALGO_DIRECT;
    ddl_die("DDL_CONV=%s: use auto, im2col, winograd or direct", v);
}

static bool is_depthwise(const Model *m, const Layer *l)
{
    int cin = m->tensors[l->in].shape.c;
    return l->groups == cin && l->cout == cin;
}

static ConvPath auto_path(Shape in, int K)
{
    int side = DDL_MIN(in.h, in.w);
    bool direct_wide = in.c <= DIRECT_MAX_CHANNELS && side >= DIRECT_WIDE_SIDE;
    if (direct_wide || (in.c <= DIRECT_MAX_CHANNELS && K <= DIRECT_MAX_CHANNELS && side >= DIRECT_MIN_SIDE))
        return CONV_PATH_DIRECT;
    if (in.c >= WINO_MIN_CHANNELS && shape_numel(in) >= WINO_MIN_IMAGE && side >= WINO_MIN_SIDE)
        return CONV_PATH_WINOGRAD;
    return CONV_PATH_IM2COL;
}

ConvPath conv2d_pick_path(const Model *m, const Layer *l)
{
    if (is_depthwise(m, l)) return CONV_PATH_DEPTHWISE;
    bool same3x3 = l->k == 3 && l->stride == 1 && l->pad == 1 && l->groups == 1;
    if (!same3x3) return CONV_PATH_IM2COL;
    switch (m->conv_algo) {
    case CONV_ALGO_IM2COL: return CONV_PATH_IM2COL;
    case CONV_ALGO_WINOGRAD: return CONV_PATH_WINOGRAD;
    case CONV_ALGO_DIRECT: return CONV_PATH_DIRECT;
    default: return auto_path(m->tensors[l->in].shape, l->cout);
    }
}
