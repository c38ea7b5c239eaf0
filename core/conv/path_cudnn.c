/* path_cudnn.c - convolutions by cuDNN (core/cuda/conv_cudnn.cu): the
 * forward pass, the input gradient and the weight gradient each by the
 * algorithm cuDNN's heuristics choose for the layer's shape and batch,
 * with their workspace in the model's scratch (sized from cuDNN's answer
 * when the model is laid out, never allocated per call).
 *
 * Only where the device's cuDNN table (cudnn_kernels.h) runs: a GPU,
 * in a build that found cudnn.h and libcudnn. The CPU and the emulated
 * GPU cannot run it, and say why (cudnn_absent); --conv cudnn there is
 * refused before a model is built (conv_algo_check).
 *
 * No activation is fused into the convolution: ddlab fuses activations
 * into the batch norm or add before them (core/model/fuse.c), and cuDNN's
 * conv + bias + activation call (cudnnConvolutionBiasActivationForward)
 * would hand backward no pre-activation tensor, so the layers run as
 * they do on every other path. The bias is added by the layer. */
#include "paths.h"

#include "../util/common.h"
#include "cudnn_kernels.h"

CONV_PATH_CODE(cudnn);
const char *cudnn_absent(const void *kernels);
const char *cudnn_version(const void *kernels);

/* The CPU's table: why not (the CUDA twin's: conv_cudnn.cu). */
const ConvCudnn cudnn_kernels_cpu = {
    .absent = "cuDNN runs on a GPU (--device cuda, in a build with cuDNN), not on the CPU",
};

/* Every ddlab convolution is 2-d with square filters, symmetric padding
 * and groups that divide both channel counts: cuDNN runs all of them. */
bool cudnn_fits(const ConvShape *s)
{
    return s->groups >= 1 && s->cin % s->groups == 0 && s->cout % s->groups == 0;
}

const char *cudnn_absent(const void *kernels) { return ((const ConvCudnn *)kernels)->absent; }

const char *cudnn_version(const void *kernels)
{
    const ConvCudnn *c = kernels;
    return c && !c->absent ? c->version() : NULL;
}

static size_t workspace_bytes(const ConvCudnn *c, const ConvShape *s, int max_batch)
{
    return c && !c->absent ? c->workspace(s, max_batch) : 0;
}

/* The workspace in floats, rounded up. */
size_t cudnn_scratch(const void *kt, const ConvShape *s, int max_batch)
{
    return (workspace_bytes(kt, s, max_batch) + sizeof(float) - 1) / sizeof(float);
}

static const ConvCudnn *cudnn_of(const void *kt)
{
    const ConvCudnn *c = kt;
    if (!c || c->absent) ddl_die("conv: the cuDNN path ran where cuDNN is absent (%s)", c ? c->absent : "no table");
    return c;
}
void cudnn_forward(const ConvRun *r, const void *kt)
{
    const ConvCudnn *c = cudnn_of(kt);
    c->forward(&r->s, r->batch, r->max_batch, r->x, r->w, r->y, r->scratch, workspace_bytes(c, &r->s, r->max_batch));
}

/* The weight gradient first, then the input gradient: both read the
 * workspace, one call at a time on the one stream. */
void cudnn_backward(const ConvRun *r, const void *kt)
{
    const ConvCudnn *c = cudnn_of(kt);
    size_t ws = workspace_bytes(c, &r->s, r->max_batch);
    c->backward_filter(&r->s, r->batch, r->max_batch, r->x, r->dy, r->dw, r->scratch, ws);
    if (r->dx) c->backward_data(&r->s, r->batch, r->max_batch, r->dy, r->w, r->dx, r->acc, r->scratch, ws);
}
