/* test_path_winofused.c - the fused Winograd path's kernel table
 * (core/conv/path_winofused.c, winofused_kernels.h; its CUDA twin
 * core/cuda/conv_winofused.cu): the CPU's against the definition, then
 * every usable backend's against the CPU's bit for bit. */
#include "backend_compare.h"
#include "conv/winofused_kernels.h"

static const WinofusedKernels *WF(const Backend *be) { return table(be, "winofused"); }

/* Fused Winograd F(2x2,3x3) (core/conv/conv_winofused.c). The CPU's
 * forward pass and input gradient against their definitions (double
 * sums, within TOL_FUSED of the largest output: Winograd rounds the
 * transformed values), then the backend's filter packing and outputs
 * against the CPU's bit for bit (the same operations in the same order),
 * overwriting and adding. Planes whose tile rows are one vector, half
 * or a quarter of one (the CPU's row blocks, with AVX-512), others (runs
 * of grid positions through the output phases), and planes of at most 2
 * tiles per row (batch lanes: a vector is one tile of many images). */
#define TOL_FUSED 1e-5

/* The exact convolution: y = x (*) w, or with flip dx = dy (*) w rotated
 * and transposed (x: ins channels, y: outs). */
static void fused_exact(const float *x, const float *w, int nb, int C, int K, int H, int W, bool flip, double *y)
{
    int ins = flip ? K : C, outs = flip ? C : K;
    for (int i = 0; i < nb; i++)
        for (int o = 0; o < outs; o++)
            for (int h = 0; h < H; h++)
                for (int v = 0; v < W; v++) {
                    double s = 0;
                    for (int c = 0; c < ins; c++)
                        for (int t = 0; t < 9; t++) {
                            int dh = t / 3 - 1, dv = t % 3 - 1, yy = flip ? h - dh : h + dh, xx = flip ? v - dv : v + dv;
                            if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
                            double wv = flip ? w[((size_t)c * C + o) * 9 + t] : w[((size_t)o * C + c) * 9 + t];
                            s += wv * x[(((size_t)i * ins + c) * H + yy) * W + xx];
                        }
                    y[(((size_t)i * outs + o) * H + h) * W + v] = s;
                }
}

