/* ddp_bar.c - lab3's performance bar, measured as a paired comparison:
 * DDP (buckets overlapped with backward) vs the flat control (one
 * allreduce after backward) vs the per-parameter allreduce, all three in
 * the same processes, on the same model, interleaved in blocks.
 *
 * Why not three separate runs: on a shared 2-core machine the three step
 * times differ by 1-3%, about as much as two runs of the same strategy
 * differ (page placement of the 37 MB arenas, other tenants, frequency
 * drift). Running the strategies in rotation inside one pair of processes
 * puts them on the same memory, the same data and the same minute, so the
 * comparison measures the strategies and not the runs.
 *
 * Every round runs each strategy for --block steps (rotating which goes
 * first); the first step of every block is discarded (it pays for the
 * switch: another strategy's hook and cold buffers). Reported per
 * strategy: the median step time over all kept steps (rank 0's clock; the
 * collectives keep ranks in step) and, per pair, in how many rounds the
 * block means were ordered as the bar asks.
 *
 *   mpirun -np 2 bin/bench/ddp_bar [--model vgg11] [--width 1] [--batch 64]
 *                                  [--rounds 8] [--block 6] [--cap-mb 25]
 * Prints the three strategies as a table (table_print_text, the layout
 * every bench shares), writes it with its provenance to --out (default
 * results/bench) as ddp_bar-<run>.csv and .json, then the line
 * bench/run_ddp.sh reads: "ddp_bar: ddp X ms, flat Y ms, per-param Z ms,
 * hidden F, ..." (it turns it into the `bench ddp np2:` line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "cpu/gemm.h"

enum { S_DDP, S_FLAT, S_PER, NS };
static const SyncKind kinds[NS] = { SYNC_DDP, SYNC_ALLREDUCE_FLAT, SYNC_ALLREDUCE };
static const char *labels[NS] = { "ddp", "flat", "per-param" };

typedef struct Bar {
    int rounds, block, kept;
    float cap_mb;
    const char *alg[NS];
    Sync s[NS];
    /* the batch in progress: round (-1: the untimed first touches), strategy, index in its block */
    int r, k, i;
    double *ms;                /* NS x rounds x kept step times */
    double *block_mean;        /* NS x rounds */
    double block_sum;
    double parts[NS][4];       /* forward, backward, exposed sync, optimizer: sums over kept steps */
    double comm, hidden;       /* ddp's */
    Progress pr;
} Bar;

/* Batch `index` -> which strategy runs it: one untimed step each first,
 * then rounds of NS blocks, the first strategy rotating. */
static void before_batch(Driver *d, long index, void *ctx)
{
    Bar *b = ctx;
    if (index < NS) {
        b->r = -1;
        b->k = (int)index;
        b->i = 0;
    } else {
        long q = index - NS;
        b->r = (int)(q / ((long)NS * b->block));
        b->i = (int)(q % b->block);
        b->k = (int)((q / b->block + b->r) % NS);
    }
    d->sync = &b->s[b->k];
}

static void after_batch(Driver *d, const DriverBatch *batch, void *ctx)
{
    Bar *b = ctx;
    if (b->r < 0 || b->i == 0) { /* first touches; a block's first step pays for the switch */
        b->block_sum = 0.0;
        return;
    }
    const SyncTimes *st = &d->sync->last;
    b->ms[((size_t)b->k * b->rounds + b->r) * b->kept + (b->i - 1)] = st->total;
    b->block_sum += st->total;
    double part[4] = { st->forward, st->backward, st->sync_wait, st->optimizer };
    for (int p = 0; p < 4; p++) b->parts[b->k][p] += part[p];
    if (b->k == S_DDP) {
        b->comm += st->comm;
        b->hidden += st->hidden;
    }
    if (b->i < b->block - 1) return;
    b->block_mean[(size_t)b->k * b->rounds + b->r] = b->block_sum / b->kept;
    bool round_done = (batch->index - NS + 1) % ((long)NS * b->block) == 0;
    if (d->rank == 0 && round_done) progress_update(&b->pr, b->r + 1, b->rounds, "round");
}

static int cmp_double(const void *x, const void *y)
{
    double u = *(const double *)x, v = *(const double *)y;
    return (u > v) - (u < v);
}

