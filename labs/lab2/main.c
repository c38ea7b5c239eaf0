/* lab2 - allreduce algorithms (seed 002).
 *
 *   mpirun -np 4 bin/lab2 bench     microbenchmark, OSU-style text + CSV
 *   mpirun -np 4 bin/lab2 train     the seed's MLP training, one run per
 *                                   algorithm and hidden width
 *   bin/lab2 table                  report/tables/lab2.tex from results/lab2
 * `make lab2` runs all three (labs/lab2/run.sh) and renders the figures. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "threads.h"
#include "lab2.h"

static const char *DESCRIPTION =
    "Compare hand-written allreduce algorithms (linear, tree, recursive doubling,\n"
    "Rabenseifner, ring, pipelined ring) with MPI_Allreduce.\n"
    "  bench   time every algorithm from 4 B to 64 MiB (x2 steps): latency, algbw,\n"
    "          busbw (nccl-tests), a correctness count, and the alpha-beta-gamma model\n"
    "          fitted on this machine next to each measurement.\n"
    "  train   the seed's experiment: a 4-layer MLP on MNIST whose second hidden width\n"
    "          sets the message size; after every step the weights are averaged across\n"
    "          ranks by each algorithm in turn; time, accuracy, and how far the final\n"
    "          weights of each algorithm are from MPI_Allreduce's.\n"
    "  table   rebuild report/tables/lab2.tex from the CSVs in --out.\n"
    "Examples:\n"
    "  mpirun -np 4 bin/lab2 bench --max-bytes 1048576\n"
    "  mpirun -np 2 bin/lab2 train --hidden 16,256 --epochs 1\n"
    "  bin/lab2 table";

int main(int argc, char **argv)
{
    int rank = 0, size = 1;
    ddl_program_start(&argc, &argv, &rank, &size);

    Lab2Options o = lab2_defaults();
    /* The mode comes first; the options after it are parsed as usual
     * (argv[0] then reads as the mode in messages). */
    bool has_mode = argc > 1 && argv[1][0] != '-';
    if (has_mode) o.mode = argv[1];
    CliOption opts[] = {
        { "algs", OPT_STR, &o.algs, "all, or a comma list: mpi,linear,tree,recdoubling,rabenseifner,ring,ring_async", 0, 0 },
        { "sizes", OPT_STR, &o.sizes,
          "bench: comma list of message sizes in bytes, k/M/G = x1024 (e.g. 4,64k,1M; default: the x2 sweep)", 0, 0 },
        { "min-bytes", OPT_SIZE, &o.min_bytes, "bench: smallest message of the sweep (k/M/G = x1024)", 4, 1 << 30 },
        { "max-bytes", OPT_SIZE, &o.max_bytes, "bench: largest message of the sweep (k/M/G = x1024)", 4, 1 << 30 },
        { "reps", OPT_INT, &o.reps, "bench: timed calls per point (0: enough for ~0.2 s, 5..1000)", 0, 1000000 },
        { "dtype", OPT_STR, &o.dtype, "bench: fp32 | fp16 payload (fp16 sums in fp32, sends halves)", 0, 0 },
        { "segment-kib", OPT_INT, &o.segment_kib, "ring_async segment size in KiB", 1, 1 << 20 },
        { "no-calibrate", OPT_FLAG, &o.no_calibrate, "bench: skip the ping-pong fit (model columns n/a)", 0, 0 },
        { "sim-shared-bytes", OPT_SIZE, &o.sim_shared_bytes,
          "bench, simulated (SMPI) builds: time sizes >= N bytes on shared buffers, unchecked (0: never)", 0, 1 << 30 },
        { "hidden", OPT_STR, &o.hidden, "train: comma list of second hidden widths H", 0, 0 },
        { "h1", OPT_INT, &o.h1, "train: first hidden width", 1, 65536 },
        { "epochs", OPT_INT, &o.epochs, "train: passes over the training set", 1, 1000 },
        { "batch", OPT_INT, &o.batch, "train: examples per step on each rank", 1, 65536 },
        { "lr", OPT_FLOAT, &o.lr, "train: learning rate (plain SGD, as Genann)", 0, 100 },
        { "limit", OPT_INT, &o.limit, "train: use the first N training examples (0: all)", 0, 100000000 },
        { "test-limit", OPT_INT, &o.test_limit, "train: use the first N test examples (0: all)", 0, 100000000 },
        { "dataset", OPT_STR, &o.dataset, "train: mnist | fashion-mnist", 0, 0 },
        { "synthetic", OPT_FLAG, &o.force_synthetic, "train: synthetic data even when files exist", 0, 0 },
        { "seed", OPT_U64, &o.seed, "seed for initialisation and shuffling", 0, 0 },
        { "profile", OPT_STR, &o.profile, "label written to outputs: quick | paper | custom", 0, 0 },
        { "tag", OPT_STR, &o.tag, "name part of the output files (default np<ranks>)", 0, 0 },
        { "out", OPT_STR, &o.out, "directory for CSV/JSON results", 0, 0 },
        { "tex", OPT_STR, &o.tex, "table: path of the LaTeX table", 0, 0 },
        { "quiet", OPT_FLAG, &o.quiet, "less output", 0, 0 },
    };
    int rc = cli_parse(has_mode ? argc - 1 : argc, has_mode ? argv + 1 : argv, "lab2 bench|train|table [options]",
                       DESCRIPTION, opts, (int)(sizeof opts / sizeof opts[0]));
    if (rc != 0 || !has_mode) {
        if (rc == 0 && rank == 0) fprintf(stderr, "error: say what to do: lab2 bench | train | table (--help)\n");
        MPI_Finalize();
        return rc > 0 ? 0 : 2;
    }
    int status = 2;
    if (!strcmp(o.mode, "table")) {
        status = rank == 0 ? lab2_table(&o) : 0;
    } else if (!strcmp(o.mode, "bench") || !strcmp(o.mode, "train")) {
        Comm c;
        comm_init(&c, MPI_COMM_WORLD);
        c.segment_bytes = (size_t)o.segment_kib * 1024;
        status = !strcmp(o.mode, "bench") ? lab2_bench(&o, &c) : lab2_train(&o, &c);
        comm_free(&c);
    } else if (rank == 0) {
        fprintf(stderr, "error: unknown mode '%s': lab2 bench | train | table (--help)\n", o.mode);
    }
    MPI_Finalize();
    return status;
}