static void fused_pass(const Backend *be, int nb, int C, int K, int H, int W, bool flip)
{
    int ins = flip ? K : C, outs = flip ? C : K;
    size_t nx = (size_t)nb * ins * H * W, ny = (size_t)nb * outs * H * W, nw = (size_t)K * C * 9;
    size_t nxq = winofused_input_floats(nb, ins, H, W), nf = winofused_filter_floats(outs, ins);
    size_t nyq = 4 * (size_t)outs * winofused_out_channel_floats(nb, H / 2, W / 2);
    float *x = rand_floats(nx, -1, 1), *w = rand_floats(nw, -1, 1), *start = rand_floats(ny, -1, 1);
    float *xq = ddl_alloc(4 * nxq), *wt = ddl_alloc(4 * nf), *yq = ddl_alloc(4 * nyq), *y = ddl_alloc(4 * ny);
    double *exact = ddl_alloc(sizeof(double) * ny);
    char what[120];
    const char *pass = flip ? "input gradient" : "forward";
    winofused_pad_cpu(x, nb, ins, H, W, xq);
    winofused_filter_cpu(w, K, C, flip, wt);
    fused_exact(x, w, nb, C, K, H, W, flip, exact);
    double worst = 0, big = 1e-30;
    for (int acc = 0; acc < 2; acc++) {
        memcpy(y, start, sizeof(float) * ny);
        winofused_conv_cpu(xq, wt, nb, ins, outs, H, W, yq, y, acc);
        for (size_t e = 0; e < ny; e++) {
            worst = fmax(worst, fabs(y[e] - (exact[e] + (acc ? start[e] : 0.0))));
            big = fmax(big, fabs(exact[e]));
        }
    }
    if (!strcmp(be->name, "cpu")) {
        snprintf(what, sizeof what, "winofused %s n%d C%d K%d %dx%d (and acc) within %.0e of exact", pass, nb, C, K, H,
                 W, TOL_FUSED);
        if (!t_check(worst / big <= TOL_FUSED, "cpu %s", what)) printf("# relative error %.3g\n", worst / big);
    } else {
        float *xd = up(be, x, 4 * nx), *xqd = poisoned(be, nxq), *wd = up(be, w, 4 * nw), *wtd = poisoned(be, nf);
        WF(be)->pad(xd, nb, ins, H, W, xqd);
        float *got = down(be, xqd, nxq);
        snprintf(what, sizeof what, "winofused_pad %s n%d C%d K%d %dx%d", pass, nb, C, K, H, W);
        check_same(be->name, what, got, xq, nxq);
        ddl_free(got);
        WF(be)->filter(wd, K, C, flip, wtd);
        got = down(be, wtd, nf);
        snprintf(what, sizeof what, "winofused_filter %s n%d C%d K%d %dx%d", pass, nb, C, K, H, W);
        check_same(be->name, what, got, wt, nf);
        ddl_free(got);
        for (int acc = 0; acc < 2; acc++) {
            memcpy(y, start, sizeof(float) * ny);
            winofused_conv_cpu(xq, wt, nb, ins, outs, H, W, yq, y, acc);
            float *yd = acc ? up(be, start, 4 * ny) : poisoned(be, ny);
            /* the CPU's instruction-set builds need the output phases' room too */
            float *yqd = be->host_memory ? poisoned(be, nyq) : NULL;
            WF(be)->conv(xqd, wtd, nb, ins, outs, H, W, yqd, yd, acc);
            if (yqd) be->release(yqd);
            got = down(be, yd, ny);
            snprintf(what, sizeof what, "winofused_conv %s n%d C%d K%d %dx%d%s", pass, nb, C, K, H, W,
                     acc ? " acc" : "");
            check_same(be->name, what, got, y, ny);
            ddl_free(got);
            be->release(yd);
        }
        be->release(xd), be->release(xqd), be->release(wd), be->release(wtd);
    }
    ddl_free(x), ddl_free(w), ddl_free(start), ddl_free(xq), ddl_free(wt), ddl_free(yq), ddl_free(y), ddl_free(exact);
}

static void backend_winofused(const Backend *be)
{
    static const int SHAPES[][5] = {
        { 2, 5, 11, 32, 32 },  /* tile rows of 16: one AVX-512 vector */
        { 3, 7, 9, 16, 16 },   /* rows of 8: half a vector (3 images x 8 rows: even) */
        { 4, 6, 10, 8, 8 },    /* rows of 4: a quarter (16 rows) */
        { 3, 5, 11, 8, 8 },    /* 12 rows: a quarter again */
        { 1, 3, 4, 6, 10 },    /* rows of 5: runs of positions, through the phases */
        { 2, 9, 6, 34, 12 },   /* rows of 6, tall */
        { 2, 4, 3, 4, 36 },    /* 18 wide: one image per group */
        { 1, 128, 128, 2, 2 }, /* one tile per image, the most channels: batch lanes */
        { 3, 9, 12, 4, 4 },    /* batch lanes: 2x2 tiles of 3 images (13 lanes of padding) */
        { 17, 8, 5, 4, 2 },    /* batch lanes over two vectors' worth of images (32: 15 padding) */
        { 20, 16, 24, 2, 4 },
        { 1, 1, 1, 2, 2 },     /* one tile, one channel */
        { 2, 3, 5, 32, 32 },   /* channel counts off 8, on the planes above */
        { 3, 8, 16, 16, 16 },
        { 4, 6, 9, 8, 8 },
        { 2, 16, 24, 6, 10 },
    };
    for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++)
        for (int flip = 0; flip < 2; flip++)
            fused_pass(be, SHAPES[i][0], SHAPES[i][1], SHAPES[i][2], SHAPES[i][3], SHAPES[i][4], flip);
}

static void each(const Backend *be)
{
    backend_winofused(be);
}

int main(void) { return compare_main("path_winofused", each); }
