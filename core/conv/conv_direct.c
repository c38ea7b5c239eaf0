/* conv_direct.c - 3x3 convolutions with padding 1 and stride 1 (or 2, on
 * the input's 4 phases: direct_kernels.h), computed directly in
 * registers: the forward pass, the input gradient (the same convolution
 * of dy with the filters rotated and transposed; with stride 2, one per
 * phase of the input, with that phase's taps) and the weight gradient.
 *
 * Why: im2col + GEMM writes every input value 9 times into a column
 * matrix, which OpenBLAS then packs again before it multiplies. With few
 * channels (16-32: the narrow models of the quick profile) that traffic,
 * not the arithmetic, is the cost: a 16-channel layer on 32x32 planes ran
 * at a quarter of the GEMM's peak. Here the input is read in place (after
 * one padding pass) and the arithmetic runs from registers.
 *
 * How (layouts: direct_kernels.h). On the padded planes, in groups
 * of g images with interleaved rows (a group's padded row is g*(W+2)
 * floats), output pixel (oh, ow) of image i = G*g + u sits at "grid"
 * position j = G*gs + (oh*g + u)*(W+2) + ow (gs: floats per group), and
 * tap (ki, kj) of input channel c reads xq[c][j + ki*g*(W+2) + kj]: a
 * fixed offset per tap, so one run of j covers whole rows of many images
 * with no bounds tests. The padding columns between rows (and, with
 * g < nb, the padding rows between groups) are computed and thrown away.
 *  - forward: a register block is 8 output channels x VF_ROWS vectors of
 *    positions; per input channel and tap it loads VF_ROWS vectors of x
 *    and multiplies them by 8 broadcast weights (24 FMAs from 11 loads
 *    with AVX-512). Each output is one chain of FMAs over (c, ki, kj) in
 *    that order, starting from 0: the same bits whatever the vector width
 *    or thread count, and the GPU twin runs the same chain. Where a row
 *    of the plane is half a vector, one or two (8, 16 or 32 wide with
 *    AVX-512), blocks are whole rows instead (forward_rows, forward_row2):
 *    nothing is computed for the padding and the vectors are stored
 *    straight into y, without the tile and its row-by-row copy, which
 *    made the forward 9-28% faster on such planes (bench/RESULTS.md).
 *  - weight gradient: dw[k][c][tap] = sum over positions of dy[k][j] *
 *    xq[c][j + tap]; dy read on the padded grid is 0 at the discarded
 *    positions, so they add nothing. A block is VF_DW_K output channels x
 *    9 taps of one input channel, accumulated over the positions in
 *    vector lanes, then summed lane by lane in a fixed order.
 *  - every tap is a fixed offset from the output's grid position (the
 *    grid's tap table, from direct_taps), so stride 2 is the same code
 *    with other offsets: the taps of input channel c read its 4 phase
 *    planes. The register blocks take the tap count as a constant
 *    (DIRECT_TAPS_SWITCH).
 * Threads own whole outputs (forward: position ranges x channel blocks;
 * weight gradient: (channel block, input channel) pairs), so results do
 * not depend on the thread count. */
#include "kernels_cpu.h"
#include "direct_kernels.h"

#include <string.h>
#include "../util/common.h"
#include "conv_direct_grid.h"
#include "../cpu/copy_short.h"
#include "../cpu/parallel.h"
#include "../cpu/simd.h"

/* The register blocks below take the tap count n as an argument and are
 * inlined where it is a constant (DIRECT_TAPS_SWITCH). */
#define DIRECT_INLINE inline __attribute__((always_inline))
/* x floats (all C channels) of the positions one forward item covers, and
 * of one weight-gradient span: measured on the dev VM (AMD EPYC, 1 MiB L2
 * per core), 8K to 128K floats per forward segment ran alike; spans of
 * 32K floats ran the weight gradient of a 64-channel 32x32 layer 20%
 * slower than 128K and 512K, which ran alike (each span ends in 27 lane
 * sums per item). */
enum { SEG_FLOATS = 32768, SPAN_FLOATS = 262144 };

