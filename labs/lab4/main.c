/* lab4 - group / pairwise averaging vs full allreduce (seed 000).
 *
 *   mpirun -np P bin/lab4 run     every configuration of the seed's Table 2
 *                                 for P workers: bytes, time, accuracy,
 *                                 consensus distance per iteration
 *   bin/lab4 table                the seed's Table 2 and Figure 3 data from
 *                                 results/lab4, report/tables/lab4.tex
 * `make lab4` runs P = 2..6, the table and the figures (labs/lab4/run.sh). */
#include <stdio.h>
#include <string.h>

#include "lab4.h"

static const char *DESCRIPTION =
    "Seed 000: after every local SGD step the P workers average their weights either\n"
    "all together (ring allreduce) or in groups of k+1 ring neighbours (\"k passes\"),\n"
    "the grouping shifting one position per step; k = 1 is iterative pairwise\n"
    "averaging, k = P-1 the full average. Fewer passes send fewer bytes per step;\n"
    "more iterations buy the accuracy back. ddlab counts every byte exactly.\n"
    "  run     all configurations for this rank count (the seed's Table 2 rows:\n"
    "          all-reduce at 12 iterations, then k = P-1 .. 1 at 15, 18, ...)\n"
    "  table   rebuild report/tables/lab4.tex and the combined CSVs from --out.\n"
    "An iteration is one pass over the worker's shard of the training subset\n"
    "(--steps-per-iter to change). --scheme lga runs the other reading of the seed\n"
    "(Horovod's backward_passes_per_step: local gradient accumulation).\n"
    "Examples:\n"
    "  mpirun -np 5 bin/lab4 run\n"
    "  mpirun -np 4 bin/lab4 run --passes ar,1 --iters 20 --limit 2400\n"
    "  bin/lab4 table";

int main(int argc, char **argv)
{
    /* Horovod's examples/pytorch/pytorch_mnist.py, which the seed started
     * from: SGD lr 0.01 x workers, momentum 0.5, batch 64 per worker. The
     * defaults below are the quick profile's (labs/lab4/run.sh), where
     * batch 32 gives the small subset twice the steps per iteration; the
     * paper profile passes width 1, a larger subset and batch 64. */
    Lab4Options o = { .run = { .dataset = "mnist", .width = 0.5f, .limit = 1200, .test_limit = 500, .batch = 32,
                               .lr = 0.01f, .momentum = 0.5f, .seed = 1, .out = "results/lab4",
                               .tex = "report/tables/lab4.tex" },
                      .scheme = "group", .passes = "all", .iters_base = 12, .iters_step = 3 };
    const CliOption own[] = {
        OPTION_STR("scheme", &o.scheme, "group (the seed's description), lga (Horovod's backward passes), or group,lga"),
        OPTION_STR("passes", &o.passes, "all, or a comma list of 'ar' (all-reduce) and k values, e.g. ar,2,1"),
        OPTION_INT("iters", &o.iters, "iterations for every configuration (0: the seed's schedule)", 0, 100000),
        OPTION_INT("iters-base", &o.iters_base, "schedule: iterations of the all-reduce", 1, 100000),
        OPTION_INT("iters-step", &o.iters_step, "schedule: extra iterations per pass removed", 0, 100000),
        OPTION_INT("steps-per-iter", &o.steps_per_iter,
                   "local SGD steps per iteration (0: one pass over the worker's shard)", 0, 1000000),
        OPTION_FLAG("no-rotate", &o.no_rotate, "group: keep the first grouping every round (no mixing between groups)"),
        OPTION_FLAG("no-lr-scale", &o.no_lr_scale, "do not multiply the learning rate by the number of workers"),
    };
    const DriverSpec spec = { .program = "lab4", .usage = "lab4 run|table [options]", .description = DESCRIPTION,
                              .modes = "run|table", .datasets = "mnist|fashion-mnist", .own = own,
                              .shared = DRV_DATASET | DRV_WIDTH | DRV_LR | DRV_MOMENTUM | DRV_TRAIN | DRV_TEX,
                              .nown = (int)(sizeof own / sizeof own[0]), .tag_default = "np<ranks>",
                              .batch_help = "examples per local step on each worker", .batch_min = 1,
                              .width_help = "cnn3 channel multiplier (1 = the seed's network)", .width_min = 0.05f,
                              .ctx = &o, .run = lab4_run, .table = lab4_table,
                              .on_backend = true };
    return driver_main(&spec, &o.run, argc, argv);
}
