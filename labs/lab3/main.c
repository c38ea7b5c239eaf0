/* lab3 - data-parallel SGD: gather/scatter vs allreduce vs DDP-style
 * bucketing (seed 001).
 *
 *   mpirun -np 4 bin/lab3 run --sync ddp     one training run
 *   bin/lab3 table                           report/tables/lab3.tex
 * `make lab3` runs the whole study (labs/lab3/run.sh) and its figures. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "threads.h"
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
    int rank = 0, size = 1;
    ddl_program_start(&argc, &argv, &rank, &size);
    Lab3Options o = lab3_defaults();
    bool has_mode = argc > 1 && argv[1][0] != '-';
    if (has_mode) o.mode = argv[1];
    CliOption opts[] = {
        { "sync", OPT_STR, &o.sync, "none | gather_scatter | allreduce | allreduce_flat | ddp", 0, 0 },
        { "alg", OPT_STR, &o.alg, "allreduce algorithm for allreduce, allreduce_flat, ddp (lab2's names)", 0, 0 },
        { "bucket-cap-mb", OPT_FLOAT, &o.bucket_cap_mb, "ddp: bucket cap in MiB after the first (0: one per layer)", 0, 1e6 },
        { "first-bucket-mb", OPT_FLOAT, &o.first_bucket_mb, "ddp: the first bucket's cap in MiB", 0, 1e6 },
        { "accumulate", OPT_INT, &o.accumulate, "micro-batches per optimizer step (no_sync between)", 1, 1024 },
        { "bn", OPT_STR, &o.bn, "auto | track | off | broadcast: BN running statistics per rank, "
                                "none (batch stats), or rank 0's broadcast before each forward", 0, 0 },
        { "batch", OPT_INT, &o.batch, "examples per rank per step (0: --global-batch / ranks)", 0, 65536 },
        { "global-batch", OPT_INT, &o.global_batch, "total examples per step when --batch is 0", 1, 1 << 24 },
        { "iters", OPT_INT, &o.iters, "steps to train (0: one epoch of this rank's shard)", 0, 100000000 },
        { "timed", OPT_INT, &o.timed, "the first N steps are timed (the first is then discarded)", 2, 100000 },
        { "trace-iter", OPT_INT, &o.trace_iter, "step whose timeline is written (-1: the middle timed one)", -1, 100000 },
        { "device", OPT_STR, &o.device, "cpu | cuda (one rank per GPU)", 0, 0 },
        { "model", OPT_STR, &o.model, "vgg11 (the seed's), or any zoo model: mlp, cnn3, resnet18, resnet50, mobilenetv2", 0, 0 },
        { "width", OPT_FLOAT, &o.width, "channel multiplier (1 = VGG-11 as published)", 0.01, 16 },
        { "dataset", OPT_STR, &o.dataset, "cifar10 | mnist | fashion-mnist", 0, 0 },
        { "limit", OPT_INT, &o.limit, "use the first N training examples (0: all)", 0, 100000000 },
        { "test-limit", OPT_INT, &o.test_limit, "use the first N test examples (0: all)", 0, 100000000 },
        { "augment", OPT_STR, &o.augment, "auto | on | off (CIFAR: pad-4 crop + flip)", 0, 0 },
        { "lr", OPT_FLOAT, &o.lr, "learning rate", 0, 100 },
        { "momentum", OPT_FLOAT, &o.momentum, "SGD momentum", 0, 1 },
        { "wd", OPT_FLOAT, &o.wd, "weight decay", 0, 1 },
        { "no-eval", OPT_FLAG, &o.no_eval, "skip the test-set evaluation (timing runs)", 0, 0 },
        { "synthetic", OPT_FLAG, &o.force_synthetic, "synthetic data even when files exist", 0, 0 },
        { "task", OPT_STR, &o.task, "the seed's task this run stands for: 1 | 2a | 2b | 3", 0, 0 },
        { "series", OPT_STR, &o.series, "task | scale | buckets | custom (for the table job)", 0, 0 },
        { "seed", OPT_U64, &o.seed, "seed for initialisation, shuffling, augmentation", 0, 0 },
        { "profile", OPT_STR, &o.profile, "label written to outputs: quick | paper | custom", 0, 0 },
        { "tag", OPT_STR, &o.tag, "name part of the output files (default <sync>-np<ranks>)", 0, 0 },
        { "out", OPT_STR, &o.out, "directory for CSV/JSON results", 0, 0 },
        { "tex", OPT_STR, &o.tex, "table: path of the LaTeX table", 0, 0 },
        { "quiet", OPT_FLAG, &o.quiet, "less output", 0, 0 },
    };
    int rc = cli_parse(has_mode ? argc - 1 : argc, has_mode ? argv + 1 : argv, "lab3 run|table [options]", DESCRIPTION,
                       opts, (int)(sizeof opts / sizeof opts[0]));
    if (rc != 0 || !has_mode) {
        if (rc == 0 && rank == 0) fprintf(stderr, "error: say what to do: lab3 run | table (--help)\n");
        MPI_Finalize();
        return rc > 0 ? 0 : 2;
    }
    int status = 2;
    if (!strcmp(o.mode, "table")) {
        status = rank == 0 ? lab3_table(&o) : 0;
    } else if (!strcmp(o.mode, "run")) {
        Comm c;
        comm_init(&c, MPI_COMM_WORLD);
        status = lab3_run(&o, &c);
        comm_free(&c);
    } else if (rank == 0) {
        fprintf(stderr, "error: unknown mode '%s': lab3 run | table (--help)\n", o.mode);
    }
    MPI_Finalize();
    return status;
}
