/* resnet18.c - ResNet-18 for CIFAR (seed 004; the widely used CIFAR
 * variant: 3x3 stem without max pooling, four stages of two BasicBlocks
 * with 64/128/256/512 channels, global average pooling, one Linear).
 * Names follow that PyTorch module tree: conv1, bn1, layer1.0.conv1, ...,
 * layerN.0.shortcut.0/1 (1x1 conv + BN when the shape changes), linear.
 * 11.2M parameters at width 1. */
#include "models.h"

static int basic_block(Model *m, const char *prefix, int x, int planes, int stride)
{
    int t = mb_conv_bn(m, prefix, "conv1", "bn1", x, planes, 3, stride, true);
    t = mb_conv_bn(m, prefix, "conv2", "bn2", t, planes, 3, 1, false);
    return resnet_join(m, prefix, "shortcut", x, t, planes, stride);
}

int build_resnet18(Model *m, const ModelConfig *cfg, char *err)
{
    static const ResnetSpec r = { "resnet18", basic_block, { 2, 2, 2, 2 }, "linear" };
    return build_resnet(m, cfg, &r, err);
}
