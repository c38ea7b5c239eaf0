/* peer_ddp.c - ddlab's DDP, set up so that PyTorch DDP (bench/peer/
 * torch_ddp.py) can run exactly the same work beside it.
 *
 * Two jobs, both at any rank count (mpirun -np 2):
 *
 *   --dump FILE   the proof that both train the same model: the model as
 *                 rank 0 broadcast it (the initial parameters, PyTorch
 *                 state_dict names), every rank's synthetic FP32 batch of
 *                 every step (x ~ N(0,1), labels uniform; all ranks', so
 *                 that one file holds the whole run), --steps DDP steps of
 *                 SGD, then every rank's loss at every step and the final
 *                 parameters. Written by rank 0 in ddlab's checkpoint format
 *                 (core/results/checkpoint.h: named sections and a CRC-32),
 *                 which torch_ddp.py reads; tests/e2e_peer.sh compares.
 *   (default)     the DDP step timed for `make bench` (bench/run_peer.sh):
 *                 one random batch per rank, --warmup then --steps timed
 *                 steps; per step the time, the exposed communication
 *                 (the wait for gradients after backward, from DDP's own
 *                 timeline), the rest (forward, backward, optimizer), the
 *                 BN buffer broadcast at the start of the step, and the
 *                 communication in flight and the part of it hidden behind
 *                 backward. Medians over the timed steps (rank 0's clock;
 *                 the allreduces keep ranks in step).
 *
 * Prints a one-row table (table_print_text, the layout every bench
 * shares), writes it with its provenance to --out as peer_ddp-<run>.csv
 * and .json, then the line bench/run_peer.sh reads:
 *   "peer_ddp <model> w<width> b<batch> np<ranks>: median X ms, compute C
 *    ms, exposed E ms, start S ms, comm M ms, hidden H, params N, layout L,
 *    input CxHxW, buckets B"
 * params and layout are train_step's (the FNV-1a of the sorted "name
 * count" lines), which torch_ddp.py prints for its model. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "cpu/gemm.h"
#include "results/checkpoint.h"
#include "util/rng.h"

typedef struct Peer {
    int steps, warmup;
    float cap_mb, lr;
    const char *alg, *dump;
    int in_size, classes;      /* floats per example, labels */
    int nbatch;                /* batches held: world x steps (--dump), or 1 */
    float *x;                  /* nbatch batches, rank after rank, step after step within a rank */
    int32_t *y;
    long next;                 /* the next step's index */
    double *loss;              /* this rank's loss per step (--dump) */
    double *part[6];           /* per timed step: total, compute, exposed, start, comm, hidden */
    float *p0;                 /* the initial parameters (--dump) */
} Peer;

enum { P_TOTAL, P_COMPUTE, P_EXPOSED, P_START, P_COMM, P_HIDDEN, NPART };

/* Batch b of the run: b = rank x steps + step with --dump (every rank
 * makes all of them, the same on every rank), else one per rank. */
static void make_batches(Peer *p, const Driver *d, int batch)
{
    p->nbatch = p->dump ? d->world * p->steps : 1;
    size_t nx = (size_t)p->in_size * (size_t)batch;
    p->x = ddl_alloc(sizeof(float) * nx * (size_t)p->nbatch);
    p->y = ddl_alloc(sizeof(int32_t) * (size_t)batch * (size_t)p->nbatch);
    for (int b = 0; b < p->nbatch; b++) {
        Rng r = rng_make2(d->opt->seed, "peer_ddp batch", p->dump ? (uint64_t)b : (uint64_t)d->rank);
        for (size_t i = 0; i < nx; i++) p->x[(size_t)b * nx + i] = rng_normal(&r);
        for (int i = 0; i < batch; i++) p->y[(size_t)b * (size_t)batch + (size_t)i] = (int32_t)rng_below(&r, (uint32_t)p->classes);
    }
}

static int fetch(Driver *d, const float **x, const int32_t **y, void *ctx)
{
    Peer *p = ctx;
    int batch = d->opt->batch;
    size_t b = p->dump ? (size_t)d->rank * (size_t)p->steps + (size_t)p->next : 0;
    *x = p->x + b * (size_t)p->in_size * (size_t)batch;
    *y = p->y + b * (size_t)batch;
    return batch;
}

static void after_batch(Driver *d, const DriverBatch *b, void *ctx)
{
    Peer *p = ctx;
    p->next = b->index + 1;
    if (p->dump) {
        p->loss[b->index] = b->loss;
        return;
    }
    if (b->index < p->warmup) return;
    const SyncTimes *st = &d->sync->last;
    size_t i = (size_t)(b->index - p->warmup);
    p->part[P_TOTAL][i] = st->total;
    p->part[P_EXPOSED][i] = st->sync_wait;
    p->part[P_START][i] = st->buffers;
    p->part[P_COMPUTE][i] = st->total - st->sync_wait - st->buffers;
    p->part[P_COMM][i] = st->comm;
    p->part[P_HIDDEN][i] = st->hidden;
}

