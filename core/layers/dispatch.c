/* dispatch.c - the layer table: per kind, its name, forward and backward,
 * what memory it needs, how its parameters start and what it costs. A
 * NULL entry means the kind needs none of it (no aux, scratch, columns,
 * parameters or GEMM FLOPs). */
#include "layers.h"

#include "../util/common.h"

static const struct LayerOps {
    const char *name;
    void (*fwd)(Model *, const Layer *);
    void (*bwd)(Model *, const Layer *, bool, bool);
    size_t (*size)(const Model *, Layer *, int, bool);
    size_t (*columns)(const Model *, const Layer *, int);
    void (*init)(const Model *, const Layer *, float *, float *, uint64_t, uint64_t *);
    double (*flops)(const Model *, const Layer *);
} KINDS[LAYER_KIND_COUNT] = {
    [LAYER_LINEAR] = { "linear", linear_forward, linear_backward, NULL, NULL, linear_init, weights_flops },
    [LAYER_CONV2D] = { "conv2d", conv2d_forward, conv2d_backward, conv2d_size, conv2d_columns, conv2d_init,
                       weights_flops },
    /* each element-wise activation of core/cpu/kernels.def ("relu", ...) */
#define ACTIVATION(KIND, name) [LAYER_##KIND] = { #name, name##_forward, name##_backward, NULL, NULL, NULL, NULL },
#include "../cpu/kernels.def"
    [LAYER_MAXPOOL] = { "maxpool", maxpool_forward, maxpool_backward, NULL, NULL, NULL, NULL },
    [LAYER_AVGPOOL] = { "avgpool", avgpool_forward, avgpool_backward, NULL, NULL, NULL, NULL },
    [LAYER_GLOBAL_AVGPOOL] = { "global_avgpool", global_avgpool_forward, global_avgpool_backward, NULL, NULL, NULL,
                               NULL },
    [LAYER_BATCHNORM] = { "batchnorm", batchnorm_forward, batchnorm_backward, batchnorm_size, NULL, batchnorm_init,
                          NULL },
    [LAYER_DROPOUT] = { "dropout", dropout_forward, dropout_backward, dropout_size, NULL, NULL, NULL },
    [LAYER_FLATTEN] = { "flatten", flatten_forward, flatten_backward, NULL, NULL, NULL, NULL },
    [LAYER_ADD] = { "add", add_forward, add_backward, NULL, NULL, NULL, NULL },
};

static const struct LayerOps *ops(const Layer *l)
{
    if (l->kind < 0 || l->kind >= LAYER_KIND_COUNT) ddl_die("bad layer kind %d", (int)l->kind);
    return &KINDS[l->kind];
}

const char *layer_kind_name(LayerKind k)
{
    return (k >= 0 && k < LAYER_KIND_COUNT) ? KINDS[k].name : "?";
}

void layer_forward(Model *m, const Layer *l) { ops(l)->fwd(m, l); }

void layer_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx) { ops(l)->bwd(m, l, need_dx, acc_dx); }

size_t layer_columns(const Model *m, const Layer *l, int batch)
{
    return ops(l)->columns ? ops(l)->columns(m, l, batch) : 0;
}

size_t layer_size(const Model *m, Layer *l, int max_batch, bool cache_cols)
{
    if (ops(l)->size) return ops(l)->size(m, l, max_batch, cache_cols);
    l->aux_count = 0;
    return 0;
}

void layer_init(const Model *m, const Layer *l, float *params, float *state, uint64_t seed, uint64_t *stream)
{
    if (ops(l)->init) ops(l)->init(m, l, params, state, seed, stream);
}

double layer_flops(const Model *m, const Layer *l) { return ops(l)->flops ? ops(l)->flops(m, l) : 0.0; }