/* Per (channel, group): its H+2 padded rows, each the images' rows
 * between two zeros, or zeros on the top and bottom. */
static void pad_planes(const float *x, int nb, int C, int H, int W, float *xq)
{
    Grid g = direct_grid(nb, H, W, DIRECT_FWD);
    int groups = nb / g.g;
    PARALLEL_FOR((size_t)C * g.cs)
    for (int cg = 0; cg < C * groups; cg++) {
        int c = cg / groups, i0 = cg % groups * g.g;
        float *q = xq + (size_t)c * g.cs + (size_t)(cg % groups) * g.gs;
        memset(q, 0, sizeof(float) * (size_t)g.rs);
        q += g.rs;
        for (int h = 0; h < H; h++)
            for (int i = i0; i < i0 + g.g; i++, q += g.Wp) {
                q[0] = q[W + 1] = 0.0f;
                copy_row(q + 1, x + (((size_t)i * C + c) * H + h) * W, (size_t)W); /* rows of 32 or less: no call */
            }
        memset(q, 0, sizeof(float) * (size_t)g.rs);
    }
    memset(xq + (size_t)C * g.cs, 0, sizeof(float) * DIRECT_SLACK);
}

/* The same for a stride-2 input, per (channel, row parity, group): each
 * input row goes to two phases, its even columns to one and its odd
 * columns to the other, split in one pass over the row (the compiler
 * vectorises the split); rows and columns past x are zeros. One loop per
 * phase with a bounds test per value made this pad cost as much as the
 * convolution after it. (Stride 1 has its own loop: folding it into
 * this one made that pad 5% slower.) */
static void pad_phases(const float *x, int nb, int C, int H, int W, float *xq)
{
    int Ho = direct_out(H, 2), Wo = direct_out(W, 2), Wodd = W / 2; /* columns of the even, odd phases */
    Grid g = direct_grid(nb, Ho, Wo, DIRECT_FWD);
    int groups = nb / g.g;
    PARALLEL_FOR((size_t)C * 4 * g.cs)
    for (int e = 0; e < C * 2 * groups; e++) {
        int c = e / (2 * groups), a = e / groups % 2, G = e % groups;
        float *qe = xq + ((size_t)c * 4 + 2 * a) * g.cs + (size_t)G * g.gs, *qo = qe + g.cs;
        memset(qe, 0, sizeof(float) * (size_t)g.rs);
        memset(qo, 0, sizeof(float) * (size_t)g.rs);
        qe += g.rs, qo += g.rs;
        for (int m = 0; m < Ho; m++)
            for (int i = G * g.g; i < (G + 1) * g.g; i++, qe += g.Wp, qo += g.Wp) {
                int h = 2 * m + a;
                qe[0] = qe[Wo + 1] = qo[0] = qo[Wo + 1] = 0.0f;
                if (h >= H) {
                    memset(qe + 1, 0, sizeof(float) * (size_t)Wo);
                    memset(qo + 1, 0, sizeof(float) * (size_t)Wo);
                    continue;
                }
                const float *row = x + (((size_t)i * C + c) * H + h) * W;
                float *restrict de = qe + 1, *restrict dodd = qo + 1;
                for (int n = 0; n < Wodd; n++) {
                    de[n] = row[2 * n];
                    dodd[n] = row[2 * n + 1];
                }
                if (Wo > Wodd) de[Wodd] = row[W - 1], dodd[Wodd] = 0.0f; /* odd W */
            }
        memset(qe, 0, sizeof(float) * (size_t)g.rs);
        memset(qo, 0, sizeof(float) * (size_t)g.rs);
    }
    memset(xq + (size_t)C * 4 * g.cs, 0, sizeof(float) * DIRECT_SLACK);
}

void direct_pad_cpu(const float *x, int nb, int C, int H, int W, int stride, float *xq)
{
    if (stride == 2)
        pad_phases(x, nb, C, H, W, xq);
    else
        pad_planes(x, nb, C, H, W, xq);
}

/* Nested loops, not one loop over the packed floats: with the tap count a
 * run-time value its divisions made packing 64 x 64 filters cost 0.1 ms. */
