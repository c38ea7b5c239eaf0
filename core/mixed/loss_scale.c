/* loss_scale.c - see loss_scale.h. */
#include "loss_scale.h"

#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

void loss_scaler_init(LossScaler *s, float initial, int window)
{
    if (!(initial > 0.0f) || window < 1) ddl_die("loss scaler: initial scale %g and window %d must be positive",
                                                  (double)initial, window);
    memset(s, 0, sizeof *s);
    s->scale = initial;
    s->window = window;
}

void loss_scaler_free(LossScaler *s)
{
    free(s->trace);
    memset(s, 0, sizeof *s);
}

static void record(LossScaler *s, bool overflow)
{
    s->trace = ddl_grow(s->trace, s->ntrace, &s->captrace, sizeof *s->trace, 64, "the loss scale's trace");
    s->trace[s->ntrace++] = (LossScaleEvent){ s->updates, s->scale, overflow };
}

bool loss_scaler_update(LossScaler *s, bool overflow)
{
    bool ok = !overflow;
    if (overflow) {
        s->overflows++;
        s->skips++;
        s->clean = 0;
        if (s->scale > LOSS_SCALE_MIN) {
            s->scale = s->scale * 0.5f < LOSS_SCALE_MIN ? LOSS_SCALE_MIN : s->scale * 0.5f;
            record(s, true);
        }
    } else if (++s->clean >= s->window) {
        s->clean = 0;
        /* 2^24 would still be finite, but FP16 gradients that need a scale
         * past 65504 * 2^-24 are already lost: cap where halves end. */
        if (s->scale < 0x1p24f) {
            s->scale *= 2.0f;
            s->growths++;
            record(s, false);
        }
    }
    s->updates++;
    return ok;
}
