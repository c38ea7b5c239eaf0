/* step.h - one training step of cnn3 in one plain C file (step.c): the
 * page to read before the rest of libddl, which computes the same step
 * through its layers, kernels and paths. tests/test_reference_step.c
 * checks that they agree. */
#ifndef DDL_REFERENCE_STEP_H
#define DDL_REFERENCE_STEP_H

#include <stddef.h>
#include <stdint.h>

/* cnn3 on 1x28x28 images (core/model/cnn3.c): three 3x3 convolutions
 * (padding 1, bias) with ReLU and 2x2 max pooling, 28 -> 14 -> 7 -> 3;
 * then fc1 (c3*3*3 -> f1, ReLU) and fc2 (f1 -> classes). At width 1:
 * c1 = 32, c2 = 64, c3 = 64, f1 = 128, classes = 10. */
typedef struct RefCnn3 {
    int c1, c2, c3, f1, classes;
} RefCnn3;

/* SGD as torch.optim.SGD (dampening 0, no Nesterov). */
typedef struct RefSgd {
    float lr, momentum, weight_decay;
} RefSgd;

/* Floats in the parameter vector, in libddl's order (and PyTorch's):
 * conv1.weight [c1][1][3][3], conv1.bias [c1], conv2..., conv3...,
 * fc1.weight [f1][c3*9], fc1.bias, fc2.weight [classes][f1], fc2.bias. */
size_t ref_cnn3_params(const RefCnn3 *net);

/* One step on n images x ([n][28][28]) with labels y: forward, the mean
 * softmax cross-entropy, backward, and the SGD update of params and of
 * velocity (both ref_cnn3_params floats; velocity zero before the first
 * step). Returns the loss. */
double ref_cnn3_step(const RefCnn3 *net, const RefSgd *sgd, float *params, float *velocity, const float *x,
                     const int32_t *y, int n);

#endif
