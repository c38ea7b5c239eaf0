/* lab5 - centralized SGD vs distributed SGD vs federated averaging, FP32 vs
 * FP16 mixed precision (seed 004).
 *
 *   bin/lab5 run --scheme csgd ...               one process
 *   mpirun -np 5 bin/lab5 run --scheme dsgd ...  the cloud (rank 0) + 4 users
 *   bin/lab5 table                               the seed's tables from results/lab5
 * `make lab5` runs the seed's eight schemes, the table and the figures
 * (labs/lab5/run.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "mixed/loss_scale.h"
#include "threads.h"
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
    int rank = 0, size = 1;
    ddl_program_start(&argc, &argv, &rank, &size);

    Lab5Options o = lab5_defaults();
    bool has_mode = argc > 1 && argv[1][0] != '-';
    if (has_mode) o.mode = argv[1];
    CliOption opts[] = {
        { "scheme", OPT_STR, &o.scheme, "csgd (1 rank) | dsgd | fedavg (1 cloud + users)", 0, 0 },
        { "precision", OPT_STR, &o.precision, "fp32 | fp16 (mixed precision, FP16 on the wire)", 0, 0 },
        { "batch", OPT_INT, &o.batch, "csgd: batch; dsgd: global batch (split over users); fedavg: batch per user", 1, 65536 },
        { "local-epochs", OPT_INT, &o.local_epochs, "fedavg: local epochs E per round", 1, 1000 },
        { "epochs", OPT_INT, &o.epochs, "epochs of training (passes over the training subset)", 1, 100000 },
        { "lr", OPT_FLOAT, &o.lr, "SGD learning rate (constant)", 0, 100 },
        { "momentum", OPT_FLOAT, &o.momentum, "SGD momentum", 0, 1 },
        { "wd", OPT_FLOAT, &o.weight_decay, "SGD weight decay", 0, 1 },
        { "width", OPT_FLOAT, &o.width, "ResNet-18 channel multiplier (1 = the seed's 11.17M parameters)", 0.01, 4 },
        { "shards", OPT_STR, &o.shards, "users' data: iid | sorted (label-sorted) | dirichlet (--alpha)", 0, 0 },
        { "alpha", OPT_FLOAT, &o.alpha, "Dirichlet concentration for --shards dirichlet (small: skewed)", 0.001, 1000 },
        { "augment", OPT_FLAG, &o.augment, "CIFAR pad-4 random crop + flip (the seed: none, normalisation only)", 0, 0 },
        { "loss-scale", OPT_FLOAT, &o.loss_scale, "fp16: initial loss scale", 1, 1e9 },
        { "scale-window", OPT_INT, &o.scale_window, "fp16: clean steps before the loss scale doubles", 1, 100000000 },
        { "limit", OPT_INT, &o.limit, "use the first N training examples (0: all)", 0, 100000000 },
        { "test-limit", OPT_INT, &o.test_limit, "use the first N test examples (0: all)", 0, 100000000 },
        { "eval-batch", OPT_INT, &o.eval_batch, "batch for evaluation", 1, 65536 },
        { "target", OPT_FLOAT, &o.target, "table: accuracy for 'rounds and bytes to reach'", 0, 1 },
        { "dataset", OPT_STR, &o.dataset, "cifar10", 0, 0 },
        { "synthetic", OPT_FLAG, &o.force_synthetic, "synthetic data even when files exist", 0, 0 },
        { "seed", OPT_U64, &o.seed, "seed for initialisation, shards and shuffling", 0, 0 },
        { "profile", OPT_STR, &o.profile, "label written to outputs: quick | paper | custom", 0, 0 },
        { "label", OPT_STR, &o.label, "run name (default the seed's, e.g. D_SGD_BS256_FP16)", 0, 0 },
        { "out", OPT_STR, &o.out, "directory for CSV/JSON results", 0, 0 },
        { "tex", OPT_STR, &o.tex, "table: path of the LaTeX table", 0, 0 },
        { "quiet", OPT_FLAG, &o.quiet, "less output", 0, 0 },
    };
    int rc = cli_parse(has_mode ? argc - 1 : argc, has_mode ? argv + 1 : argv, "lab5 run|table [options]",
                       DESCRIPTION, opts, (int)(sizeof opts / sizeof opts[0]));
    if (rc != 0 || !has_mode) {
        if (rc == 0) ddl_error("say what to do: lab5 run | table (--help)");
        MPI_Finalize();
        return rc > 0 ? 0 : 2;
    }
    int status = 2;
    if (!strcmp(o.mode, "table")) status = rank == 0 ? lab5_table(&o) : 0;
    else if (!strcmp(o.mode, "run")) status = lab5_run(&o);
    else ddl_error("unknown mode '%s': lab5 run | table (--help)", o.mode);
    MPI_Finalize();
    return status;
}

Lab5Options lab5_defaults(void)
{
    Lab5Options o;
    memset(&o, 0, sizeof o);
    o.mode = "";
    o.scheme = "csgd";
    o.precision = "fp32";
    o.shards = "iid";
    o.dataset = "cifar10";
    o.profile = getenv("PROFILE") && *getenv("PROFILE") ? getenv("PROFILE") : "custom";
    o.out = "results/lab5";
    o.tex = "report/tables/lab5.tex";
    o.label = "";
    /* seed 004, Section 3.1: SGD, constant lr 0.1, momentum 0.9, weight
     * decay 1e-4, batch 256, normalisation only (no augmentation named) */
    o.batch = 256;
    o.local_epochs = 1;
    o.epochs = 3;
    o.lr = 0.1f;
    o.momentum = 0.9f;
    o.weight_decay = 1e-4f;
    o.width = 0.25f;
    o.alpha = 0.5f;
    o.limit = 4096;
    o.test_limit = 1000;
    o.eval_batch = 250;
    o.target = 0.3f;
    o.loss_scale = LOSS_SCALE_INITIAL;
    o.scale_window = LOSS_SCALE_WINDOW;
    o.seed = 1;
    return o;
}
