/* mixed.h - mixed precision training as Micikevicius et al. (2018),
 * "Mixed Precision Training": real FP16 GEMMs on a GPU, emulated by
 * rounding on the CPU.
 *
 *   FP32 master weights    the optimizer (SGD, momentum, weight decay)
 *                          updates an FP32 copy of every parameter;
 *   FP16 working weights   the model computes with that copy rounded to
 *                          binary16 values (m->params holds half values;
 *                          on a backend with an FP16 GEMM also as real
 *                          halves, m->params16, which the GEMMs read);
 *   FP16 storage           the input, every layer's output and every
 *                          activation gradient are rounded to half values
 *                          where they are stored (Model.storage_hook), and
 *                          so are the weight gradients after backward;
 *   FP32 accumulation      the arithmetic inside a layer (GEMM sums, BN
 *                          statistics, the loss) runs in FP32, as the
 *                          paper's FP16 GEMMs with FP32 accumulators do
 *                          (on a GPU: cublasGemmEx, FP16 operands, FP32
 *                          compute, core/layers/matmul.c);
 *   dynamic loss scaling   the loss gradient is multiplied by the scale
 *                          (start 2^16) so small gradients survive FP16;
 *                          an inf/NaN in the FP16 gradients halves the
 *                          scale and skips the step; `window` clean steps
 *                          in a row (2000) double it.
 * "FP16 emulated by rounding on CPU": the values are exactly those an FP16
 * store would keep (round to nearest even, subnormals, overflow to
 * infinity), the speed is FP32's. On a GPU the GEMM operands are real
 * halves; activations stay floats holding half values. BN running
 * statistics stay FP32 (they are buffers, not stored activations), as in
 * the paper's practice. Every step runs on the model's backend: the
 * overflow check too (one flag back to the host per step).
 *
 * With fp16 off, a Mixed is a thin FP32 pass-through (master aliases
 * m->params, scale 1), so one training loop serves both precisions. */
#ifndef DDL_MIXED_H
#define DDL_MIXED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/model.h"
#include "../train/optim.h"
#include "../train/checkpoint_state.h"
#include "../train/train.h"
#include "loss_scale.h"

typedef struct Mixed {
    Model *m;
    bool fp16;
    bool fp16_gemm;  /* real FP16 GEMM operands (the backend has gemm_f16) */
    float *master;   /* FP32 master weights (fp16), or m->params (fp32); backend memory */
    LossScaler ls;   /* fp32: scale 1, never overflows */
    long steps;      /* steps applied */
} Mixed;

/* Takes the model's current parameters as the master weights; with fp16
 * installs the storage hook and rounds m->params to half values. */
void mixed_init(Mixed *mx, Model *m, bool fp16, float initial_scale, int window);
void mixed_free(Mixed *mx);
/* Its state into a checkpoint's "<prefix>.*" sections, and back (a
 * resumed run: mixed_checkpoint.c). 0, or -1 with a message in err. */
void mixed_save(const Mixed *mx, Ckpt *c, const char *prefix);
int mixed_restore(Mixed *mx, const Ckpt *c, const char *prefix, char err[DDL_ERRLEN]);
/* What this run's precision is, for outputs: "fp32", "fp16 (emulated by
 * rounding on the CPU)" or "fp16 (FP16 GEMMs, FP32 accumulation, on the
 * GPU)". */
const char *mixed_kind(const Mixed *mx);
/* New weights from outside (a download; backend memory): master = w,
 * working = half(w). */
void mixed_load(Mixed *mx, const float *w);
/* Zero grads, forward, loss, backward with the loss gradient scaled by
 * the current loss scale; fp16 rounds the weight gradients to half values.
 * m->grads then holds SCALED gradients. Returns the batch's mean loss. */
double mixed_forward_backward(Mixed *mx, Trainer *t, const float *x, const int32_t *y, int n, int *correct);
/* One optimizer step from scaled gradients g (backend memory: m->grads or
 * an average of several users' scaled gradients): inf/NaN -> halve the scale,
 * skip, return false; else unscale g in place, step the master weights,
 * refresh the working weights, return true. */
bool mixed_step(Mixed *mx, Sgd *opt, float *g);

#endif
