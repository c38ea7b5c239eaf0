/* sdss_dnn.c - the tabular network of seed 003: STAR / GALAXY / QSO from
 * the 10 SDSS features of core/data/sdss.c (u, g, r, i, z, the colours
 * u-g, g-r, r-i, i-z, redshift), standardised by the Batcher with the
 * train split's mean/std.
 *
 * The seed calls it "a custom DNN" without listing layers. ddlab's choice:
 *   fc1 10 -> 128, ReLU; fc2 128 -> 64, ReLU; fc3 64 -> 3
 * (9,859 parameters). Why this shape: the classes are separated mostly by
 * redshift and colour cuts, a few piecewise-linear boundaries that two
 * ReLU layers of this size learn in a couple of epochs, while the step
 * stays cheap enough that lab6 measures communication, not compute (the
 * seed's point for this workload). No batch norm (inputs are already
 * standardised; it would make 1- vs 2-worker runs differ) and no dropout
 * by default (ModelConfig.dropout > 0 puts one before fc3).
 * ModelConfig.hidden overrides the widths (zoo default {128, 64}); the
 * width multiplier scales them. PyTorch equivalent: a module with fc1,
 * fc2, fc3 = nn.Linear and ReLUs between them (state_dict names fc1.weight,
 * fc1.bias, ...), PyTorch's default initialisation. */
#include <stdio.h>
#include "models.h"

int build_sdss_dnn(Model *m, const ModelConfig *cfg, char *err)
{
    int t = m->input, k = 0; /* a linear layer reads its input flat */
    char name[16];
    for (; k < 4 && cfg->hidden[k] > 0; k++) {
        snprintf(name, sizeof name, "fc%d", k + 1);
        t = mb_relu(m, mb_linear(m, name, t, scaled_width(cfg->hidden[k], cfg->width), true));
    }
    if (k == 0) {
        snprintf(err, 256, "sdss_dnn needs at least one hidden layer (ModelConfig.hidden)");
        return -1;
    }
    if (cfg->dropout > 0.0f) t = mb_dropout(m, t, cfg->dropout);
    snprintf(name, sizeof name, "fc%d", k + 1);
    mb_linear(m, name, t, cfg->classes, true);
    return 0;
}