void direct_filter_cpu(const float *w, int K, int C, int mode, float *wp)
{
    if (mode == DIRECT_DX_S2_ALL) { /* the 4 phases' filters, each where tap_sets looks for it */
        for (int p = 0; p < 4; p++)
            direct_filter_cpu(w, K, C, DIRECT_DX_S2 + p, wp + direct_phase_filters(p, C, K));
        return;
    }
    bool tr = direct_transposed(mode);
    int outs = tr ? C : K, ins = tr ? K : C; /* the convolution this packs for */
    int blocks = (outs + DIRECT_KB - 1) / DIRECT_KB;
    DirectTaps d = direct_taps(mode);
    PARALLEL_FOR((size_t)blocks * ins * d.n * DIRECT_KB)
    for (int bi = 0; bi < blocks * ins; bi++) {
        int ob = bi / ins, in = bi % ins;
        float *q = wp + (size_t)bi * d.n * DIRECT_KB;
        for (int t = 0; t < d.n; t++)
            for (int a = 0; a < DIRECT_KB; a++) {
                int out = ob * DIRECT_KB + a;
                float v = 0.0f;
                if (out < outs)
                    v = tr ? w[((size_t)in * C + out) * 9 + d.wt[t]] : w[((size_t)out * C + in) * 9 + d.wt[t]];
                q[t * DIRECT_KB + a] = v;
            }
    }
}

/* tile[a][q] = output channel a of the block at position j0 + q. */
static DIRECT_INLINE void forward_block(const float *xq, const Grid *g, const float *wpb, int C, int n, int j0,
                                        float tile[DIRECT_KB][BLK])
{
    vf acc[DIRECT_KB][VF_ROWS];
    for (int a = 0; a < DIRECT_KB; a++)
        for (int r = 0; r < VF_ROWS; r++) acc[a][r] = vf_zero();
    for (int c = 0; c < C; c++) {
        const float *xc = xq + (size_t)c * g->xcs + j0, *wc = wpb + (size_t)c * n * DIRECT_KB;
        for (int t = 0; t < n; t++) {
            vf xv[VF_ROWS];
            for (int r = 0; r < VF_ROWS; r++) xv[r] = vf_load(xc + g->off[t] + r * VF_LANES);
            const float *wt = wc + t * DIRECT_KB;
            for (int a = 0; a < DIRECT_KB; a++) {
                vf wa = vf_set1(wt[a]);
                for (int r = 0; r < VF_ROWS; r++) acc[a][r] = vf_fma(wa, xv[r], acc[a][r]);
            }
        }
    }
    for (int a = 0; a < DIRECT_KB; a++)
        for (int r = 0; r < VF_ROWS; r++) vf_store(&tile[a][r * VF_LANES], acc[a][r]);
}

/* How the row-exact kernels walk a plane (forward_rows, forward_row2):
 * not at all (runs of positions, forward_block), a row per vector, two
 * rows per vector, or two vectors per row. */
enum { ROWS_NONE, ROWS_ONE, ROWS_HALVES, ROWS_TWO_VECTORS };

static int row_mode(const Grid *g)
{
    if (g->g == g->nb && g->W == VF_LANES) return ROWS_ONE;
    if (g->g == g->nb && 2 * g->W == VF_LANES && g->H * g->nb % 2 == 0) return ROWS_HALVES;
    if (g->g == 1 && g->W == 2 * VF_LANES) return ROWS_TWO_VECTORS;
    return ROWS_NONE;
}

/* Row-exact blocks, for planes whose rows are one vector (W == VF_LANES)
 * or half of one (2W == VF_LANES), with every image's rows interleaved
 * (g = nb): output row r (image r % nb, row r / nb) is positions
 * [r*Wp, r*Wp + W), so a vector holds whole rows and nothing else, and is
 * stored straight into y. Nothing is computed for the padding columns, and
 * no tile is copied. Each lane runs the same chain of FMAs as in
 * forward_block: the same bits. */
static inline vf load_rows(const float *xc, int r, int rv, int Wp)
{
    return rv == 1 ? vf_load(xc + (size_t)r * Wp) : vf_load_halves(xc + (size_t)r * Wp, xc + (size_t)(r + 1) * Wp);
}

