/* simd.h - a few float-vector operations for the register-blocked kernels
 * (conv_direct.c), with one definition per instruction set.
 *
 * Why intrinsics and not plain loops: the direct convolution keeps 24
 * accumulators in registers for a whole sum over C*9 taps; the compiler
 * does not find that blocking on its own, and C11 forbids it to contract
 * a*b + c into one FMA (-ffp-contract=off under -std=c11), which the
 * kernels need for speed. So each lane computes fmaf(a, b, c), once
 * rounded, on every instruction set: AVX-512 (16 lanes), AVX2 + FMA (8),
 * and a portable fallback (4 lanes of fmaf). The lane count changes how
 * many outputs a kernel computes at once, never a lane's own arithmetic,
 * so outputs that are one lane's chain of FMAs are the same bits on every
 * instruction set (and on the GPU twin, which runs the same chain).
 *
 * VF_ROWS: vectors per register block along the pixels, so that the
 * accumulators (8 x VF_ROWS) and the operands fit the register file (32
 * registers with AVX-512, 16 with AVX2); VF_DW_K: output channels per
 * weight-gradient block (9 accumulators each). */
#ifndef DDL_CPU_SIMD_H
#define DDL_CPU_SIMD_H

#include <math.h>
#include <string.h>

#if defined(__AVX512F__)
#include <immintrin.h>
typedef __m512 vf;
enum { VF_LANES = 16, VF_ROWS = 3, VF_DW_K = 3 };
static inline vf vf_zero(void) { return _mm512_setzero_ps(); }
static inline vf vf_load(const float *p) { return _mm512_loadu_ps(p); }
static inline void vf_store(float *p, vf v) { _mm512_storeu_ps(p, v); }
static inline vf vf_set1(float a) { return _mm512_set1_ps(a); }
static inline vf vf_fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
static inline vf vf_add(vf a, vf b) { return _mm512_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
/* The lanes' sum by a fixed tree (halves, then quarters, ...). */
static inline float vf_hsum(vf v) { return _mm512_reduce_add_ps(v); }
/* Two half vectors from / to two places (the low lanes at a). */
static inline vf vf_load_halves(const float *a, const float *b)
{
    __m512d lo = _mm512_castps_pd(_mm512_castps256_ps512(_mm256_loadu_ps(a))); /* AVX-512F only: no f32x8 */
    return _mm512_castpd_ps(_mm512_insertf64x4(lo, _mm256_castps_pd(_mm256_loadu_ps(b)), 1));
}
static inline void vf_store_halves(float *a, float *b, vf v)
{
    _mm256_storeu_ps(a, _mm512_castps512_ps256(v));
    _mm256_storeu_ps(b, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}
/* Four quarter vectors from / to four places, 4 lanes each: a vector of
 * four rows of 4 (AVX-512 only: VF_QUARTERS). */
#define VF_QUARTERS 1
static inline vf vf_load_quarters(const float *a, const float *b, const float *c, const float *d)
{
    vf v = _mm512_castps128_ps512(_mm_loadu_ps(a));
    v = _mm512_insertf32x4(v, _mm_loadu_ps(b), 1);
    v = _mm512_insertf32x4(v, _mm_loadu_ps(c), 2);
    return _mm512_insertf32x4(v, _mm_loadu_ps(d), 3);
}
/* The lanes of a and b alternated: lo = a0 b0 a1 b1 ... (the first
 * halves), hi = the second halves'. */
static inline void vf_interleave(vf a, vf b, vf *lo, vf *hi)
{
    const __m512i il = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i ih = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    *lo = _mm512_permutex2var_ps(a, il, b);
    *hi = _mm512_permutex2var_ps(a, ih, b);
}
/* Keeps a loaded vector in a register: without it GCC folds the load into
 * each FMA that uses it, tripling the loads of the weight-gradient loop. */
#define VF_PIN(v) __asm__("" : "+v"(v))
#elif defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define VF_QUARTERS 0
typedef __m256 vf;
enum { VF_LANES = 8, VF_ROWS = 1, VF_DW_K = 1 };
static inline vf vf_zero(void) { return _mm256_setzero_ps(); }
static inline vf vf_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void vf_store(float *p, vf v) { _mm256_storeu_ps(p, v); }
static inline vf vf_set1(float a) { return _mm256_set1_ps(a); }
static inline vf vf_fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
static inline vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
static inline float vf_hsum(vf v)
{
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    return _mm_cvtss_f32(_mm_add_ss(q, _mm_movehdup_ps(q)));
}
static inline vf vf_load_halves(const float *a, const float *b) { return _mm256_loadu2_m128(b, a); }
static inline void vf_store_halves(float *a, float *b, vf v) { _mm256_storeu2_m128(b, a, v); }
static inline void vf_interleave(vf a, vf b, vf *lo, vf *hi)
{
    __m256 l = _mm256_unpacklo_ps(a, b), h = _mm256_unpackhi_ps(a, b); /* a0 b0 a1 b1 a4 b4 a5 b5 | a2 .. a7 b7 */
    *lo = _mm256_permute2f128_ps(l, h, 0x20);
    *hi = _mm256_permute2f128_ps(l, h, 0x31);
}
#define VF_PIN(v) __asm__("" : "+x"(v))
#else
#define VF_QUARTERS 0
typedef struct vf {
    float v[4];
} vf;
enum { VF_LANES = 4, VF_ROWS = 1, VF_DW_K = 1 };
static inline vf vf_zero(void) { return (vf){ { 0.0f, 0.0f, 0.0f, 0.0f } }; }
static inline vf vf_load(const float *p)
{
    vf r;
    memcpy(r.v, p, sizeof r.v);
    return r;
}
static inline void vf_store(float *p, vf v) { memcpy(p, v.v, sizeof v.v); }
static inline vf vf_set1(float a) { return (vf){ { a, a, a, a } }; }
static inline vf vf_fma(vf a, vf b, vf c)
{
    for (int i = 0; i < 4; i++) c.v[i] = fmaf(a.v[i], b.v[i], c.v[i]);
    return c;
}
static inline vf vf_add(vf a, vf b)
{
    for (int i = 0; i < 4; i++) a.v[i] += b.v[i];
    return a;
}
static inline vf vf_sub(vf a, vf b)
{
    for (int i = 0; i < 4; i++) a.v[i] -= b.v[i];
    return a;
}
static inline float vf_hsum(vf v) { return (v.v[0] + v.v[2]) + (v.v[1] + v.v[3]); }
static inline vf vf_load_halves(const float *a, const float *b) { return (vf){ { a[0], a[1], b[0], b[1] } }; }
static inline void vf_store_halves(float *a, float *b, vf v)
{
    a[0] = v.v[0], a[1] = v.v[1], b[0] = v.v[2], b[1] = v.v[3];
}
static inline void vf_interleave(vf a, vf b, vf *lo, vf *hi)
{
    *lo = (vf){ { a.v[0], b.v[0], a.v[1], b.v[1] } };
    *hi = (vf){ { a.v[2], b.v[2], a.v[3], b.v[3] } };
}
#define VF_PIN(v) ((void)0)
#endif

/* Eight float lanes, and eight double lanes to sum them in (batch norm's
 * statistics): the same 8 lanes on every instruction set (one AVX-512
 * vector of doubles, two AVX2 ones, or eight scalars), so a lane's sum is
 * the same bits everywhere. */
#if defined(__AVX2__) /* also under AVX-512, which implies it */
#include <immintrin.h>
typedef __m256 f8;
static inline f8 f8_load(const float *p) { return _mm256_loadu_ps(p); }
static inline f8 f8_set1(float a) { return _mm256_set1_ps(a); }
static inline f8 f8_sub(f8 a, f8 b) { return _mm256_sub_ps(a, b); }
static inline f8 f8_mul(f8 a, f8 b) { return _mm256_mul_ps(a, b); }
static inline f8 f8_add(f8 a, f8 b) { return _mm256_add_ps(a, b); }
static inline void f8_store(float *p, f8 v) { _mm256_storeu_ps(p, v); }
/* g where lo < y (and y < hi), else +0: what `lo < y ? g : 0.0f` gives */
static inline f8 f8_keep_above(f8 g, f8 y, float lo)
{
    return _mm256_and_ps(_mm256_cmp_ps(y, _mm256_set1_ps(lo), _CMP_GT_OQ), g);
}
static inline f8 f8_keep_inside(f8 g, f8 y, float lo, float hi)
{
    return _mm256_and_ps(_mm256_cmp_ps(y, _mm256_set1_ps(hi), _CMP_LT_OQ), f8_keep_above(g, y, lo));
}
#if defined(__AVX512F__)
typedef __m512d d8;
static inline d8 d8_zero(void) { return _mm512_setzero_pd(); }
static inline d8 d8_add(d8 acc, f8 v) { return _mm512_add_pd(acc, _mm512_cvtps_pd(v)); }
static inline void d8_store(double *p, d8 v) { _mm512_storeu_pd(p, v); }
/* s1 += v - k, s2 += (v - k)^2, in double (v - k and its square are exact there) */
static inline void d8_add_moments(d8 *s1, d8 *s2, f8 v, double k)
{
    __m512d d = _mm512_sub_pd(_mm512_cvtps_pd(v), _mm512_set1_pd(k));
    *s1 = _mm512_add_pd(*s1, d);
    *s2 = _mm512_add_pd(*s2, _mm512_mul_pd(d, d));
}
#else
typedef struct d8 {
    __m256d lo, hi;
} d8;
static inline d8 d8_zero(void) { return (d8){ _mm256_setzero_pd(), _mm256_setzero_pd() }; }
static inline d8 d8_add(d8 acc, f8 v)
{
    acc.lo = _mm256_add_pd(acc.lo, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    acc.hi = _mm256_add_pd(acc.hi, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    return acc;
}
static inline void d8_store(double *p, d8 v)
{
    _mm256_storeu_pd(p, v.lo);
    _mm256_storeu_pd(p + 4, v.hi);
}
static inline void d8_add_moments(d8 *s1, d8 *s2, f8 v, double k)
{
    __m256d kk = _mm256_set1_pd(k);
    __m256d lo = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), kk);
    __m256d hi = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), kk);
    s1->lo = _mm256_add_pd(s1->lo, lo), s1->hi = _mm256_add_pd(s1->hi, hi);
    s2->lo = _mm256_add_pd(s2->lo, _mm256_mul_pd(lo, lo)), s2->hi = _mm256_add_pd(s2->hi, _mm256_mul_pd(hi, hi));
}
#endif
#else
typedef struct f8 {
    float v[8];
} f8;
typedef struct d8 {
    double v[8];
} d8;
static inline f8 f8_load(const float *p)
{
    f8 r;
    memcpy(r.v, p, sizeof r.v);
    return r;
}
static inline f8 f8_set1(float a) { return (f8){ { a, a, a, a, a, a, a, a } }; }
static inline f8 f8_sub(f8 a, f8 b)
{
    for (int i = 0; i < 8; i++) a.v[i] -= b.v[i];
    return a;
}
static inline f8 f8_mul(f8 a, f8 b)
{
    for (int i = 0; i < 8; i++) a.v[i] *= b.v[i];
    return a;
}
static inline f8 f8_add(f8 a, f8 b)
{
    for (int i = 0; i < 8; i++) a.v[i] += b.v[i];
    return a;
}
static inline void f8_store(float *p, f8 v) { memcpy(p, v.v, sizeof v.v); }
static inline f8 f8_keep_above(f8 g, f8 y, float lo)
{
    for (int i = 0; i < 8; i++) g.v[i] = lo < y.v[i] ? g.v[i] : 0.0f;
    return g;
}
static inline f8 f8_keep_inside(f8 g, f8 y, float lo, float hi)
{
    g = f8_keep_above(g, y, lo);
    for (int i = 0; i < 8; i++) g.v[i] = y.v[i] < hi ? g.v[i] : 0.0f;
    return g;
}
static inline d8 d8_zero(void) { return (d8){ { 0 } }; }
static inline d8 d8_add(d8 acc, f8 v)
{
    for (int i = 0; i < 8; i++) acc.v[i] += v.v[i];
    return acc;
}
static inline void d8_store(double *p, d8 v) { memcpy(p, v.v, sizeof v.v); }
static inline void d8_add_moments(d8 *s1, d8 *s2, f8 v, double k)
{
    for (int i = 0; i < 8; i++) {
        double d = (double)v.v[i] - k;
        s1->v[i] += d;
        s2->v[i] += d * d;
    }
}
#endif

#endif
