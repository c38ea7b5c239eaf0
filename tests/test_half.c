/* test_half.c - binary16 conversions: exhaustive over all 65536 halves,
 * the rounding rules at every midpoint between neighbouring halves, the
 * overflow/underflow/NaN edges, and (where the compiler has _Float16) a
 * strided sweep of float bit patterns against the compiler's own
 * conversion as an independent reference. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/half.h"
#include "harness.h"

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* The value a half encodes, decoded from first principles in double. */
static double half_value_reference(uint16_t h)
{
    int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0) v = ldexp((double)m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexp((double)(1024 + m), e - 25);
    return sign ? -v : v;
}

static void test_decode_all(void)
{
    long bad_value = 0, bad_nan = 0, bad_roundtrip = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = half_to_float((uint16_t)h);
        double want = half_value_reference((uint16_t)h);
        if (isnan(want)) {
            /* NaN: float pattern is sign | all-ones exponent | payload << 13 */
            uint32_t expect = ((h & 0x8000u) << 16) | 0x7f800000u | ((h & 0x3ffu) << 13);
            if (fbits(f) != expect) bad_nan++;
        } else if ((double)f != want || !signbit(f) != !signbit(want)) {
            bad_value++;
        }
        if (half_from_float(f) != h) bad_roundtrip++;
    }
    t_checkf(bad_value == 0, "half_to_float exact for all 63488 non-NaN halves", "%ld wrong", bad_value);
    t_checkf(bad_nan == 0, "half_to_float keeps sign and payload of all 2046 NaNs", "%ld wrong", bad_nan);
    t_checkf(bad_roundtrip == 0, "half_from_float(half_to_float(h)) == h for all 65536 h", "%ld wrong",
             bad_roundtrip);
}

/* Between every two neighbouring finite halves a < b: the midpoint (exact
 * in float: 12 significant bits) goes to the one with the even mantissa,
 * one float ulp either side goes to the nearer one; the same mirrored for
 * negative values. The pair (65504, 65536) covers rounding to infinity. */
static void test_midpoints(void)
{
    long bad = 0, pairs = 0;
    for (uint32_t h = 0; h < 0x7c00; h++) {
        float a = half_to_float((uint16_t)h), b = half_to_float((uint16_t)(h + 1));
        if (h + 1 == 0x7c00) b = 65536.0f;   /* rounds to the next binade = infinity */
        float mid = (float)(((double)a + (double)b) / 2);
        if ((double)mid * 2 != (double)a + (double)b) { bad++; continue; }
        uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        uint16_t got[4] = { half_from_float(a), half_from_float(mid), half_from_float(nextafterf(mid, 0)),
                            half_from_float(nextafterf(mid, INFINITY)) };
        uint16_t want[4] = { (uint16_t)h, even, (uint16_t)h, (uint16_t)(h + 1) };
        for (int k = 0; k < 4; k++) {
            float x = k == 0 ? a : k == 1 ? mid : k == 2 ? nextafterf(mid, 0) : nextafterf(mid, INFINITY);
            if (got[k] != want[k]) bad++;
            if (half_from_float(-x) != (uint16_t)(want[k] | 0x8000u)) bad++;
        }
        pairs++;
    }
    t_checkf(bad == 0 && pairs == 0x7c00, "round-to-nearest-even at all 31744 midpoints, both signs",
             "%ld wrong of %ld pairs", bad, pairs);
}

