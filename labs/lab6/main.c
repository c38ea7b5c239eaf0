/* lab6 - Horovod-style allreduce vs a parameter server across three
 * workloads, 1 vs 2 workers (seed 003).
 *
 *   bin/lab6 run --workload resnet50-mnist --style horovod      1 worker
 *   mpirun -np 2 bin/lab6 run --style horovod ...               2 workers
 *   mpirun -np 3 bin/lab6 run --style ps ...                    server + 2 workers
 *   bin/lab6 table                                              report/tables/lab6.tex
 * `make lab6` runs the whole grid (labs/lab6/run.sh) and its figures. */
#include <stdio.h>
#include <string.h>

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
    Lab6Options o = { .run = driver_defaults(), .workload = "sdss_dnn-sdss", .style = "horovod", .epochs = 1,
                      .fusion_mb = 128.0f, /* Horovod 0.28: HOROVOD_FUSION_THRESHOLD 128 MiB */
                      .cycle_ms = 1.0f,    /* Horovod 0.28: HOROVOD_CYCLE_TIME 1 ms */
                      .accumulate = 1, .tex = "report/tables/lab6.tex" };
    o.run.width = 0.0f;
    o.run.lr = 0.05f;
    o.run.momentum = 0.9f;
    o.run.wd = 5e-4f;
    o.run.out = "results/lab6";
    const CliOption own[] = {
        { "workload", OPT_STR, &o.workload, "resnet50-mnist | mobilenetv2-fashion | sdss_dnn-sdss", 0, 0 },
        { "style", OPT_STR, &o.style, "horovod | ps", 0, 0 },
        { "epochs", OPT_INT, &o.epochs, "passes over the training set (split among the workers)", 1, 1000 },
        { "iters", OPT_INT, &o.iters, "steps to train instead of --epochs (0: use --epochs)", 0, 100000000 },
        { "fusion-mb", OPT_FLOAT, &o.fusion_mb, "horovod: fusion threshold in MiB (0: no fusion)", 0, 1e6 },
        { "cycle-ms", OPT_FLOAT, &o.cycle_ms, "horovod: cycle time in ms (0: every layer its own cycle)", 0, 1e6 },
        { "fp16", OPT_FLAG, &o.fp16, "horovod: Compression.fp16 (gradients travel as halves)", 0, 0 },
        { "async", OPT_FLAG, &o.ps_async, "ps: asynchronous server (each push applied on arrival; style ps_async)", 0, 0 },
        { "accumulate", OPT_INT, &o.accumulate, "backward passes per step (local accumulation)", 1, 1024 },
        { "tex", OPT_STR, &o.tex, "table: path of the LaTeX table", 0, 0 },
    };
    const DriverSpec spec = { .program = "lab6", .usage = "lab6 run|table [options]", .description = DESCRIPTION,
                              .modes = "run|table", .shared = DRV_WIDTH | DRV_SGD | DRV_RUN, .own = own,
                              .nown = (int)(sizeof own / sizeof own[0]),
                              .tag_default = "<workload>-<style>-w<workers>",
                              .batch_help = "examples per worker per step", .batch_min = 1,
                              .width_help = "channel multiplier (0: the workload's quick width; 1 = as published)",
                              .width_min = 0 };
    Driver d;
    if (driver_start(&d, &spec, &o.run, argc, argv) != 0) return driver_end(&d, d.status);
    if (!strcmp(d.mode, "table")) {
        int rc = driver_check_file(&d, "tex", o.tex);
        return driver_end(&d, rc ? rc : d.rank == 0 ? lab6_table(&o) : 0);
    }
    if (lab6_check(&o, d.world) != 0) return driver_end(&d, 2);
    return driver_end(&d, lab6_run(&o, &d));
}
