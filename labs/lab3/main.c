/* lab3 - data-parallel SGD: gather/scatter vs allreduce vs DDP-style
 * bucketing (seed 001).
 *
 *   mpirun -np 4 bin/lab3 run --sync ddp     one training run
 *   bin/lab3 table                           report/tables/lab3.tex
 * `make lab3` runs the whole study (labs/lab3/run.sh) and its figures. */
#include <stdio.h>
#include <string.h>

#include "lab3.h"

static const char *DESCRIPTION =
    "Train VGG-11 on CIFAR-10 data-parallel over the MPI ranks, keeping the\n"
    "replicas equal with one gradient sync strategy:\n"
    "  none            one process (the seed's Task 1)\n"
    "  gather_scatter  per parameter: gather at rank 0, mean, scatter (Task 2a)\n"
    "  allreduce       per parameter: allreduce, divide (Task 2b)\n"
    "  allreduce_flat  one allreduce of the whole gradient after backward\n"
    "  ddp             buckets in reverse layer order, allreduced while backward\n"
    "                  still runs (Task 3: PyTorch DistributedDataParallel's design)\n"
    "  run    one run: times the first --timed iterations (the first is discarded),\n"
    "         averages per rank then across ranks, evaluates on every rank, and\n"
    "         writes <tag>-summary/-iters/-trace CSVs and <tag>-trace.json (Perfetto).\n"
    "  table  report/tables/lab3.tex and the figure CSVs from the runs in --out.\n"
    "Examples:\n"
    "  bin/lab3 run --sync none --batch 256 --task 1\n"
    "  mpirun -np 4 bin/lab3 run --sync ddp --global-batch 256 --task 3\n"
    "  mpirun -np 2 bin/lab3 run --sync ddp --bucket-cap-mb 5 --iters 40 --no-eval";

int main(int argc, char **argv)
{
    /* the CS744 assignment's script: SGD lr 0.1, momentum 0.9, wd 1e-4 */
    Lab3Options o = { .run = driver_defaults(), .sync = "ddp", .alg = "mpi", .bn = "auto", .augment = "auto",
                      .task = "", .series = "custom", .bucket_cap_mb = 25.0f, .first_bucket_mb = 1.0f,
                      .accumulate = 1, .global_batch = 256, .timed = 40, .trace_iter = -1,
                      .tex = "report/tables/lab3.tex" };
    o.run.model = "vgg11";
    o.run.dataset = "cifar10";
    o.run.batch = 0;
    o.run.lr = 0.1f;
    o.run.momentum = 0.9f;
    o.run.wd = 1e-4f;
    o.run.out = "results/lab3";
    const CliOption own[] = {
        { "sync", OPT_STR, &o.sync, "none | gather_scatter | allreduce | allreduce_flat | ddp", 0, 0 },
        { "alg", OPT_STR, &o.alg, "allreduce algorithm for allreduce, allreduce_flat, ddp (lab2's names)", 0, 0 },
        { "bucket-cap-mb", OPT_FLOAT, &o.bucket_cap_mb, "ddp: bucket cap in MiB after the first (0: one per layer)", 0, 1e6 },
        { "first-bucket-mb", OPT_FLOAT, &o.first_bucket_mb, "ddp: the first bucket's cap in MiB", 0, 1e6 },
        { "accumulate", OPT_INT, &o.accumulate, "micro-batches per optimizer step (no_sync between)", 1, 1024 },
        { "bn", OPT_STR, &o.bn, "auto | track | off | broadcast: BN running statistics per rank, "
                                "none (batch stats), or rank 0's broadcast before each forward", 0, 0 },
        { "global-batch", OPT_INT, &o.global_batch, "total examples per step when --batch is 0", 1, 1 << 24 },
        { "iters", OPT_INT, &o.iters, "steps to train (0: one epoch of this rank's shard)", 0, 100000000 },
        { "timed", OPT_INT, &o.timed, "the first N steps are timed (the first is then discarded)", 2, 100000 },
        { "trace-iter", OPT_INT, &o.trace_iter, "step whose timeline is written (-1: the middle timed one)", -1, 100000 },
        { "augment", OPT_STR, &o.augment, "auto | on | off (CIFAR: pad-4 crop + flip)", 0, 0 },
        { "no-eval", OPT_FLAG, &o.no_eval, "skip the test-set evaluation (timing runs)", 0, 0 },
        { "task", OPT_STR, &o.task, "the seed's task this run stands for: 1 | 2a | 2b | 3", 0, 0 },
        { "series", OPT_STR, &o.series, "task | scale | buckets | custom, or a comma list (for the table job)", 0, 0 },
        { "tex", OPT_STR, &o.tex, "table: path of the LaTeX table", 0, 0 },
    };
    const DriverSpec spec = { .program = "lab3", .usage = "lab3 run|table [options]", .description = DESCRIPTION,
                              .modes = "run|table", .datasets = "cifar10|mnist|fashion-mnist",
                              .shared = DRV_MODEL | DRV_DATASET | DRV_WIDTH | DRV_SGD | DRV_RUN, .own = own,
                              .nown = (int)(sizeof own / sizeof own[0]), .tag_default = "<sync>-np<ranks>",
                              .batch_help = "examples per rank per step (0: --global-batch / ranks)", .batch_min = 0 };
    Driver d;
    if (driver_start(&d, &spec, &o.run, argc, argv) != 0) return driver_end(&d, d.status);
    if (!strcmp(d.mode, "table")) {
        int rc = driver_check_file(&d, "tex", o.tex);
        return driver_end(&d, rc ? rc : d.rank == 0 ? lab3_table(&o) : 0);
    }
    if (lab3_check(&o) != 0) return driver_end(&d, 2);
    return driver_end(&d, lab3_run(&o, &d));
}
