/* loss_scale.h - dynamic loss scaling (Micikevicius et al. 2018, and the
 * rule PyTorch's GradScaler and Apex use): start at 2^16; a step whose
 * gradients hold an inf or NaN halves the scale and is skipped; after
 * `window` consecutive clean steps (2000) the scale doubles. A trace keeps
 * every change so labs can plot it. */
#ifndef DDL_MIXED_LOSS_SCALE_H
#define DDL_MIXED_LOSS_SCALE_H

#include <stdbool.h>

#define LOSS_SCALE_INITIAL 65536.0f
#define LOSS_SCALE_WINDOW 2000
/* The scale never goes below this (a model that overflows at scale 1 is
 * broken, not under-scaled). */
#define LOSS_SCALE_MIN 1.0f

typedef struct LossScaleEvent {
    long step;       /* update index (0-based) at which the scale changed */
    float scale;     /* the scale after the change */
    bool overflow;   /* true: halved after an overflow; false: doubled */
} LossScaleEvent;

typedef struct LossScaler {
    float scale;
    int window;
    long clean;      /* consecutive clean updates since the last change */
    long updates;    /* updates seen (steps taken + skipped) */
    long overflows;  /* updates with inf/NaN gradients */
    long skips;      /* steps skipped (= overflows) */
    long growths;    /* doublings */
    LossScaleEvent *trace; /* every change, in order */
    int ntrace, captrace;
} LossScaler;

void loss_scaler_init(LossScaler *s, float initial, int window);
void loss_scaler_free(LossScaler *s);
/* Record one update: returns true when the step may be applied (no
 * overflow). Halves on overflow (not below LOSS_SCALE_MIN), doubles after
 * `window` clean updates in a row. */
bool loss_scaler_update(LossScaler *s, bool overflow);

#endif
