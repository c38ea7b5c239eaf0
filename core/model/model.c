/* model.c - building a model graph, allocating its arenas, running it. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../util/common.h"
#include "../backend/registry.h"
#include "../layers/layers.h"

static int new_tensor(Model *m, Shape s)
{
    if (s.c <= 0 || s.h <= 0 || s.w <= 0)
        ddl_die("model %s: layer %d would produce an empty %dx%dx%d tensor (input too small for this model?)", m->name,
                m->nlayers, s.c, s.h, s.w);
    m->tensors = ddl_grow(m->tensors, m->ntensors, &m->captensors, sizeof(Tensor), 64, "a model's tensors");
    m->tensors[m->ntensors] = (Tensor){ s, 0, 0 };
    return m->ntensors++;
}

static Layer *new_layer(Model *m, LayerKind kind, const char *name, int in, Shape out)
{
    if (in < 0 || in >= m->ntensors) ddl_die("model %s: layer input %d does not exist", m->name, in);
    m->layers = ddl_grow(m->layers, m->nlayers, &m->caplayers, sizeof(Layer), 64, "a model's layers");
    Layer *l = &m->layers[m->nlayers++];
    memset(l, 0, sizeof *l);
    l->kind = kind;
    ddl_strlcpy(l->name, name ? name : "", sizeof l->name);
    l->in = in;
    l->in2 = -1;
    l->groups = 1;
    l->fused_out = -1;
    l->out = new_tensor(m, out);
    return l;
}

static Shape shape_of(const Model *m, int t) { return m->tensors[t].shape; }

void model_begin(Model *m, const char *name, Shape input)
{
    memset(m, 0, sizeof *m);
    ddl_strlcpy(m->name, name, sizeof m->name);
    m->input = new_tensor(m, input);
    m->be = backend_cpu(); /* the picked instruction set's, as DEVICE=cpu's */
    m->bn_track_stats = true;
    m->training = true;
    m->conv_init = INIT_TORCH_DEFAULT;
    m->linear_init = INIT_TORCH_DEFAULT;
    m->col_cache_floats = (size_t)128 << 20;
    m->conv_algo = CONV_ALGO_AUTO;
    m->fuse_act = true;
}

int mb_linear(Model *m, const char *name, int in, int out_features, bool bias)
{
    size_t fan_in = shape_numel(shape_of(m, in));
    Layer *l = new_layer(m, LAYER_LINEAR, name, in, (Shape){ out_features, 1, 1 });
    l->cout = out_features;
    l->bias = bias;
    l->weight_count = (size_t)out_features * fan_in;
    l->param_count = l->weight_count + (bias ? (size_t)out_features : 0);
    return l->out;
}

static int conv_out(int size, int k, int stride, int pad) { return (size + 2 * pad - k) / stride + 1; }

int mb_conv2d(Model *m, const char *name, int in, int cout, int k, int stride, int pad, int groups, bool bias)
{
    Shape s = shape_of(m, in);
    if (groups < 1 || s.c % groups || cout % groups)
        ddl_die("model %s: conv %s: channels %d -> %d not divisible by groups %d", m->name, name, s.c, cout, groups);
    Layer *l = new_layer(m, LAYER_CONV2D, name, in,
                         (Shape){ cout, conv_out(s.h, k, stride, pad), conv_out(s.w, k, stride, pad) });
    l->cout = cout;
    l->k = k;
    l->stride = stride;
    l->pad = pad;
    l->groups = groups;
    l->bias = bias;
    l->weight_count = (size_t)cout * (size_t)(s.c / groups) * (size_t)k * (size_t)k;
    l->param_count = l->weight_count + (bias ? (size_t)cout : 0);
    return l->out;
}

static int elementwise(Model *m, LayerKind kind, int in)
{
    return new_layer(m, kind, "", in, shape_of(m, in))->out;
}

#define ACTIVATION(KIND, name) \
    int mb_##name(Model *m, int in) { return elementwise(m, LAYER_##KIND, in); }
#include "../cpu/kernels.def"

