/* test_mixed.c - mixed precision (core/mixed) and the single-process parts
 * of the cloud-and-users rows (core/sync/fed.h):
 *   - half_round (the fast FP16 storage rounding) equals the exact encoder
 *     half_to_float(half_from_float(x)) at every half, one float either
 *     side of it, every midpoint, the edge cases, and a strided sweep of
 *     all float bit patterns;
 *   - dynamic loss scaling: an injected overflow halves the scale and skips
 *     the step (master weights untouched), `window` clean steps double it,
 *     the counters and the trace say so;
 *   - a clean FP16 step updates the FP32 master weights with the unscaled
 *     gradient and leaves half values in the working weights; FP16 storage
 *     leaves only half values in activations, gradients and weights;
 *   - fedavg_aggregate: the weighted mean, one user bit for bit, in place;
 *   - the closed forms: the seed's 11,173,962 parameters are 44.7 MB per
 *     round in FP32 and half that in FP16; rounds per epoch;
 *   - shards: every example held by exactly one user (IID, label-sorted,
 *     Dirichlet), sorted shards see few classes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "cpu/kernels.h"
#include "sync/fed.h"
#include "sync/fedavg_aggregate.h"
#include "util/half.h"
#include "harness.h"
#include "mixed/mixed.h"

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static float exact_round(float x) { return half_to_float(half_from_float(x)); }
static bool same(float a, float b) { return isnan(a) ? isnan(b) : fbits(a) == fbits(b); }

static void test_half_round(void)
{
    long bad = 0, n = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = half_to_float((uint16_t)h);
        if (isnan(f)) continue;
        float next = half_to_float((uint16_t)(h + 1 < 65536 ? h + 1 : h));
        float xs[5] = { f, nextafterf(f, -INFINITY), nextafterf(f, INFINITY), f, f };
        if (isfinite(next) && fabsf(next) > fabsf(f) && (h & 0x7fff) != 0x7bff) {
            xs[3] = (float)(((double)f + (double)next) / 2); /* the midpoint, exact in float */
            xs[4] = nextafterf(xs[3], 0);
        }
        for (int k = 0; k < 5; k++, n++)
            if (!same(half_round(xs[k]), exact_round(xs[k]))) bad++;
    }
    t_checkf(bad == 0, "half_round == exact encoder at every half, its float neighbours and midpoints",
             "%ld of %ld differ", bad, n);
    bad = n = 0;
    for (uint64_t u = 0; u <= 0xffffffffull; u += 4093, n++) {
        float f = bitsf((uint32_t)u);
        if (!same(half_round(f), exact_round(f))) bad++;
    }
    t_checkf(bad == 0, "half_round == exact encoder on 1 in 4093 float bit patterns", "%ld of %ld differ", bad, n);
    struct { float in, want; } e[] = {
        { 65504.0f, 65504.0f }, { 65519.0f, 65504.0f }, { 65520.0f, INFINITY }, { -65520.0f, -INFINITY },
        { 0x1p-24f, 0x1p-24f }, { 0x1p-25f, 0.0f }, { 0x1.8p-24f, 0x1p-23f }, { 1.0f + 0x1p-11f, 1.0f },
        { 0x1.ffcp-15f, 0x1p-14f }, { -0x1p-26f, -0.0f },
    };
    bad = 0;
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) bad += !same(half_round(e[i].in), e[i].want);
    t_checkf(bad == 0, "half_round edge cases (overflow at 65520, subnormal ties to even, signed zero)",
             "%ld wrong", bad);
    float v[3] = { 1.0f, NAN, 2.0f }, w[3] = { 1.0f, -INFINITY, 2.0f };
    t_check(nonfinite_cpu(v, 3) && nonfinite_cpu(w, 3) && !nonfinite_cpu(v, 1), "nonfinite_cpu finds NaN and infinity");
}

