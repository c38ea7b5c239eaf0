/* vgg11.c - VGG-11 for 32x32 inputs as in seed 001 (the CS744 model.py,
 * itself the common CIFAR variant): conv3x3(pad 1) + BatchNorm + ReLU
 * blocks with channels [64, M, 128, M, 256, 256, M, 512, 512, M, 512, 512,
 * M], then one Linear(512, classes). Layer names follow the PyTorch
 * Sequential indices ("features.0" conv, "features.1" BN, ...) so
 * state_dict fixtures map one to one. 9.2M parameters at width 1. */
#include <stdio.h>
#include "models.h"

int build_vgg11(Model *m, const ModelConfig *cfg, char *err)
{
    static const int plan[] = { 64, 0, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0 };
    if (cfg->input.h < 32 || cfg->input.w < 32) {
        snprintf(err, 256, "vgg11 needs inputs of at least 32x32 (five 2x2 poolings); got %dx%d", cfg->input.h,
                 cfg->input.w);
        return -1;
    }
    int t = m->input, idx = 0;
    char name[32];
    for (size_t i = 0; i < sizeof plan / sizeof plan[0]; i++) {
        if (plan[i] == 0) {
            t = mb_maxpool(m, t, 2, 2, 0);
            idx += 1;
            continue;
        }
        snprintf(name, sizeof name, "features.%d", idx);
        t = mb_conv2d(m, name, t, scaled_width(plan[i], cfg->width), 3, 1, 1, 1, true);
        snprintf(name, sizeof name, "features.%d", idx + 1);
        t = mb_relu(m, mb_batchnorm(m, name, t));
        idx += 3;
    }
    /* The CS744 model ends the features with AvgPool2d(1, 1), an identity;
     * a global average makes inputs larger than 32x32 work too. */
    t = mb_global_avgpool(m, t);
    mb_linear(m, "classifier", t, cfg->classes, true);
    return 0;
}
