/* test_backend_kernels.c - the kernels the Backend table added, its batch
 * staging and the model's host views, on every usable backend: the
 * kernels every device shares (convolution paths' own kernel tables:
 * test_path_<name>.c, one per path's CPU file).
 *
 * First the new CPU references against their definitions (naive loops):
 * images_to_channels / channels_to_images, batchnorm_eval_stats,
 * labels_outside, scale, half_round_cpu, f32_to_f16_cpu, nonfinite_cpu.
 * Then, for each backend of backend_usable() (the CPU; a GPU or emulated
 * GPU where there is one) and each instruction-set variant of the CPU's
 * kernels this CPU runs (AVX2, AVX-512: cpu_isa_variants, skipped saying
 * why where it lacks one), each of these through the backend's table
 * against the CPU reference, on fresh seeded inputs, with backend outputs
 * poisoned (NaN) first (backend_compare.h), bit-exact.
 * DeviceBatch: batches put, got and read back equal what was written; on
 * a host-memory backend get() hands over the very buffers (no copy). */
#include "backend/device_batch.h"
#include "backend_compare.h"
#include "conv/kernels_cpu.h"
#include "cpu/kernels.h"
#include "util/half.h"

/* ---- CPU references against their definitions ---- */

static void reference_layout(void)
{
    int nb = 3, c = 5, p = 7;
    size_t n = (size_t)nb * c * p;
    float *x = rand_floats(n, -1, 1), *t = ddl_alloc(sizeof(float) * n), *y = ddl_alloc(sizeof(float) * n);
    images_to_channels_cpu(x, nb, c, p, t);
    int bad = 0;
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < c; j++)
            for (int q = 0; q < p; q++) bad += t[(size_t)j * nb * p + (size_t)i * p + q] != x[((size_t)i * c + j) * p + q];
    t_checkf(bad == 0, "images_to_channels_cpu: t[c][i*p+q] = x[i][c][q]", "%d of %zu wrong", bad, n);
    t_poison(y, n);
    channels_to_images_cpu(t, nb, c, p, y);
    t_check(memcmp(x, y, sizeof(float) * n) == 0, "channels_to_images_cpu undoes images_to_channels_cpu");
    ddl_free(x);
    ddl_free(t);
    ddl_free(y);
}

static void reference_small_kernels(void)
{
    float mean[3] = { 0.5f, -1.0f, 2.0f }, var[3] = { 1.0f, 0.25f, 3.0f }, sm[3], si[3];
    batchnorm_eval_stats_cpu(mean, var, 3, 1e-5f, sm, si);
    int bad = 0;
    for (int j = 0; j < 3; j++) bad += sm[j] != mean[j] || si[j] != 1.0f / sqrtf(var[j] + 1e-5f);
    t_check(bad == 0, "batchnorm_eval_stats_cpu: mean and 1/sqrt(var + eps)");
    int32_t labels[6] = { 0, 9, 10, -1, 3, 10 };
    t_checkf(labels_outside_cpu(labels, 6, 10) == 3 && labels_outside_cpu(labels, 2, 10) == 0,
             "labels_outside_cpu counts labels outside [0, classes)", "got %d and %d", labels_outside_cpu(labels, 6, 10),
             labels_outside_cpu(labels, 2, 10));
    float v[4] = { 1.0f, -2.0f, 0.5f, 3.0f };
    scale_cpu(v, 4, 0.25f);
    t_check(v[0] == 0.25f && v[1] == -0.5f && v[2] == 0.125f && v[3] == 0.75f, "scale_cpu multiplies in place");
    float h[5] = { 1.0f + 0x1p-11f, 70000.0f, 0x1p-25f, -3.14159f, 1e-6f };
    float want[5];
    for (int i = 0; i < 5; i++) want[i] = half_to_float(half_from_float(h[i]));
    half_round_cpu(h, 5);
    t_check(memcmp(h, want, sizeof h) == 0, "half_round_cpu == half_to_float(half_from_float(x))");
    float f[3] = { 1.0f, -65504.0f, 1e-7f };
    uint16_t u[3];
    f32_to_f16_cpu(f, u, 3);
    t_check(u[0] == half_from_float(f[0]) && u[1] == half_from_float(f[1]) && u[2] == half_from_float(f[2]),
            "f32_to_f16_cpu == half_from_float");
    float fin[3] = { 1.0f, 2.0f, 3.0f }, inf[3] = { 1.0f, INFINITY, 3.0f }, nan[3] = { NAN, 0.0f, 0.0f };
    t_check(!nonfinite_cpu(fin, 3) && nonfinite_cpu(inf, 3) && nonfinite_cpu(nan, 3),
            "nonfinite_cpu finds infinity and NaN, not finite values");
}

