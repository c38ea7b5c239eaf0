/* lab2 - allreduce algorithms (seed 002).
 *
 *   mpirun -np 4 bin/lab2 bench     microbenchmark, OSU-style text + CSV
 *   mpirun -np 4 bin/lab2 train     the seed's MLP training, one run per
 *                                   algorithm and hidden width
 *   bin/lab2 table                  report/tables/lab2.tex from results/lab2
 * `make lab2` runs all three (labs/lab2/run.sh) and renders the figures. */
#include <stdio.h>
#include <string.h>

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
    Lab2Options o = { .run = driver_defaults(), .algs = "all", .sizes = "", .min_bytes = 4, .max_bytes = 64 << 20,
                      .hidden = "16,64,256,1024", .dtype = "fp32", .epochs = 1, .h1 = 128,
                      .segment_kib = (int)(COMM_DEFAULT_SEGMENT_BYTES / 1024), .tex = "report/tables/lab2.tex" };
    o.run.dataset = "mnist";
    o.run.batch = 32;
    o.run.lr = 0.1f;
    o.run.out = "results/lab2";
    const CliOption own[] = {
        { "algs", OPT_STR, &o.algs, "all, or a comma list: mpi,linear,tree,recdoubling,rabenseifner,ring,ring_async", 0, 0 },
        { "sizes", OPT_STR, &o.sizes, "bench: comma list of message sizes in bytes (default: the x2 sweep)", 0, 0 },
        { "min-bytes", OPT_INT, &o.min_bytes, "bench: smallest message of the sweep", 4, 1 << 30 },
        { "max-bytes", OPT_INT, &o.max_bytes, "bench: largest message of the sweep", 4, 1 << 30 },
        { "reps", OPT_INT, &o.reps, "bench: timed calls per point (0: enough for ~0.2 s, 5..1000)", 0, 1000000 },
        { "dtype", OPT_STR, &o.dtype, "bench: fp32 | fp16 payload (fp16 sums in fp32, sends halves)", 0, 0 },
        { "segment-kib", OPT_INT, &o.segment_kib, "ring_async segment size in KiB", 1, 1 << 20 },
        { "no-calibrate", OPT_FLAG, &o.no_calibrate, "bench: skip the ping-pong fit (model columns n/a)", 0, 0 },
        { "sim-shared-bytes", OPT_INT, &o.sim_shared_bytes,
          "bench, simulated (SMPI) builds: time sizes >= N bytes on shared buffers, unchecked (0: never)", 0, 1 << 30 },
        { "hidden", OPT_STR, &o.hidden, "train: comma list of second hidden widths H", 0, 0 },
        { "h1", OPT_INT, &o.h1, "train: first hidden width", 1, 65536 },
        { "epochs", OPT_INT, &o.epochs, "train: passes over the training set", 1, 1000 },
        { "tex", OPT_STR, &o.tex, "table: path of the LaTeX table", 0, 0 },
    };
    const DriverSpec spec = { .program = "lab2", .usage = "lab2 bench|train|table [options]",
                              .description = DESCRIPTION, .modes = "bench|train|table",
                              .datasets = "mnist|fashion-mnist", .shared = DRV_DATASET | DRV_LR | DRV_RUN,
                              .own = own, .nown = (int)(sizeof own / sizeof own[0]), .tag_default = "np<ranks>",
                              .batch_help = "train: examples per step on each rank", .batch_min = 1 };
    Driver d;
    if (driver_start(&d, &spec, &o.run, argc, argv) != 0) return driver_end(&d, d.status);
    if (!strcmp(d.mode, "table")) {
        int rc = driver_check_file(&d, "tex", o.tex);
        return driver_end(&d, rc ? rc : d.rank == 0 ? lab2_table(&o) : 0);
    }
    if (lab2_check(&o) != 0 || driver_open(&d) != 0) return driver_end(&d, 2);
    d.comm.segment_bytes = (size_t)o.segment_kib * 1024;
    return driver_end(&d, !strcmp(d.mode, "bench") ? lab2_bench(&o, &d) : lab2_train(&o, &d));
}