/* The median of a strategy's kept step times (sorts them). */
static double median_ms(Bar *b, int k)
{
    size_t n = (size_t)b->rounds * b->kept;
    double *v = b->ms + (size_t)k * n;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One row per strategy: its median step, the mean of each part, and in
 * how many rounds its block mean was at most the next strategy's (the
 * bar's order: ddp <= flat <= per-param). */
static Table *result_table(Driver *d, Bar *b, const Meta *meta, const double *med, const int *ordered)
{
    char name[192];
    snprintf(name, sizeof name, "ddp_bar-%s", d->tag);
    Table *t = table_new(name, "strategy,median_ms,forward_ms,backward_ms,exposed_sync_ms,optimizer_ms,comm_ms,"
                               "hidden_ms,ordered_rounds,rounds,kept_steps");
    t->meta = *meta;
    meta_set(&t->meta, "timing", "strategies interleaved in blocks of %d steps, the first of each block discarded; "
             "median over %d rounds x %d kept steps (rank 0's clock)", b->block, b->rounds, b->kept);
    meta_set(&t->meta, "ddp_cap_mib", "%g (%d buckets)", (double)b->cap_mb, sync_groups(&b->s[S_DDP]));
    meta_set(&t->meta, "ordered_rounds", "rounds in which the strategy's block mean was <= the next row's");
    double n = (double)b->rounds * b->kept;
    for (int k = 0; k < NS; k++) {
        table_set_str(t, "strategy", labels[k]);
        table_set_num(t, "median_ms", med[k], "%.2f");
        static const char *const part[4] = { "forward_ms", "backward_ms", "exposed_sync_ms", "optimizer_ms" };
        for (int p = 0; p < 4; p++) table_set_num(t, part[p], b->parts[k][p] / n, "%.2f");
        if (k == S_DDP) {
            table_set_num(t, "comm_ms", b->comm / n, "%.2f");
            table_set_num(t, "hidden_ms", b->hidden / n, "%.2f");
        }
        if (k + 1 < NS) table_set_int(t, "ordered_rounds", ordered[k]);
        table_set_int(t, "rounds", b->rounds);
        table_set_int(t, "kept_steps", b->rounds * b->kept);
        table_end_row(t);
    }
    return t;
}

/* Rank 0, with the run's provenance (driver_meta, collected on every rank). */
static int report(Driver *d, Bar *b, const Meta *meta)
{
    double med[NS];
    for (int k = 0; k < NS; k++) med[k] = median_ms(b, k);
    int ordered[NS - 1] = { 0, 0 };
    for (int r = 0; r < b->rounds; r++)
        for (int k = 0; k + 1 < NS; k++)
            ordered[k] += b->block_mean[k * b->rounds + r] <= b->block_mean[(k + 1) * b->rounds + r];
    const DriverOptions *o = d->opt;
    printf("# ddp_bar: %s width %g, batch %d per rank, %d ranks, %s %s data, BLAS %s x%d, %d rounds x %d kept "
           "steps per strategy, DDP cap %g MiB (%d buckets)\n", o->model, (double)o->width, o->batch, d->world,
           d->train.synthetic ? "synthetic" : "real", d->train.name, blas_core_name(), blas_threads(), b->rounds,
           b->kept, (double)b->cap_mb, sync_groups(&b->s[S_DDP]));
    Table *t = result_table(d, b, meta, med, ordered);
    static const TextColumn show[] = {
        { "strategy", "strategy", "" }, { "median_ms", "step", "ms" }, { "forward_ms", "forward", "ms" },
        { "backward_ms", "backward", "ms" }, { "exposed_sync_ms", "exposed sync", "ms" },
        { "optimizer_ms", "optimizer", "ms" }, { "comm_ms", "comm", "ms" }, { "hidden_ms", "hidden", "ms" },
        { "ordered_rounds", "<= next", "rounds" },
    };
    table_print_text(t, show, (int)(sizeof show / sizeof show[0]), stdout);
    printf("ddp_bar: %s %.1f ms, %s %.1f ms, %s %.1f ms, hidden %.2f, rounds ddp<=flat %d/%d, flat<=per-param %d/%d\n",
           labels[S_DDP], med[S_DDP], labels[S_FLAT], med[S_FLAT], labels[S_PER], med[S_PER],
           b->comm > 0.0 ? b->hidden / b->comm : 0.0, ordered[0], b->rounds, ordered[1], b->rounds);
    fflush(stdout);
    int status = table_write(t, o->out) != 0;
    table_free(t);
    return status;
}

/* Three strategies on one trainer: sync_train_step installs its own
 * gradient-ready hook at the start of each step. */
static int strategies(Driver *d, Bar *b)
{
    char err[256];
    for (int k = 0; k < NS; k++) {
        SyncConfig sc = sync_config_default(kinds[k]);
        sc.ddp.cap_bytes = sync_mib_bytes(b->cap_mb);
        if (comm_alg_from_name(b->alg[k], &sc.alg) != 0) {
            ddl_error("unknown algorithm '%s' (lab2's names: mpi, ring, ...)", b->alg[k]);
            return 2;
        }
        if (sync_init(&b->s[k], &sc, &d->t, &d->comm, err) != 0) {
            ddl_error("%s", err);
            return 2;
        }
    }
    return 0;
}

/* The strategies in rotation; they go before the trainer they share. */
static int bar(Driver *d, Bar *b)
{
    const DriverOptions *o = d->opt;
    if (d->world < 2) {
        ddl_error("ddp_bar compares synchronisation strategies: run it on 2 or more ranks");
        return 2;
    }
    driver_tag(d, "%s-w%g-b%d-np%d", o->model, (double)o->width, o->batch, d->world);
    if (driver_open(d) || driver_load(d, false) || driver_build(d, o->model, NULL, o->batch)) return 2;
    SgdConfig sgd = { 0.1f, 0.9f, 1e-4f, false };
    driver_trainer(d, &sgd);
    if (strategies(d, b)) return 2;
    BatcherOptions bo = { .batch = o->batch, .rank = d->rank, .world = d->world, .shuffle = true, .drop_last = true,
                          .augment = true, .normalize = true, .seed = o->seed };
    driver_batches(d, &bo);
    if (batcher_batches(&d->b) < 1) {
        ddl_error("%d examples give no batch of %d per rank", d->train.n, o->batch);
        return 2;
    }
    b->kept = b->block - 1;
    b->ms = ddl_alloc(sizeof(double) * NS * (size_t)b->rounds * b->kept);
    b->block_mean = ddl_alloc(sizeof(double) * NS * (size_t)b->rounds);
    progress_init(&b->pr, "ddp_bar", 3);
    d->sync = &b->s[0];
    DriverLoop loop = { .batches = NS + (long)b->rounds * NS * b->block };
    DriverHooks hooks = { .ctx = b, .before_batch = before_batch, .after_batch = after_batch };
    if (driver_train(d, &loop, &hooks) != 0) ddl_die("training stopped");
    int status = 0;
    Meta *meta = ddl_calloc(sizeof *meta); /* driver_meta is collective */
    driver_meta(d, meta);
    if (d->rank == 0) {
        progress_end(&b->pr);
        status = report(d, b, meta);
    }
    ddl_free(meta);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    ddl_free(b->ms);
    ddl_free(b->block_mean);
    return status;
}

static int run(void *ctx, Driver *d)
{
    Bar *b = ctx;
    b->alg[S_PER] = b->alg[S_FLAT];
    int status = bar(d, b);
    for (int k = NS - 1; k >= 0; k--)
        if (b->s[k].row) sync_free(&b->s[k]);
    return status;
}

int main(int argc, char **argv)
{
    DriverOptions opt = { .model = "vgg11", .dataset = "cifar10", .width = 1, .batch = 64, .limit = 2560, .seed = 1,
                          .out = "results/bench" };
    Bar b = { .rounds = 8, .block = 6, .cap_mb = 25.0f, .alg = { "mpi", "mpi", "mpi" } };
    const CliOption own[] = {
        OPTION_INT("rounds", &b.rounds, "rounds: every strategy runs one block per round", 1, 100000),
        OPTION_INT("block", &b.block, "steps per block (its first is discarded)", 2, 100000),
        OPTION_FLOAT("cap-mb", &b.cap_mb, "ddp: bucket cap in MiB after the first", 0, 1e6),
        OPTION_STR("ddp-alg", &b.alg[S_DDP], "ddp's allreduce algorithm"),
        OPTION_STR("alg", &b.alg[S_FLAT], "the flat and per-parameter allreduce algorithm"),
    };
    const DriverSpec spec = { .program = "ddp_bar", .usage = "mpirun -np 2 ddp_bar [options]",
                              .description = "DDP vs allreduce_flat vs per-parameter allreduce, interleaved in one "
                                             "run (see bench/ddp_bar.c).",
                              .shared = DRV_MODEL | DRV_WIDTH | DRV_BATCH | DRV_LIMITS | DRV_SEED | DRV_DEVICE |
                                        DRV_PROFILE | DRV_OUT | DRV_TAG | DRV_CONV,
                              .tag_default = "<model>-w<width>-b<batch>-np<ranks>",
                              .own = own, .nown = (int)(sizeof own / sizeof own[0]), .batch_min = 1, .ctx = &b,
                              .run = run };
    return driver_main(&spec, &opt, argc, argv);
}
