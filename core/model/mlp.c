/* mlp.c - multi-layer perceptron: fc1 .. fcK with ReLU, then the classifier.
 * Seed 002 trained a 4-layer (input, two hidden, output) Genann network on
 * MNIST and swept the second hidden width; hidden[] sets the widths. */
#include <stdio.h>
#include "models.h"

int build_mlp(Model *m, const ModelConfig *cfg, char *err)
{
    int t = mb_flatten(m, m->input), k = 0;
    char name[16];
    for (; k < 4 && cfg->hidden[k] > 0; k++) {
        snprintf(name, sizeof name, "fc%d", k + 1);
        t = mb_relu(m, mb_linear(m, name, t, scaled_width(cfg->hidden[k], cfg->width), true));
    }
    snprintf(name, sizeof name, "fc%d", k + 1);
    mb_linear(m, name, t, cfg->classes, true);
    (void)err;
    return 0;
}