static int pool(Model *m, LayerKind kind, int in, int k, int stride, int pad)
{
    Shape s = shape_of(m, in);
    if (pad * 2 > k) ddl_die("model %s: pooling pad %d must be at most half the kernel %d", m->name, pad, k);
    Layer *l = new_layer(m, kind, "", in, (Shape){ s.c, conv_out(s.h, k, stride, pad), conv_out(s.w, k, stride, pad) });
    l->k = k;
    l->stride = stride;
    l->pad = pad;
    return l->out;
}

int mb_maxpool(Model *m, int in, int k, int stride, int pad) { return pool(m, LAYER_MAXPOOL, in, k, stride, pad); }
int mb_avgpool(Model *m, int in, int k, int stride, int pad) { return pool(m, LAYER_AVGPOOL, in, k, stride, pad); }

int mb_global_avgpool(Model *m, int in)
{
    return new_layer(m, LAYER_GLOBAL_AVGPOOL, "", in, (Shape){ shape_of(m, in).c, 1, 1 })->out;
}

int mb_batchnorm(Model *m, const char *name, int in)
{
    Layer *l = new_layer(m, LAYER_BATCHNORM, name, in, shape_of(m, in));
    int c = shape_of(m, in).c;
    l->eps = 1e-5f;      /* PyTorch defaults */
    l->momentum = 0.1f;
    l->weight_count = (size_t)c;
    l->param_count = 2 * (size_t)c;
    l->state_count = 2 * (size_t)c;
    return l->out;
}

int mb_dropout(Model *m, int in, float p)
{
    if (p < 0.0f || p >= 1.0f) ddl_die("model %s: dropout probability %g outside [0, 1)", m->name, (double)p);
    Layer *l = new_layer(m, LAYER_DROPOUT, "", in, shape_of(m, in));
    l->p = p;
    return l->out;
}

int mb_flatten(Model *m, int in)
{
    return new_layer(m, LAYER_FLATTEN, "", in, (Shape){ (int)shape_numel(shape_of(m, in)), 1, 1 })->out;
}

int mb_add(Model *m, int a, int b)
{
    Shape sa = shape_of(m, a), sb = shape_of(m, b);
    if (sa.c != sb.c || sa.h != sb.h || sa.w != sb.w)
        ddl_die("model %s: add of %dx%dx%d and %dx%dx%d", m->name, sa.c, sa.h, sa.w, sb.c, sb.h, sb.w);
    Layer *l = new_layer(m, LAYER_ADD, "", a, sa);
    l->in2 = b;
    return l->out;
}

/* ---- finalize ---- */

static size_t round64(size_t floats) { return (floats + 15) & ~(size_t)15; } /* 64-byte aligned offsets */

/* Offsets of every layer's parameters, state and aux, and of every tensor;
 * returns the scratch floats the largest user needs. */
static size_t lay_out(Model *m, int max_batch)
{
    size_t np = 0, ns = 0, na = 0, nscr = 0, ncols = 0;
    for (int i = 0; i < m->nlayers; i++) ncols += layer_columns(m, &m->layers[i], max_batch);
    bool cache = ncols > 0 && ncols <= m->col_cache_floats;
    for (int i = 0; i < m->nlayers; i++) {
        Layer *l = &m->layers[i];
        m->tensors[l->in].consumers++;
        if (l->in2 >= 0) m->tensors[l->in2].consumers++;
        l->param_off = np;
        np += l->param_count;
        l->state_off = ns;
        ns += l->state_count;
        nscr = DDL_MAX(nscr, layer_size(m, l, max_batch, cache));
        l->aux_off = na;
        na += round64(l->aux_count);
    }
    size_t nt = 0;
    for (int t = 0; t < m->ntensors; t++) {
        m->tensors[t].off = nt;
        nt += round64((size_t)max_batch * shape_numel(m->tensors[t].shape));
    }
    m->nparams = np;
    m->nstate = ns;
    m->naux = na;
    m->nacts = nt;
    return nscr;
}

/* Each layer draws its initial values on the host (the RNG streams are
 * host code), then one upload per arena. */