static void test_loss_scaler(void)
{
    LossScaler s;
    loss_scaler_init(&s, LOSS_SCALE_INITIAL, 3);
    t_check(s.scale == 65536.0f, "loss scale starts at 2^16");
    bool ok = loss_scaler_update(&s, true);
    t_check(!ok && s.scale == 32768.0f && s.skips == 1 && s.overflows == 1,
            "overflow: the step is skipped and the scale halves (2^16 -> 2^15)");
    ok = loss_scaler_update(&s, false) && loss_scaler_update(&s, false);
    t_check(ok && s.scale == 32768.0f, "fewer clean steps than the window: scale unchanged");
    loss_scaler_update(&s, false);
    t_checkf(s.scale == 65536.0f && s.growths == 1, "window (3) clean steps in a row double the scale",
             "scale %g", (double)s.scale);
    loss_scaler_update(&s, false);
    loss_scaler_update(&s, true);
    loss_scaler_update(&s, false);
    loss_scaler_update(&s, false);
    t_checkf(s.scale == 32768.0f, "an overflow restarts the window", "scale %g", (double)s.scale);
    t_checkf(s.ntrace == 3 && s.trace[0].overflow && s.trace[0].step == 0 && !s.trace[1].overflow &&
                 s.trace[1].step == 3 && s.trace[2].overflow && s.trace[2].step == 5,
             "the trace records every change (update index, halve/double)", "%d events", s.ntrace);
    loss_scaler_free(&s);
    loss_scaler_init(&s, 1.0f, 2000);
    loss_scaler_update(&s, true);
    t_check(s.scale == LOSS_SCALE_MIN && s.skips == 1, "the scale never drops below 1, the step is still skipped");
    loss_scaler_free(&s);
    loss_scaler_init(&s, LOSS_SCALE_INITIAL, LOSS_SCALE_WINDOW);
    for (int i = 0; i < 1999; i++) loss_scaler_update(&s, false);
    float before = s.scale;
    loss_scaler_update(&s, false);
    t_check(before == 65536.0f && s.scale == 131072.0f, "default window: doubles after 2000 clean steps, not 1999");
    loss_scaler_free(&s);
}

static void build(Model *m, int batch)
{
    ModelConfig mc = model_config_default("cnn3", (Shape){ 1, 28, 28 }, 10);
    mc.width = 0.25f;
    char err[256];
    if (model_build(m, "cnn3", &mc, batch, 7, err)) { fprintf(stderr, "%s\n", err); exit(1); }
}

static bool all_half(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!same(half_round(x[i]), x[i])) return false;
    return true;
}

static void test_mixed_step(void)
{
    enum { B = 8 };
    Model m;
    build(&m, B);
    float x[B * 784];
    int32_t y[B];
    for (int i = 0; i < B * 784; i++) x[i] = (float)((i * 37) % 101) / 101.0f - 0.3f;
    for (int i = 0; i < B; i++) y[i] = i % 10;
    SgdConfig sc = { 0.1f, 0.9f, 1e-4f, false };
    Trainer t;
    trainer_init(&t, &m, &sc);
    Mixed mx;
    mixed_init(&mx, &m, true, LOSS_SCALE_INITIAL, 2000);
    size_t n = m.nparams;
    t_check(all_half(m.params, n) && !all_half(mx.master, n), "FP16: working weights are half values, master FP32");
    float *master0 = malloc(sizeof(float) * n);
    memcpy(master0, mx.master, sizeof(float) * n);
    int correct;
    mixed_forward_backward(&mx, &t, x, y, B, &correct);
    bool acts = true;
    for (int i = 0; i < m.nlayers; i++)
        acts &= all_half(model_tensor(&m, m.layers[i].out), (size_t)B * shape_numel(m.tensors[m.layers[i].out].shape));
    t_check(acts, "FP16 storage: every layer's output holds half values");
    t_check(all_half(m.grads, n), "FP16: weight gradients are half values");
    t_check(all_half(model_tensor_grad(&m, m.layers[1].out),
                     (size_t)B * shape_numel(m.tensors[m.layers[1].out].shape)),
            "FP16 storage: activation gradients hold half values");
    /* injected overflow: one gradient is infinite */
    float keep = m.grads[3];
    m.grads[3] = INFINITY;
    bool stepped = mixed_step(&mx, &t.opt, m.grads);
    t_check(!stepped && mx.ls.scale == 32768.0f && mx.ls.skips == 1 &&
                !memcmp(master0, mx.master, sizeof(float) * n),
            "injected overflow: step skipped, master weights untouched, scale halved");
    m.grads[3] = keep;
    /* a clean step: master -= lr * (g / scale + wd * w) (momentum buffer
     * was empty). The gradients are unscaled by the current scale (2^15):
     * in training the next backward would have made them with it. */
    float *want = malloc(sizeof(float) * n);
    for (size_t i = 0; i < n; i++) {
        float g = m.grads[i] * (1.0f / 32768.0f) + 1e-4f * master0[i];
        want[i] = master0[i] - 0.1f * g;
    }
    stepped = mixed_step(&mx, &t.opt, m.grads);
    double err = t_max_abs_diff(mx.master, want, n);
    t_checkf(stepped && err < 1e-7, "clean step: master updated in FP32 with the unscaled gradient", "max diff %g",
             err);
    t_check(all_half(m.params, n), "after the step the working weights are the master rounded to half");
    free(want);
    free(master0);
    mixed_free(&mx);
    t_check(m.storage_hook == NULL, "mixed_free removes the storage hook");
    trainer_free(&t);
    model_free(&m);
}

