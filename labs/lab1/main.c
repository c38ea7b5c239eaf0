/* lab1 - single-node training: any model on any dataset, one process.
 *
 * Measures per-iteration time (forward + backward + SGD; the first
 * iteration is reported but left out of the mean, as seed 001 did), and the
 * loss/accuracy curves; writes CSV/JSON under --out, a dataset sample grid
 * and first-layer filters as PNG under --figures. `bin/lab1 --table`
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
    Lab1Options o = { .run = driver_defaults(), .figures = "figures", .tex = "report/tables/lab1.tex",
                      .augment = "auto", .epochs = 1 };
    o.run.model = "cnn3";
    o.run.dataset = "mnist";
    o.run.out = "results/lab1";
    o.run.lr = 0.05f;
    o.run.momentum = 0.9f;
    o.run.wd = 5e-4f;
    const CliOption own[] = {
        { "epochs", OPT_INT, &o.epochs, "passes over the training set (ignored when --iters > 0)", 0, 100000 },
        { "iters", OPT_INT, &o.iters, "stop after this many iterations (0: use --epochs)", 0, 100000000 },
        { "nesterov", OPT_FLAG, &o.nesterov, "Nesterov momentum", 0, 0 },
        { "augment", OPT_STR, &o.augment, "auto | on | off (auto: on for cifar10)", 0, 0 },
        { "no-synthetic", OPT_FLAG, &o.run.no_synthetic, "fail instead of generating data when files are absent", 0, 0 },
        { "figures", OPT_STR, &o.figures, "directory for PNG pictures", 0, 0 },
        { "table", OPT_FLAG, &o.table_only, "only rebuild the LaTeX table from --out", 0, 0 },
        { "tex", OPT_STR, &o.tex, "path of the LaTeX table", 0, 0 },
    };
    const DriverSpec spec = { .program = "lab1", .usage = "lab1 [options]", .description = DESCRIPTION,
                              .datasets = "mnist|fashion-mnist|cifar10|sdss",
                              .shared = DRV_MODEL | DRV_DATASET | DRV_WIDTH | DRV_SGD | DRV_RUN, .own = own,
                              .nown = (int)(sizeof own / sizeof own[0]), .tag_default = "<model>-<dataset>",
                              .batch_help = "examples per iteration", .batch_min = 1 };
    Driver d;
    if (driver_start(&d, &spec, &o.run, argc, argv) != 0) return driver_end(&d, d.status);
    if (d.world > 1) {
        ddl_error("lab1 trains on one process, but it was started with %d ranks.\n"
                  "Run it without mpirun (or -np 1); data-parallel training is lab3.", d.world);
        return driver_end(&d, 2);
    }
    if (driver_choice("augment", o.augment, "auto|on|off") < 0) return driver_end(&d, 2);
    if (o.table_only)
        return driver_end(&d, driver_check_file(&d, "tex", o.tex) ? 2 : lab1_write_table(&o));
    return driver_end(&d, lab1_run(&o, &d));
}
