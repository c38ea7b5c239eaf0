/* layer.h - layers of a model: what they are, where their data lives.
 *
 * A model is a list of layers over numbered tensors (a DAG in execution
 * order: every layer reads tensors made by earlier layers). Tensor data
 * lives in the model's flat activation arena, parameters in its flat
 * parameter arena (in layer order, PyTorch's layout per layer), parameter
 * gradients in the gradient arena at the same offsets. Each layer kind has
 * a pair of functions `<kind>_forward` / `<kind>_backward` (core/layers/);
 * backward accumulates parameter gradients (+=) and writes or accumulates
 * the input gradient (see Model.dx_accumulate). */
#ifndef DDL_LAYER_H
#define DDL_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../conv/conv.h"

typedef enum LayerKind {
    LAYER_LINEAR, LAYER_CONV2D,
    /* LAYER_RELU, LAYER_RELU6, ...: one per element-wise activation of the
     * kernel list (ACTIVATION(KIND, name) in core/cpu/kernels.def) */
#define ACTIVATION(KIND, name) LAYER_##KIND,
#include "../cpu/kernels.def"
    LAYER_MAXPOOL, LAYER_AVGPOOL, LAYER_GLOBAL_AVGPOOL, LAYER_BATCHNORM, LAYER_DROPOUT,
    LAYER_FLATTEN, LAYER_ADD, LAYER_KIND_COUNT
} LayerKind;

const char *layer_kind_name(LayerKind k);

/* Per-example shape of a tensor (NCHW without N; vectors use c only). */
typedef struct Shape { int c, h, w; } Shape;
static inline size_t shape_numel(Shape s) { return (size_t)s.c * (size_t)s.h * (size_t)s.w; }

typedef struct Tensor {
    Shape shape;
    size_t off;          /* offset in the activation and activation-grad arenas (floats) */
    int consumers;       /* layers reading it; >1 means its gradient must be accumulated */
} Tensor;

typedef struct Layer {
    LayerKind kind;
    char name[32];       /* e.g. "features.3", matches PyTorch state_dict prefixes */
    int in, in2, out;    /* tensor ids; in2 only for LAYER_ADD (-1 otherwise) */
    /* parameters (weight then bias; BN: gamma then beta) in the param arena */
    size_t param_off, param_count;
    size_t weight_count; /* the rest (param_count - weight_count) is bias/beta */
    /* batch-norm running mean then var, in the state arena */
    size_t state_off, state_count;
    /* per-layer saved data for backward in the aux arena (per max batch) */
    size_t aux_off, aux_count;
    /* configuration */
    int cout, k, stride, pad, groups; /* conv / pool (k = kernel, stride, pad) */
    bool bias;
    bool cache_cols;     /* conv: im2col columns kept in aux from forward for backward */
    ConvPath conv_path;  /* conv: the path picked when the model is sized (core/conv/pick.c) */
    /* A ReLU or ReLU6 right after a batch norm (a ReLU after a residual
     * add) runs inside it (core/model/fuse.c): the batch norm's or add's
     * fused_act (BN_ACT_*, core/util/bn_act.h) and the tensor it then
     * writes, the activation's output (fused_out; -1: not fused); the
     * activation layer's fused: it does nothing itself. */
    int fused_act, fused_out;
    bool fused;
    float eps, momentum;              /* batch norm */
    float p;                          /* dropout probability */
} Layer;

#endif