static void test_edges(void)
{
    struct { float in; uint16_t want; const char *what; } cases[] = {
        { 0.0f, 0x0000, "+0" },
        { -0.0f, 0x8000, "-0 keeps its sign" },
        { 1.0f, 0x3c00, "1" },
        { -2.0f, 0xc000, "-2" },
        { 65504.0f, 0x7bff, "largest finite half" },
        { nextafterf(65520.0f, 0), 0x7bff, "just below 65520 stays finite" },
        { 65520.0f, 0x7c00, "65520 ties to even = infinity" },
        { -65520.0f, 0xfc00, "-65520 -> -infinity" },
        { 1e10f, 0x7c00, "large -> infinity" },
        { 3.4028235e38f, 0x7c00, "FLT_MAX -> infinity" },
        { INFINITY, 0x7c00, "+infinity" },
        { -INFINITY, 0xfc00, "-infinity" },
        { 0x1p-14f, 0x0400, "smallest normal half" },
        { nextafterf(0x1p-14f, 0), 0x0400, "just below smallest normal rounds up to it" },
        { 0x1p-24f, 0x0001, "smallest subnormal half" },
        { 0x1.8p-24f, 0x0002, "1.5 x smallest subnormal ties to even (2)" },
        { 0x1p-25f, 0x0000, "2^-25 ties to even (0)" },
        { nextafterf(0x1p-25f, 1), 0x0001, "just above 2^-25 -> smallest subnormal" },
        { -0x1p-25f, 0x8000, "-2^-25 -> -0" },
        { 0x1p-26f, 0x0000, "2^-26 -> 0" },
        { 1e-45f, 0x0000, "float subnormal -> 0" },
        { -1e-45f, 0x8000, "negative float subnormal -> -0" },
        { 0x1.ff8p-15f, 0x03ff, "largest subnormal" },
        { 0x1.ffcp-15f, 0x0400, "largest subnormal + half ulp ties to even: carries into the normal range" },
        { 1.0f + 0x1p-11f, 0x3c00, "1 + half ulp ties to even (1)" },
        { 1.0f + 0x1.8p-10f, 0x3c02, "1 + 1.5 ulp ties to even (1 + 2 ulp)" },
        { 2047.5f, 0x6800, "2047.5 -> 2048 (spacing 1 near 2048 is 2 above it)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t got = half_from_float(cases[i].in);
        t_checkf(got == cases[i].want, cases[i].what, "half_from_float(%a) = 0x%04x, want 0x%04x",
                 (double)cases[i].in, got, cases[i].want);
    }
    uint16_t qnan = half_from_float(NAN), nqnan = half_from_float(-NAN);
    t_check((qnan & 0x7c00) == 0x7c00 && (qnan & 0x3ff) && !(qnan & 0x8000), "NaN -> positive half NaN");
    t_check((nqnan & 0x7c00) == 0x7c00 && (nqnan & 0x3ff) && (nqnan & 0x8000), "-NaN -> negative half NaN");
    uint16_t low_payload = half_from_float(bitsf(0x7f800001u));
    t_checkf((low_payload & 0x7fff) == 0x7e00, "NaN whose payload is all below bit 13 stays NaN (quiet bit)",
             "got 0x%04x", low_payload);
    uint16_t payload = half_from_float(bitsf(0xffc02000u));
    t_checkf(payload == 0xfe01, "NaN keeps the top 10 payload bits and the sign", "got 0x%04x", payload);
}

static void test_arrays(void)
{
    enum { N = 4099 };
    static float f[N], back[N];
    static uint16_t h[N];
    long bad = 0;
    for (int i = 0; i < N; i++) f[i] = bitsf(0x3a000000u + (uint32_t)i * 0x5a5a5u);
    half_from_float_array(h, f, N);
    half_to_float_array(back, h, N);
    for (int i = 0; i < N; i++)
        if (h[i] != half_from_float(f[i]) || fbits(back[i]) != fbits(half_to_float(h[i]))) bad++;
    t_checkf(bad == 0, "array conversions equal the scalar ones", "%ld differ", bad);
}

#ifdef __FLT16_MAX__
/* The compiler's _Float16 conversion (F16C or libgcc, both IEEE RNE) as an
 * independent reference. NaNs are compared as "NaN with the same sign":
 * hardware quiets signalling NaNs, which half.h does not promise. */
static void test_against_compiler(void)
{
    long bad = 0, n = 0;
    const uint32_t stride = 251;   /* prime: hits every exponent and mantissa tail */
    for (uint64_t u = 0; u <= 0xffffffffull; u += stride, n++) {
        float f = bitsf((uint32_t)u);
        _Float16 hf = (_Float16)f;
        uint16_t ref;
        memcpy(&ref, &hf, 2);
        uint16_t got = half_from_float(f);
        if (isnan(f)) {
            if ((got & 0x7c00) != 0x7c00 || !(got & 0x3ff) || (got & 0x8000) != (ref & 0x8000)) bad++;
        } else if (got != ref) {
            bad++;
        }
    }
    t_checkf(bad == 0, "float -> half agrees with the compiler's _Float16 on 1 in 251 float patterns",
             "%ld of %ld differ", bad, n);
    long bad_back = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        _Float16 hf;
        uint16_t h16 = (uint16_t)h;
        memcpy(&hf, &h16, 2);
        float ref = (float)hf, got = half_to_float(h16);
        if (isnan(ref) ? !isnan(got) : fbits(ref) != fbits(got)) bad_back++;
    }
    t_checkf(bad_back == 0, "half -> float agrees with the compiler's _Float16 for all 65536 halves",
             "%ld differ", bad_back);
}
#endif

int main(void)
{
    test_decode_all();
    test_midpoints();
    test_edges();
    test_arrays();
#ifdef __FLT16_MAX__
    test_against_compiler();
#else
    t_skip("float <-> half against the compiler's _Float16", "this compiler has no _Float16");
#endif
    return t_done();
}
