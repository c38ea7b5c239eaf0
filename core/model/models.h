/* models.h - builders behind model_build() (one file per architecture). */
#ifndef DDL_MODELS_H
#define DDL_MODELS_H

#include "model.h"

int build_mlp(Model *m, const ModelConfig *cfg, char *err);
int build_cnn3(Model *m, const ModelConfig *cfg, char *err);
int build_vgg11(Model *m, const ModelConfig *cfg, char *err);
int build_resnet18(Model *m, const ModelConfig *cfg, char *err);
int build_resnet50(Model *m, const ModelConfig *cfg, char *err);
int build_mobilenetv2(Model *m, const ModelConfig *cfg, char *err);
int build_sdss_dnn(Model *m, const ModelConfig *cfg, char *err);
/* channels * width, rounded, at least 1. */
int scaled_width(int channels, float width);
/* A k x k convolution without bias ('same' padding (k-1)/2, stride) named
 * prefix.conv, then its batch norm prefix.bn (no prefix: conv, bn), and a
 * ReLU when relu: the pair every ResNet block is made of, named as
 * PyTorch's module tree names it. Returns the last tensor. */
int mb_conv_bn(Model *m, const char *prefix, const char *conv, const char *bn, int x, int cout, int k, int stride,
               bool relu);

/* A ResNet (resnet.c): its name (for messages), its block (which returns
 * the block's last tensor), the blocks per stage and the head's name. */
typedef struct ResnetSpec {
    const char *name;
    int (*block)(Model *m, const char *prefix, int x, int planes, int stride);
    int blocks[4];
    const char *head;
} ResnetSpec;
int build_resnet(Model *m, const ModelConfig *cfg, const ResnetSpec *r, char *err);
/* A block's end: t plus x, or plus x through a 1x1 convolution with the
 * stride and its batch norm (prefix.proj.0, prefix.proj.1) where the block
 * changes the shape; then a ReLU. */
int resnet_join(Model *m, const char *prefix, const char *proj, int x, int t, int out_planes, int stride);

#endif