/* Rows r0 .. r0 + VF_ROWS*rv - 1 (those below R = H*nb, a multiple of rv;
 * a vector past R reads the last rows' inputs and is not stored),
 * channels k0 .. k0 + kn - 1. */
static DIRECT_INLINE void forward_rows(const float *xq, const Grid *g, const float *wpb, int C, int n, int r0, int rv,
                                       int K, int k0, int kn, float *y, bool acc)
{
    int R = g->H * g->nb, rr[VF_ROWS];
    for (int v = 0; v < VF_ROWS; v++) rr[v] = DDL_MIN(r0 + v * rv, R - rv);
    vf accv[DIRECT_KB][VF_ROWS];
    for (int a = 0; a < DIRECT_KB; a++)
        for (int v = 0; v < VF_ROWS; v++) accv[a][v] = vf_zero();
    for (int c = 0; c < C; c++) {
        const float *xc = xq + (size_t)c * g->xcs, *wc = wpb + (size_t)c * n * DIRECT_KB;
        for (int t = 0; t < n; t++) {
            vf xv[VF_ROWS];
            for (int v = 0; v < VF_ROWS; v++) xv[v] = load_rows(xc + g->off[t], rr[v], rv, g->Wp);
            const float *wt = wc + t * DIRECT_KB;
            for (int a = 0; a < DIRECT_KB; a++) {
                vf wa = vf_set1(wt[a]);
                for (int v = 0; v < VF_ROWS; v++) accv[a][v] = vf_fma(wa, xv[v], accv[a][v]);
            }
        }
    }
    for (int v = 0; v < VF_ROWS; v++) {
        int r = r0 + v * rv;
        if (r >= R) break;
        for (int a = 0; a < kn; a++) {
            float *o[2] = { NULL, NULL };
            for (int h = 0; h < rv; h++)
                o[h] = y + (((size_t)((r + h) % g->nb) * K + k0 + a) * g->H + (r + h) / g->nb) * g->W;
            vf out = accv[a][v];
            if (acc) out = vf_add(rv == 1 ? vf_load(o[0]) : vf_load_halves(o[0], o[1]), out);
            if (rv == 1)
                vf_store(o[0], out);
            else
                vf_store_halves(o[0], o[1], out);
        }
    }
}

/* Rows of two vectors (W == 2 * VF_LANES), one image per group: row
 * r = i*H + oh starts at position i*gs + oh*Wp. A block is one row of 8
 * output channels (16 accumulators). */
static DIRECT_INLINE void forward_row2(const float *xq, const Grid *g, const float *wpb, int C, int n, int r, int K,
                                       int k0, int kn, float *y, bool acc)
{
    size_t p0 = (size_t)(r / g->H) * g->gs + (size_t)(r % g->H) * g->Wp;
    vf accv[DIRECT_KB][2];
    for (int a = 0; a < DIRECT_KB; a++) accv[a][0] = accv[a][1] = vf_zero();
    for (int c = 0; c < C; c++) {
        const float *xc = xq + (size_t)c * g->xcs + p0, *wc = wpb + (size_t)c * n * DIRECT_KB;
        for (int t = 0; t < n; t++) {
            vf x0 = vf_load(xc + g->off[t]), x1 = vf_load(xc + g->off[t] + VF_LANES);
            const float *wt = wc + t * DIRECT_KB;
            for (int a = 0; a < DIRECT_KB; a++) {
                vf wa = vf_set1(wt[a]);
                accv[a][0] = vf_fma(wa, x0, accv[a][0]);
                accv[a][1] = vf_fma(wa, x1, accv[a][1]);
            }
        }
    }
    for (int a = 0; a < kn; a++) {
        float *o = y + (((size_t)(r / g->H) * K + k0 + a) * g->H + r % g->H) * g->W;
        for (int h = 0; h < 2; h++) {
            vf out = accv[a][h];
            if (acc) out = vf_add(vf_load(o + h * VF_LANES), out);
            vf_store(o + h * VF_LANES, out);
        }
    }
}

