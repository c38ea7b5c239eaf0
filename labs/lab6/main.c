/* lab6 - Horovod-style allreduce vs a parameter server across three
 * workloads, 1 vs 2 workers (seed 003).
 *
 *   bin/lab6 run --workload resnet50-mnist --style horovod      1 worker
 *   mpirun -np 2 bin/lab6 run --style horovod ...               2 workers
 *   mpirun -np 3 bin/lab6 run --style ps ...                    server + 2 workers
 *   bin/lab6 table                                              report/tables/lab6.tex
 * `make lab6` runs the whole grid (labs/lab6/run.sh) and its figures. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "threads.h"
#include "lab6.h"

static const char *DESCRIPTION =
    "Train one of the seed's three workloads data-parallel with one of two\n"
    "framework designs and report training time, test accuracy, iterations\n"
    "per second and bytes per rank:\n"
    "  horovod  every rank a worker; gradients ring-allreduced during backward\n"
    "           with tensor fusion (Horovod 0.28 defaults: 128 MiB, 1 ms cycle)\n"
    "  ps       rank 0 a parameter server, ranks 1..P workers: workers push\n"
    "           gradients, the server averages and steps, workers pull weights\n"
    "           (so P workers = P+1 ranks)\n"
    "Workloads: resnet50-mnist, mobilenetv2-fashion, sdss_dnn-sdss.\n"
    "  run    one run: trains --epochs over the (limited) training set split\n"
    "         among the workers, evaluates rank 0's model on the test set, and\n"
    "         writes <tag>-summary.csv/.json.\n"
    "  table  report/tables/lab6.tex (the seed's Table I) and the figure CSVs\n"
    "         from the runs in --out.\n"
    "Examples:\n"
    "  bin/lab6 run --workload sdss_dnn-sdss --style horovod\n"
    "  mpirun -np 3 bin/lab6 run --workload resnet50-mnist --style ps --limit 6400";

int main(int argc, char **argv)
{
    int rank = 0, size = 1;
    ddl_program_start(&argc, &argv, &rank, &size);
    Lab6Options o = lab6_defaults();
    bool has_mode = argc > 1 && argv[1][0] != '-';
    if (has_mode) o.mode = argv[1];
    CliOption opts[] = {
        { "workload", OPT_STR, &o.workload, "resnet50-mnist | mobilenetv2-fashion | sdss_dnn-sdss", 0, 0 },
        { "style", OPT_STR, &o.style, "horovod | ps", 0, 0 },
        { "width", OPT_FLOAT, &o.width, "channel multiplier (0: the workload's quick width; 1 = as published)", 0, 16 },
        { "batch", OPT_INT, &o.batch, "examples per worker per step", 1, 65536 },
        { "epochs", OPT_INT, &o.epochs, "passes over the training set (split among the workers)", 1, 1000 },
        { "iters", OPT_INT, &o.iters, "steps to train instead of --epochs (0: use --epochs)", 0, 100000000 },
        { "limit", OPT_INT, &o.limit, "use the first N training examples (0: all)", 0, 100000000 },
        { "test-limit", OPT_INT, &o.test_limit, "use the first N test examples (0: all)", 0, 100000000 },
        { "fusion-mb", OPT_FLOAT, &o.fusion_mb, "horovod: fusion threshold in MiB (0: no fusion)", 0, 1e6 },
        { "cycle-ms", OPT_FLOAT, &o.cycle_ms, "horovod: cycle time in ms (0: every layer its own cycle)", 0, 1e6 },
        { "fp16", OPT_FLAG, &o.fp16, "horovod: Compression.fp16 (gradients travel as halves)", 0, 0 },
        { "async", OPT_FLAG, &o.ps_async, "ps: asynchronous server (each push applied on arrival; style ps_async)", 0, 0 },
        { "accumulate", OPT_INT, &o.accumulate, "backward passes per step (local accumulation)", 1, 1024 },
        { "device", OPT_STR, &o.device, "cpu | cuda (one rank per GPU)", 0, 0 },
        { "lr", OPT_FLOAT, &o.lr, "learning rate", 0, 100 },
        { "momentum", OPT_FLOAT, &o.momentum, "SGD momentum", 0, 1 },
        { "wd", OPT_FLOAT, &o.wd, "weight decay", 0, 1 },
        { "synthetic", OPT_FLAG, &o.force_synthetic, "synthetic data even when files exist", 0, 0 },
        { "seed", OPT_U64, &o.seed, "seed for initialisation, shuffling, the SDSS split", 0, 0 },
        { "profile", OPT_STR, &o.profile, "label written to outputs: quick | paper | smoke | custom", 0, 0 },
        { "tag", OPT_STR, &o.tag, "name part of the output files (default <workload>-<style>-w<workers>)", 0, 0 },
        { "out", OPT_STR, &o.out, "directory for CSV/JSON results", 0, 0 },
        { "tex", OPT_STR, &o.tex, "table: path of the LaTeX table", 0, 0 },
        { "quiet", OPT_FLAG, &o.quiet, "less output", 0, 0 },
    };
    int rc = cli_parse(has_mode ? argc - 1 : argc, has_mode ? argv + 1 : argv, "lab6 run|table [options]", DESCRIPTION,
                       opts, (int)(sizeof opts / sizeof opts[0]));
    if (rc != 0 || !has_mode) {
        if (rc == 0 && rank == 0) fprintf(stderr, "error: say what to do: lab6 run | table (--help)\n");
        MPI_Finalize();
        return rc > 0 ? 0 : 2;
    }
    int status = 2;
    if (!strcmp(o.mode, "table")) {
        status = rank == 0 ? lab6_table(&o) : 0;
    } else if (!strcmp(o.mode, "run")) {
        Comm c;
        comm_init(&c, MPI_COMM_WORLD);
        status = lab6_run(&o, &c);
        comm_free(&c);
    } else if (rank == 0) {
        fprintf(stderr, "error: unknown mode '%s': lab6 run | table (--help)\n", o.mode);
    }
    MPI_Finalize();
    return status;
}
