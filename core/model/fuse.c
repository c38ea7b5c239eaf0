/* fuse.c - batch norm + ReLU (or ReLU6) as one layer.
 *
 * Why: the activation after a batch norm is a pass over the whole tensor
 * forward and backward (the 2-3% of relu in a ResNet-18 step, 6% of relu6
 * in MobileNetV2's). When the activation is the batch norm's only reader,
 * the batch norm applies it as it writes (core/cpu/bn_act.h says why that
 * is exact), into the activation's output tensor; the activation layer
 * then does nothing. The graph is unchanged: the batch norm's own output
 * tensor stays allocated and unread, names and parameters are the same,
 * and with m->fuse_bn_act off every layer runs on its own, with the same
 * results bit for bit (tests/test_fuse.c). */
#include "model.h"

#include "../cpu/bn_act.h"

/* The layer that reads tensor t, when exactly one does (consumer counts
 * are known after layout); -1 otherwise. */
static int only_reader(const Model *m, int t, int from)
{
    if (m->tensors[t].consumers != 1) return -1;
    for (int i = from; i < m->nlayers; i++)
        if (m->layers[i].in == t || m->layers[i].in2 == t) return i;
    return -1;
}

void model_fuse_bn_act(Model *m)
{
    for (int i = 0; i < m->nlayers; i++) {
        Layer *bn = &m->layers[i];
        bn->fused_act = BN_ACT_NONE;
        bn->fused_out = -1;
        if (bn->kind != LAYER_BATCHNORM || bn->out == m->output) continue;
        int j = only_reader(m, bn->out, i + 1);
        if (j < 0) continue;
        Layer *act = &m->layers[j];
        if (act->kind != LAYER_RELU && act->kind != LAYER_RELU6) continue;
        bn->fused_act = act->kind == LAYER_RELU ? BN_ACT_RELU : BN_ACT_RELU6;
        bn->fused_out = act->out;
        act->fused = true;
    }
}
