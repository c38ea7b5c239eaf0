/* resnet50.c - ResNet-50 for 28x28 one-channel images (seed 003: MNIST).
 *
 * torchvision's resnet50 (v1.5: the stride sits in the 3x3 conv of a
 * Bottleneck) with the stem changed for tiny inputs, as the CIFAR ResNets
 * do: torchvision's 7x7 stride-2 conv + 3x3 stride-2 max pool would shrink
 * 28x28 to 7x7 before the first stage and to 1x1 before the last. Here:
 *   conv1   3x3 stride 1 pad 1, in_channels = the input's (1), no max pool
 *   layer1  3 Bottlenecks, planes 64,  28x28   (expansion 4: 256 out)
 *   layer2  4 Bottlenecks, planes 128, 14x14   (first block stride 2)
 *   layer3  6 Bottlenecks, planes 256, 7x7
 *   layer4  3 Bottlenecks, planes 512, 4x4     (2048 out)
 *   global average pool, fc 2048 -> classes.
 * Everything else as torchvision: Bottleneck = conv1 1x1, bn1, relu, conv2
 * 3x3 (stride), bn2, relu, conv3 1x1 (planes*4), bn3, + identity or
 * downsample (1x1 conv with the stride, BN), relu; no conv biases.
 * Names are torchvision's state_dict names (conv1, bn1, layer1.0.conv1, ...,
 * layer1.0.downsample.0/1, fc), so a torchvision resnet50 with conv1
 * replaced by Conv2d(1, 64, 3, 1, 1, bias=False) and maxpool by Identity
 * loads one to one. Initialisation is torchvision's too (convs
 * kaiming_normal fan_out, BN 1/0, fc PyTorch's default; no zero-init of
 * the last BN). The width multiplier scales every stage's planes (and so
 * the 4x expansion) and the stem: 23.5M parameters at width 1 with 10
 * classes, 1.05 GMAC per 28x28 image forward. */
#include "models.h"

enum { EXPANSION = 4 };

static int bottleneck(Model *m, const char *prefix, int x, int planes, int stride)
{
    int t = mb_conv_bn(m, prefix, "conv1", "bn1", x, planes, 1, 1, true);
    t = mb_conv_bn(m, prefix, "conv2", "bn2", t, planes, 3, stride, true);
    t = mb_conv_bn(m, prefix, "conv3", "bn3", t, planes * EXPANSION, 1, 1, false);
    return resnet_join(m, prefix, "downsample", x, t, planes * EXPANSION, stride);
}

int build_resnet50(Model *m, const ModelConfig *cfg, char *err)
{
    static const ResnetSpec r = { "resnet50", bottleneck, { 3, 4, 6, 3 }, "fc" };
    m->conv_init = INIT_KAIMING_OUT;
    return build_resnet(m, cfg, &r, err);
}
