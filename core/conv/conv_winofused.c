/* conv_winofused.c - 3x3 convolutions (stride 1, padding 1) by
 * Winograd's F(2x2,3x3) with the transforms in registers, on the direct
 * kernels' padded phases (layouts: winofused_kernels.h): the forward pass,
 * and the input gradient (the same convolution of dy with the filters
 * rotated and transposed).
 *
 * Why: the direct kernels (conv_direct.c) run the narrow layers of the
 * quick profile near the GEMM's peak, so only fewer multiplications make
 * them faster, and Winograd's 16 products per 2x2 block of outputs and
 * input channel are 2.25x fewer than their 36. The GEMM Winograd
 * (winograd.c, path_winograd.c) writes the transformed input (4x the
 * input) to memory and reads it back through 16 GEMMs whose inner
 * dimension is only C; with 16-32 channels that ran at 0.7-0.77 of
 * im2col's step where direct ran at 0.37-0.6. Here a block of tiles is
 * transformed into a buffer that stays in cache, multiplied by register
 * blocks like the direct kernels', and transformed out, in one pass
 * (measured in pick.c: 0.42-0.66 of im2col's step on 32-128
 * channels, against direct's 0.50-0.99 and Winograd's 0.59-0.99).
 *
 * How: every value of a tile's 4x4 window is a fixed offset from the
 * tile's position on the input's phases, so a vector of tiles is 16
 * contiguous vector loads. A block is VF_ROWS such vectors:
 *  1. input transform: per input channel, U = B^T d B in registers (32
 *     adds per vector), into u[16][C][BLK] (at most 384 KiB on the stack:
 *     WINOFUSED_MAX_C channels);
 *  2. per block of 8 outputs and tile position: m = sum over c of V * U,
 *     8 x VF_ROWS accumulators of FMAs as in the direct forward (24 FMAs
 *     per 3 loads and 8 broadcasts with AVX-512), into m[16][8][BLK];
 *  3. output transform A^T m A (24 adds), the 4 pixels of each tile.
 * How the vectors walk the tiles (Walk): where a tile row is one vector,
 * half or a quarter of one (planes 32, 16 or 8 wide with AVX-512; every
 * image's rows interleaved), a vector holds whole tile rows and its
 * outputs are interleaved (vf_interleave) and stored straight into y,
 * with nothing computed for the padding; on planes of at most 2 tiles
 * per row, batch lanes (the images innermost: a vector is one tile of 16
 * images, outputs through yq and unbatch); elsewhere runs of grid
 * positions, padding columns included, outputs through the phases in yq
 * and winofused_unphase (a first version scattered each run into y,
 * which took a third of the time).
 * Each output is a fixed sequence (transform, a chain of FMAs over c from
 * 0, transform) whatever the vector width, walk or thread count; the CUDA
 * twin runs the same sequence. A thread owns whole blocks, so results do
 * not depend on the thread count. Rounding: Winograd adds and subtracts
 * inputs before the products, so results differ from the direct kernels'
 * in the last bits (tests/test_conv_paths.c bounds it: 6.4e-7 of the
 * largest output against im2col at worst).
 *
 * Not here: the weight gradient. Winograd's (the 16 positions' products
 * of U and A dy A^T summed over tiles) was measured 1.7x slower than the
 * direct kernels' on 16-32 channels: its transformed x and dy, 4x their
 * size, must go through memory (38 MB per call for 16 channels on 32x32),
 * the per-position reductions having no register blocking that keeps
 * them in registers; summing the direct taps from the phases instead (no
 * transforms) was 1.2-1.6x slower, 20 loads per 36 FMAs. */
#include "kernels_cpu.h"
#include "direct_kernels.h"
#include "winofused_kernels.h"

#include <string.h>
#include "../util/common.h"
#include "conv_direct_grid.h"
#include "../cpu/parallel.h"
#include "../cpu/simd.h"

_Static_assert((int)BLK <= (int)WINOFUSED_BLK_MAX, "a block past the last tile must fit the output phases' slack");

/* A block of 8 outputs and one input at a time: each filter transformed
 * by winofused_filter_tile (the text the CUDA twin compiles too), then
 * each position's 8 values stored together. With each filter's 16 values
 * stored straight to their 16 places, 64 x 64 channels took 0.08 ms. */
