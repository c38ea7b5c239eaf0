/* winofused_kernels.h - the kernel table of the fused Winograd path
 * (path_winofused.c; the CPU's in conv_winofused.c, the CUDA twin's in
 * conv_winofused.cu). Its weight gradient is the direct kernels'
 * (grad_pad, filter_grad: the same functions as DirectKernels' pad and
 * filter_grad). Below: the layouts, the kernels and their table. */
#ifndef DDL_CONV_WINOFUSED_KERNELS_H
#define DDL_CONV_WINOFUSED_KERNELS_H

#include <stddef.h>
#include "direct_kernels.h"
#include "kernels.h"

/* The layouts of Winograd F(2x2,3x3) on the direct kernels' grid
 * (conv_winofused.c, its CUDA twin conv_winofused.cu, and the layer
 * core/conv/path_winofused.c): the tile's taps on the input's
 * phases, the packed transformed filters, and the filter transform, in
 * one place so the three agree (the transform is compiled for the CPU and
 * the GPU from this one text: the same operations, the same bits).
 *
 * Tiles. Output tile (ty, tx) is the 2x2 block of pixels (2ty + a,
 * 2tx + b); its 4x4 input window starts at x[2ty - 1][2tx - 1]. On the
 * input's 4 phases (direct_kernels.h: phase p = 2*(row odd) +
 * (column odd), a plane of (H/2) x (W/2) with a zero border), window row
 * r (0..3) is x row 2ty + r - 1: the odd phase's padded row ty for r = 0,
 * the even phase's row ty + 1 for r = 1, the odd's ty + 1 for r = 2, the
 * even's ty + 2 for r = 3; columns likewise. So every window value is a
 * fixed offset from the tile's position on the phases' grid (the grid of
 * an (H/2) x (W/2) output, direct_grid), and the 16 loads of a vector of
 * tiles are 16 contiguous vector loads: the direct kernels' layout, with
 * a 16-entry tap table. The outputs come out as the 4 phases of y
 * ([4][nb][K][H/2][W/2], phase p = 2a + b), which direct_unphase
 * interleaves into y. H and W must be even.
 *
 * Packed filters ("wt"): V = G g G^T of every (output, input) pair of
 * channels as [16][ceil(outs/8)][ins][8]: per tile position, per block of
 * 8 outputs, per input channel, the 8 values side by side (zeros past
 * outs), the order the kernel broadcasts them in. With flip, the input
 * gradient's: outs = C from ins = K, g = w[in][out] rotated by 180
 * degrees. */

#ifdef __CUDACC__
#define WINOFUSED_FN __host__ __device__ static inline
#else
#define WINOFUSED_FN static inline
#endif

/* Tile positions; the most channels the CPU kernel's block of transformed
 * input holds (16 x 128 x 48 floats on its stack: 384 KiB), in and out
 * (the input gradient swaps them). */
enum { WINOFUSED_POS = 16, WINOFUSED_MAX_C = 128 };

/* Window row (or column) r: its phase's parity (1: odd) and its padded
 * row (column) offset from the tile's grid position. */
WINOFUSED_FN int winofused_odd(int r) { return 1 - (r & 1); }
WINOFUSED_FN int winofused_shift(int r) { return (r + 1) / 2; }

/* Window value (r, c)'s offset from the tile's position on a grid with cs
 * floats per phase plane and rs per padded row (of a group). */
WINOFUSED_FN size_t winofused_tap_offset(int r, int c, size_t cs, size_t rs)
{
    return (size_t)(2 * winofused_odd(r) + winofused_odd(c)) * cs + (size_t)winofused_shift(r) * rs +
           (size_t)winofused_shift(c);
}

/* Batch lanes, for planes of at most WINOFUSED_BATCH_W tiles per row
 * (4x4 inputs and smaller): on the grid a tile row of 2 would leave its 2
 * padding columns in every vector (half the work thrown away). Instead
 * the input is laid out [C][4][Ho+2][Wo+2][nbp], the images innermost
 * (nbp: nb rounded up to WINOFUSED_BATCH_ALIGN), so a vector is one tile
 * of consecutive images, every window value again a fixed offset (a
 * column is nbp floats), and only real tiles are computed. */
enum { WINOFUSED_BATCH_W = 2, WINOFUSED_BATCH_ALIGN = 16 };
static inline int winofused_batch_lanes(int W) { return W / 2 <= WINOFUSED_BATCH_W; }
static inline int winofused_nbp(int nb)
{
    return (nb + WINOFUSED_BATCH_ALIGN - 1) / WINOFUSED_BATCH_ALIGN * WINOFUSED_BATCH_ALIGN;
}

/* Floats of the input layout of nb images of C channels of H x W. */
static inline size_t winofused_input_floats(int nb, int C, int H, int W)
{
    if (!winofused_batch_lanes(W)) return direct_input_floats(nb, C, H, W, 2);
    return (size_t)C * 4 * (size_t)(H / 2 + 2) * (size_t)(W / 2 + 2) * (size_t)winofused_nbp(nb);
}

/* The output phases ("yq"): [4][K][ocs]. On the grid, each channel's
 * outputs at their positions on the grid of the (H/2) x (W/2) tiles
 * (direct_grid), the kernel's blocks of positions stored whole (no
 * scatter), so ocs covers the positions up to the last tile and one block
 * more (the CPU's register block, at most WINOFUSED_BLK_MAX positions);
 * with batch lanes, tile t's images at t*nbp. */