/* Every parameter tensor as "<prefix><name>". */
static void put_params(Ckpt *c, const Model *m, const float *all, const char *prefix)
{
    int n;
    ParamInfo *pi = model_param_list_alloc(m, &n);
    for (int i = 0; i < n; i++) {
        char name[CKPT_NAME_MAX];
        snprintf(name, sizeof name, "%s%s", prefix, pi[i].name);
        ckpt_put(c, name, all + pi[i].off, sizeof(float) * pi[i].count);
    }
    ddl_free(pi);
}

/* Rank 0: the run in one file (losses gathered from every rank first). */
static int write_dump(Driver *d, Peer *p, const ModelConfig *cfg)
{
    double *loss = driver_gather(d, p->loss, p->steps);
    if (d->rank != 0) return 0;
    const DriverOptions *o = d->opt;
    Ckpt *c = ckpt_new();
    char text[512];
    snprintf(text, sizeof text, "model=%s width=%.9g batch=%d steps=%d world=%d lr=%.9g momentum=%.9g wd=%.9g "
             "input=%dx%dx%d classes=%d layout=%08x", o->model, (double)o->width, o->batch, p->steps, d->world,
             (double)o->lr, (double)o->momentum, (double)o->wd, cfg->input.c, cfg->input.h, cfg->input.w,
             cfg->classes, (unsigned)model_param_layout(&d->m));
    ckpt_put_str(c, "config", text);
    put_params(c, &d->m, p->p0, "param0:");
    float *pf = ddl_alloc(sizeof(float) * d->m.nparams);
    model_params_to_host(&d->m, pf);
    put_params(c, &d->m, pf, "param:");
    ddl_free(pf);
    size_t nx = (size_t)p->in_size * (size_t)o->batch;
    ckpt_put(c, "x", p->x, sizeof(float) * nx * (size_t)p->nbatch);
    ckpt_put(c, "y", p->y, sizeof(int32_t) * (size_t)o->batch * (size_t)p->nbatch);
    ckpt_put(c, "loss", loss, sizeof(double) * (size_t)d->world * (size_t)p->steps);
    char err[DDL_ERRLEN];
    int status = ckpt_write(c, p->dump, err) == 0 ? 0 : 1;
    if (status) ddl_error("%s", err);
    else printf("peer_ddp: wrote %s (%s)\n", p->dump, text);
    ckpt_free(c);
    ddl_free(loss);
    return status;
}

/* Rank 0: the medians as a one-row table with the run's provenance, and
 * the line bench/run_peer.sh reads. */
static int report(Driver *d, Peer *p, const ModelConfig *cfg, const Meta *meta)
{
    const DriverOptions *o = d->opt;
    static const char *const cols[NPART] = { "median_ms", "compute_ms", "exposed_ms", "start_ms", "comm_ms",
                                             "hidden_ms" };
    double med[NPART];
    for (int k = 0; k < NPART; k++) med[k] = stats_median(p->part[k], p->steps);
    char name[192], text[64];
    snprintf(name, sizeof name, "peer_ddp-%s", d->tag);
    Table *t = table_new(name, "model,width,batch,ranks,cap_mib,buckets,median_ms,compute_ms,exposed_ms,start_ms,"
                               "comm_ms,hidden_ms,params,layout,input");
    t->meta = *meta;
    meta_set(&t->meta, "timing", "DDP step (forward + backward with bucketed allreduces + SGD) on one random batch "
             "per rank; medians of %d steps after %d warm-up (rank 0's clock); exposed = waiting for gradients "
             "after backward, start = BN buffer broadcast, compute = the rest", p->steps, p->warmup);
    table_set_str(t, "model", o->model);
    table_set_num(t, "width", o->width, "%g");
    table_set_int(t, "batch", o->batch);
    table_set_int(t, "ranks", d->world);
    table_set_num(t, "cap_mib", p->cap_mb, "%g");
    table_set_int(t, "buckets", sync_groups(d->sync));
    for (int k = 0; k < NPART; k++) table_set_num(t, cols[k], med[k], "%.2f");
    table_set_int(t, "params", (long long)d->m.nparams);
    snprintf(text, sizeof text, "%08x", (unsigned)model_param_layout(&d->m));
    table_set_str(t, "layout", text);
    snprintf(text, sizeof text, "%dx%dx%d", cfg->input.c, cfg->input.h, cfg->input.w);
    table_set_str(t, "input", text);
    table_end_row(t);
    static const TextColumn show[] = {
        { "model", "model", "" }, { "batch", "batch", "" }, { "ranks", "ranks", "" }, { "median_ms", "step", "ms" },
        { "compute_ms", "compute", "ms" }, { "exposed_ms", "exposed", "ms" }, { "start_ms", "start", "ms" },
        { "comm_ms", "comm", "ms" }, { "hidden_ms", "hidden", "ms" }, { "buckets", "buckets", "" },
    };
    table_print_text(t, show, (int)(sizeof show / sizeof show[0]), stdout);
    printf("peer_ddp %s w%g b%d np%d: median %.2f ms, compute %.2f ms, exposed %.2f ms, start %.2f ms, comm %.2f ms, "
           "hidden %.2f, params %zu, layout %08x, input %dx%dx%d, buckets %d, BLAS %s x%d\n", o->model,
           (double)o->width, o->batch, d->world, med[P_TOTAL], med[P_COMPUTE], med[P_EXPOSED], med[P_START],
           med[P_COMM], med[P_COMM] > 0 ? med[P_HIDDEN] / med[P_COMM] : 0.0, d->m.nparams,
           (unsigned)model_param_layout(&d->m), cfg->input.c, cfg->input.h, cfg->input.w, sync_groups(d->sync),
           blas_core_name(), blas_threads());
    fflush(stdout);
    int status = table_write(t, o->out) != 0;
    table_free(t);
    return status;
}