void winofused_filter_cpu(const float *w, int K, int C, bool flip, float *wt)
{
    int outs = flip ? C : K, ins = flip ? K : C, blocks = (outs + DIRECT_KB - 1) / DIRECT_KB;
    size_t per_pos = (size_t)blocks * ins * DIRECT_KB;
    PARALLEL_FOR((size_t)blocks * ins * DIRECT_KB * 16)
    for (int bi = 0; bi < blocks * ins; bi++) {
        int ob = bi / ins, in = bi % ins;
        float v[DIRECT_KB][WINOFUSED_POS];
        for (int a = 0; a < DIRECT_KB; a++) {
            float g[9] = { 0 };
            if (ob * DIRECT_KB + a < outs) winofused_filter_of(w, C, ob * DIRECT_KB + a, in, flip, g);
            winofused_filter_tile(g, v[a]);
        }
        for (int p = 0; p < WINOFUSED_POS; p++)
            for (int a = 0; a < DIRECT_KB; a++) wt[p * per_pos + (size_t)bi * DIRECT_KB + a] = v[a][p];
    }
}

/* Where a block's vectors of tiles start: VF_ROWS positions, each the
 * first of VF_LANES consecutive tiles on the grid (rv = 1), or of rv tile
 * rows of VF_LANES / rv tiles, Wp apart (rv = 2, or 4 with AVX-512), or
 * (batch lanes) of one tile of VF_LANES consecutive images. */
typedef struct Lanes {
    int pos[VF_ROWS];
} Lanes;

#define WINOFUSED_INLINE inline __attribute__((always_inline))

static WINOFUSED_INLINE vf load_lanes(const float *p, int rv, int Wp)
{
#if VF_QUARTERS
    if (rv == 4) return vf_load_quarters(p, p + Wp, p + 2 * Wp, p + 3 * Wp);
#endif
    return rv == 1 ? vf_load(p) : vf_load_halves(p, p + Wp);
}

/* u[p][c][q] (p: tile position, q < BLK) = B^T d B of channel c's windows
 * at the block's tiles: rows first, then columns. base[r][b]: window row
 * r's offset in its phase plane of column parity b; a column shift is
 * cstep floats (1 on the grid, where the compiler folds it into the
 * loads; the images' count with batch lanes). */
static WINOFUSED_INLINE void input_block(const float *xq, const Grid *g, const int base[4][2], int C,
                                          const Lanes *ln, int rv, int cstep, float *u)
{
    size_t ps = (size_t)C * BLK; /* floats per tile position */
    for (int c = 0; c < C; c++)
        for (int v = 0; v < VF_ROWS; v++) {
            const float *x = xq + (size_t)c * g->xcs + ln->pos[v];
            vf e[4][4];
            for (int j = 0; j < 4; j++) {
                int b = winofused_odd(j), sj = winofused_shift(j) * cstep;
                vf d0 = load_lanes(x + base[0][b] + sj, rv, g->Wp), d1 = load_lanes(x + base[1][b] + sj, rv, g->Wp);
                vf d2 = load_lanes(x + base[2][b] + sj, rv, g->Wp), d3 = load_lanes(x + base[3][b] + sj, rv, g->Wp);
                e[0][j] = vf_sub(d0, d2), e[1][j] = vf_add(d1, d2);
                e[2][j] = vf_sub(d2, d1), e[3][j] = vf_sub(d1, d3);
            }
            for (int i = 0; i < 4; i++) {
                float *o = u + (size_t)(4 * i) * ps + (size_t)c * BLK + v * VF_LANES;
                vf_store(o, vf_sub(e[i][0], e[i][2]));
                vf_store(o + ps, vf_add(e[i][1], e[i][2]));
                vf_store(o + 2 * ps, vf_sub(e[i][2], e[i][1]));
                vf_store(o + 3 * ps, vf_sub(e[i][1], e[i][3]));
            }
        }
}

/* m[a][q] = sum over c of wb[c][a] * up[c][q]: one tile position, a block
 * of 8 outputs, a chain of FMAs over c from 0. */
