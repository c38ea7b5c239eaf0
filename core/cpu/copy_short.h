/* copy_short.h - copies of a few floats (a row of a small plane) without
 * a call.
 *
 * memcpy of a run-time size is a library call, a few ns each: the kernels
 * that copy plane rows one by one (2x2 pooling's backward on rows shorter
 * than its block, the direct convolutions' padding) make 50-100k of them
 * a cnn3 step on 14- and 28-wide rows, 0.6-0.9 ms of it on one thread
 * (perf, 2026-12-06). A copy of a fixed size is inlined as vector moves,
 * so copy_short makes a short copy from two fixed-size ones, from the
 * start and to the end, overlapping where the count is not that size (as
 * glibc's memcpy does inside). Exact copies: the same bits on every
 * instruction set. */
#ifndef DDL_CPU_COPY_SHORT_H
#define DDL_CPU_COPY_SHORT_H

#include <stddef.h>
#include <string.h>

enum { COPY_SHORT_MAX = 32 }; /* floats */

/* m floats from src to dst (not overlapping), m at most COPY_SHORT_MAX. */
static inline void copy_short(float *restrict dst, const float *restrict src, size_t m)
{
    if (m >= 16)
        memcpy(dst, src, 16 * sizeof(float)), memcpy(dst + m - 16, src + m - 16, 16 * sizeof(float));
    else if (m >= 8)
        memcpy(dst, src, 8 * sizeof(float)), memcpy(dst + m - 8, src + m - 8, 8 * sizeof(float));
    else if (m >= 4)
        memcpy(dst, src, 4 * sizeof(float)), memcpy(dst + m - 4, src + m - 4, 4 * sizeof(float));
    else if (m >= 2)
        memcpy(dst, src, 2 * sizeof(float)), memcpy(dst + m - 2, src + m - 2, 2 * sizeof(float));
    else if (m == 1)
        dst[0] = src[0];
}

/* Any m: copy_short up to COPY_SHORT_MAX, memcpy past it. */
static inline void copy_row(float *restrict dst, const float *restrict src, size_t m)
{
    if (m <= COPY_SHORT_MAX)
        copy_short(dst, src, m);
    else
        memcpy(dst, src, m * sizeof(float));
}

#endif
