/* resnet18.c - ResNet-18 for CIFAR (seed 004; the widely used CIFAR
 * variant: 3x3 stem without max pooling, four stages of two BasicBlocks
 * with 64/128/256/512 channels, global average pooling, one Linear).
 * Names follow that PyTorch module tree: conv1, bn1, layer1.0.conv1, ...,
 * layerN.0.shortcut.0/1 (1x1 conv + BN when the shape changes), linear.
 * 11.2M parameters at width 1. */
#include <stdio.h>
#include "models.h"

static int basic_block(Model *m, const char *prefix, int x, int planes, int stride)
{
    int in_planes = m->tensors[x].shape.c;
    int t = mb_conv_bn(m, prefix, "conv1", "bn1", x, planes, 3, stride, true);
    t = mb_conv_bn(m, prefix, "conv2", "bn2", t, planes, 3, 1, false);
    int shortcut = x;
    if (stride != 1 || in_planes != planes)
        shortcut = mb_conv_bn(m, prefix, "shortcut.0", "shortcut.1", x, planes, 1, stride, false);
    return mb_relu(m, mb_add(m, t, shortcut));
}

int build_resnet18(Model *m, const ModelConfig *cfg, char *err)
{
    if (cfg->input.h < 8 || cfg->input.w < 8) {
        snprintf(err, 256, "resnet18 needs inputs of at least 8x8; got %dx%d", cfg->input.h, cfg->input.w);
        return -1;
    }
    int t = mb_conv_bn(m, NULL, "conv1", "bn1", m->input, scaled_width(64, cfg->width), 3, 1, true);
    static const int planes[4] = { 64, 128, 256, 512 };
    char prefix[24];
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < 2; b++) {
            snprintf(prefix, sizeof prefix, "layer%d.%d", s + 1, b);
            t = basic_block(m, prefix, t, scaled_width(planes[s], cfg->width), (s > 0 && b == 0) ? 2 : 1);
        }
    t = mb_global_avgpool(m, t);
    mb_linear(m, "linear", t, cfg->classes, true);
    return 0;
}