static void product_block(const float *up, const float *wb, int C, float m[DIRECT_KB][BLK])
{
    vf acc[DIRECT_KB][VF_ROWS];
    for (int a = 0; a < DIRECT_KB; a++)
        for (int r = 0; r < VF_ROWS; r++) acc[a][r] = vf_zero();
    for (int c = 0; c < C; c++) {
        vf uv[VF_ROWS];
        for (int r = 0; r < VF_ROWS; r++) uv[r] = vf_load(up + (size_t)c * BLK + r * VF_LANES);
        const float *w = wb + (size_t)c * DIRECT_KB;
        for (int a = 0; a < DIRECT_KB; a++) {
            vf wa = vf_set1(w[a]);
            for (int r = 0; r < VF_ROWS; r++) acc[a][r] = vf_fma(wa, uv[r], acc[a][r]);
        }
    }
    for (int a = 0; a < DIRECT_KB; a++)
        for (int r = 0; r < VF_ROWS; r++) vf_store(&m[a][r * VF_LANES], acc[a][r]);
}

/* ph[p] = output phase p (p = 2a + b: pixel (2ty + a, 2tx + b)) of
 * channel `a` of the block, vector v: A^T m A, rows first. */
static WINOFUSED_INLINE void output_tile(const float m[WINOFUSED_POS][DIRECT_KB][BLK], int a, int v, vf ph[4])
{
    vf f[2][4];
    for (int j = 0; j < 4; j++) {
        vf m0 = vf_load(&m[j][a][v * VF_LANES]), m1 = vf_load(&m[4 + j][a][v * VF_LANES]);
        vf m2 = vf_load(&m[8 + j][a][v * VF_LANES]), m3 = vf_load(&m[12 + j][a][v * VF_LANES]);
        f[0][j] = vf_add(vf_add(m0, m1), m2);
        f[1][j] = vf_sub(vf_sub(m1, m2), m3);
    }
    for (int i = 0; i < 2; i++) {
        ph[2 * i] = vf_add(vf_add(f[i][0], f[i][1]), f[i][2]);
        ph[2 * i + 1] = vf_sub(vf_sub(f[i][1], f[i][2]), f[i][3]);
    }
}

/* Positions in runs: the phases stored at the block's grid positions of
 * yq ([4][K][ocs]; winofused_unphase reads them). */
static void output_grid(const float m[WINOFUSED_POS][DIRECT_KB][BLK], int kn, float *yq, size_t ocs, size_t phase)
{
    for (int a = 0; a < kn; a++)
        for (int v = 0; v < VF_ROWS; v++) {
            vf ph[4];
            output_tile(m, a, v, ph);
            for (int p = 0; p < 4; p++) vf_store(yq + (size_t)p * phase + (size_t)a * ocs + v * VF_LANES, ph[p]);
        }
}

static WINOFUSED_INLINE void store_row(float *o, vf v, bool acc)
{
    vf_store(o, acc ? vf_add(vf_load(o), v) : v);
}

/* Whole tile rows (every image's rows interleaved: tile row r is image
 * r % nb, row r / nb): a row's two output rows, each the interleave of
 * two phases, go straight into y (+)=. Rows from R on are not stored (a
 * block's last vectors repeat row R - rv). */
typedef struct RowOut {
    float *y;
    int nb, K, H, W, R;
    bool acc;
} RowOut;

static float *row_of(const RowOut *o, int r, int k, int i)
{
    return o->y + (((size_t)(r % o->nb) * o->K + k) * o->H + 2 * (r / o->nb) + i) * o->W;
}

static void output_rows(const float m[WINOFUSED_POS][DIRECT_KB][BLK], int kn, int k0, int r0, int rv,
                        const RowOut *o)
{
    for (int a = 0; a < kn; a++)
        for (int v = 0; v < VF_ROWS && r0 + v * rv < o->R; v++) {
            vf ph[4];
            output_tile(m, a, v, ph);
            int r = r0 + v * rv, k = k0 + a;
            for (int i = 0; i < 2; i++) {
                vf lo, hi;
                vf_interleave(ph[2 * i], ph[2 * i + 1], &lo, &hi);
                if (rv == 1) { /* one row: its halves */
                    float *y0 = row_of(o, r, k, i);
                    store_row(y0, lo, o->acc);
                    store_row(y0 + VF_LANES, hi, o->acc);
                } else if (rv == 2) { /* rows r and r + 1 */
                    store_row(row_of(o, r, k, i), lo, o->acc);
                    store_row(row_of(o, r + 1, k, i), hi, o->acc);
                } else { /* rows r .. r + 3, half a vector each */
                    float *y0 = row_of(o, r, k, i), *y1 = row_of(o, r + 1, k, i);
                    float *y2 = row_of(o, r + 2, k, i), *y3 = row_of(o, r + 3, k, i);
                    if (o->acc) {
                        lo = vf_add(vf_load_halves(y0, y1), lo);
                        hi = vf_add(vf_load_halves(y2, y3), hi);
                    }
                    vf_store_halves(y0, y1, lo);
                    vf_store_halves(y2, y3, hi);
                }
            }
        }
}

