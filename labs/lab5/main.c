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
    Lab5Options o = { .run = { .dataset = "cifar10", .width = 0.25f, .limit = 4096, .test_limit = 1000, .batch = 256,
                               .lr = 0.1f, .momentum = 0.9f, .wd = 1e-4f, .seed = 1, .out = "results/lab5",
                               .tex = "report/tables/lab5.tex" },
                      .scheme = "csgd", .precision = "fp32", .shards = "iid", .local_epochs = 1, .epochs = 3,
                      .alpha = 0.5f, .eval_batch = 250, .target = 0.3f, .loss_scale = LOSS_SCALE_INITIAL,
                      .scale_window = LOSS_SCALE_WINDOW };
    const CliOption own[] = {
        OPTION_STR("scheme", &o.scheme, "csgd (1 rank) | dsgd | fedavg (1 cloud + users)"),
        OPTION_STR("precision", &o.precision, "fp32 | fp16 (mixed precision, FP16 on the wire)"),
        OPTION_INT("local-epochs", &o.local_epochs, "fedavg: local epochs E per round", 1, 1000),
        OPTION_INT("epochs", &o.epochs, "epochs of training (passes over the training subset)", 1, 100000),
        OPTION_STR("shards", &o.shards, "users' data: iid | sorted (label-sorted) | dirichlet (--alpha)"),
        OPTION_FLOAT("alpha", &o.alpha, "Dirichlet concentration for --shards dirichlet (small: skewed)", 0.001, 1000),
        OPTION_FLAG("augment", &o.augment, "CIFAR pad-4 random crop + flip (the seed: none, normalisation only)"),
        OPTION_FLOAT("loss-scale", &o.loss_scale, "fp16: initial loss scale", 1, 1e9),
        OPTION_INT("scale-window", &o.scale_window, "fp16: clean steps before the loss scale doubles", 1, 100000000),
        OPTION_INT("eval-batch", &o.eval_batch, "batch for evaluation", 1, 65536),
        OPTION_FLOAT("target", &o.target, "table: accuracy for 'rounds and bytes to reach'", 0, 1),
        OPTION_STR("label", &o.run.tag, "the run's name: another name for --tag"),
    };
    const DriverSpec spec = { .program = "lab5", .usage = "lab5 run|table [options]", .description = DESCRIPTION,
                              .modes = "run|table", .datasets = "cifar10", .own = own,
                              .shared = DRV_DATASET | DRV_WIDTH | DRV_SGD | DRV_TRAIN | DRV_TEX,
                              .nown = (int)(sizeof own / sizeof own[0]),
                              .tag_default = "the seed's label, e.g. D_SGD_BS256_FP16",
                              .batch_help = "csgd: batch; dsgd: global batch (split over users); fedavg: batch per user",
                              .batch_min = 1, .width_help = "ResNet-18 channel multiplier (1 = the seed's 11.17M "
                                                            "parameters)", .width_min = 0.01f,
                              .ctx = &o, .check = lab5_check, .run = lab5_run, .table = lab5_table,
                              .on_backend = true };
    return driver_main(&spec, &o.run, argc, argv);
}
