/* cnn3.c - the 3-convolution MNIST network of seed 000.
 *
 * The seed took "a rather simple neural network with 3 convolution layers"
 * from Horovod's MNIST examples without listing it. ddlab's version keeps
 * the examples' style (3x3 convs with ReLU, max pooling, a 128-unit dense
 * layer, optional dropout) with three conv stages:
 *   conv1 1->32, pool -> 14x14; conv2 32->64, pool -> 7x7;
 *   conv3 64->64, pool -> 3x3; fc1 576->128; fc2 128->classes.
 * About 93k parameters at width 1. Dropout before fc2 is off by default
 * (ModelConfig.dropout) so data-parallel runs can be compared exactly. */
#include "models.h"

int build_cnn3(Model *m, const ModelConfig *cfg, char *err)
{
    int c1 = scaled_width(32, cfg->width), c2 = scaled_width(64, cfg->width), c3 = scaled_width(64, cfg->width);
    int t = m->input;
    t = mb_maxpool(m, mb_relu(m, mb_conv2d(m, "conv1", t, c1, 3, 1, 1, 1, true)), 2, 2, 0);
    t = mb_maxpool(m, mb_relu(m, mb_conv2d(m, "conv2", t, c2, 3, 1, 1, 1, true)), 2, 2, 0);
    t = mb_maxpool(m, mb_relu(m, mb_conv2d(m, "conv3", t, c3, 3, 1, 1, 1, true)), 2, 2, 0);
    t = mb_relu(m, mb_linear(m, "fc1", mb_flatten(m, t), scaled_width(128, cfg->width), true));
    if (cfg->dropout > 0.0f) t = mb_dropout(m, t, cfg->dropout);
    mb_linear(m, "fc2", t, cfg->classes, true);
    (void)err;
    return 0;
}
