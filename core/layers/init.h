/* init.h - deterministic parameter initialisation, PyTorch's defaults.
 *
 * nn.Linear and nn.Conv2d reset_parameters(): weight ~ kaiming_uniform(a =
 * sqrt(5)), which works out to U(-1/sqrt(fan_in), 1/sqrt(fan_in)); bias ~
 * U(-1/sqrt(fan_in), 1/sqrt(fan_in)); fan_in = in_features, or
 * (cin/groups)*k*k for a convolution. torchvision's ResNets then re-draw
 * conv weights with kaiming_normal(mode="fan_out", nonlinearity="relu"):
 * N(0, 2/fan_out), fan_out = cout*k*k (INIT_KAIMING_OUT); torchvision's
 * MobileNetV2 also re-draws its classifier: Linear weight N(0, 0.01^2),
 * bias 0 (INIT_NORMAL_001). BatchNorm: gamma = 1, beta = 0, running mean
 * 0, running var 1.
 * Each parameter tensor draws from its own stream (seed, "init", index):
 * adding a layer never changes the initial values of the others. The
 * layers call these from their kind's init (core/layers/), on host
 * memory; the model uploads the result to its backend. */
#ifndef DDL_INIT_H
#define DDL_INIT_H

#include <stddef.h>
#include <stdint.h>

typedef enum InitScheme {
    INIT_TORCH_DEFAULT,  /* PyTorch's nn.Linear/nn.Conv2d reset_parameters */
    INIT_KAIMING_OUT,    /* torchvision ResNet/MobileNetV2 convs: N(0, sqrt(2/fan_out)) */
    INIT_NORMAL_001      /* torchvision MobileNetV2 Linear: weight N(0, 0.01), bias 0 */
} InitScheme;

/* Weights w[weight_count] (fan_in = weight_count / cout) and, when
 * bias_count > 0, the bias right after them, by `scheme`; takes the next
 * stream for the weights and one more for a bias (even when a scheme
 * zeroes it, so streams do not depend on the scheme). fan_out_kk is
 * cout*k*k for INIT_KAIMING_OUT. */
void init_weights(float *w, size_t weight_count, size_t bias_count, int cout, int fan_out_kk, InitScheme scheme,
                  uint64_t seed, uint64_t *stream);
/* BatchNorm: gamma 1, beta 0 (params[2c]), running mean 0, var 1
 * (state[2c], may be NULL); takes two streams (its two parameters). */
void init_batchnorm(float *params, float *state, int c, uint64_t *stream);

#endif
