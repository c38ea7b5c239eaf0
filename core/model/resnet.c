/* resnet.c - what the ResNets share (models.h): the 3x3 stem without max
 * pooling, four stages of blocks (64/128/256/512 planes, scaled by the
 * width; the first block of stages 2-4 has stride 2), the residual join,
 * global average pooling and the Linear head. resnet18.c and resnet50.c
 * give their block, their block counts and their names. */
#include <stdio.h>
#include "models.h"

int resnet_join(Model *m, const char *prefix, const char *proj, int x, int t, int out_planes, int stride)
{
    int identity = x;
    if (stride != 1 || m->tensors[x].shape.c != out_planes) {
        char conv[32], bn[32];
        snprintf(conv, sizeof conv, "%s.0", proj);
        snprintf(bn, sizeof bn, "%s.1", proj);
        identity = mb_conv_bn(m, prefix, conv, bn, x, out_planes, 1, stride, false);
    }
    return mb_relu(m, mb_add(m, t, identity));
}

int build_resnet(Model *m, const ModelConfig *cfg, const ResnetSpec *r, char *err)
{
    if (cfg->input.h < 8 || cfg->input.w < 8) {
        snprintf(err, 256, "%s needs inputs of at least 8x8; got %dx%d", r->name, cfg->input.h, cfg->input.w);
        return -1;
    }
    int t = mb_conv_bn(m, NULL, "conv1", "bn1", m->input, scaled_width(64, cfg->width), 3, 1, true);
    static const int planes[4] = { 64, 128, 256, 512 };
    char prefix[24];
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < r->blocks[s]; b++) {
            snprintf(prefix, sizeof prefix, "layer%d.%d", s + 1, b);
            t = r->block(m, prefix, t, scaled_width(planes[s], cfg->width), (s > 0 && b == 0) ? 2 : 1);
        }
    t = mb_global_avgpool(m, t);
    mb_linear(m, r->head, t, cfg->classes, true);
    return 0;
}
