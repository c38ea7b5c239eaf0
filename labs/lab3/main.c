/* lab3 - data-parallel SGD: gather/scatter vs allreduce vs DDP-style
 * bucketing (seed 001).
 *
 *   mpirun -np 4 bin/lab3 run --sync ddp     one training run
 *   bin/lab3 table                           report/tables/lab3.tex
 * `make lab3` runs the whole study (labs/lab3/run.sh) and its figures. */
#include <stdio.h>
#include <string.h>

#include "lab3.h"

/* --help's paragraph around the strategies' lines (syncs.c). */
static const char *const DESCRIPTION_HEAD =
    "Train VGG-11 on CIFAR-10 data-parallel over the MPI ranks, keeping the\n"
    "replicas equal with one gradient sync strategy (--sync):\n";
static const char *const DESCRIPTION_TAIL =
    "  run    one run: times the first --timed iterations (the first is discarded),\n"
    "         averages per rank then across ranks, evaluates on every rank, and\n"
    "         writes <tag>-summary/-iters/-trace CSVs and <tag>-trace.json (Perfetto).\n"
    "  table  report/tables/lab3.tex and the figure CSVs from the runs in --out.\n"
    "  bin/lab3 --list-syncs   the strategies that synchronise ranks (every --sync\n"
    "         but the one-process ones), one a line, in table order: what make lab3\n"
    "         sweeps and plots.\n"
    "Examples:\n"
    "  bin/lab3 run --sync none --batch 256 --task 1\n"
    "  mpirun -np 4 bin/lab3 run --sync ddp --global-batch 256 --task 3\n"
    "  mpirun -np 2 bin/lab3 run --sync ddp --bucket-cap-mb 5 --iters 40 --no-eval";

int main(int argc, char **argv)
{
    /* before MPI: run.sh and figures.sh read it from the native program */
    if (argc == 2 && !strcmp(argv[1], "--list-syncs")) {
        puts(lab3_multirank_syncs("\n"));
        return 0;
    }
    static char description[8192], sync_help[1024];
    snprintf(description, sizeof description, "%s%s%s", DESCRIPTION_HEAD, lab3_sync_help(), DESCRIPTION_TAIL);
    sync_kind_names(sync_help, sizeof sync_help, " | ", 3);
    /* the CS744 assignment's script: SGD lr 0.1, momentum 0.9, wd 1e-4 */
    Lab3Options o = { .run = { .model = "vgg11", .dataset = "cifar10", .width = 1, .batch = 0, .lr = 0.1f,
                               .momentum = 0.9f, .wd = 1e-4f, .seed = 1, .out = "results/lab3",
                               .tex = "report/tables/lab3.tex" },
                      .sync = "ddp", .alg = "mpi", .bn = "auto", .augment = "auto", .task = "", .series = "custom",
                      .bucket_cap_mb = 25.0f, .first_bucket_mb = 1.0f, .accumulate = 1, .global_batch = 256,
                      .timed = 40, .trace_iter = -1, .calibrate_compute = "", .compute_model = "",
                      .private_ranks = -1 };
    const CliOption own[] = {
        OPTION_STR("sync", &o.sync, sync_help),
        OPTION_STR("alg", &o.alg, "allreduce algorithm for allreduce, allreduce_flat, ddp (lab2's names; nccl on a GPU)"),
        OPTION_FLOAT("bucket-cap-mb", &o.bucket_cap_mb, "ddp: bucket cap in MiB after the first (0: one per layer)", 0, 1e6),
        OPTION_FLOAT("first-bucket-mb", &o.first_bucket_mb, "ddp: the first bucket's cap in MiB", 0, 1e6),
        OPTION_INT("accumulate", &o.accumulate, "micro-batches per optimizer step (no_sync between)", 1, 1024),
        OPTION_STR("bn", &o.bn, "auto | track | off | broadcast: BN running statistics per rank, "
                                "none (batch stats), or rank 0's broadcast before each forward"),
        OPTION_INT("global-batch", &o.global_batch, "total examples per step when --batch is 0", 1, 1 << 24),
        OPTION_INT("iters", &o.iters, "steps to train (0: one epoch of this rank's shard)", 0, 100000000),
        OPTION_INT("timed", &o.timed, "the first N steps are timed (the first is then discarded)", 2, 100000),
        OPTION_INT("trace-iter", &o.trace_iter, "step whose timeline is written (-1: the middle timed one)", -1, 100000),
        OPTION_STR("augment", &o.augment, "auto | on | off (CIFAR: pad-4 crop + flip)"),
        OPTION_FLAG("no-eval", &o.no_eval, "skip the test-set evaluation (timing runs)"),
        OPTION_STR("task", &o.task, "the seed's task this run stands for: 1 | 2a | 2b | 3"),
        OPTION_STR("calibrate-compute", &o.calibrate_compute,
                   "native, one thread: write <out>/<NAME>.csv, each layer's forward/backward, the loss's and the "
                   "optimizer's time per step (mean, sd, range) for --compute-model"),
        OPTION_STR("compute-model", &o.compute_model,
                   "simulated (SMPI, LAUNCH_SIM_COMPUTE=0): charge each stage a time drawn from this calibration "
                   "instead of running it on this machine"),
        OPTION_INT("private-ranks", &o.private_ranks,
                   "with --compute-model: ranks from this one keep their training state in one block shared by all of them and "
                   "run no kernels (their loss is n/a); -1: none", -1, 1 << 20),
        OPTION_STR("series", &o.series, "task | scale | buckets | custom, or a comma list (for the table job)"),
    };
    const DriverSpec spec = { .program = "lab3", .usage = "lab3 run|table [options]", .description = description,
                              .modes = "run|table", .datasets = "cifar10|mnist|fashion-mnist",
                              .shared = DRV_MODEL | DRV_DATASET | DRV_WIDTH | DRV_SGD | DRV_TRAIN | DRV_TEX, .own = own,
                              .nown = (int)(sizeof own / sizeof own[0]), .tag_default = "<sync>-np<ranks>",
                              .batch_help = "examples per rank per step (0: --global-batch / ranks)", .batch_min = 0,
                              .ctx = &o, .check = lab3_check, .run = lab3_run, .table = lab3_table,
                              .on_backend = true };
    return driver_main(&spec, &o.run, argc, argv);
}
