/* lab5 - centralized SGD vs distributed SGD vs federated averaging, FP32 vs
 * FP16 mixed precision (seed 004).
 *
 *   bin/lab5 run --scheme csgd ...               one process
 *   mpirun -np 5 bin/lab5 run --scheme dsgd ...  the cloud (rank 0) + 4 users
 *   bin/lab5 table                               the seed's tables from results/lab5
 * `make lab5` runs the seed's eight schemes, the table and the figures
 * (labs/lab5/run.sh). */
#include <stdio.h>
#include <string.h>

#include "mixed/loss_scale.h"
#include "lab5.h"

static const char *DESCRIPTION =
    "Seed 004: ResNet-18 on CIFAR-10 trained by one process (csgd), by users that\n"
    "upload a gradient after every local batch to a cloud that steps the global\n"
    "model (dsgd), or by users that upload their model after E local epochs and a\n"
    "cloud that averages them (fedavg); each in FP32 or in FP16 mixed precision\n"
    "(FP32 master weights, FP16 storage emulated by rounding on the CPU, dynamic\n"
    "loss scaling). Rank 0 is the cloud and does not train; ranks 1.. are users.\n"
    "Bytes are counted on every message and set beside the seed's closed form.\n"
    "  run     one scheme in one precision: epochs-, summary-, lossscale-LABEL.csv\n"
    "  table   the seed's Section 3.2 table, accuracies, rounds to --target,\n"
    "          report/tables/lab5.tex, and the CSVs the figures plot.\n"
    "Examples:\n"
    "  bin/lab5 run --scheme csgd --batch 256\n"
    "  mpirun -np 5 bin/lab5 run --scheme dsgd --batch 2048 --precision fp16\n"
    "  mpirun -np 5 bin/lab5 run --scheme fedavg --local-epochs 2 --shards sorted\n"
    "  bin/lab5 table --target 0.4";

int main(int argc, char **argv)
{
    /* seed 004, Section 3.1: SGD, constant lr 0.1, momentum 0.9, weight
     * decay 1e-4, batch 256, normalisation only (no augmentation named) */
    Lab5Options o = { .run = driver_defaults(), .scheme = "csgd", .precision = "fp32", .shards = "iid",
                      .local_epochs = 1, .epochs = 3, .alpha = 0.5f, .eval_batch = 250, .target = 0.3f,
                      .loss_scale = LOSS_SCALE_INITIAL, .scale_window = LOSS_SCALE_WINDOW,
                      .tex = "report/tables/lab5.tex" };
    o.run.dataset = "cifar10";
    o.run.out = "results/lab5";
    o.run.batch = 256;
    o.run.lr = 0.1f;
    o.run.momentum = 0.9f;
    o.run.wd = 1e-4f;
    o.run.width = 0.25f;
    o.run.limit = 4096;
    o.run.test_limit = 1000;
    const CliOption own[] = {
        { "scheme", OPT_STR, &o.scheme, "csgd (1 rank) | dsgd | fedavg (1 cloud + users)", 0, 0 },
        { "precision", OPT_STR, &o.precision, "fp32 | fp16 (mixed precision, FP16 on the wire)", 0, 0 },
        { "local-epochs", OPT_INT, &o.local_epochs, "fedavg: local epochs E per round", 1, 1000 },
        { "epochs", OPT_INT, &o.epochs, "epochs of training (passes over the training subset)", 1, 100000 },
        { "shards", OPT_STR, &o.shards, "users' data: iid | sorted (label-sorted) | dirichlet (--alpha)", 0, 0 },
        { "alpha", OPT_FLOAT, &o.alpha, "Dirichlet concentration for --shards dirichlet (small: skewed)", 0.001, 1000 },
        { "augment", OPT_FLAG, &o.augment, "CIFAR pad-4 random crop + flip (the seed: none, normalisation only)", 0, 0 },
        { "loss-scale", OPT_FLOAT, &o.loss_scale, "fp16: initial loss scale", 1, 1e9 },
        { "scale-window", OPT_INT, &o.scale_window, "fp16: clean steps before the loss scale doubles", 1, 100000000 },
        { "eval-batch", OPT_INT, &o.eval_batch, "batch for evaluation", 1, 65536 },
        { "target", OPT_FLOAT, &o.target, "table: accuracy for 'rounds and bytes to reach'", 0, 1 },
        { "label", OPT_STR, &o.run.tag, "the run's name: another name for --tag", 0, 0 },
        { "tex", OPT_STR, &o.tex, "table: path of the LaTeX table", 0, 0 },
    };
    const DriverSpec spec = { .program = "lab5", .usage = "lab5 run|table [options]", .description = DESCRIPTION,
                              .modes = "run|table", .datasets = "cifar10",
                              .shared = DRV_DATASET | DRV_WIDTH | DRV_SGD | DRV_RUN, .own = own,
                              .nown = (int)(sizeof own / sizeof own[0]),
                              .tag_default = "the seed's label, e.g. D_SGD_BS256_FP16",
                              .batch_help = "csgd: batch; dsgd: global batch (split over users); fedavg: batch per user",
                              .batch_min = 1, .width_help = "ResNet-18 channel multiplier (1 = the seed's 11.17M "
                                                            "parameters)", .width_min = 0.01f };
    Driver d;
    if (driver_start(&d, &spec, &o.run, argc, argv) != 0) return driver_end(&d, d.status);
    if (!strcmp(d.mode, "table")) {
        int rc = driver_check_file(&d, "tex", o.tex);
        return driver_end(&d, rc ? rc : d.rank == 0 ? lab5_table(&o) : 0);
    }
    if (lab5_check(&o, d.world) != 0) return driver_end(&d, 2);
    return driver_end(&d, lab5_run(&o, &d));
}
