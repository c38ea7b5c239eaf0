/* half.h - IEEE 754 binary16 ("half", FP16) <-> binary32 conversions.
 *
 * Halves are carried as uint16_t bit patterns: C11 has no half type, and
 * a bit pattern is what goes on the wire in an FP16 allreduce anyway.
 *
 * float -> half rounds to nearest, ties to even, exactly as IEEE 754
 * requires: results that round past 65504 become infinity, tiny values
 * become subnormal halves (down to 2^-24) or signed zero. Infinities keep
 * their sign. NaNs stay NaNs with their sign and the top 10 payload bits;
 * a payload that would vanish becomes the quiet bit, so no NaN ever turns
 * into infinity.
 *
 * half -> float is exact for every one of the 65536 patterns (binary32
 * holds every binary16 value), NaN payloads included, so
 * half_from_float(half_to_float(h)) == h for all h. */
#ifndef DDL_HALF_H
#define DDL_HALF_H

#include <stddef.h>
#include <stdint.h>

uint16_t half_from_float(float f);
float half_to_float(uint16_t h);

/* Element-wise over arrays (dst and src must not overlap). */
void half_from_float_array(uint16_t *dst, const float *src, size_t n);
void half_to_float_array(float *dst, const uint16_t *src, size_t n);

/* Largest finite half (65504) and half's unit roundoff 2^-11, for
 * callers that state tolerances. */
#define HALF_MAX 65504.0f
#define HALF_EPS 0x1p-10f
#define HALF_UNIT_ROUNDOFF 0x1p-11f

#endif
