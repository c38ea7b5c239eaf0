/* lab2 - allreduce algorithms (seed 002).
 *
 *   mpirun -np 4 bin/lab2 bench     microbenchmark, OSU-style text + CSV
 *   mpirun -np 4 bin/lab2 train     the seed's MLP training, one run per
 *                                   algorithm and hidden width
 *   bin/lab2 table                  report/tables/lab2.tex from results/lab2
 *   bin/lab2 algs                   the allreduce algorithms, one a line
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
    "  algs    list the allreduce algorithms, one a line: name, host|device, description\n"
    "          (core/comm/algs.def's order; the tests count the host ones from it).\n"
    "Examples:\n"
    "  mpirun -np 4 bin/lab2 bench --max-bytes 1048576\n"
    "  mpirun -np 2 bin/lab2 train --hidden 16,256 --epochs 1\n"
    "  bin/lab2 table\n"
    "  bin/lab2 algs";

/* The jobs: bench and train need the world and the ring's segment size;
 * table runs on rank 0 alone (driver_main). */
static int check(void *ctx, int ranks)
{
    const Lab2Options *o = ctx;
    CommAlg algs[COMM_ALG_COUNT];
    int hidden[16];
    if (lab2_parse_algs(o->algs, algs) <= 0 || lab2_parse_hidden(o->hidden, hidden, 16) <= 0 || !lab2_fault_named(o->fault) ||
        driver_choice("dtype", o->dtype, "fp32|fp16") < 0)
        return 2;
    return 0;
}

static int run(void *ctx, Driver *d)
{
    const Lab2Options *o = ctx;
    if (!strcmp(d->mode, "algs")) return lab2_list_algs(d);
    if (driver_open(d) != 0) return 2;
    CommAlg algs[COMM_ALG_COUNT];
    char why[256];
    for (int a = 0, n = lab2_parse_algs(o->algs, algs); a < n; a++)
        if (!comm_alg_usable(&d->comm, algs[a], why)) {
            if (d->rank == 0) ddl_error("%s", why);
            return 2;
        }
    d->comm.segment_bytes = (size_t)o->segment_kib * 1024;
    return !strcmp(d->mode, "bench") ? lab2_bench(o, d) : lab2_train(o, d);
}

int main(int argc, char **argv)
{
    Lab2Options o = { .run = { .dataset = "mnist", .width = 1, .batch = 32, .lr = 0.1f, .seed = 1, .out = "results/lab2",
                               .tex = "report/tables/lab2.tex" },
                      .algs = "all", .sizes = "", .min_bytes = 4, .max_bytes = 64 << 20, .hidden = "16,64,256,1024",
                      .dtype = "fp32", .fault = "none", .warmups = -1, .epochs = 1, .h1 = 128,
                      .segment_kib = (int)(COMM_DEFAULT_SEGMENT_BYTES / 1024) };
    char algs_help[400], names[256], faults[256], fault_help[512];
    lab2_fault_names(faults, sizeof faults);
    snprintf(fault_help, sizeof fault_help,
             "train: one of the seed's plausible bugs in the ring rows, beside a correct MPI_Allreduce: %s "
             "(labs/lab2/README.md, exercise 5)", faults);
    comm_alg_names(names, sizeof names, ",");
    snprintf(algs_help, sizeof algs_help,
             "all (the host algorithms), or a comma list: all,%s (nccl: GPU memory, DEVICE=cuda|cuda-emu)", names);
    const CliOption own[] = {
        OPTION_STR("algs", &o.algs, algs_help),
        OPTION_STR("sizes", &o.sizes,
                   "bench: comma list of message sizes in bytes, k/M/G = x1024 (e.g. 4,64k,1M; default: the x2 sweep)"),
        OPTION_SIZE("min-bytes", &o.min_bytes, "bench: smallest message of the sweep (k/M/G = x1024)", 4, 1 << 30),
        OPTION_SIZE("max-bytes", &o.max_bytes, "bench: largest message of the sweep (k/M/G = x1024)", 4, 1 << 30),
        OPTION_INT("reps", &o.reps, "bench: timed calls per point, 1..1000 (0: as many as take ~0.2 s, from 5 to "
                                     "1000)", 0, 1000),
        OPTION_INT("warmups", &o.warmups, "bench: untimed calls before the timed ones (-1: 2 from 1 MiB, else 10; "
                                           "0 for a simulated network, which does not warm up)", -1, 1000),
        OPTION_STR("dtype", &o.dtype, "bench: fp32 | fp16 payload (fp16 sums in fp32, sends halves)"),
        OPTION_INT("segment-kib", &o.segment_kib, "ring_async segment size in KiB", 1, 1 << 20),
        OPTION_FLAG("no-calibrate", &o.no_calibrate, "bench: skip the ping-pong fit (model columns n/a)"),
        OPTION_SIZE("sim-shared-bytes", &o.sim_shared_bytes,
                   "bench, simulated (SMPI) builds: time sizes >= N bytes on shared buffers, unchecked (0: never)", 0,
                   1 << 30),
        OPTION_STR("hidden", &o.hidden, "train: comma list of second hidden widths H"),
        OPTION_INT("h1", &o.h1, "train: first hidden width", 1, 65536),
        OPTION_INT("epochs", &o.epochs, "train: passes over the training set", 1, 1000),
        OPTION_STR("fault", &o.fault, fault_help),
    };
    const DriverSpec spec = { .program = "lab2", .usage = "lab2 bench|train|table|algs [options]",
                              .description = DESCRIPTION, .modes = "bench|train|table|algs",
                              .datasets = "mnist|fashion-mnist", .shared = DRV_DATASET | DRV_LR | DRV_RUN | DRV_TEX,
                              .own = own, .nown = (int)(sizeof own / sizeof own[0]), .tag_default = "np<ranks>",
                              .batch_help = "train: examples per step on each rank", .batch_min = 1, .ctx = &o,
                              .check = check, .run = run, .table = lab2_table,
                              .on_backend = true };
    return driver_main(&spec, &o.run, argc, argv);
}
