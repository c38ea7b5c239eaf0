/* half.c - half -> float and the array forms (see half.h); float -> half
 * is in half_round.c. Pure integer bit manipulation, so results do not
 * depend on the FPU's rounding mode or on F16C being present. */
#include "half.h"

#include <string.h>

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
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
