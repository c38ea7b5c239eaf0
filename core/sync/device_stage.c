/* device_stage.c - the sync rows on a model whose arenas are device memory
 * (a GPU, or the emulated one).
 *
 * Rows read and write m->params, m->grads and m->state on the host and
 * hand them to MPI. Debian's Open MPI is not CUDA-aware
 * (ddl_mpi_cuda_aware() says so), so MPI must see host memory: a Sync on a
 * device model gives its rows a host view instead, a copy of the Model
 * struct whose three arenas are page-locked host buffers, and copies
 * between the two around every row operation:
 *
 *   layer_done(l)   layer l's gradients to the host first, so DDP's and
 *                   Horovod's buckets still launch during backward
 *   finish          all gradients back to the device after it (the
 *                   optimizer runs there)
 *   after_step      weights and buffers to the host before, back after
 *   BN buffers      to the host, broadcast, back
 *
 * With --alg nccl (or --alg mpi where MPI is CUDA-aware), rows whose
 * gradients only go to the Comm as arena slices (SyncRow.grads_in_place:
 * allreduce, allreduce_flat, ddp, horovod without FP16 compression) skip
 * the gradient copies: the view's gradient arena is the device's, and NCCL
 * (or MPI) reduces it where it is.
 *
 * The parameter server stages its pushes and pulls itself, and runs its
 * update on the host view (ps.c). The cloud-and-users rows (C-SGD, D-SGD,
 * FedAvg) train on the device model (sync_device_model) and stage every
 * message in fed_link.c. On the CPU nothing here runs: s->m is the
 * trainer's model itself. */
#include <stdio.h>

#include "../util/common.h"
#include "strategy.h"

bool sync_staged(const Sync *s) { return s->dev != NULL; }

static bool grads_stay(const Sync *s)
{
    bool device_alg = s->cfg.alg == COMM_ALG_NCCL || (s->cfg.alg == COMM_ALG_MPI && s->c && s->c->mpi_device);
    return device_alg && s->row->grads_in_place && !s->cfg.horovod.fp16;
}

void sync_stage_init(Sync *s)
{
    Model *m = s->t->m;
    s->m = m;
    if (m->be->host_memory) return;
    s->dev = m;
    s->view = *m;
    s->view.params = m->be->host_alloc(sizeof(float) * (m->nparams ? m->nparams : 1));
    s->grads_on_device = grads_stay(s);
    s->view.grads = s->grads_on_device ? m->grads : m->be->host_alloc(sizeof(float) * (m->nparams ? m->nparams : 1));
    s->view.state = m->be->host_alloc(sizeof(float) * (m->nstate ? m->nstate : 1));
    s->view.hook = NULL;
    s->view.hook_ctx = NULL;
    /* Each layer's gradients are one slice of the arena: [lo, hi). */
    s->layer_lo = ddl_calloc(sizeof(size_t) * (size_t)(m->nlayers + 1));
    s->layer_hi = ddl_calloc(sizeof(size_t) * (size_t)(m->nlayers + 1));
    int np;
    ParamInfo *p = model_param_list_alloc(m, &np);
    for (int i = 0; i < np; i++) {
        int l = p[i].layer;
        if (s->layer_hi[l] == s->layer_lo[l]) s->layer_lo[l] = p[i].off;
        if (p[i].off < s->layer_lo[l]) s->layer_lo[l] = p[i].off;
        if (p[i].off + p[i].count > s->layer_hi[l]) s->layer_hi[l] = p[i].off + p[i].count;
    }
    ddl_free(p);
    s->m = &s->view;
}

void sync_stage_free(Sync *s)
{
    if (!s->dev) return;
    const Backend *be = s->dev->be;
    be->host_free(s->view.params);
    if (!s->grads_on_device) be->host_free(s->view.grads);
    be->host_free(s->view.state);
    ddl_free(s->layer_lo);
    ddl_free(s->layer_hi);
}

void sync_stage_in(Sync *s, unsigned what)
{
    if (!s->dev) return;
    if (s->grads_on_device) what &= ~(unsigned)STAGE_GRADS;
    if (what & STAGE_PARAMS) model_params_to_host(s->dev, s->view.params);
    if (what & STAGE_GRADS) model_grads_to_host(s->dev, s->view.grads);
    if (what & STAGE_STATE) model_state_to_host(s->dev, s->view.state);
}

void sync_stage_out(Sync *s, unsigned what)
{
    if (!s->dev) return;
    if (s->grads_on_device) what &= ~(unsigned)STAGE_GRADS;
    if (what & STAGE_PARAMS) model_params_from_host(s->dev, s->view.params);
    if (what & STAGE_GRADS) model_grads_from_host(s->dev, s->view.grads);
    if (what & STAGE_STATE) model_state_from_host(s->dev, s->view.state);
}

void sync_stage_layer_grads(Sync *s, int layer)
{
    if (!s->dev || s->grads_on_device || layer < 0 || layer >= s->dev->nlayers) return;
    size_t lo = s->layer_lo[layer], hi = s->layer_hi[layer];
    if (hi > lo) s->dev->be->to_host(s->view.grads + lo, s->dev->grads + lo, sizeof(float) * (hi - lo));
}

Model *sync_device_model(Sync *s) { return s->dev ? s->dev : s->m; }

const char *sync_gradients_where(const Sync *s, char *buf, size_t cap)
{
    if (!s->dev) return NULL;
    if (s->grads_on_device && s->cfg.alg == COMM_ALG_NCCL)
        snprintf(buf, cap, "reduced in device memory by %s", comm_nccl_version(s->c));
    else if (s->grads_on_device)
        snprintf(buf, cap, "kept in device memory: CUDA-aware MPI's MPI_Allreduce takes device pointers; its "
                           "non-blocking calls (DDP's and Horovod's buckets) stage each through page-locked host "
                           "memory");
    else if (s->cfg.alg == COMM_ALG_NCCL && s->row->grads_in_place)
        snprintf(buf, cap, "staged through page-locked host memory (FP16 compression runs on the host), then "
                           "copied to the device for %s", comm_nccl_version(s->c));
    else
        snprintf(buf, cap, "staged through page-locked host memory (the %s row works on host copies)", s->row->name);
    return buf;
}
