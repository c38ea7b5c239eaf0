/* rng.c - SplitMix64 (Steele, Lea & Flood 2014). */
#include "rng.h"

#include <math.h>

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* FNV-1a of the tag mixes the purpose into the stream. */
static uint64_t hash_tag(const char *tag)
{
    uint64_t h = 0xCBF29CE484222325ULL;
    for (const unsigned char *p = (const unsigned char *)tag; p && *p; p++)
        h = (h ^ *p) * 0x100000001B3ULL;
    return h;
}

Rng rng_make2(uint64_t seed, const char *tag, uint64_t index)
{
    uint64_t x = seed ^ hash_tag(tag);
    uint64_t a = splitmix(&x);
    x = a ^ (index * 0xD1B54A32D192ED03ULL);
    Rng r = { splitmix(&x) };
    return r;
}

Rng rng_make(uint64_t seed, const char *tag) { return rng_make2(seed, tag, 0); }

uint64_t rng_u64(Rng *r) { return splitmix(&r->state); }

float rng_uniform(Rng *r) { return (float)(rng_u64(r) >> 40) * (1.0f / 16777216.0f); }

float rng_uniform_range(Rng *r, float lo, float hi) { return lo + (hi - lo) * rng_uniform(r); }

float rng_normal(Rng *r)
{
    double u1 = ((double)(rng_u64(r) >> 11) + 1.0) * (1.0 / 9007199254740993.0);
    double u2 = (double)(rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2));
}

uint32_t rng_below(Rng *r, uint32_t n)
{
    if (n <= 1) return 0;
    /* Lemire's multiply-shift with rejection. */
    uint64_t m = (uint64_t)(uint32_t)rng_u64(r) * n;
    uint32_t lo = (uint32_t)m;
    if (lo < n) {
        uint32_t t = (uint32_t)(-n) % n;
        while (lo < t) {
            m = (uint64_t)(uint32_t)rng_u64(r) * n;
            lo = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

void rng_shuffle(Rng *r, int32_t *idx, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(r, (uint32_t)(i + 1));
        int32_t t = idx[i]; idx[i] = idx[j]; idx[j] = t;
    }
}