enum { WINOFUSED_BLK_MAX = 64 };
static inline size_t winofused_out_channel_floats(int nb, int Ho, int Wo)
{
    if (winofused_batch_lanes(2 * Wo)) return (size_t)Ho * (size_t)Wo * (size_t)winofused_nbp(nb);
    int g = direct_group(nb, Wo);
    size_t last = (size_t)(nb / g - 1) * (size_t)(Ho + 2) * (size_t)g * (size_t)(Wo + 2) +
                  (size_t)(Ho * g - 1) * (size_t)(Wo + 2) + (size_t)Wo;
    return last + WINOFUSED_BLK_MAX;
}

/* Floats of the packed transformed filters, outs outputs from ins inputs. */
static inline size_t winofused_filter_floats(int outs, int ins)
{
    return (size_t)WINOFUSED_POS * (size_t)((outs + DIRECT_KB - 1) / DIRECT_KB) * DIRECT_KB * (size_t)ins;
}

/* v[16] = G g G^T of one 3x3 filter g (row-major), G = [1 0 0; 1/2 1/2
 * 1/2; 1/2 -1/2 1/2; 0 0 1]: each half is applied after its sum, so no
 * compiler can fuse it into an FMA (and change the bits on one side). */
WINOFUSED_FN void winofused_filter_tile(const float g[9], float v[16])
{
    float t[4][3];
    for (int j = 0; j < 3; j++) {
        t[0][j] = g[j];
        t[1][j] = 0.5f * ((g[j] + g[3 + j]) + g[6 + j]);
        t[2][j] = 0.5f * ((g[j] - g[3 + j]) + g[6 + j]);
        t[3][j] = g[6 + j];
    }
    for (int i = 0; i < 4; i++) {
        v[4 * i] = t[i][0];
        v[4 * i + 1] = 0.5f * ((t[i][0] + t[i][1]) + t[i][2]);
        v[4 * i + 2] = 0.5f * ((t[i][0] - t[i][1]) + t[i][2]);
        v[4 * i + 3] = t[i][2];
    }
}

/* The 3x3 filter of (out, in) of the packed set: w[out][in], or with flip
 * w[in][out] rotated by 180 degrees (w is K x C x 3 x 3). */
WINOFUSED_FN void winofused_filter_of(const float *w, int C, int out, int in, int flip, float g[9])
{
    const float *src = flip ? w + ((size_t)in * C + out) * 9 : w + ((size_t)out * C + in) * 9;
    for (int t = 0; t < 9; t++) g[t] = src[flip ? 8 - t : t];
}

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU's kernels. Tensors are NCHW float32; kernels that produce an
 * input gradient take acc: false overwrites, true adds. */

/* Winograd F(2x2,3x3) on the direct kernels' grid, stride 1, padding 1
 * (conv_winofused.c says why and how; layouts above):
 * filter: wt = V = G g G^T of w[K][C][3][3], packed per tile position in
 *         blocks of 8 outputs; with flip, the input gradient's (C outputs
 *         from K inputs, rotated);
 * conv:    y[nb][K][H][W] (+)= the convolution of x[nb][C][H][W] (H, W
 *          even; C <= WINOFUSED_MAX_C) from its phases xq
 *          (direct_pad_cpu with stride 2) and wt; yq: room for the 4
 *          output phases on the tiles' grid, [4][K][ocs], which some
 *          planes go through (above);
 * unphase: y (+)= the phases yq interleaved. */
void winofused_pad_cpu(const float *x, int nb, int C, int H, int W, float *xq);
void winofused_filter_cpu(const float *w, int K, int C, bool flip, float *wt);
void winofused_conv_cpu(const float *xq, const float *wt, int nb, int C, int K, int H, int W, float *yq, float *y,
                         bool acc);
void winofused_unphase_cpu(const float *yq, int nb, int K, int H, int W, float *y, bool acc);

/* Their CUDA twins: the same arguments, device pointers (the emulated
 * GPU's build names them _emu, as core/cuda/emu/names.h does the rest). */
#ifdef DDL_CUDA_EMU
#define winofused_conv_cuda winofused_conv_cuda_emu
#define winofused_filter_cuda winofused_filter_cuda_emu
#define winofused_pad_cuda winofused_pad_cuda_emu
#endif
/* conv_winofused.cu: Winograd F(2x2,3x3) on the direct grid (layouts
 * above). */
void winofused_pad_cuda(const float *x, int nb, int C, int H, int W, float *xq);
void winofused_filter_cuda(const float *w, int K, int C, bool flip, float *wt);
void winofused_conv_cuda(const float *xq, const float *wt, int nb, int C, int K, int H, int W, float *yq, float *y,
                         bool acc);

typedef struct WinofusedKernels {
    void (*pad)(const float *x, int nb, int C, int H, int W, float *xq);
    void (*filter)(const float *w, int K, int C, bool flip, float *wt);
    void (*conv)(const float *xq, const float *wt, int nb, int C, int K, int H, int W, float *yq, float *y, bool acc);
    void (*grad_pad)(const float *x, int nb, int C, int H, int W, int stride, float *xq);
    void (*filter_grad)(const float *xq, const float *dyq, int nb, int C, int K, int H, int W, int stride, float *dw);
} WinofusedKernels;

CONV_KERNEL_TABLES(WinofusedKernels, winofused_kernels);

#ifdef __cplusplus
}
#endif

#endif