/* Batch lanes: the 4 phases of channels k0 .. k0 + kn - 1 of the block's
 * vectors, stored whole into yq ([4][K][Ho*Wo*nbp], vector vi at
 * vi*VF_LANES: winofused_unbatch reads them); vectors from `vectors` on
 * (a block's last ones repeat the last vector) are not stored. */
static void output_batch(const float m[WINOFUSED_POS][DIRECT_KB][BLK], int kn, int v0, int vectors, float *yq,
                         size_t ocs, size_t phase)
{
    for (int a = 0; a < kn; a++)
        for (int v = 0; v < VF_ROWS && v0 + v < vectors; v++) {
            vf ph[4];
            output_tile(m, a, v, ph);
            for (int p = 0; p < 4; p++)
                vf_store(yq + (size_t)p * phase + (size_t)a * ocs + (size_t)(v0 + v) * VF_LANES, ph[p]);
        }
}

/* How a call walks the tiles (winofused_kernels.h): runs of positions on
 * the phases' grid (outputs through yq), whole tile rows (rv per vector;
 * outputs straight into y), or batch lanes (a vector is one tile of
 * VF_LANES images; outputs through yq). */
typedef enum Walk { WALK_RUNS, WALK_ROWS, WALK_BATCH } Walk;

/* What a call computes and where its outputs go. */
typedef struct Conv {
    const float *xq, *wt;
    const Grid *g; /* batch lanes: xcs and nb of their layout */
    int base[4][2], C, K;
    Walk walk;
    int rv;      /* tile rows per vector (WALK_ROWS) */
    int vectors; /* WALK_BATCH: tiles x images / VF_LANES */
    int nbp;     /* WALK_BATCH: the images, padded (winofused_nbp) */
    float *yq;
    RowOut out;
} Conv;

/* Where vector v of block b starts in the input. */
static int lane_start(const Conv *cv, int b, int v)
{
    const Grid *g = cv->g;
    if (cv->walk == WALK_ROWS) return DDL_MIN(b * VF_ROWS * cv->rv + v * cv->rv, cv->out.R - cv->rv) * g->Wp;
    if (cv->walk == WALK_RUNS) return b * BLK + v * VF_LANES;
    int vi = DDL_MIN(b * VF_ROWS + v, cv->vectors - 1), per_tile = cv->nbp / VF_LANES, tile = vi / per_tile;
    return ((tile / g->W) * g->Wp + tile % g->W) * cv->nbp + vi % per_tile * VF_LANES;
}

/* One block: transform in, then per block of 8 outputs the 16 products
 * and the transform out. Block b is tile rows [b*VF_ROWS*rv, ...),
 * positions [b*BLK, ...), or vectors [b*VF_ROWS, ...) of batch lanes. */