/* The register blocks with the grid's tap count as a constant: 9, or the
 * 1, 2 or 4 of a stride-2 input gradient's phases (with it read at run
 * time, those ran 30% slower per product than the 9-tap forward). */
#define DIRECT_TAPS_SWITCH(n, CALL)                                                                                   \
    switch (n) {                                                                                                      \
    case 9: CALL(9); break;                                                                                           \
    case 4: CALL(4); break;                                                                                           \
    case 2: CALL(2); break;                                                                                           \
    case 1: CALL(1); break;                                                                                           \
    default: CALL(n); break;                                                                                          \
    }

static void block_taps(const float *xq, const Grid *g, const float *wpb, int C, int j0, float tile[DIRECT_KB][BLK])
{
#define CALL(n) forward_block(xq, g, wpb, C, n, j0, tile)
    DIRECT_TAPS_SWITCH(g->n, CALL)
#undef CALL
}

static void rows_taps(const float *xq, const Grid *g, const float *wpb, int C, int r0, int rv, int K, int k0, int kn,
                      float *y, bool acc)
{
#define CALL(n) forward_rows(xq, g, wpb, C, n, r0, rv, K, k0, kn, y, acc)
    DIRECT_TAPS_SWITCH(g->n, CALL)
#undef CALL
}

static void row2_taps(const float *xq, const Grid *g, const float *wpb, int C, int r, int K, int k0, int kn, float *y,
                      bool acc)
{
#define CALL(n) forward_row2(xq, g, wpb, C, n, r, K, k0, kn, y, acc)
    DIRECT_TAPS_SWITCH(g->n, CALL)
#undef CALL
}

/* What the drivers run: one set of taps, or the 4 of a stride-2 input
 * gradient (DIRECT_DX_S2_ALL), each with its grid (tap offsets), packed
 * filters and output. The sets share the input and the grid's geometry,
 * so a driver's item (a segment of the input by a block of outputs) takes
 * its block from any set, and every set's blocks pass over a segment while
 * it is in cache: one pass over dy for the 4 phases, not 4. */
typedef struct TapSets {
    int n;
    Grid g[4];
    const float *wp[4];
    float *y[4];
} TapSets;

static TapSets tap_sets(const float *wp, int nb, int C, int K, int H, int W, int mode, float *y)
{
    TapSets t;
    bool all = mode == DIRECT_DX_S2_ALL;
    t.n = all ? 4 : 1;
    for (int p = 0; p < t.n; p++) {
        t.g[p] = direct_grid(nb, H, W, all ? DIRECT_DX_S2 + p : mode);
        t.wp[p] = wp + direct_phase_filters(p, K, C);
        t.y[p] = y + (size_t)p * nb * K * H * W;
    }
    return t;
}

/* A driver's item `it`: segment s of the input, by block kb (channels
 * k0 .. k0 + kn - 1) of tap set `set`, whose grid, packed filters and
 * output it names. Items run segment-major, so every block passes over a
 * segment in turn. */
typedef struct Item {
    int s, k0, kn;
    const Grid *g;
    const float *wpb;
    float *y;
} Item;

static Item item_at(const TapSets *ts, int it, int C, int K)
{
    int kblocks = (K + DIRECT_KB - 1) / DIRECT_KB, blocks = ts->n * kblocks;
    int set = it % blocks / kblocks, kb = it % kblocks;
    Item r = { it / blocks, kb * DIRECT_KB, DDL_MIN(DIRECT_KB, K - kb * DIRECT_KB), &ts->g[set], NULL, ts->y[set] };
    r.wpb = ts->wp[set] + (size_t)kb * C * r.g->n * DIRECT_KB;
    return r;
}

/* The row-exact forward (mode: row_mode's), items of whole blocks of rows
 * by channel blocks (of every set), as direct_conv_cpu's items of
 * positions. */