static void test_aggregate(void)
{
    float a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 }, c[4] = { 0.1f, -3, 1e-3f, 7 }, g[4];
    const float *users[3] = { a, b, c };
    double w[3] = { 1, 3, 0 };
    fedavg_aggregate(g, users, w, 3, 4);
    t_check(g[0] == 4.0f && g[1] == 5.0f && g[2] == 6.0f && g[3] == 7.0f, "fedavg_aggregate: (1 a + 3 b + 0 c) / 4");
    double one = 12500;
    const float *only[1] = { c };
    fedavg_aggregate(g, only, &one, 1, 4);
    t_check(!memcmp(g, c, sizeof g), "fedavg_aggregate: one user comes back bit for bit");
    double w2[2] = { 1, 1 };
    const float *two[2] = { a, b };
    fedavg_aggregate(a, two, w2, 2, 4);
    t_check(a[0] == 3.0f && a[3] == 6.0f, "fedavg_aggregate: in place over the first user");
}

static void test_closed_form(void)
{
    t_check(fed_bytes_per_round(11173962, COMM_FP32) == 44695848ull, "seed 004: 11,173,962 params = 44.7 MB per round (FP32)");
    t_check(fed_bytes_per_round(11173962, COMM_FP16) == 22347924ull, "FP16 halves it: 22.3 MB");
    t_check(fabs(fed_rounds_per_epoch(SYNC_DSGD, 50000, 256, 1) - 195.3125) < 1e-9 &&
                fabs(fed_rounds_per_epoch(SYNC_DSGD, 50000, 2048, 1) - 24.4140625) < 1e-9 &&
                fed_rounds_per_epoch(SYNC_FEDAVG, 50000, 256, 1) == 1.0 &&
                fed_rounds_per_epoch(SYNC_FEDAVG, 50000, 256, 4) == 0.25 && fed_rounds_per_epoch(SYNC_CSGD, 50000, 256, 1) == 0,
            "rounds per epoch: D-SGD N/B (195.3 and 24.4), FL 1/E, C-SGD 0");
}

static void test_shards(void)
{
    Dataset d;
    synthetic_generate("cifar10", SPLIT_TRAIN, 1000, 3, &d);
    for (int k = 0; k < 3; k++) {
        FedSharding kind = (FedSharding)k;
        int total = 0, classes_max = 0;
        long label_sum = 0, want_sum = 0;
        for (int i = 0; i < d.n; i++) want_sum += d.y[i];
        bool nonempty = true;
        for (int u = 0; u < 4; u++) {
            Dataset s;
            fed_shard(&d, u, 4, kind, 0.3, 11, &s);
            total += s.n;
            nonempty &= s.n > 0;
            int seen[10] = { 0 }, nc = 0;
            for (int i = 0; i < s.n; i++) {
                label_sum += s.y[i];
                if (!seen[s.y[i]]++) nc++;
            }
            classes_max = DDL_MAX(classes_max, nc);
            dataset_free(&s);
        }
        char name[96];
        snprintf(name, sizeof name, "%s shards: every example held by exactly one user, none empty",
                 fed_sharding_name(kind));
        t_checkf(total == d.n && label_sum == want_sum && nonempty, name, "total %d of %d", total, d.n);
        if (kind == FED_LABEL_SORTED)
            t_checkf(classes_max <= 4, "label-sorted shards: each of 4 users sees at most 4 of 10 classes",
                     "%d classes", classes_max);
    }
    dataset_free(&d);
}

int main(void)
{
    test_half_round();
    test_loss_scaler();
    test_mixed_step();
    test_aggregate();
    test_closed_form();
    test_shards();
    return t_done();
}
