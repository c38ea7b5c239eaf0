/* lab1 - single-node training: any model on any dataset, one process.
 *
 * Measures per-iteration time (forward + backward + SGD; the first
 * iteration is reported but left out of the mean, as seed 001 did), and the
 * loss/accuracy curves; writes CSV/JSON under --out, a dataset sample grid
 * and first-layer filters as PNG under --figures. `bin/lab1 --table`
 * collects every run's summary into report/tables/lab1.tex. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "common.h"
#include "threads.h"
#include "data/dataset.h"
#include "device.h"
#include "gemm.h"
#include "model/model.h"
#include "results/image.h"
#include "results/results.h"
#include "train/train.h"
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
    int rank = 0, size = 1;
    ddl_program_start(&argc, &argv, &rank, &size);

    Lab1Options o = lab1_defaults();
    CliOption opts[] = {
        { "model", OPT_STR, &o.model, "mlp | cnn3 | vgg11 | resnet18 | resnet50 | mobilenetv2 | sdss_dnn", 0, 0 },
        { "dataset", OPT_STR, &o.dataset, "mnist | fashion-mnist | cifar10 | sdss", 0, 0 },
        { "epochs", OPT_INT, &o.epochs, "passes over the training set (ignored when --iters > 0)", 0, 100000 },
        { "iters", OPT_INT, &o.iters, "stop after this many iterations (0: use --epochs)", 0, 100000000 },
        { "batch", OPT_INT, &o.batch, "examples per iteration", 1, 65536 },
        { "lr", OPT_FLOAT, &o.lr, "learning rate", 0, 100 },
        { "momentum", OPT_FLOAT, &o.momentum, "SGD momentum", 0, 0.9999 },
        { "wd", OPT_FLOAT, &o.wd, "weight decay", 0, 1 },
        { "nesterov", OPT_FLAG, &o.nesterov, "Nesterov momentum", 0, 0 },
        { "width", OPT_FLOAT, &o.width, "channel width multiplier (1 = published width)", 0.001, 16 },
        { "limit", OPT_INT, &o.limit, "use only the first N training examples (0: all)", 0, 100000000 },
        { "test-limit", OPT_INT, &o.test_limit, "use only the first N test examples (0: all)", 0, 100000000 },
        { "augment", OPT_STR, &o.augment, "auto | on | off (auto: on for cifar10)", 0, 0 },
        { "seed", OPT_U64, &o.seed, "seed for init, shuffling, augmentation", 0, 0 },
        { "device", OPT_STR, &o.device, "cpu | cuda", 0, 0 },
        { "profile", OPT_STR, &o.profile, "label written to outputs: quick | paper | custom", 0, 0 },
        { "synthetic", OPT_FLAG, &o.force_synthetic, "use synthetic data even when real files exist", 0, 0 },
        { "no-synthetic", OPT_FLAG, &o.no_synthetic, "fail instead of generating data when files are absent", 0, 0 },
        { "out", OPT_STR, &o.out, "directory for CSV/JSON results", 0, 0 },
        { "figures", OPT_STR, &o.figures, "directory for PNG pictures", 0, 0 },
        { "tag", OPT_STR, &o.tag, "run name (default <model>-<dataset>)", 0, 0 },
        { "table", OPT_FLAG, &o.table_only, "only rebuild the LaTeX table from --out", 0, 0 },
        { "tex", OPT_STR, &o.tex, "path of the LaTeX table", 0, 0 },
        { "quiet", OPT_FLAG, &o.quiet, "no progress output", 0, 0 },
    };
    int rc = cli_parse(argc, argv, "lab1 [options]", DESCRIPTION, opts, (int)(sizeof opts / sizeof opts[0]));
    if (rc != 0) {
        MPI_Finalize();
        return rc > 0 ? 0 : 2;
    }
    if (size > 1) {
        if (rank == 0)
            fprintf(stderr, "error: lab1 trains on one process, but it was started with %d ranks.\n"
                            "Run it without mpirun (or -np 1); data-parallel training is lab3.\n", size);
        MPI_Finalize();
        return 2;
    }
    int status = o.table_only ? lab1_write_table(&o) : lab1_run(&o);
    MPI_Finalize();
    return status;
}
