/* lab4 - group / pairwise averaging vs full allreduce (seed 000).
 *
 *   mpirun -np P bin/lab4 run     every configuration of the seed's Table 2
 *                                 for P workers: bytes, time, accuracy,
 *                                 consensus distance per iteration
 *   bin/lab4 table                the seed's Table 2 and Figure 3 data from
 *                                 results/lab4, report/tables/lab4.tex
 * `make lab4` runs P = 2..6, the table and the figures (labs/lab4/run.sh). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "threads.h"
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
    int rank = 0, size = 1;
    ddl_program_start(&argc, &argv, &rank, &size);

    Lab4Options o = lab4_defaults();
    bool has_mode = argc > 1 && argv[1][0] != '-';
    if (has_mode) o.mode = argv[1];
    CliOption opts[] = {
        { "scheme", OPT_STR, &o.scheme, "group (the seed's description), lga (Horovod's backward passes), or group,lga", 0, 0 },
        { "passes", OPT_STR, &o.passes, "all, or a comma list of 'ar' (all-reduce) and k values, e.g. ar,2,1", 0, 0 },
        { "iters", OPT_INT, &o.iters, "iterations for every configuration (0: the seed's schedule)", 0, 100000 },
        { "iters-base", OPT_INT, &o.iters_base, "schedule: iterations of the all-reduce", 1, 100000 },
        { "iters-step", OPT_INT, &o.iters_step, "schedule: extra iterations per pass removed", 0, 100000 },
        { "steps-per-iter", OPT_INT, &o.steps_per_iter, "local SGD steps per iteration (0: one pass over the worker's shard)", 0, 1000000 },
        { "no-rotate", OPT_FLAG, &o.no_rotate, "group: keep the first grouping every round (no mixing between groups)", 0, 0 },
        { "batch", OPT_INT, &o.batch, "examples per local step on each worker", 1, 65536 },
        { "lr", OPT_FLOAT, &o.lr, "learning rate per worker (multiplied by P unless --no-lr-scale)", 0, 100 },
        { "no-lr-scale", OPT_FLAG, &o.no_lr_scale, "do not multiply the learning rate by the number of workers", 0, 0 },
        { "momentum", OPT_FLOAT, &o.momentum, "SGD momentum", 0, 1 },
        { "width", OPT_FLOAT, &o.width, "cnn3 channel multiplier (1 = the seed's network)", 0.05, 8 },
        { "limit", OPT_INT, &o.limit, "use the first N training examples (0: all 60000)", 0, 100000000 },
        { "test-limit", OPT_INT, &o.test_limit, "use the first N test examples (0: all 10000)", 0, 100000000 },
        { "dataset", OPT_STR, &o.dataset, "mnist | fashion-mnist", 0, 0 },
        { "synthetic", OPT_FLAG, &o.force_synthetic, "synthetic data even when files exist", 0, 0 },
        { "seed", OPT_U64, &o.seed, "seed for initialisation and shuffling", 0, 0 },
        { "profile", OPT_STR, &o.profile, "label written to outputs: quick | paper | custom", 0, 0 },
        { "tag", OPT_STR, &o.tag, "name part of the output files (default np<ranks>)", 0, 0 },
        { "out", OPT_STR, &o.out, "directory for CSV/JSON results", 0, 0 },
        { "tex", OPT_STR, &o.tex, "table: path of the LaTeX table", 0, 0 },
        { "quiet", OPT_FLAG, &o.quiet, "less output", 0, 0 },
    };
    int rc = cli_parse(has_mode ? argc - 1 : argc, has_mode ? argv + 1 : argv, "lab4 run|table [options]",
                       DESCRIPTION, opts, (int)(sizeof opts / sizeof opts[0]));
    if (rc != 0 || !has_mode) {
        if (rc == 0 && rank == 0) fprintf(stderr, "error: say what to do: lab4 run | table (--help)\n");
        MPI_Finalize();
        return rc > 0 ? 0 : 2;
    }
    int status = 2;
    if (!strcmp(o.mode, "table")) status = rank == 0 ? lab4_table(&o) : 0;
    else if (!strcmp(o.mode, "run")) status = lab4_run(&o);
    else if (rank == 0) fprintf(stderr, "error: unknown mode '%s': lab4 run | table (--help)\n", o.mode);
    MPI_Finalize();
    return status;
}