static void conv_block(const Conv *cv, int b)
{
    float u[WINOFUSED_POS * WINOFUSED_MAX_C * BLK], m[WINOFUSED_POS][DIRECT_KB][BLK];
    int C = cv->C, K = cv->K, kblocks = (K + DIRECT_KB - 1) / DIRECT_KB, rv = cv->rv, r0 = b * VF_ROWS * rv;
    size_t per_pos = (size_t)kblocks * C * DIRECT_KB, ocs = winofused_out_channel_floats(cv->g->nb, cv->g->H, cv->g->W);
    Lanes ln = { { 0 } };
    for (int v = 0; v < VF_ROWS; v++) ln.pos[v] = lane_start(cv, b, v);
    if (cv->walk == WALK_BATCH) /* the lanes' loads and column step as constants where they are */
        input_block(cv->xq, cv->g, cv->base, C, &ln, 1, cv->nbp, u);
    else if (rv == 4)
        input_block(cv->xq, cv->g, cv->base, C, &ln, 4, 1, u);
    else if (rv == 2)
        input_block(cv->xq, cv->g, cv->base, C, &ln, 2, 1, u);
    else
        input_block(cv->xq, cv->g, cv->base, C, &ln, 1, 1, u);
    for (int kb = 0; kb < kblocks; kb++) {
        int k0 = kb * DIRECT_KB, kn = DDL_MIN(DIRECT_KB, K - k0);
        for (int p = 0; p < WINOFUSED_POS; p++)
            product_block(u + (size_t)p * C * BLK, cv->wt + p * per_pos + (size_t)kb * C * DIRECT_KB, C, m[p]);
        const float(*mm)[DIRECT_KB][BLK] = (const float(*)[DIRECT_KB][BLK])m;
        if (cv->walk == WALK_ROWS)
            output_rows(mm, kn, k0, r0, rv, &cv->out);
        else if (cv->walk == WALK_RUNS)
            output_grid(mm, kn, cv->yq + (size_t)k0 * ocs + (size_t)b * BLK, ocs, (size_t)K * ocs);
        else
            output_batch(mm, kn, b * VF_ROWS, cv->vectors, cv->yq + (size_t)k0 * ocs, ocs, (size_t)K * ocs);
    }
}

/* Tile rows per vector where a vector holds whole ones (rows interleaved
 * across all images; a row of one vector, half or a quarter of one, the
 * rows a multiple of the rows per vector), else 0. */
static int rows_per_vector(const Grid *g)
{
    if (g->g != g->nb) return 0;
    for (int rv = 1; rv <= (VF_QUARTERS ? 4 : 2); rv *= 2)
        if (rv * g->W == VF_LANES && g->H * g->nb % rv == 0) return rv;
    return 0;
}

/* Batch lanes: y[i][k][h][w] (+)= phase (h&1, w&1) of channel k at tile
 * (h>>1, w>>1), lane i of yq ([4][K][ocs], tile t's images at t*nbp). */
static void unbatch(const float *yq, int nb, int K, int H, int W, float *y, bool acc)
{
    int Wo = W / 2, nbp = winofused_nbp(nb);
    size_t ocs = winofused_out_channel_floats(nb, H / 2, Wo), phase = (size_t)K * ocs;
    PARALLEL_FOR((size_t)nb * K * H * W)
    for (int ik = 0; ik < nb * K; ik++) {
        int i = ik / K, k = ik % K;
        float *out = y + (size_t)ik * H * W;
        for (int h = 0; h < H; h++)
            for (int w = 0; w < W; w++) {
                float v = yq[(size_t)(2 * (h & 1) + (w & 1)) * phase + (size_t)k * ocs +
                             ((size_t)(h >> 1) * Wo + (size_t)(w >> 1)) * nbp + i];
                out[h * W + w] = acc ? out[h * W + w] + v : v;
            }
    }
}

/* Batch lanes' view of the tiles: their layout's floats per channel (all
 * 4 phases), per phase plane and per padded row, in a Grid for
 * input_block; positions step nbp floats per tile column. */
static Grid batch_grid(int nb, int Ho, int Wo)
{
    Grid g = { 0 };
    int nbp = winofused_nbp(nb);
    g.nb = nb, g.g = nb, g.H = Ho, g.W = Wo, g.Wp = Wo + 2, g.rs = (Wo + 2) * nbp;
    g.cs = (size_t)(Ho + 2) * g.rs, g.xcs = 4 * g.cs, g.L = Ho * Wo * nbp;
    return g;
}