/* ---- each backend against the CPU reference ---- */

static void backend_layout(const Backend *be)
{
    int nb = 3, c = 5, p = 7;
    size_t n = (size_t)nb * c * p;
    float *x = rand_floats(n, -1, 1), *t = ddl_alloc(4 * n), *y = ddl_alloc(4 * n);
    images_to_channels_cpu(x, nb, c, p, t);
    float *xd = up(be, x, 4 * n), *td = poisoned(be, n);
    be->conv->images_to_channels(xd, nb, c, p, td);
    float *th = down(be, td, n);
    check_same(be->name, "images_to_channels", th, t, n);
    float *yd = poisoned(be, n);
    be->conv->channels_to_images(td, nb, c, p, yd);
    float *yh = down(be, yd, n);
    check_same(be->name, "channels_to_images", yh, x, n);
    ddl_free(x);
    ddl_free(t);
    ddl_free(y);
    ddl_free(th);
    ddl_free(yh);
    be->release(xd);
    be->release(td);
    be->release(yd);
}

static void backend_small_kernels(const Backend *be)
{
    enum { C = 37 };
    float *mean = rand_floats(C, -2, 2), *var = rand_floats(C, 0, 3), sm[C], si[C];
    batchnorm_eval_stats_cpu(mean, var, C, 1e-5f, sm, si);
    float *md = up(be, mean, 4 * C), *vard = up(be, var, 4 * C), *smd = poisoned(be, C), *sid = poisoned(be, C);
    be->batchnorm_eval_stats(md, vard, C, 1e-5f, smd, sid);
    float *smh = down(be, smd, C), *sih = down(be, sid, C);
    check_same(be->name, "batchnorm_eval_stats mean", smh, sm, C);
    check_same(be->name, "batchnorm_eval_stats invstd", sih, si, C);

    int32_t labels[300];
    for (int i = 0; i < 300; i++) labels[i] = (int32_t)rng_below(&R, 14) - 2; /* -2..11 against 10 classes */
    int32_t *ld = up(be, labels, sizeof labels);
    t_check(be->labels_outside(ld, 300, 10) == labels_outside_cpu(labels, 300, 10), "%s labels_outside == cpu",
             be->name);

    size_t n = 1000;
    float *v = rand_floats(n, -3e4f, 3e4f);
    v[3] = NAN;
    v[4] = INFINITY;
    v[5] = 65520.0f;   /* rounds to infinity */
    v[6] = 0x1p-25f;   /* tie between 0 and the smallest subnormal half: 0 */
    v[7] = -0x1.8p-24f; /* subnormal tie: to even */
    float *vd = up(be, v, 4 * n), *sd = up(be, v, 4 * n);
    float *s = ddl_alloc(4 * n), *r = ddl_alloc(4 * n);
    memcpy(s, v, 4 * n);
    memcpy(r, v, 4 * n);
    scale_cpu(s, n, 1.0f / 1024.0f);
    be->scale(sd, n, 1.0f / 1024.0f);
    float *sh = down(be, sd, n);
    check_same_nan(be->name, "scale", sh, s, n);
    half_round_cpu(r, n);
    be->half_round(vd, n);
    float *rh = down(be, vd, n);
    check_same(be->name, "half_round (NaN, infinity, overflow, subnormal ties)", rh, r, n);
    uint16_t *hc = ddl_alloc(2 * n), *hb = ddl_alloc(2 * n);
    float *vd2 = up(be, v, 4 * n);
    uint16_t *hd = be->alloc(2 * n);
    f32_to_f16_cpu(v, hc, n);
    be->f32_to_f16(vd2, hd, n);
    be->to_host(hb, hd, 2 * n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += hb[i] != hc[i] && !(isnan(v[i]) && (hb[i] & 0x7c00u) == 0x7c00u && (hb[i] & 0x3ffu));
    if (!t_check(bad == 0, "%s f32_to_f16 == cpu (NaN: any NaN)", be->name)) printf("# %zu differ\n", bad);
    t_check(be->nonfinite(vd2, n) && !be->nonfinite(vd2 + 8, n - 8), "%s nonfinite finds inf/NaN, not finite values",
             be->name);
    float *frees[] = { mean, var, smh, sih, v, s, r, sh, rh };
    for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++) ddl_free(frees[i]);
    ddl_free(hc);
    ddl_free(hb);
    void *dev[] = { md, vard, vd, smd, sid, ld, vd2, sd, hd };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) be->release(dev[i]);
}

