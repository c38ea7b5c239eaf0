/* half.c - see half.h. Pure integer bit manipulation, so results do not
 * depend on the FPU's rounding mode or on F16C being present. */
#include "half.h"

#include <string.h>

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Shift right by `shift` bits rounding to nearest, ties to even. */
static uint32_t shift_round_even(uint32_t v, unsigned shift)
{
    uint32_t kept = v >> shift;
    uint32_t rest = v & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (kept & 1u)))
        kept++;
    return kept;
}

uint16_t half_from_float(float f)
{
    uint32_t x = float_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;

    if (ax >= 0x7f800000u) {                  /* infinity or NaN */
        if (ax == 0x7f800000u) return sign | 0x7c00u;
        uint32_t payload = (ax >> 13) & 0x3ffu;
        if (payload == 0) payload = 0x200u;   /* keep it a NaN: set the quiet bit */
        return (uint16_t)(sign | 0x7c00u | payload);
    }
    /* 65520 = 65504 + half an ulp: it and everything above round (ties to
     * even, and 65504's mantissa is odd) to infinity. */
    if (ax >= 0x477ff000u) return sign | 0x7c00u;
    if (ax >= 0x38800000u) {                  /* normal half: >= 2^-14 */
        /* Rebias the exponent (127 -> 15) and round the 23-bit mantissa to
         * 10 bits; a carry out of the mantissa correctly bumps the exponent. */
        return (uint16_t)(sign | shift_round_even(ax - (112u << 23), 13));
    }
    /* Subnormal half (or zero): the result is round(|f| * 2^24). 2^-25 is
     * the tie between 0 and the smallest subnormal and goes to 0 (even);
     * float subnormals are far below it. */
    if (ax <= 0x33000000u) return sign;
    uint32_t exponent = ax >> 23;             /* 102 .. 112 here */
    uint32_t mantissa = (ax & 0x7fffffu) | 0x800000u;
    /* |f| * 2^24 = mantissa * 2^(exponent - 126); 126 - exponent is 14..24.
     * Rounding up from 0x3ff yields 0x400, which is the smallest normal's
     * encoding, so no special case is needed. */
    return (uint16_t)(sign | shift_round_even(mantissa, 126u - exponent));
}

float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;

    if (exponent == 0x1f)                     /* infinity, NaN with its payload */
        return bits_float(sign | 0x7f800000u | (mantissa << 13));
    if (exponent != 0)                        /* normal: rebias 15 -> 127 */
        return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
    /* Zero or subnormal: mantissa * 2^-24 is exact in float (a normal
     * float with at most 10 significant bits). */
    float magnitude = (float)mantissa * 0x1p-24f;
    return sign ? -magnitude : magnitude;
}

void half_from_float_array(uint16_t *dst, const float *src, size_t n)
{
    for (size_t i = 0; i < n; i++) dst[i] = half_from_float(src[i]);
}

void half_to_float_array(float *dst, const uint16_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++) dst[i] = half_to_float(src[i]);
}
