/* dispatch.c - layer kind -> forward/backward function, and kind names. */
#include "layers.h"

#include "../common.h"

typedef void (*ForwardFn)(Model *, const Layer *);
typedef void (*BackwardFn)(Model *, const Layer *, bool, bool);

static const struct {
    const char *name;
    ForwardFn fwd;
    BackwardFn bwd;
} KINDS[LAYER_KIND_COUNT] = {
    [LAYER_LINEAR] = { "linear", linear_forward, linear_backward },
    [LAYER_CONV2D] = { "conv2d", conv2d_forward, conv2d_backward },
    [LAYER_RELU] = { "relu", relu_forward, relu_backward },
    [LAYER_RELU6] = { "relu6", relu6_forward, relu6_backward },
    [LAYER_MAXPOOL] = { "maxpool", maxpool_forward, maxpool_backward },
    [LAYER_AVGPOOL] = { "avgpool", avgpool_forward, avgpool_backward },
    [LAYER_GLOBAL_AVGPOOL] = { "global_avgpool", global_avgpool_forward, global_avgpool_backward },
    [LAYER_BATCHNORM] = { "batchnorm", batchnorm_forward, batchnorm_backward },
    [LAYER_DROPOUT] = { "dropout", dropout_forward, dropout_backward },
    [LAYER_FLATTEN] = { "flatten", flatten_forward, flatten_backward },
    [LAYER_ADD] = { "add", add_forward, add_backward },
};

const char *layer_kind_name(LayerKind k)
{
    return (k >= 0 && k < LAYER_KIND_COUNT) ? KINDS[k].name : "?";
}

void layer_forward(Model *m, const Layer *l)
{
    if (l->kind < 0 || l->kind >= LAYER_KIND_COUNT) ddl_die("bad layer kind %d", (int)l->kind);
    KINDS[l->kind].fwd(m, l);
}

void layer_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    if (l->kind < 0 || l->kind >= LAYER_KIND_COUNT) ddl_die("bad layer kind %d", (int)l->kind);
    KINDS[l->kind].bwd(m, l, need_dx, acc_dx);
}