/* Five batches of 4 floats per example through two slots, the last one
 * short, then none; each read back from the backend after get(). */
static void backend_device_batch(const Backend *be)
{
    enum { CAP = 6, PER = 4 };
    DeviceBatch db;
    device_batch_init(&db, be, CAP, PER);
    const int sizes[] = { 6, 6, 6, 6, 3, 0 };
    int bad = 0, handed = 0, got_all = 1;
    float *host_x[6];
    for (int k = 0; k < 6; k++) {
        float *x = device_batch_x(&db);
        int32_t *y = device_batch_y(&db);
        host_x[k] = x;
        for (int i = 0; i < sizes[k] * PER; i++) x[i] = (float)(1000 * k + i);
        for (int i = 0; i < sizes[k]; i++) y[i] = 100 * k + i;
        device_batch_put(&db, sizes[k]);
        const float *xd;
        const int32_t *yd;
        int n = device_batch_get(&db, &xd, &yd);
        got_all &= n == sizes[k];
        if (n <= 0) continue;
        float xs[CAP * PER];
        int32_t ys[CAP];
        be->to_host(xs, xd, sizeof(float) * (size_t)n * PER);
        be->to_host(ys, yd, sizeof(int32_t) * (size_t)n);
        for (int i = 0; i < n * PER; i++) bad += xs[i] != (float)(1000 * k + i);
        for (int i = 0; i < n; i++) bad += ys[i] != 100 * k + i;
        handed += xd == host_x[k];
    }
    if (!t_check(bad == 0 && got_all, "%s device batch: every batch arrives whole, the short one and the end too",
             be->name)) printf("# %d wrong values\n", bad);
    if (be->host_memory)
        t_check(handed == 5, "%s device batch: host buffers handed over, no copy", be->name);
    else
        t_check(handed == 0 && host_x[0] != host_x[1], "%s device batch: staged through two host slots",
                 be->name);
    device_batch_free(&db);
}

int main(void)
{
    R = rng_make2(2024, "backend_kernels", 0);
    reference_layout();
    reference_small_kernels();
    const Backend *bes[8 + DDL_ISA_COUNT];
    Backend variants[DDL_ISA_COUNT];
    int nb = backend_usable(bes, 8), nv = cpu_isa_variants(variants, DDL_ISA_COUNT);
    for (int v = 0; v < nv; v++) bes[nb++] = &variants[v];
    for (int b = 0; b < nb; b++) {
        backend_layout(bes[b]);
        backend_small_kernels(bes[b]);
        backend_device_batch(bes[b]);
    }
    return t_done();
}
