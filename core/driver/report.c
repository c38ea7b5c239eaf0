/* report.c - results with provenance (driver.h): the metadata every run
 * carries, per-rank numbers gathered to rank 0, tables written by rank 0
 * with one status for all, and the timeline of one step. */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../util/common.h"
#include "../platform/placement.h"
#include "../cuda/device_mem.h"
#include "../cuda/cuda_runtime_probe.h"
#include "../cpu/gemm.h"
#include "../layers/layers.h"

/* The GPU this rank made current (core/platform/device.c: its local rank
 * modulo the GPUs it sees), as CUDA reports it; -1 on the CPU. */
static int current_gpu(const char *device)
{
#ifdef DDL_HAVE_CUDA
    if (strcmp(device, "cuda") == 0) return ddl_cuda_current_device();
#endif
#ifdef DDL_HAVE_CUDA_EMU
    if (strcmp(device, "cuda-emu") == 0) return ddl_cuda_current_device_emu();
#endif
    (void)device;
    return -1;
}

/* Where every rank ran, "0 ddl0, 1 ddl0, 2 h1, ...", and on a GPU the
 * device it took among those it sees ("0 n1 gpu0, 1 n1 gpu1"; with Slurm's
 * --gpu-bind=single:1 each rank sees only its own, gpu0): a multi-node or
 * multi-GPU job's placement, in its outputs. Collective. */
static void rank_places(const Driver *d, Meta *m)
{
    enum { PLACE = 96 };
    char mine[PLACE] = "", host[64];
    ddl_host_name(host, sizeof host);
    int len = snprintf(mine, sizeof mine, "%d %.60s", d->rank, host), gpu = d->be ? current_gpu(d->opt->device) : -1;
    if (gpu >= 0 && len > 0) snprintf(mine + len, sizeof mine - (size_t)len, " gpu%d", gpu);
    char *all = d->rank == 0 ? ddl_alloc((size_t)PLACE * (size_t)d->world) : NULL;
    MPI_Gather(mine, PLACE, MPI_CHAR, all, PLACE, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (d->rank != 0) return;
    char line[700] = "";
    size_t at = 0;
    for (int r = 0; r < d->world; r++) {
        int k = snprintf(line + at, sizeof line - at, "%s%s", r ? ", " : "", all + (size_t)r * PLACE);
        if (k < 0 || at + (size_t)k + 24 >= sizeof line) {
            snprintf(line + at, sizeof line - at, ", ... (%d ranks)", d->world);
            break;
        }
        at += (size_t)k;
    }
    meta_set(m, "rank_places", "%s", line);
    free(all);
}

void driver_meta(Driver *d, Meta *m)
{
    const DriverOptions *o = d->opt;
    meta_collect(m, d->spec->program);
    rank_places(d, m);
    if (d->tag[0]) meta_set(m, "run", "%s", d->tag);
    if (d->has_model) {
        meta_set(m, "model", "%s", d->m.name);
        meta_set(m, "width", "%g", (double)o->width);
        meta_set(m, "params", "%zu", d->m.nparams);
        char conv[384]; /* conv_summary: up to 8 paths and the fusion */
        conv2d_algo_summary(&d->m, conv, sizeof conv);
        meta_set(m, "conv", "%s", conv);
        /* which cuDNN the device has, where it has one (the conv line says whether it ran) */
        const char *cudnn = conv_cudnn_version(d->m.be->conv);
        if (cudnn) meta_set(m, "cudnn", "%s", cudnn);
    }
    if (d->has_train) {
        meta_set(m, "dataset", "%s", d->train.name);
        meta_set(m, "data", "%s", d->train.synthetic ? "synthetic" : "real");
        meta_set(m, "data_source", "%s", d->train.source);
        meta_set(m, "train_examples", "%d", d->train.n);
    }
    if (d->has_test) meta_set(m, "test_examples", "%d", d->test.n);
    meta_set(m, "device", "%s", o->device);
    if (d->device_desc[0]) meta_set(m, "device_detail", "%s", d->device_desc);
    if (d->be && !d->be->host_memory) {
        /* how gradients on a device can reach MPI: as device pointers, or
         * staged through pinned host buffers */
        char why[200] = "";
        int aware = ddl_mpi_cuda_aware(why, sizeof why);
        meta_set(m, "mpi_cuda_aware", "%s%s%s", aware ? "yes" : "no", why[0] ? ": " : "", why);
        char where[256];
        if (d->has_sync && sync_gradients_where(d->sync, where, sizeof where))
            meta_set(m, "gradients", "%s", where);
    }
    meta_set(m, "profile", "%s", o->profile);
    meta_set(m, "seed", "%llu", (unsigned long long)o->seed);
    meta_set(m, "data_seed", "%llu", (unsigned long long)driver_data_seed(o));
    /* labs/launch.sh's --max-restarts: a run relaunched inside its job says so */
    if (d->env.restarts > 0) meta_set(m, "restarts", "%ld", d->env.restarts);
    meta_set(m, "blas_core", "%s", blas_core_name());
    meta_set(m, "blas_threads", "%d (%s)", blas_threads(), blas_threading());
}

double *driver_gather(Driver *d, const double *mine, int n)
{
    double *all = d->rank == 0 ? ddl_alloc(sizeof(double) * (size_t)n * (size_t)d->world) : NULL;
    MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return all;
}

int driver_write(Driver *d, Table *const *tables, int n)
{
    int status = 0;
    if (d->rank == 0)
        for (int i = 0; i < n; i++) {
            /* known only once the training ran, after most labs took their metadata */
            if (d->resumed) meta_set(&tables[i]->meta, "resumed_from", "%s at batch %ld", d->resume_dir, d->resumed_at);
            if (table_write(tables[i], d->opt->out) != 0) status = 1;
        }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status;
}

void driver_take_trace(Driver *d)
{
    free(d->events);
    free(d->event_ranks);
    sync_gather_events(d->sync, &d->events, &d->event_ranks, &d->nevents);
}

static Table *trace_table(const Driver *d, const Meta *meta)
{
    char name[192];
    snprintf(name, sizeof name, "%s-trace", d->tag);
    Table *t = table_new(name, "rank,track,name,start_ms,end_ms,bytes");
    t->meta = *meta;
    for (int i = 0; i < d->nevents; i++) {
        const SyncEvent *e = &d->events[i];
        table_set_int(t, "rank", d->event_ranks[i]);
        table_set_str(t, "track", e->track == TRACK_COMM ? "comm" : "compute");
        table_set_str(t, "name", e->name);
        table_set_num(t, "start_ms", 1e3 * e->t0, "%.4f");
        table_set_num(t, "end_ms", 1e3 * e->t1, "%.4f");
        table_set_num(t, "bytes", e->bytes, "%.0f");
        table_end_row(t);
    }
    return t;
}

int driver_write_trace(Driver *d, const Meta *meta)
{
    int status = 0;
    if (d->rank == 0) {
        Table *t = trace_table(d, meta);
        if (table_write(t, d->opt->out) != 0) status = 1;
        table_free(t);
        char path[1024], about[512];
        meta_summary(meta, about, sizeof about);
        snprintf(path, sizeof path, "%s/%s-trace.json", d->opt->out, d->tag);
        if (sync_write_chrome_trace(path, d->events, d->event_ranks, d->nevents, about) != 0) status = 1;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status;
}
