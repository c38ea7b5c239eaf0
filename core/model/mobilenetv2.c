/* mobilenetv2.c - MobileNetV2 for 28x28 one-channel images (seed 003:
 * Fashion-MNIST).
 *
 * torchvision's mobilenet_v2 with two strides changed, as the common CIFAR
 * adaptation does: torchvision reduces 224x224 by 32 (stem stride 2, then
 * stride 2 in the 24-, 32-, 64- and 160-channel stages), which would leave
 * a 28x28 image 1x1 from the 64-channel stage on. Here the stem conv has
 * stride 1 and the 24-channel stage stride 1, so the total stride is 8:
 *   features.0   conv 3x3 stride 1 (in_channels = the input's), BN, ReLU6  28x28
 *   features.1   t1 c16  n1 s1                                              28x28
 *   features.2-3 t6 c24  n2 s1 (torchvision: s2)                            28x28
 *   features.4-6 t6 c32  n3 s2                                              14x14
 *   features.7-10  t6 c64  n4 s2                                            7x7
 *   features.11-13 t6 c96  n3 s1                                            7x7
 *   features.14-16 t6 c160 n3 s2                                            4x4
 *   features.17  t6 c320 n1 s1                                              4x4
 *   features.18  conv 1x1 -> 1280, BN, ReLU6; global average pool;
 *   classifier   Dropout(0.2) (classifier.0), Linear 1280 -> classes (classifier.1).
 * An inverted residual (features.i.conv): 1x1 expand to t*in channels
 * (conv.0.0) + BN (conv.0.1) + ReLU6 when t != 1, then the 3x3 depthwise
 * conv (groups = channels, the stride) + BN + ReLU6, then the linear 1x1
 * projection (conv.2 / conv.3 BN; conv.1 / conv.2 when t = 1); the input
 * is added back when stride = 1 and the channels match. No conv biases.
 * Names are torchvision's state_dict names, so torchvision's module with
 * features[0][0] = Conv2d(1, 32, 3, 1, 1, bias=False) and
 * features[2].conv[1][0].stride = (1, 1) loads one to one.
 *
 * Width multiplier: torchvision's rule, not scaled_width(): every channel
 * count is _make_divisible(c * width, 8) (round to a multiple of 8, at least
 * 8, never more than 10% below), and the last conv keeps 1280 channels for
 * widths below 1 (the paper's choice) and scales above. Initialisation is
 * torchvision's: convs kaiming_normal fan_out, BN 1/0, the Linear N(0, 0.01)
 * with bias 0. ModelConfig.dropout < 0 means torchvision's 0.2; 0 leaves
 * the dropout layer out (exact data-parallel comparisons).
 * 2.24M parameters at width 1 with 10 classes, ~73 MMAC per image forward. */
#include <math.h>
#include <stdio.h>
#include "models.h"

/* torchvision's _make_divisible(v, 8). */
static int make_divisible(double v)
{
    const int divisor = 8;
    int nv = (int)(v + divisor / 2.0) / divisor * divisor;
    if (nv < divisor) nv = divisor;
    if (nv < 0.9 * v) nv += divisor;
    return nv;
}

/* Conv (no bias) + BN + optional ReLU6, named <prefix>.0 and <prefix>.1
 * (torchvision's Conv2dNormActivation). */
static int conv_bn(Model *m, const char *prefix, int x, int cout, int k, int stride, int groups, bool relu6)
{
    char name[48];
    snprintf(name, sizeof name, "%.40s.0", prefix);
    int t = mb_conv2d(m, name, x, cout, k, stride, (k - 1) / 2, groups, false);
    snprintf(name, sizeof name, "%.40s.1", prefix);
    t = mb_batchnorm(m, name, t);
    return relu6 ? mb_relu6(m, t) : t;
}

static int inverted_residual(Model *m, int index, int x, int oup, int stride, int expand)
{
    int inp = m->tensors[x].shape.c, hidden = inp * expand, part = 0, t = x;
    char prefix[48];
    if (expand != 1) {
        snprintf(prefix, sizeof prefix, "features.%d.conv.%d", index, part++);
        t = conv_bn(m, prefix, t, hidden, 1, 1, 1, true);
    }
    snprintf(prefix, sizeof prefix, "features.%d.conv.%d", index, part++);
    t = conv_bn(m, prefix, t, hidden, 3, stride, hidden, true);
    /* the projection is a bare Conv2d and BatchNorm2d in torchvision's
     * Sequential: two indices, no ".0"/".1" */
    snprintf(prefix, sizeof prefix, "features.%d.conv.%d", index, part++);
    t = mb_conv2d(m, prefix, t, oup, 1, 1, 0, 1, false);
    snprintf(prefix, sizeof prefix, "features.%d.conv.%d", index, part++);
    t = mb_batchnorm(m, prefix, t);
    return (stride == 1 && inp == oup) ? mb_add(m, x, t) : t;
}

int build_mobilenetv2(Model *m, const ModelConfig *cfg, char *err)
{
    /* t (expansion), c (channels), n (blocks), s (first block's stride) */
    static const int setting[7][4] = { { 1, 16, 1, 1 },  { 6, 24, 2, 1 },  { 6, 32, 3, 2 }, { 6, 64, 4, 2 },
                                       { 6, 96, 3, 1 },  { 6, 160, 3, 2 }, { 6, 320, 1, 1 } };
    if (cfg->input.h < 8 || cfg->input.w < 8) {
        snprintf(err, 256, "mobilenetv2 needs inputs of at least 8x8; got %dx%d", cfg->input.h, cfg->input.w);
        return -1;
    }
    double w = cfg->width;
    m->conv_init = INIT_KAIMING_OUT;
    m->linear_init = INIT_NORMAL_001;
    int t = conv_bn(m, "features.0", m->input, make_divisible(32 * w), 3, 1, 1, true);
    int index = 1;
    for (int s = 0; s < 7; s++)
        for (int i = 0; i < setting[s][2]; i++)
            t = inverted_residual(m, index++, t, make_divisible(setting[s][1] * w), i == 0 ? setting[s][3] : 1,
                                  setting[s][0]);
    char prefix[24];
    snprintf(prefix, sizeof prefix, "features.%d", index);
    t = conv_bn(m, prefix, t, make_divisible(1280 * fmax(1.0, w)), 1, 1, 1, true);
    t = mb_global_avgpool(m, t);
    float p = cfg->dropout < 0.0f ? 0.2f : cfg->dropout;
    if (p > 0.0f) t = mb_dropout(m, t, p);
    mb_linear(m, "classifier.1", t, cfg->classes, true);
    return 0;
}