static void init_params(Model *m, uint64_t seed)
{
    float *params = ddl_calloc(sizeof(float) * m->nparams), *state = ddl_calloc(sizeof(float) * m->nstate);
    uint64_t stream = 0;
    for (int i = 0; i < m->nlayers; i++) layer_init(m, &m->layers[i], params, state, seed, &stream);
    model_params_from_host(m, params);
    model_state_from_host(m, state);
    ddl_free(params);
    ddl_free(state);
}

void model_layout_size(Model *m, int max_batch, ModelSize *out)
{
    for (int i = 0; i < m->ntensors; i++) m->tensors[i].consumers = 0;
    size_t scratch = lay_out(m, max_batch);
    for (int i = 0; i < m->ntensors; i++) m->tensors[i].consumers = 0; /* as model_finalize expects them */
    *out = (ModelSize){ m->nparams, m->nstate, m->naux, m->nacts, scratch };
}

void model_finalize(Model *m, int max_batch, uint64_t seed)
{
    if (max_batch < 1) ddl_die("model %s: batch must be >= 1", m->name);
    m->max_batch = max_batch;
    m->seed = seed;
    m->output = m->ntensors - 1;
    for (int i = 0; i < m->ntensors; i++) m->tensors[i].consumers = 0;
    m->nscratch = lay_out(m, max_batch);
    model_fuse_act(m);
    const Backend *be = m->be;
    m->params = be->alloc(sizeof(float) * m->nparams);
    m->grads = be->alloc(sizeof(float) * m->nparams);
    m->state = be->alloc(sizeof(float) * m->nstate);
    m->aux = be->alloc(sizeof(float) * m->naux);
    m->acts = be->alloc(sizeof(float) * m->nacts);
    m->dacts = be->alloc(sizeof(float) * m->nacts);
    m->scratch = be->alloc(sizeof(float) * m->nscratch);
    init_params(m, seed);
}

bool model_use_fp16_gemm(Model *m)
{
    if (!m->be->gemm_f16) return false;
    if (m->params16) return true;
    /* A GEMM operand other than a weight is a chunk of columns (at most the
     * scratch) or a tensor; two may need casting at once (weight gradients). */
    size_t largest = m->nscratch;
    for (int t = 0; t < m->ntensors; t++)
        largest = DDL_MAX(largest, (size_t)m->max_batch * shape_numel(m->tensors[t].shape));
    m->nhalf_scratch = 2 * largest;
    m->params16 = m->be->alloc(sizeof(uint16_t) * m->nparams);
    m->half_scratch = m->be->alloc(sizeof(uint16_t) * m->nhalf_scratch);
    return true;
}

void model_free(Model *m)
{
    const Backend *be = m->be;
    if (be) {
        be->release(m->params);
        be->release(m->grads);
        be->release(m->state);
        be->release(m->aux);
        be->release(m->acts);
        be->release(m->dacts);
        be->release(m->scratch);
        be->release(m->params16);
        be->release(m->half_scratch);
    }
    free(m->layers);
    free(m->tensors);
    memset(m, 0, sizeof *m);
}

/* ---- host views ---- */

void model_params_to_host(const Model *m, float *dst) { m->be->to_host(dst, m->params, sizeof(float) * m->nparams); }
void model_params_from_host(Model *m, const float *src)
{
    m->be->to_device(m->params, src, sizeof(float) * m->nparams);
}
void model_grads_to_host(const Model *m, float *dst) { m->be->to_host(dst, m->grads, sizeof(float) * m->nparams); }
void model_grads_from_host(Model *m, const float *src) { m->be->to_device(m->grads, src, sizeof(float) * m->nparams); }
void model_state_to_host(const Model *m, float *dst) { m->be->to_host(dst, m->state, sizeof(float) * m->nstate); }
void model_state_from_host(Model *m, const float *src) { m->be->to_device(m->state, src, sizeof(float) * m->nstate); }

void model_tensor_to_host(const Model *m, int id, bool grad, float *dst)
{
    const Tensor *t = &m->tensors[id];
    m->be->to_host(dst, (grad ? m->dacts : m->acts) + t->off, sizeof(float) * (size_t)m->batch * shape_numel(t->shape));
}

/* ---- running ---- */