void winofused_conv_cpu(const float *xq, const float *wt, int nb, int C, int K, int H, int W, float *yq, float *y,
                        bool acc)
{
    if (C > WINOFUSED_MAX_C) ddl_die("winofused_conv_cpu: %d input channels (at most %d)", C, WINOFUSED_MAX_C);
    bool batch = winofused_batch_lanes(W);
    Grid g = batch ? batch_grid(nb, H / 2, W / 2) : direct_grid(nb, H / 2, W / 2, DIRECT_FWD_S2);
    Conv cv = { xq, wt, &g, { { 0 } }, C, K, WALK_RUNS, 0, 0, winofused_nbp(nb), yq, { y, nb, K, H, W, g.H * nb, acc } };
    if (batch) {
        cv.walk = WALK_BATCH, cv.vectors = g.L / VF_LANES;
    } else if ((cv.rv = rows_per_vector(&g)) > 0) {
        cv.walk = WALK_ROWS;
    }
    for (int r = 0; r < 4; r++)
        for (int b = 0; b < 2; b++)
            cv.base[r][b] = (2 * winofused_odd(r) + b) * (int)g.cs + winofused_shift(r) * g.rs;
    int blocks = cv.walk == WALK_ROWS    ? (cv.out.R + VF_ROWS * cv.rv - 1) / (VF_ROWS * cv.rv)
                 : cv.walk == WALK_RUNS ? (g.L + BLK - 1) / BLK
                                        : (cv.vectors + VF_ROWS - 1) / VF_ROWS;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(ddl_kernel_threads()) if ((size_t)g.L * K * C > 32768)
#endif
    for (int b = 0; b < blocks; b++) conv_block(&cv, b);
    if (cv.walk == WALK_RUNS) winofused_unphase_cpu(yq, nb, K, H, W, y, acc);
    if (cv.walk == WALK_BATCH) unbatch(yq, nb, K, H, W, y, acc);
}

/* y[i][k][h][w] (+)= phase (h&1, w&1) of channel k at the grid position
 * of (i, h>>1, w>>1): per channel, the grid's rows in order (its reads
 * run forward), each row of tiles two rows of y, each the interleave of
 * two phases' rows. */
void winofused_unphase_cpu(const float *yq, int nb, int K, int H, int W, float *y, bool acc)
{
    Grid g = direct_grid(nb, H / 2, W / 2, DIRECT_FWD_S2);
    size_t ocs = winofused_out_channel_floats(nb, H / 2, W / 2), phase = (size_t)K * ocs;
    int pairs = W / 2;
    PARALLEL_FOR((size_t)nb * K * H * W)
    for (int k = 0; k < K; k++)
        for (int G = 0; G < nb / g.g; G++)
            for (int t = 0; t < g.H * g.g; t++) { /* tile row t / g of image G*g + t % g */
                int i = G * g.g + t % g.g, ty = t / g.g;
                const float *src = yq + (size_t)k * ocs + (size_t)G * g.gs + (size_t)t * g.Wp;
                for (int a = 0; a < 2; a++) {
                    const float *even = src + (size_t)(2 * a) * phase, *odd = even + phase;
                    float *row = y + (((size_t)i * K + k) * H + 2 * ty + a) * W;
                    if (acc)
                        for (int n = 0; n < pairs; n++) row[2 * n] += even[n], row[2 * n + 1] += odd[n];
                    else
                        for (int n = 0; n < pairs; n++) row[2 * n] = even[n], row[2 * n + 1] = odd[n];
                }
            }
}

/* The input of winofused_conv_cpu: the phases on the grid (direct_pad_cpu
 * with stride 2), or for batch lanes [C][4][Ho+2][Wo+2][nbp]: x's value
 * at (h, w) in phase 2*(h&1) + (w&1), padded row h/2 + 1, column w/2 + 1,
 * lane i; zeros elsewhere. */
void winofused_pad_cpu(const float *x, int nb, int C, int H, int W, float *xq)
{
    if (!winofused_batch_lanes(W)) {
        direct_pad_cpu(x, nb, C, H, W, 2, xq);
        return;
    }
    int Wp = W / 2 + 2, nbp = winofused_nbp(nb);
    size_t cs = (size_t)(H / 2 + 2) * Wp * nbp;
    memset(xq, 0, sizeof(float) * winofused_input_floats(nb, C, H, W));
    PARALLEL_FOR((size_t)nb * C * H * W)
    for (int c = 0; c < C; c++)
        for (int i = 0; i < nb; i++)
            for (int h = 0; h < H; h++)
                for (int w = 0; w < W; w++)
                    xq[(size_t)c * 4 * cs + (size_t)(2 * (h & 1) + (w & 1)) * cs +
                       ((size_t)(h / 2 + 1) * Wp + (size_t)(w / 2 + 1)) * nbp + i] = x[(((size_t)i * C + c) * H + h) * W + w];
}
