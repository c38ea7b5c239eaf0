/* rng.h - deterministic, splittable random numbers (SplitMix64 seeding a
 * xoshiro128+-style generator would be overkill here: SplitMix64 alone
 * passes BigCrush and is one multiply-xorshift per draw).
 *
 * Every random choice in ddlab (initialisation, shuffling, augmentation,
 * dropout, synthetic data) draws from an Rng seeded from the user's --seed
 * and a purpose tag, so runs are bit-for-bit repeatable and independent
 * streams do not interfere (adding dropout does not change the shuffle). */
#ifndef DDL_RNG_H
#define DDL_RNG_H

#include <stdint.h>

typedef struct Rng { uint64_t state; } Rng;

/* Stream for (seed, tag): tag names the purpose, e.g. "init", "shuffle". */
Rng rng_make(uint64_t seed, const char *tag);
Rng rng_make2(uint64_t seed, const char *tag, uint64_t index);
uint64_t rng_u64(Rng *r);
/* Uniform in [0, 1) with 24 random bits (exact in float). */
float rng_uniform(Rng *r);
/* Uniform in [lo, hi). */
float rng_uniform_range(Rng *r, float lo, float hi);
/* Standard normal (Box-Muller, computed in double). */
float rng_normal(Rng *r);
/* Uniform integer in [0, n) without modulo bias. */
uint32_t rng_below(Rng *r, uint32_t n);
/* Fisher-Yates shuffle of an index array. */
void rng_shuffle(Rng *r, int32_t *idx, int n);

#endif
