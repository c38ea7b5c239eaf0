/* fuse.c - batch norm + ReLU (or ReLU6), and residual add + ReLU, as one
 * layer.
 *
 * Why: the activation after a batch norm is a pass over the whole tensor
 * forward and backward (the 2-3% of relu in a ResNet-18 step, 6% of relu6
 * in MobileNetV2's). When the activation is the batch norm's only reader,
 * the batch norm applies it as it writes (core/util/bn_act.h says why that
 * is exact), into the activation's output tensor; the activation layer
 * then does nothing. The ReLU after a ResNet block's add is the same: the
 * add writes relu(a + b) in one pass (add_relu), and its backward masks
 * the ReLU's gradient and hands it to both addends in one pass
 * (add_relu_backward), where apart the add wrote a tensor the ReLU read,
 * and the ReLU wrote a gradient the add copied twice. The graph is
 * unchanged: the fused layer's own output tensor stays allocated and
 * unread, names and parameters are the same, and with m->fuse_act off
 * every layer runs on its own, with the same results bit for bit
 * (tests/test_fuse.c). */
#include "model.h"

#include "../util/bn_act.h"

/* The layer that reads tensor t, when exactly one does (consumer counts
 * are known after layout); -1 otherwise. */
static int only_reader(const Model *m, int t, int from)
{
    if (m->tensors[t].consumers != 1) return -1;
    for (int i = from; i < m->nlayers; i++)
        if (m->layers[i].in == t || m->layers[i].in2 == t) return i;
    return -1;
}

void model_fuse_act(Model *m)
{
    for (int i = 0; i < m->nlayers; i++) {
        Layer *l = &m->layers[i];
        l->fused_act = BN_ACT_NONE;
        l->fused_out = -1;
        if ((l->kind != LAYER_BATCHNORM && l->kind != LAYER_ADD) || l->out == m->output) continue;
        int j = only_reader(m, l->out, i + 1);
        if (j < 0) continue;
        Layer *act = &m->layers[j];
        bool relu6 = act->kind == LAYER_RELU6 && l->kind == LAYER_BATCHNORM; /* add has no ReLU6 kernel */
        if (act->kind != LAYER_RELU && !relu6) continue;
        l->fused_act = relu6 ? BN_ACT_RELU6 : BN_ACT_RELU;
        l->fused_out = act->out;
        act->fused = true;
    }
}
