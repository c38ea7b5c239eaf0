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

/* --help's paragraph around the styles' lines (styles.c). */
static const char *const DESCRIPTION_HEAD =
    "Train one of the seed's three workloads data-parallel with one of two\n"
    "framework designs (--style) and report training time, test accuracy,\n"
    "iterations per second and bytes per rank:\n";
static const char *const DESCRIPTION_TAIL =
    "  (horovod: Horovod 0.28's defaults, fusion 128 MiB and a 1 ms cycle;\n"
    "  ps --async: each push applied on arrival, the ps_async row)\n"
    "Workloads: resnet50-mnist, mobilenetv2-fashion, sdss_dnn-sdss.\n"
    "  run    one run: trains --epochs over the (limited) training set split\n"
    "         among the workers, evaluates rank 0's model on the test set, and\n"
    "         writes <tag>-summary.csv/.json.\n"
    "  table  report/tables/lab6.tex (the seed's Table I) and the figure CSVs\n"
    "         from the runs in --out.\n"
    "Examples:\n"
    "  bin/lab6 run --workload sdss_dnn-sdss --style horovod\n"
    "  mpirun -np 3 bin/lab6 run --workload resnet50-mnist --style ps --limit 6400\n"
    "  bin/lab6 --list-styles   each style and the ranks beside its workers (1: a server),\n"
    "         one a line, in table order: what make lab6 runs";

int main(int argc, char **argv)
{
    /* before MPI: run.sh reads it from the native program */
    if (argc == 2 && !strcmp(argv[1], "--list-styles")) {
        lab6_list_styles();
        return 0;
    }
    static char description[4096], style_help[512];
    snprintf(description, sizeof description, "%s%s%s", DESCRIPTION_HEAD, lab6_style_help(), DESCRIPTION_TAIL);
    sync_kind_names(style_help, sizeof style_help, " | ", 6);
    Lab6Options o = { .run = { .width = 0, .batch = 64, .lr = 0.05f, .momentum = 0.9f, .wd = 5e-4f, .seed = 1,
                               .out = "results/lab6", .tex = "report/tables/lab6.tex" },
                      .workload = "sdss_dnn-sdss", .style = "horovod", .alg = "ring", .epochs = 1,
                      .fusion_mb = 128.0f, /* Horovod 0.28: HOROVOD_FUSION_THRESHOLD 128 MiB */
                      .cycle_ms = 1.0f,    /* Horovod 0.28: HOROVOD_CYCLE_TIME 1 ms */
                      .accumulate = 1, .lr_scale = "none", .warmup = 10 };
    const CliOption own[] = {
        OPTION_STR("workload", &o.workload, "resnet50-mnist | mobilenetv2-fashion | sdss_dnn-sdss"),
        OPTION_STR("style", &o.style, style_help),
        OPTION_INT("epochs", &o.epochs, "passes over the training set (split among the workers)", 1, 1000),
        OPTION_INT("iters", &o.iters, "steps to train instead of --epochs (0: use --epochs)", 0, 100000000),
        OPTION_FLOAT("fusion-mb", &o.fusion_mb, "horovod: fusion threshold in MiB (0: no fusion)", 0, 1e6),
        OPTION_FLOAT("cycle-ms", &o.cycle_ms, "horovod: cycle time in ms (0: every layer its own cycle)", 0, 1e6),
        OPTION_FLAG("fp16", &o.fp16, "horovod: Compression.fp16 (gradients travel as halves)"),
        OPTION_STR("alg", &o.alg, "horovod: the allreduce (default ring; lab2's names, nccl on a GPU)"),
        OPTION_FLAG("async", &o.ps_async, "ps: asynchronous server (each push applied on arrival; style ps_async)"),
        OPTION_INT("accumulate", &o.accumulate, "backward passes per step (local accumulation)", 1, 1024),
        OPTION_STR("lr-scale", &o.lr_scale, "none (default): --lr at any worker count | linear: --lr x workers x "
                   "accumulate, Horovod's recipe, ramped up over --warmup steps"),
        OPTION_INT("warmup", &o.warmup, "linear scaling: optimizer steps of the ramp from --lr to the scaled rate",
                   0, 100000000),
    };
    const DriverSpec spec = { .program = "lab6", .usage = "lab6 run|table [options]", .description = description,
                              .modes = "run|table", .shared = DRV_WIDTH | DRV_SGD | DRV_TRAIN | DRV_TEX, .own = own,
                              .nown = (int)(sizeof own / sizeof own[0]),
                              .tag_default = "<workload>-<style>-w<workers>",
                              .batch_help = "examples per worker per step", .batch_min = 1,
                              .width_help = "channel multiplier (0: the workload's quick width; 1 = as published)",
                              .width_min = 0, .ctx = &o, .check = lab6_check, .run = lab6_run, .table = lab6_table,
                              .on_backend = true };
    return driver_main(&spec, &o.run, argc, argv);
}
