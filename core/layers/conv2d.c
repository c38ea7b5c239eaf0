/* conv2d.c - the convolution layer: the model's tensors and arenas
 * handed to the convolution wing (core/conv/conv.h), which picks each
 * layer's path when the model is sized (under m->conv_algo, --conv) and
 * runs it on the backend's convolution kernels (Backend.conv). The bias
 * is added (and its gradient taken) here, the same for every path, except
 * where the path adds it itself (depthwise). The GEMM a path multiplies
 * with is the layers' (layer_gemm: FP32, or FP16 operands in mixed
 * precision, where the FP32-only paths run the reference instead). */
#include "layers.h"

#include <stdio.h>
#include "../util/common.h"

static ConvShape shape_of(const Model *m, const Layer *l)
{
    Shape in = m->tensors[l->in].shape, out = m->tensors[l->out].shape;
    return (ConvShape){ .cin = in.c, .h = in.h, .w = in.w, .cout = out.c, .oh = out.h, .ow = out.w, .k = l->k,
                        .stride = l->stride, .pad = l->pad, .groups = l->groups };
}

static void gemm_of(const void *ctx, bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float *A,
                    int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    layer_gemm((const Model *)ctx, trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* The path the layer runs now: its own, unless FP16 GEMM operands send
 * it to the reference. */
static ConvPath path_now(const Model *m, const Layer *l) { return conv_path_now(l->conv_path, m->params16 != NULL); }

/* The forward call; backward adds its gradients. Training keeps the
 * reference path's columns for backward (aux) when sizing said so. */
static ConvRun run_of(Model *m, const Layer *l)
{
    const float *w = m->params + l->param_off;
    return (ConvRun){ .k = m->be->conv, .gemm = gemm_of, .gemm_ctx = m, .s = shape_of(m, l), .path = path_now(m, l),
                      .batch = m->batch, .max_batch = m->max_batch, .scratch = m->scratch,
                      .cols = l->cache_cols && m->training ? m->aux + l->aux_off : NULL,
                      .x = model_tensor(m, l->in), .w = w, .bias = l->bias ? w + l->weight_count : NULL,
                      .y = model_tensor(m, l->out) };
}

/* Only layers that run the reference keep columns. */
size_t conv2d_columns(const Model *m, const Layer *l, int batch)
{
    ConvShape s = shape_of(m, l);
    if (conv_pick(&s, m->conv_algo, m->be->conv, m->be->host_memory) != CONV_PATH_IM2COL) return 0;
    return conv_columns(&s, batch);
}

size_t conv2d_size(const Model *m, Layer *l, int max_batch, bool cache_cols)
{
    ConvShape s = shape_of(m, l);
    l->conv_path = conv_pick(&s, m->conv_algo, m->be->conv, m->be->host_memory);
    l->cache_cols = cache_cols && l->conv_path == CONV_PATH_IM2COL;
    l->aux_count = l->cache_cols ? conv_columns(&s, max_batch) : 0;
    return conv_scratch(m->be->conv, &s, l->conv_path, max_batch);
}

void conv2d_init(const Model *m, const Layer *l, float *params, float *state, uint64_t seed, uint64_t *stream)
{
    (void)state;
    init_weights(params + l->param_off, l->weight_count, l->param_count - l->weight_count, l->cout,
                 l->cout * l->k * l->k, m->conv_init == INIT_KAIMING_OUT ? INIT_KAIMING_OUT : INIT_TORCH_DEFAULT,
                 seed, stream);
}

void conv2d_forward(Model *m, const Layer *l)
{
    ConvRun r = run_of(m, l);
    conv_forward(&r);
    if (l->bias && !conv_adds_bias(r.path)) m->be->bias_add(r.y, r.bias, m->batch, r.s.cout, r.s.oh * r.s.ow);
}

void conv2d_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    ConvRun r = run_of(m, l);
    r.dy = model_tensor_grad(m, l->out);
    r.dw = m->grads + l->param_off;
    r.dx = need_dx ? model_tensor_grad(m, l->in) : NULL;
    r.acc = acc_dx;
    if (l->bias) m->be->bias_grad(r.dy, r.dw + l->weight_count, m->batch, r.s.cout, r.s.oh * r.s.ow);
    conv_backward(&r);
}

/* For outputs (the "conv" line of every result file): the paths the
 * layers run now (with FP16 GEMM operands, the reference), and how many
 * activations run inside the layer before them (core/model/fuse.c). */
void conv2d_algo_summary(const Model *m, char *buf, size_t cap)
{
    int count[CONV_PATHS_MAX] = { 0 }, fused = 0;
    for (int i = 0; i < m->nlayers; i++) {
        const Layer *l = &m->layers[i];
        if (l->kind == LAYER_CONV2D) count[path_now(m, l)]++;
        if (l->fused && m->fuse_act) fused++;
    }
    conv_summary(count, fused, m->conv_algo, buf, cap);
}
