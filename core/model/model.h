/* model.h - a model: layers, tensors, and its flat arenas.
 *
 * Arenas (one allocation each, as llm.c does):
 *   params   all weights, in layer order; grads has the same layout, so a
 *            whole-model allreduce is one call and a DDP bucket is a slice;
 *   state    batch-norm running statistics (buffers, not trained);
 *   acts     every tensor for the maximum batch; dacts their gradients;
 *   aux      what layers keep for backward (BN batch stats, dropout masks);
 *   scratch  im2col columns and other temporaries, shared by all layers.
 * Every arena is allocated by the model's backend (m->be): host memory on
 * the CPU, device memory on a GPU, where host code reads and writes them
 * only through the host views below.
 * Building: model_begin(), then the mb_* calls (each returns the id of the
 * tensor it makes), then model_finalize() allocates and initialises. */
#ifndef DDL_MODEL_H
#define DDL_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "../layers/graph.h"
#include "../util/rng.h"

/* ---- building ---- */
void model_begin(Model *m, const char *name, Shape input);
int mb_linear(Model *m, const char *name, int in, int out_features, bool bias);
int mb_conv2d(Model *m, const char *name, int in, int cout, int k, int stride, int pad, int groups, bool bias);
/* mb_relu, mb_relu6, ...: one per element-wise activation of the kernel
 * list (ACTIVATION in core/cpu/kernels.def) */
#define ACTIVATION(KIND, name) int mb_##name(Model *m, int in);
#include "../cpu/kernels.def"
int mb_maxpool(Model *m, int in, int k, int stride, int pad);
int mb_avgpool(Model *m, int in, int k, int stride, int pad);
int mb_global_avgpool(Model *m, int in);
int mb_batchnorm(Model *m, const char *name, int in);
int mb_dropout(Model *m, int in, float p);
int mb_flatten(Model *m, int in);
int mb_add(Model *m, int a, int b);
/* Allocate arenas for max_batch examples through m->be (set it before,
 * or leave the CPU) and initialise parameters from (seed, "init"): drawn
 * on the host, then uploaded. Output tensor = the last layer's output. */
void model_finalize(Model *m, int max_batch, uint64_t seed);
/* The arenas' sizes in floats, laid out for max_batch, allocating nothing
 * (model_size: a run's memory is estimated before it allocates). */
typedef struct ModelSize { size_t params, state, aux, acts, scratch; } ModelSize;
void model_layout_size(Model *m, int max_batch, ModelSize *out);
void model_free(Model *m);
/* fuse.c: mark each batch norm whose output only a ReLU or ReLU6 reads,
 * and each add whose output only a ReLU reads, to run that activation
 * itself (model_finalize does; the layers follow the marks while
 * m->fuse_act). */
void model_fuse_act(Model *m);
/* Mixed precision on a backend with gemm_f16: allocate the FP16 working
 * copy and GEMM operand buffers; from then on layer GEMMs take FP16
 * operands (the caller keeps params16 equal to half(params): see
 * core/mixed). Returns false (and changes nothing) when the backend has no
 * FP16 GEMM: FP16 is then emulated by rounding. */
bool model_use_fp16_gemm(Model *m);

/* ---- running ---- */
/* Copy x (n examples, in the backend's memory: see core/train/batch.h)
 * into the input tensor and run every layer. Returns the output (logits),
 * n * classes floats inside acts (backend memory). */
float *model_forward(Model *m, const float *x, int n);
/* Backward from dlogits (n * classes, backend memory). Accumulates into
 * grads; calls the hook after each layer. The input tensor's gradient is
 * not computed. */
void model_backward(Model *m, const float *dlogits);
/* A stage of the step (a layer index or MODEL_STAGE_*) outside the model's
 * own loops (the loss, the optimizer): whether to run it (m->runner's
 * word; true without one), and that it ran. */
bool model_stage_begin(Model *m, int stage, bool backward);
void model_stage_end(Model *m, int stage, bool backward);
void model_zero_grad(Model *m);
void model_set_training(Model *m, bool training);
int model_classes(const Model *m);

/* ---- host views ----
 * Copies between the arenas and host memory, for whatever the CPU reads or
 * writes: checkpoints, fixtures, pictures of filters, results, tests. On
 * the CPU backend they are plain copies. After params_from_host in mixed
 * precision, refresh the working copy with mixed_load. */
void model_params_to_host(const Model *m, float *dst);       /* nparams floats */
void model_params_from_host(Model *m, const float *src);
void model_grads_to_host(const Model *m, float *dst);        /* nparams floats */
void model_grads_from_host(Model *m, const float *src);
void model_state_to_host(const Model *m, float *dst);        /* nstate floats */
void model_state_from_host(Model *m, const float *src);
/* Tensor `id` (grad: its gradient) of the current batch: m->batch *
 * numel floats. */
void model_tensor_to_host(const Model *m, int id, bool grad, float *dst);

/* Parameter tensors in arena order, as PyTorch state_dict names them
 * ("features.0.weight"); for fixtures, checkpoints and bucketing reports. */
typedef struct ParamInfo { char name[48]; size_t off, count; int layer; } ParamInfo;
int model_param_list(const Model *m, ParamInfo *out, int cap);
/* The same list in a new allocation (ddl_free it), its length in *n. */
ParamInfo *model_param_list_alloc(const Model *m, int *n);
/* FNV-1a (32 bit) of the "name count\n" lines of that list in name order:
 * the same layers and shapes give the same value as the PyTorch side's
 * layout() (bench/torch_step.py, bench/peer/torch_ddp.py), whatever the
 * order each side keeps its tensors in. */
uint32_t model_param_layout(const Model *m);
/* FLOPs of one forward pass per example (multiply-add = 2). */
double model_forward_flops(const Model *m);

/* ---- the model zoo (core/model/) ---- */
typedef struct ModelConfig {
    Shape input;         /* e.g. {1,28,28} or {3,32,32} */
    int classes;
    float width;         /* channel multiplier, 1 = the published width */
    int hidden[4];       /* mlp, sdss_dnn: hidden layer sizes (0 ends the list) */
    bool bn_track_stats; /* default true */
    float dropout;       /* cnn3, sdss_dnn, mobilenetv2 dropout; <0 = model default */
    const Backend *backend; /* where it runs; NULL: the CPU */
    ConvAlgo conv;       /* how convolutions pick their path (--conv); 0: CONV_ALGO_AUTO. CONV_ALGO_REFERENCE
                          * also runs every activation on its own (no fusion) */
} ModelConfig;

/* Defaults for `name` on inputs of `input` with `classes` outputs; an
 * input with c <= 0 or classes <= 0 takes the model's home dataset's
 * (core/model/zoo.c: 1x28x28 / 10 for mlp, cnn3, resnet50, mobilenetv2;
 * 3x32x32 / 10 for vgg11, resnet18; 10x1x1 / 3 for sdss_dnn). */
ModelConfig model_config_default(const char *name, Shape input, int classes);
/* Build a model of the zoo (model_names(); what each one is, its stem and
 * its width rule: core/model/README.md). Returns 0, or -1 and a message
 * for an unknown name or an impossible config. */
int model_build(Model *m, const char *name, const ModelConfig *cfg, int max_batch, uint64_t seed,
                char err[256]);
/* What model_build would allocate (its arenas' floats), without
 * allocating them. 0, or -1 and a message as model_build. */
int model_size(const char *name, const ModelConfig *cfg, int max_batch, ModelSize *out, char err[256]);
const char *model_names(void); /* "mlp, cnn3, vgg11, resnet18, resnet50, mobilenetv2, sdss_dnn" */

#endif
