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
 * Prints: "ddp_bar: ddp X ms, flat Y ms, per-param Z ms, hidden F, ..."
 * (bench/run_ddp.sh turns it into the `bench ddp np2:` line). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "comm/comm.h"
#include "common.h"
#include "data/dataset.h"
#include "gemm.h"
#include "model/model.h"
#include "sync/sync.h"
#include "threads.h"
#include "train/train.h"

enum { S_DDP, S_FLAT, S_PER, NS };
static const SyncKind kinds[NS] = { SYNC_DDP, SYNC_ALLREDUCE_FLAT, SYNC_ALLREDUCE };
static const char *labels[NS] = { "ddp", "flat", "per-param" };

static void usage(FILE *f)
{
    fprintf(f, "usage: mpirun -np 2 ddp_bar [--model vgg11] [--width 1] [--batch 64] [--rounds 8] [--block 6]\n"
               "                           [--cap-mb 25] [--limit 2560] [--seed 1]\n"
               "  DDP vs allreduce_flat vs per-parameter allreduce, interleaved in one run (see the source).\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rank, size;
    ddl_program_start(&argc, &argv, &rank, &size);
    const char *model = "vgg11";
    float width = 1.0f, cap_mb = 25.0f;
    int batch = 64, rounds = 8, block = 6, limit = 2560, seed = 1;
    const char *alg_name[NS] = { "mpi", "mpi", "mpi" };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (rank == 0) usage(stdout);
            MPI_Finalize();
            return 0;
        }
        if (!v) {
            if (rank == 0) usage(stderr);
            ddl_die("option %s needs a value", a);
        }
        if (!strcmp(a, "--model")) model = v;
        else if (!strcmp(a, "--width")) width = (float)atof(v);
        else if (!strcmp(a, "--batch")) batch = atoi(v);
        else if (!strcmp(a, "--rounds")) rounds = atoi(v);
        else if (!strcmp(a, "--block")) block = atoi(v);
        else if (!strcmp(a, "--cap-mb")) cap_mb = (float)atof(v);
        else if (!strcmp(a, "--limit")) limit = atoi(v);
        else if (!strcmp(a, "--seed")) seed = atoi(v);
        else if (!strcmp(a, "--ddp-alg")) alg_name[S_DDP] = v;
        else if (!strcmp(a, "--alg")) alg_name[S_FLAT] = alg_name[S_PER] = v;
        else {
            if (rank == 0) usage(stderr);
            ddl_die("unknown option %s", a);
        }
        i++;
    }
    if (batch < 1 || rounds < 1 || block < 2 || width <= 0.0f || cap_mb < 0.0f)
        ddl_die("need batch >= 1, rounds >= 1, block >= 2 (its first step is discarded), width > 0, cap >= 0");
    if (size < 2) ddl_die("ddp_bar compares synchronisation strategies: run it on 2 or more ranks");

    Comm c;
    comm_init(&c, MPI_COMM_WORLD);
    Dataset d;
    bool bad = dataset_load_for_run("cifar10", SPLIT_TRAIN, limit, (uint64_t)seed, true, false, &d) != 0;
    if (comm_any(&c, bad)) {
        MPI_Finalize();
        return 1;
    }
    ModelConfig cfg = model_config_default(model, (Shape){ d.c, d.h, d.w }, d.classes);
    cfg.width = width;
    Model m;
    char err[256];
    if (model_build(&m, model, &cfg, batch, (uint64_t)seed, err)) ddl_die("%s", err);
    SgdConfig sgd = { 0.1f, 0.9f, 1e-4f, false };
    Trainer t;
    trainer_init(&t, &m, &sgd);
    /* Three strategies on one trainer: sync_train_step installs its own
     * gradient-ready hook at the start of each step. */
    Sync s[NS];
    for (int k = 0; k < NS; k++) {
        SyncConfig sc = sync_config_default(kinds[k]);
        sc.ddp.cap_bytes = (size_t)(cap_mb * (1 << 20));
        if (comm_alg_from_name(alg_name[k], &sc.alg) != 0) ddl_die("unknown algorithm '%s'", alg_name[k]);
        if (sync_init(&s[k], &sc, &t, &c, err) != 0) ddl_die("%s", err);
    }
    BatcherOptions bo = { .batch = batch, .rank = rank, .world = size, .shuffle = true, .drop_last = true,
                          .augment = true, .normalize = true, .seed = (uint64_t)seed };
    Batcher b;
    batcher_init(&b, &d, &bo);
    if (batcher_batches(&b) < 1) ddl_die("%d examples give no batch of %d per rank", d.n, batch);
    size_t per = (size_t)d.c * d.h * d.w;
    float *x = ddl_alloc(sizeof(float) * per * (size_t)batch);
    int32_t *y = ddl_alloc(sizeof(int32_t) * (size_t)batch);

    int kept = block - 1;
    double *ms = ddl_alloc(sizeof(double) * NS * (size_t)rounds * kept);
    double *block_mean = ddl_alloc(sizeof(double) * NS * (size_t)rounds);
    double comm = 0.0, hidden = 0.0;
    double parts[NS][4] = { { 0 } }; /* forward, backward, exposed sync, optimizer: sums over kept steps */
    int epoch = 0;
    batcher_epoch(&b, epoch);
    Progress pr;
    progress_init(&pr, "ddp_bar", 3);
    /* One untimed step per strategy first: first-touch of every buffer. */
    for (int r = -1; r < rounds; r++) {
        for (int j = 0; j < NS; j++) {
            int k = r < 0 ? j : (j + r) % NS; /* rotate who goes first */
            double sum = 0.0;
            for (int i = 0; i < (r < 0 ? 1 : block); i++) {
                if (batcher_next(&b, x, y) <= 0) {
                    batcher_epoch(&b, ++epoch);
                    batcher_next(&b, x, y);
                }
                int correct;
                double loss = sync_train_step(&s[k], x, y, batch, &correct, NULL);
                if (!isfinite(loss)) ddl_die("loss became %g: the bench needs a finite model", loss);
                if (r < 0 || i == 0) continue;
                double v = s[k].last.total;
                ms[((size_t)k * rounds + r) * kept + (i - 1)] = v;
                sum += v;
                const SyncTimes *st = &s[k].last;
                parts[k][0] += st->forward;
                parts[k][1] += st->backward;
                parts[k][2] += st->sync_wait;
                parts[k][3] += st->optimizer;
                if (k == S_DDP) {
                    comm += s[k].last.comm;
                    hidden += s[k].last.hidden;
                }
            }
            if (r >= 0) block_mean[(size_t)k * rounds + r] = sum / kept;
        }
        if (rank == 0 && r >= 0) progress_update(&pr, r + 1, rounds, "round");
    }
    if (rank == 0) progress_end(&pr);

    if (rank == 0) {
        double med[NS];
        for (int k = 0; k < NS; k++) {
            double *v = ms + (size_t)k * rounds * kept;
            qsort(v, (size_t)rounds * kept, sizeof *v, cmp_double);
            size_t n = (size_t)rounds * kept;
            med[k] = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
        }
        int ddp_le_flat = 0, flat_le_per = 0;
        for (int r = 0; r < rounds; r++) {
            ddp_le_flat += block_mean[S_DDP * rounds + r] <= block_mean[S_FLAT * rounds + r];
            flat_le_per += block_mean[S_FLAT * rounds + r] <= block_mean[S_PER * rounds + r];
        }
        printf("# ddp_bar: %s width %g, batch %d per rank, %d ranks, %s %s data, BLAS %s x%d, %d rounds x %d kept "
               "steps per strategy, DDP cap %g MiB (%d buckets)\n",
               model, (double)width, batch, size, d.synthetic ? "synthetic" : "real", d.name, blas_core_name(),
               blas_threads(), rounds, kept, (double)cap_mb, sync_groups(&s[S_DDP]));
        printf("ddp_bar: %s %.1f ms, %s %.1f ms, %s %.1f ms, hidden %.2f, rounds ddp<=flat %d/%d, "
               "flat<=per-param %d/%d\n",
               labels[S_DDP], med[S_DDP], labels[S_FLAT], med[S_FLAT], labels[S_PER], med[S_PER],
               comm > 0.0 ? hidden / comm : 0.0, ddp_le_flat, rounds, flat_le_per, rounds);
        for (int k = 0; k < NS; k++) {
            double n = (double)rounds * kept;
            printf("# %-9s mean forward %.1f, backward %.1f, exposed sync %.1f, optimizer %.1f ms\n", labels[k],
                   parts[k][0] / n, parts[k][1] / n, parts[k][2] / n, parts[k][3] / n);
        }
        printf("# ddp: communication %.1f ms per step, %.1f of it hidden behind backward\n", comm / (rounds * kept),
               hidden / (rounds * kept));
    }
    ddl_free(ms);
    ddl_free(block_mean);
    ddl_free(x);
    ddl_free(y);
    batcher_free(&b);
    for (int k = NS - 1; k >= 0; k--) sync_free(&s[k]);
    trainer_free(&t);
    model_free(&m);
    dataset_free(&d);
    comm_free(&c);
    MPI_Finalize();
    return 0;
}