static void direct_conv_rows(const float *xq, const TapSets *ts, int C, int K, int mode, bool acc)
{
    const Grid *g0 = &ts->g[0];
    int rv = mode == ROWS_HALVES ? 2 : 1, per = mode == ROWS_TWO_VECTORS ? 1 : VF_ROWS * rv; /* rows per block */
    int blocks = ts->n * ((K + DIRECT_KB - 1) / DIRECT_KB), R = g0->H * g0->nb;
    int seg = DDL_MAX(SEG_FLOATS / DDL_MAX(C * input_planes(g0), 1) / (g0->Wp * per), 1) * per; /* rows per item */
    int segs = (R + seg - 1) / seg, items = segs * blocks;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(ddl_kernel_threads()) if ((size_t)g0->L * K * C > 32768)
#endif
    for (int it = 0; it < items; it++) {
        Item t = item_at(ts, it, C, K);
        for (int r0 = t.s * seg; r0 < DDL_MIN(R, (t.s + 1) * seg); r0 += per)
            if (mode == ROWS_TWO_VECTORS)
                row2_taps(xq, t.g, t.wpb, C, r0, K, t.k0, t.kn, t.y, acc);
            else
                rows_taps(xq, t.g, t.wpb, C, r0, rv, K, t.k0, t.kn, t.y, acc);
    }
}

void direct_conv_cpu(const float *xq, const float *wp, int nb, int C, int K, int H, int W, int mode, float *y,
                     bool acc)
{
    TapSets ts = tap_sets(wp, nb, C, K, H, W, mode, y);
    const Grid *g0 = &ts.g[0];
    int rows = row_mode(g0);
    if (rows != ROWS_NONE) {
        direct_conv_rows(xq, &ts, C, K, rows, acc);
        return;
    }
    int blocks = ts.n * ((K + DIRECT_KB - 1) / DIRECT_KB);
    int seg = SEG_FLOATS / DDL_MAX(C * input_planes(g0), 1) / BLK * BLK;
    if (seg < BLK) seg = BLK;
    int segs = (g0->L + seg - 1) / seg, items = segs * blocks;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(ddl_kernel_threads()) if ((size_t)g0->L * K * C > 32768)
#endif
    for (int it = 0; it < items; it++) {
        Item t = item_at(&ts, it, C, K);
        float tile[DIRECT_KB][BLK];
        int end = DDL_MIN(t.g->L, (t.s + 1) * seg);
        Cursor cur = direct_cursor_at(t.g, t.s * seg);
        for (int j0 = t.s * seg; j0 < end; j0 += BLK) {
            block_taps(xq, t.g, t.wpb, C, j0, tile);
            direct_scatter(tile, t.g, &cur, DDL_MIN(BLK, end - j0), K, t.k0, t.kn, t.y, acc);
        }
    }
}

/* acc[a][t] += d[a] * the 9 taps' x at position j (xc + j + off[t]). */
static inline void filter_grad_step(vf acc[VF_DW_K][9], const vf d[VF_DW_K], const float *xj, const int off[9])
{
    for (int t = 0; t < 9; t++) {
        vf xv = vf_load(xj + off[t]);
        VF_PIN(xv);
        for (int a = 0; a < VF_DW_K; a++) acc[a][t] = vf_fma(d[a], xv, acc[a][t]);
    }
}

/* sums[a][t] = sum over positions [j0, j1) of dy_a[j] * xc[j + off[t]]
 * (j0 a multiple of VF_LANES; j1 <= L). */
static void filter_grad_block(const float *xc, const float *const dya[VF_DW_K], const int off[9], int j0, int j1,
                              float sums[VF_DW_K][9])
{
    vf acc[VF_DW_K][9], d[VF_DW_K];
    for (int a = 0; a < VF_DW_K; a++)
        for (int t = 0; t < 9; t++) acc[a][t] = vf_zero();
    int full = j0 + (j1 - j0) / VF_LANES * VF_LANES;
    for (int j = j0; j < full; j += VF_LANES) {
        for (int a = 0; a < VF_DW_K; a++) d[a] = vf_load(dya[a] + j);
        filter_grad_step(acc, d, xc + j, off);
    }
    if (full < j1) { /* a last partial vector: zeros past j1 (past L, dy is not on the grid) */
        float tail[VF_DW_K][VF_LANES];
        for (int a = 0; a < VF_DW_K; a++) {
            memset(tail[a], 0, sizeof tail[a]);
            memcpy(tail[a], dya[a] + full, sizeof(float) * (size_t)(j1 - full));
            d[a] = vf_load(tail[a]);
        }
        filter_grad_step(acc, d, xc + full, off);
    }
    for (int a = 0; a < VF_DW_K; a++)
        for (int t = 0; t < 9; t++) sums[a][t] = vf_hsum(acc[a][t]);
}