/* An add needs dx when either operand is not the model input. */
static bool layer_needs_dx(const Model *m, const Layer *l)
{
    return l->in != m->input || (l->in2 >= 0 && l->in2 != m->input);
}

bool model_stage_begin(Model *m, int stage, bool backward)
{
    return !m->runner || m->runner->before(m, stage, backward, m->runner->ctx);
}

void model_stage_end(Model *m, int stage, bool backward)
{
    if (m->runner && m->runner->after) m->runner->after(m, stage, backward, m->runner->ctx);
}

/* Layer i's kernels, unless the runner stands in for them. */
static void run_layer(Model *m, int i, bool backward)
{
    const Layer *l = &m->layers[i];
    if (!model_stage_begin(m, i, backward)) return;
    if (backward) layer_backward(m, l, layer_needs_dx(m, l), m->tensors[l->in].consumers > 1);
    else layer_forward(m, l);
    model_stage_end(m, i, backward);
}

float *model_forward(Model *m, const float *x, int n)
{
    if (n < 1 || n > m->max_batch) ddl_die("model %s: batch %d outside 1..%d", m->name, n, m->max_batch);
    m->batch = n;
    m->be->copy(model_tensor(m, m->input), x, sizeof(float) * (size_t)n * shape_numel(m->tensors[m->input].shape));
    if (m->storage_hook) m->storage_hook(m, m->input, false, m->storage_ctx);
    for (int i = 0; i < m->nlayers; i++) {
        run_layer(m, i, false);
        if (m->storage_hook) m->storage_hook(m, m->layers[i].out, false, m->storage_ctx);
    }
    if (m->training) m->step++;
    return model_tensor(m, m->output);
}

void model_backward(Model *m, const float *dlogits)
{
    int n = m->batch;
    m->be->copy(model_tensor_grad(m, m->output), dlogits, sizeof(float) * (size_t)n * (size_t)model_classes(m));
    /* Tensors read by several layers collect the sum of their gradients. */
    for (int t = 0; t < m->ntensors; t++)
        if (m->tensors[t].consumers > 1 && t != m->input)
            m->be->zero(model_tensor_grad(m, t), sizeof(float) * (size_t)n * shape_numel(m->tensors[t].shape));
    /* Backward runs with the step counter of the forward it belongs to. */
    if (m->training) m->step--;
    for (int i = m->nlayers - 1; i >= 0; i--) {
        const Layer *l = &m->layers[i];
        run_layer(m, i, true);
        if (m->storage_hook && layer_needs_dx(m, l)) {
            if (l->in != m->input) m->storage_hook(m, l->in, true, m->storage_ctx);
            if (l->in2 >= 0 && l->in2 != m->input) m->storage_hook(m, l->in2, true, m->storage_ctx);
        }
        if (m->hook) m->hook(m, i, m->hook_ctx);
    }
    if (m->training) m->step++;
}

void model_zero_grad(Model *m) { m->be->zero(m->grads, sizeof(float) * m->nparams); }

void model_set_training(Model *m, bool training) { m->training = training; }

int model_classes(const Model *m) { return (int)shape_numel(m->tensors[m->output].shape); }

int model_param_list(const Model *m, ParamInfo *out, int cap)
{
    int k = 0;
    for (int i = 0; i < m->nlayers; i++) {
        const Layer *l = &m->layers[i];
        if (!l->param_count) continue;
        if (k < cap) { /* BN's gamma/beta are "weight"/"bias" in PyTorch too */
            snprintf(out[k].name, sizeof out[k].name, "%s.weight", l->name);
            out[k].off = l->param_off;
            out[k].count = l->weight_count;
            out[k].layer = i;
        }
        k++;
        if (l->param_count > l->weight_count) {
            if (k < cap) {
                snprintf(out[k].name, sizeof out[k].name, "%s.bias", l->name);
                out[k].off = l->param_off + l->weight_count;
                out[k].count = l->param_count - l->weight_count;
                out[k].layer = i;
            }
            k++;
        }
    }
    return k;
}

double model_forward_flops(const Model *m)
{
    double f = 0.0;
    for (int i = 0; i < m->nlayers; i++) f += layer_flops(m, &m->layers[i]);
    return f;
}
