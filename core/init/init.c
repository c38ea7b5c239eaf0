/* init.c - deterministic parameter initialisation, PyTorch's defaults.
 *
 * nn.Linear and nn.Conv2d reset_parameters(): weight ~ kaiming_uniform(a =
 * sqrt(5)), which works out to U(-1/sqrt(fan_in), 1/sqrt(fan_in)); bias ~
 * U(-1/sqrt(fan_in), 1/sqrt(fan_in)); fan_in = in_features, or
 * (cin/groups)*k*k for a convolution. torchvision's ResNets then re-draw
 * conv weights with kaiming_normal(mode="fan_out", nonlinearity="relu"):
 * N(0, 2/fan_out), fan_out = cout*k*k (INIT_KAIMING_OUT); torchvision's
 * MobileNetV2 also re-draws its classifier: Linear weight N(0, 0.01^2),
 * bias 0 (INIT_NORMAL_001 in Model.linear_init). BatchNorm: gamma = 1,
 * beta = 0, running mean 0, running var 1.
 * Each parameter tensor draws from its own stream (seed, "init", index), so
 * adding a layer never changes the initial values of the others. */
#include <math.h>
#include <stdbool.h>
#include "../model/model.h"

void model_init_params(Model *m, uint64_t seed);

void model_init_params(Model *m, uint64_t seed)
{
    uint64_t stream = 0;
    for (int i = 0; i < m->nlayers; i++) {
        Layer *l = &m->layers[i];
        float *w = m->params + l->param_off;
        if (l->kind == LAYER_BATCHNORM) {
            int c = (int)l->weight_count;
            for (int j = 0; j < c; j++) { w[j] = 1.0f; w[c + j] = 0.0f; }
            float *st = m->state + l->state_off;
            for (int j = 0; j < c; j++) { st[j] = 0.0f; st[c + j] = 1.0f; }
            stream += 2;
            continue;
        }
        if (l->kind != LAYER_LINEAR && l->kind != LAYER_CONV2D) continue;
        size_t fan_in = l->weight_count / (size_t)l->cout;
        float bound = 1.0f / sqrtf((float)fan_in);
        Rng rw = rng_make2(seed, "init", stream++);
        bool zero_bias = false;
        if (l->kind == LAYER_CONV2D && m->conv_init == INIT_KAIMING_OUT) {
            float stdv = sqrtf(2.0f / (float)(l->cout * l->k * l->k));
            for (size_t j = 0; j < l->weight_count; j++) w[j] = stdv * rng_normal(&rw);
        } else if (l->kind == LAYER_LINEAR && m->linear_init == INIT_NORMAL_001) {
            for (size_t j = 0; j < l->weight_count; j++) w[j] = 0.01f * rng_normal(&rw);
            zero_bias = true;
        } else {
            for (size_t j = 0; j < l->weight_count; j++) w[j] = rng_uniform_range(&rw, -bound, bound);
        }
        if (l->param_count > l->weight_count) { /* the bias takes its stream even when zeroed */
            Rng rb = rng_make2(seed, "init", stream++);
            for (size_t j = l->weight_count; j < l->param_count; j++)
                w[j] = zero_bias ? 0.0f : rng_uniform_range(&rb, -bound, bound);
        }
    }
}