/* dw[k0 .. k0+kn)[c][*] += the sums over positions [j0, j1). */
static void filter_grad_item(const float *xq, const float *dyq, const Grid *g, int C, int K, int it, int j0, int j1,
                             float *dw)
{
    int kb = it / C, c = it % C, k0 = kb * VF_DW_K, kn = DDL_MIN(VF_DW_K, K - k0);
    const float *dya[VF_DW_K];
    for (int a = 0; a < VF_DW_K; a++) /* a block past K repeats its last channel; those sums are dropped */
        dya[a] = dyq + (size_t)(k0 + DDL_MIN(a, kn - 1)) * g->cs + g->rs + 1;
    float sums[VF_DW_K][9];
    filter_grad_block(xq + (size_t)c * g->xcs, dya, g->off, j0, j1, sums);
    for (int a = 0; a < kn; a++)
        for (int t = 0; t < 9; t++) dw[((size_t)(k0 + a) * C + c) * 9 + t] += sums[a][t];
}

/* Positions run in spans whose x (all C channels) stays in L2 while every
 * block of output channels passes over it. Each thread keeps the same
 * items in every span (a static schedule over the same count), so a dw
 * entry is only ever added to by one thread, span after span, in order:
 * no barrier between spans, and the same sums for any thread count. */
void direct_filter_grad_cpu(const float *xq, const float *dyq, int nb, int C, int K, int H, int W, int stride,
                            float *dw)
{
    Grid g = direct_grid(nb, H, W, stride == 2 ? DIRECT_FWD_S2 : DIRECT_FWD);
    int items = (K + VF_DW_K - 1) / VF_DW_K * C;
    int span = DDL_MAX(SPAN_FLOATS / DDL_MAX(C * input_planes(&g), 1) / VF_LANES, 16) * VF_LANES;
#ifdef _OPENMP
#pragma omp parallel num_threads(ddl_kernel_threads()) if ((size_t)g.L * K * C > 32768)
#endif
    for (int j0 = 0; j0 < g.L; j0 += span) {
#ifdef _OPENMP
#pragma omp for schedule(static) nowait
#endif
        for (int it = 0; it < items; it++) filter_grad_item(xq, dyq, &g, C, K, it, j0, DDL_MIN(g.L, j0 + span), dw);
    }
}

/* dx[i][c][h][w] (+)= phase (h&1, w&1)'s gradient at (h>>1, w>>1): the
 * 4 phases' outputs, each [nb][C][Ho][Wo], one after the other. A row of
 * dx interleaves two phases' rows, pair by pair (the inverse of
 * pad_phases' split). */
void direct_unphase_cpu(const float *dp, int nb, int C, int H, int W, float *dx, bool acc)
{
    int Ho = direct_out(H, 2), Wo = direct_out(W, 2);
    size_t plane = (size_t)Ho * Wo, phase = (size_t)nb * C * plane;
    PARALLEL_FOR((size_t)nb * C * H * W)
    for (int ic = 0; ic < nb * C; ic++)
        for (int h = 0; h < H; h++) {
            const float *even = dp + (size_t)(2 * (h & 1)) * phase + ic * plane + (size_t)(h >> 1) * Wo;
            const float *odd = even + phase;
            float *row = dx + ((size_t)ic * H + h) * W;
            int pairs = W / 2;
            if (acc)
                for (int n = 0; n < pairs; n++) row[2 * n] += even[n], row[2 * n + 1] += odd[n];
            else
                for (int n = 0; n < pairs; n++) row[2 * n] = even[n], row[2 * n + 1] = odd[n];
            if (W % 2) row[W - 1] = acc ? row[W - 1] + even[pairs] : even[pairs]; /* odd W */
        }
}
