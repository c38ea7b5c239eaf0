/* graph.h - what a model is: layers over numbered tensors, its flat
 * arenas and the backend they live on (the data; model.h has the
 * operations). Layers read and write a Model through this alone, so the
 * model's operations stand above the layers they run. The arenas are
 * described in model.h. */
#ifndef DDL_MODEL_GRAPH_H
#define DDL_MODEL_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include "layer.h"
#include "../backend/backend.h"
#include "init.h"

struct Model;
/* Called after each layer's backward with the layer's index (layers run
 * backward in reverse index order). DDP bucketing hangs off this. */
typedef void (*GradReadyHook)(struct Model *m, int layer_index, void *ctx);
/* Called where a tensor has just been stored: after the input is copied in
 * and after each layer's forward (is_grad false, the tensor it wrote), and
 * after each layer's backward (is_grad true, for each input whose gradient
 * it wrote). Mixed precision (core/mixed) rounds there to emulate FP16
 * activation and gradient storage on the CPU. */
typedef void (*StorageHook)(struct Model *m, int tensor, bool is_grad, void *ctx);
/* Around each stage of a training step's computation: a layer forward or
 * backward (its index), the loss (MODEL_STAGE_LOSS) and the optimizer step
 * (MODEL_STAGE_OPTIMIZER). before() returns whether the stage's kernels
 * run; after() follows a stage that ran. core/compute measures the stages
 * this way (calibration), and a simulated run whose compute is modelled
 * charges each stage its modelled time there and runs the kernels only on
 * the ranks whose numbers are checked. */
enum { MODEL_STAGE_LOSS = -1, MODEL_STAGE_OPTIMIZER = -2 };
typedef struct StageRunner {
    bool (*before)(struct Model *m, int stage, bool backward, void *ctx);
    void (*after)(struct Model *m, int stage, bool backward, void *ctx);
    void *ctx;
} StageRunner;

typedef struct Model {
    char name[32];
    const Backend *be;   /* where the arenas live and the kernels run (default: the CPU) */
    int nlayers, caplayers;
    Layer *layers;
    int ntensors, captensors;
    Tensor *tensors;
    int input, output;   /* tensor ids */
    int max_batch;
    int batch;           /* examples in the current forward/backward */
    bool training;       /* batchnorm/dropout mode */
    bool bn_track_stats; /* false: BN uses batch stats always (seed 001's option) */
    uint64_t seed;
    uint64_t step;       /* counts forward passes in training (dropout stream) */
    float *params, *grads, *state, *acts, *dacts, *aux, *scratch;
    size_t nparams, nstate, nacts, naux, nscratch;
    /* FP16 GEMM operands (mixed precision on a backend with gemm_f16, see
     * model_use_fp16_gemm): params16 is the FP16 working copy of params,
     * half_scratch holds the other GEMM operand(s) cast to FP16. NULL:
     * every GEMM is FP32. */
    uint16_t *params16, *half_scratch;
    size_t nhalf_scratch;
    GradReadyHook hook;
    void *hook_ctx;
    StorageHook storage_hook; /* NULL: FP32 storage, nothing to do */
    void *storage_ctx;
    const StageRunner *runner; /* NULL: every stage runs its kernels, unwatched */
    InitScheme conv_init;   /* INIT_TORCH_DEFAULT or INIT_KAIMING_OUT */
    InitScheme linear_init; /* INIT_TORCH_DEFAULT or INIT_NORMAL_001 */
    /* Convolutions keep their im2col columns from forward for backward
     * (saves re-lowering the input) when all of them together fit in this
     * many floats; 0 disables. Default 128M floats (512 MiB). */
    size_t col_cache_floats;
    /* How convolutions pick their path (--conv: core/conv/pick.c); set
     * before model_finalize, which sizes the scratch for it. model_begin
     * sets CONV_ALGO_AUTO, model_build ModelConfig.conv. */
    ConvAlgo conv_algo;
    /* Run each ReLU/ReLU6 that alone reads a batch norm's output inside the
     * batch norm or residual add (core/model/fuse.c; the same values, two
     * passes fewer). model_begin sets it, model_build clears it for
     * --conv reference; false (between steps, never between a forward and
     * its backward): every layer runs on its own, as tests that replace
     * activations need and as the handouts describe. */
    bool fuse_act;
} Model;

/* Tensor `id` (its gradient) in the activation arenas. */
static inline float *model_tensor(Model *m, int id) { return m->acts + m->tensors[id].off; }
static inline float *model_tensor_grad(Model *m, int id) { return m->dacts + m->tensors[id].off; }

#endif
