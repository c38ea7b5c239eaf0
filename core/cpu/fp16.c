/* fp16.c - FP16 storage emulated in float, the FP32 -> FP16 cast and the
 * loss-scale overflow check. half_round is bit arithmetic, not a call per
 * element through half.c's encoder: the FP16 storage points of mixed
 * precision touch every activation (tests/test_mixed.c checks both agree). */
#include "kernels.h"

#include <math.h>
#include <string.h>

#include "../util/half.h"
#include "parallel.h"

float half_round(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    uint32_t sign = u & 0x80000000u, a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) return x;              /* inf, NaN */
    if (a >= 0x38800000u) {                      /* |x| >= 2^-14: normal half range */
        /* keep 10 of float's 23 mantissa bits, round to nearest even on
         * the 13 dropped; a carry into the exponent is the right answer */
        uint32_t r = (a + 0x0fffu + ((a >> 13) & 1u)) & 0xffffe000u;
        if (r >= 0x47800000u) r = 0x7f800000u;   /* >= 65536 after rounding: infinity */
        u = sign | r;
        memcpy(&x, &u, 4);
        return x;
    }
    /* Subnormal halves are multiples of 2^-24. In [0.5, 1) a float's ulp
     * is 2^-24, so adding 0.5 rounds |x| to that grid (nearest even, the
     * FPU's mode) and subtracting 0.5 is exact. */
    float r = (fabsf(x) + 0.5f) - 0.5f;          /* not folded: the build has no -ffast-math */
    return sign ? -r : r;
}

void half_round_cpu(float *x, size_t count)
{
    PARALLEL_FOR(count)
    for (size_t i = 0; i < count; i++) x[i] = half_round(x[i]);
}

void f32_to_f16_cpu(const float *x, uint16_t *y, size_t count) { half_from_float_array(y, x, count); }

bool nonfinite_cpu(const float *x, size_t count)
{
    /* no early exit: a branch-free sum vectorises, and overflow is rare */
    int bad = 0;
    for (size_t i = 0; i < count; i++) bad |= !isfinite(x[i]);
    return bad != 0;
}
