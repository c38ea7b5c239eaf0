/* half_round.c - float -> half with IEEE rounding (see half.h). Alone in
 * this file because it is lab5's FP16 exercise
 * (labs/lab5/exercises/fp16_round.c replaces it in student builds). Pure
 * integer bit manipulation, so results do not depend on the FPU's
 * rounding mode or on F16C being present. */
#include "half.h"

#include <string.h>

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
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
