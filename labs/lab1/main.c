/* lab1 - single-node training: any model on any dataset, one process.
 *
 * Measures per-iteration time (forward + backward + SGD; the first
 * iteration is reported but left out of the mean, as seed 001 did), and the
 * loss/accuracy curves; writes CSV/JSON under --out, a dataset sample grid
 * and first-layer filters as PNG beside them (--figures names another
 * folder). `bin/lab1 --table`
 * collects every run's summary into report/tables/lab1.tex. */
#include <stdio.h>

#include "lab1.h"

static const char *DESCRIPTION =
    "Train one model on one dataset in one process and record time per iteration,\n"
    "loss and accuracy. Real data is read from $DDL_DATA (default datasets/); when\n"
    "it is absent a synthetic dataset of the same shape is generated and every output\n"
    "says so. Examples:\n"
    "  bin/lab1 --model cnn3 --dataset mnist --epochs 2\n"
    "  bin/lab1 --model vgg11 --dataset cifar10 --width 0.25 --limit 10000 --iters 200\n"
    "  bin/lab1 --table            (rebuild report/tables/lab1.tex from results/lab1)";

int main(int argc, char **argv)
{
    Lab1Options o = { .run = { .model = "cnn3", .dataset = "mnist", .width = 1, .batch = 64, .lr = 0.05f,
                               .momentum = 0.9f, .wd = 5e-4f, .seed = 1, .out = "results/lab1",
                               .tex = "report/tables/lab1.tex" },
                      .figures = NULL, .augment = "auto", .epochs = 1 };
    const CliOption own[] = {
        OPTION_INT("epochs", &o.epochs, "passes over the training set (ignored when --iters > 0)", 0, 100000),
        OPTION_INT("iters", &o.iters, "stop after this many iterations (0: use --epochs)", 0, 100000000),
        OPTION_FLAG("nesterov", &o.nesterov, "Nesterov momentum"),
        OPTION_STR("augment", &o.augment, "auto | on | off (auto: on for cifar10)"),
        OPTION_FLAG("no-synthetic", &o.run.no_synthetic, "fail instead of generating data when files are absent"),
        OPTION_STR("figures", &o.figures, "directory for the PNG pictures (default: --out, beside the run's CSVs)"),
        OPTION_FLAG("table", &o.table_only, "only rebuild the LaTeX table (--tex) from --out"),
    };
    const DriverSpec spec = { .program = "lab1", .usage = "lab1 [options]", .description = DESCRIPTION,
                              .datasets = "mnist|fashion-mnist|cifar10|sdss", .own = own,
                              .shared = DRV_MODEL | DRV_DATASET | DRV_WIDTH | DRV_SGD | DRV_TRAIN | DRV_TEX,
                              .nown = (int)(sizeof own / sizeof own[0]), .tag_default = "<model>-<dataset>",
                              .batch_help = "examples per iteration", .batch_min = 1, .ctx = &o,
                              .check = lab1_check, .run = lab1_run, .table = lab1_write_table, .on_backend = true,
                              .table_flag = &o.table_only };
    return driver_main(&spec, &o.run, argc, argv);
}
