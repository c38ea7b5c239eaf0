/* mixed.h - mixed precision training as Micikevicius et al. (2018),
 * "Mixed Precision Training", emulated on the CPU.
 *
 *   FP32 master weights    the optimizer (SGD, momentum, weight decay)
 *                          updates an FP32 copy of every parameter;
 *   FP16 working weights   the model computes with that copy rounded to
 *                          binary16 values (m->params holds half values);
 *   FP16 storage           the input, every layer's output and every
 *                          activation gradient are rounded to half values
 *                          where they are stored (Model.storage_hook), and
 *                          so are the weight gradients after backward;
 *   FP32 accumulation      the arithmetic inside a layer (GEMM sums, BN
 *                          statistics, the loss) runs in FP32, as the
 *                          paper's FP16 GEMMs with FP32 accumulators do;
 *   dynamic loss scaling   the loss gradient is multiplied by the scale
 *                          (start 2^16) so small gradients survive FP16;
 *                          an inf/NaN in the FP16 gradients halves the
 *                          scale and skips the step; `window` clean steps
 *                          in a row (2000) double it.
 * "FP16 emulated by rounding on CPU": the values are exactly those an FP16
 * store would keep (round to nearest even, subnormals, overflow to
 * infinity), the speed is FP32's. BN running statistics stay FP32 (they
 * are buffers, not stored activations), as in the paper's practice.
 *
 * With fp16 off, a Mixed is a thin FP32 pass-through (master aliases
 * m->params, scale 1), so one training loop serves both precisions. */
#ifndef DDL_MIXED_H
#define DDL_MIXED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/model.h"
#include "../optim/optim.h"
#include "../train/train.h"
#include "loss_scale.h"

/* x rounded to the nearest binary16 value (ties to even; beyond 65504
 * rounds to infinity; NaN stays NaN). Equal to
 * half_to_float(half_from_float(x)) for every non-NaN float, faster. */
float half_round(float x);
void half_round_array(float *x, size_t n);
/* True when every element is finite. */
bool all_finite(const float *x, size_t n);

typedef struct Mixed {
    Model *m;
    bool fp16;
    float *master;   /* FP32 master weights (fp16), or m->params (fp32) */
    LossScaler ls;   /* fp32: scale 1, never overflows */
    long steps;      /* steps applied */
} Mixed;

/* Takes the model's current parameters as the master weights; with fp16
 * installs the storage hook and rounds m->params to half values. */
void mixed_init(Mixed *mx, Model *m, bool fp16, float initial_scale, int window);
void mixed_free(Mixed *mx);
/* New weights from outside (a download): master = w, working = half(w). */
void mixed_load(Mixed *mx, const float *w);
/* Zero grads, forward, loss, backward with the loss gradient scaled by
 * the current loss scale; fp16 rounds the weight gradients to half values.
 * m->grads then holds SCALED gradients. Returns the batch's mean loss. */
double mixed_forward_backward(Mixed *mx, Trainer *t, const float *x, const int32_t *y, int n, int *correct);
/* One optimizer step from scaled gradients g (may be m->grads or an
 * average of several users' scaled gradients): inf/NaN -> halve the scale,
 * skip, return false; else unscale g in place, step the master weights,
 * refresh the working weights, return true. */
bool mixed_step(Mixed *mx, Sgd *opt, float *g);

#endif
