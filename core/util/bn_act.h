/* bn_act.h - the activation a batch norm may apply to its own output.
 *
 * Why: in VGG, ResNet and MobileNetV2 nearly every batch norm feeds a ReLU
 * or ReLU6 that nothing else reads. Run apart, the activation is one more
 * pass over the tensor forward and two backward; fused (core/model/fuse.c
 * decides where), the batch norm writes act(y) straight into the
 * activation's output, and its backward masks dy by that output, which
 * says as much as the activation's input did: act(v) > 0 exactly where
 * v > 0, and 0 < relu6(v) < 6 exactly where 0 < v < 6. The values are the
 * same as the two layers' apart, bit for bit.
 *
 * Shared by the CPU kernels and their CUDA twins. */
#ifndef DDL_BN_ACT_H
#define DDL_BN_ACT_H

enum { BN_ACT_NONE = 0, BN_ACT_RELU = 1, BN_ACT_RELU6 = 2 };

#endif
