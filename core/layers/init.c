/* init.c - see init.h. */
#include "init.h"

#include <math.h>
#include <stdbool.h>
#include "../util/rng.h"

void init_weights(float *w, size_t weight_count, size_t bias_count, int cout, int fan_out_kk, InitScheme scheme,
                  uint64_t seed, uint64_t *stream)
{
    size_t fan_in = weight_count / (size_t)cout;
    float bound = 1.0f / sqrtf((float)fan_in);
    Rng rw = rng_make2(seed, "init", (*stream)++);
    bool zero_bias = false;
    if (scheme == INIT_KAIMING_OUT) {
        float stdv = sqrtf(2.0f / (float)fan_out_kk);
        for (size_t j = 0; j < weight_count; j++) w[j] = stdv * rng_normal(&rw);
    } else if (scheme == INIT_NORMAL_001) {
        for (size_t j = 0; j < weight_count; j++) w[j] = 0.01f * rng_normal(&rw);
        zero_bias = true;
    } else {
        for (size_t j = 0; j < weight_count; j++) w[j] = rng_uniform_range(&rw, -bound, bound);
    }
    if (bias_count == 0) return;
    Rng rb = rng_make2(seed, "init", (*stream)++); /* the bias takes its stream even when zeroed */
    for (size_t j = weight_count; j < weight_count + bias_count; j++)
        w[j] = zero_bias ? 0.0f : rng_uniform_range(&rb, -bound, bound);
}

void init_batchnorm(float *params, float *state, int c, uint64_t *stream)
{
    for (int j = 0; j < c; j++) { params[j] = 1.0f; params[c + j] = 0.0f; }
    if (state)
        for (int j = 0; j < c; j++) { state[j] = 0.0f; state[c + j] = 1.0f; }
    *stream += 2;
}
