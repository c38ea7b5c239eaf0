/* conv_direct_grid.c - the direct kernels' grid of positions
 * (conv_direct_grid.h). */
#include "conv_direct_grid.h"

#include <string.h>
#include "../util/common.h"

Grid direct_grid(int nb, int H, int W, int mode)
{
    int g = direct_group(nb, W);
    Grid r = { nb, g, H, W, W + 2, g * (W + 2), 0, direct_channel_floats(nb, H, W), 0, 0, 0, { 0 } };
    r.gs = (size_t)(H + 2) * r.rs;
    r.xcs = (size_t)direct_input_planes(mode) * r.cs;
    r.L = (int)((size_t)(nb / g - 1) * r.gs) + (H * g - 1) * r.Wp + W;
    DirectTaps d = direct_taps(mode);
    r.n = d.n;
    for (int t = 0; t < d.n; t++) r.off[t] = (int)direct_tap_offset(&d, t, r.cs, (size_t)r.rs);
    return r;
}

Cursor direct_cursor_at(const Grid *g, int j)
{
    int G = (int)((size_t)j / g->gs), row = (int)((size_t)j % g->gs) / g->Wp;
    return (Cursor){ G, row / g->g, row % g->g, j % g->Wp };
}

void direct_scatter(const float tile[DIRECT_KB][BLK], const Grid *g, Cursor *cur, int len, int K, int k0, int kn,
                    float *y, bool acc)
{
    Cursor c = *cur;
    for (int q = 0; q < len;) {
        int run = DDL_MIN(len - q, g->Wp - c.ow);
        if (c.oh < g->H && c.ow < g->W) {
            int i = c.G * g->g + c.u, n = DDL_MIN(run, g->W - c.ow);
            for (int a = 0; a < kn; a++) {
                float *out = y + (((size_t)i * K + k0 + a) * g->H + c.oh) * g->W + c.ow;
                const float *src = &tile[a][q];
                if (acc)
                    for (int e = 0; e < n; e++) out[e] += src[e];
                else
                    memcpy(out, src, sizeof(float) * (size_t)n);
            }
        }
        q += run;
        c.ow += run;
        if (c.ow == g->Wp) {
            c.ow = 0;
            if (++c.u == g->g) {
                c.u = 0;
                if (++c.oh == g->H + 2) c.oh = 0, c.G++;
            }
        }
    }
    *cur = c;
}