static int train(Driver *d, Peer *p, const ModelConfig *cfg)
{
    const DriverOptions *o = d->opt;
    SgdConfig sgd = { o->lr, o->momentum, o->wd, false };
    driver_trainer(d, &sgd);
    SyncConfig sc = sync_config_default(SYNC_DDP);
    sc.ddp.cap_bytes = (size_t)(p->cap_mb * (1 << 20));
    if (comm_alg_from_name(p->alg, &sc.alg) != 0) {
        ddl_error("--alg %s: unknown algorithm (lab2's names: mpi, ring, ...)", p->alg);
        return 2;
    }
    if (driver_sync(d, &sc)) return 2; /* rank 0's parameters on every rank from here */
    make_batches(p, d, o->batch);
    long n = p->dump ? p->steps : p->warmup + p->steps;
    if (p->dump) {
        p->loss = ddl_calloc(sizeof(double) * (size_t)p->steps);
        p->p0 = ddl_alloc(sizeof(float) * d->m.nparams);
        model_params_to_host(&d->m, p->p0);
    } else {
        for (int k = 0; k < NPART; k++) p->part[k] = ddl_calloc(sizeof(double) * (size_t)p->steps);
    }
    DriverLoop loop = { .batches = n };
    DriverHooks hooks = { .ctx = p, .after_batch = after_batch, .fetch = fetch };
    if (driver_train(d, &loop, &hooks) != 0) ddl_die("training stopped");
    if (p->dump) return write_dump(d, p, cfg);
    int status = 0;
    Meta *meta = ddl_calloc(sizeof *meta); /* driver_meta is collective */
    driver_meta(d, meta);
    if (d->rank == 0) status = report(d, p, cfg, meta);
    ddl_free(meta);
    return status;
}

static int run(void *ctx, Driver *d)
{
    Peer *p = ctx;
    const DriverOptions *o = d->opt;
    ModelConfig cfg = driver_model_config(d, o->model); /* no data loaded: its home input */
    p->in_size = (int)shape_numel(cfg.input);
    p->classes = cfg.classes;
    driver_tag(d, "%s-w%g-b%d-np%d", o->model, (double)o->width, o->batch, d->world);
    if (driver_open(d) || driver_build(d, o->model, &cfg, o->batch)) return 2;
    int status = train(d, p, &cfg);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    ddl_free(p->x);
    ddl_free(p->y);
    ddl_free(p->loss);
    ddl_free(p->p0);
    for (int k = 0; k < NPART; k++) ddl_free(p->part[k]);
    return status;
}

int main(int argc, char **argv)
{
    DriverOptions opt = { .model = "cnn3", .width = 1, .batch = 16, .lr = 0.01f, .momentum = 0.9f, .wd = 5e-4f,
                          .seed = 1, .out = "results/bench" };
    Peer p = { .steps = 5, .warmup = 2, .cap_mb = 25.0f, .alg = "mpi" };
    const CliOption own[] = {
        OPTION_INT("steps", &p.steps, "DDP steps (timed steps without --dump)", 1, 100000),
        OPTION_INT("warmup", &p.warmup, "untimed steps first (without --dump)", 0, 100000),
        OPTION_FLOAT("cap-mb", &p.cap_mb, "bucket cap in MiB after the first (PyTorch's bucket_cap_mb)", 0, 1e6),
        OPTION_STR("alg", &p.alg, "the buckets' allreduce (lab2's names: mpi, ring, ...)"),
        OPTION_STR("dump", &p.dump, "write the initial parameters, batches, losses and final parameters here"),
    };
    const DriverSpec spec = { .program = "peer_ddp", .usage = "mpirun -np 2 peer_ddp [--model cnn3] [--dump FILE] [options]",
                              .description = "ddlab's DDP on synthetic batches, for a side-by-side run with PyTorch "
                                             "DDP (bench/peer/torch_ddp.py; see bench/peer_ddp.c).",
                              .shared = DRV_MODEL | DRV_WIDTH | DRV_BATCH | DRV_SGD | DRV_SEED | DRV_DEVICE |
                                        DRV_PROFILE | DRV_OUT | DRV_TAG | DRV_CONV,
                              .tag_default = "<model>-w<width>-b<batch>-np<ranks>", .own = own,
                              .nown = (int)(sizeof own / sizeof own[0]), .batch_min = 1, .ctx = &p, .run = run };
    return driver_main(&spec, &opt, argc, argv);
}
