/* grade-broken: lab5/fp16_round - truncates the mantissa (rounds toward
 * zero) instead of rounding to nearest even: every half it makes is
 * representable, but half of them are one ulp too small in magnitude. */
#include "half.h"

#include <string.h>

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Shift right by `shift` bits, dropping the rest (the bug). */
static uint32_t shift_round_even(uint32_t v, unsigned shift)
{
    return v >> shift;
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
