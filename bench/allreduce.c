/* allreduce.c - ddlab's hand-written allreduce algorithms against
 * MPI_Allreduce on the same machine, in the same run, as ratios.
 *
 *   mpirun -np 2 bin/bench/allreduce [--bytes 64M] [--rounds 12] [--out DIR]
 *
 * Large messages (default 64 MiB FP32): busbw (nccl-tests definition) of
 * every algorithm next to MPI_Allreduce's. Small messages (8 bytes):
 * latency. Measurements are interleaved round by round (one call of each
 * algorithm per round) so that a noisy neighbour slows all of them alike;
 * the statistic is the median over rounds of the slowest rank's time.
 *
 * Prints the rows as a table (table_print_text, the layout every bench
 * shares), writes them with their provenance to --out (default
 * results/bench) as allreduce-<run>.csv and .json (run: np<ranks>), then the lines
 * bench/run_allreduce.sh reads: one per algorithm ("bench allreduce ring
 * 67108864 np2: busbw ..., ratio R") and lab2's performance bar:
 *   ring busbw >= 0.9 x MPI's at 64 MiB;
 *   recursive doubling 8-byte latency <= 1.5 x MPI's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/measure.h"
#include "driver/driver.h"

typedef struct Samples { double *t; int n; } Samples;

typedef struct Bench {
    size_t bytes;
    int rounds;
} Bench;

/* One measured row: an algorithm at a size. */
typedef struct Row {
    CommAlg alg;
    size_t bytes;
    double time_s;             /* median over rounds */
    long wrong;                /* elements wrong after one more call, summed over ranks */
} Row;

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(Samples *s)
{
    qsort(s->t, (size_t)s->n, sizeof *s->t, compare_double);
    return s->n % 2 ? s->t[s->n / 2] : (s->t[s->n / 2 - 1] + s->t[s->n / 2]) / 2;
}

/* `rounds` rounds of `calls` timed calls of every algorithm in turn at
 * `bytes`; each row gets the median over rounds of its per-round medians,
 * then one checked call. */
static void interleaved(Comm *c, Row *rows, int nalgs, size_t bytes, int rounds, int calls, void *buf)
{
    size_t count = bytes / sizeof(float);
    Samples *s = ddl_alloc(sizeof *s * (size_t)nalgs);
    memset(buf, 0, count * sizeof(float));
    for (int a = 0; a < nalgs; a++) { /* warm-up: scratch buffers allocated, pages touched */
        s[a] = (Samples){ ddl_alloc(sizeof(double) * (size_t)rounds), 0 };
        for (int i = 0; i < 2; i++) comm_allreduce(c, buf, count, COMM_FP32, COMM_SUM, rows[a].alg);
    }
    for (int r = 0; r < rounds; r++)
        for (int a = 0; a < nalgs; a++) {
            AllreduceTiming t = comm_time_allreduce(c, rows[a].alg, COMM_FP32, count, 0, calls, buf);
            s[a].t[s[a].n++] = t.median_s;
        }
    for (int a = 0; a < nalgs; a++) {
        rows[a].bytes = bytes;
        rows[a].time_s = median(&s[a]);
        rows[a].wrong = comm_check_allreduce(c, rows[a].alg, COMM_FP32, count, buf);
        ddl_free(s[a].t);
    }
    ddl_free(s);
}

/* The rows, MPI's first at each size: nccl-tests' columns, and each
 * algorithm's busbw and time over MPI_Allreduce's at the same size. */
static Table *result_table(Driver *d, const Meta *meta, const Row *rows, int n)
{
    char name[192];
    snprintf(name, sizeof name, "allreduce-%s", d->tag);
    Table *t = table_new(name, "alg,bytes,count,type,redop,ranks,time_us,algbw_GBs,busbw_GBs,wrong,busbw_over_mpi,"
                               "time_over_mpi");
    t->meta = *meta;
    const Row *mpi = rows;
    for (int i = 0; i < n; i++) {
        const Row *r = &rows[i];
        if (r->alg == COMM_ALG_MPI) mpi = r;
        double bytes = (double)r->bytes, busbw = comm_busbw(bytes, r->time_s, d->world) / 1e9;
        table_set_str(t, "alg", comm_alg_name(r->alg));
        table_set_int(t, "bytes", (long long)r->bytes);
        table_set_int(t, "count", (long long)(r->bytes / sizeof(float)));
        table_set_str(t, "type", "float");
        table_set_str(t, "redop", "sum");
        table_set_int(t, "ranks", d->world);
        table_set_num(t, "time_us", r->time_s * 1e6, "%.2f");
        table_set_num(t, "algbw_GBs", comm_algbw(bytes, r->time_s) / 1e9, "%.3f");
        table_set_num(t, "busbw_GBs", busbw, "%.3f");
        table_set_int(t, "wrong", r->wrong);
        table_set_num(t, "busbw_over_mpi", busbw / (comm_busbw(bytes, mpi->time_s, d->world) / 1e9), "%.2f");
        table_set_num(t, "time_over_mpi", r->time_s / mpi->time_s, "%.2f");
        table_end_row(t);
    }
    return t;
}

/* The lines bench/run_allreduce.sh reads, and the bar. */
static void print_lines(const Driver *d, const Row *big, int nbig, const Row *small)
{
    double mpi_busbw = comm_busbw((double)big[0].bytes, big[0].time_s, d->world) / 1e9, ring_ratio = 0;
    long ring_wrong = 0;
    for (int a = 1; a < nbig; a++) {
        double busbw = comm_busbw((double)big[a].bytes, big[a].time_s, d->world) / 1e9;
        if (big[a].alg == COMM_ALG_RING) {
            ring_ratio = busbw / mpi_busbw;
            ring_wrong = big[a].wrong;
        }
        printf("bench allreduce %s %zu np%d: busbw %.2f GB/s, mpi %.2f GB/s, ratio %.2f\n", comm_alg_name(big[a].alg),
               big[a].bytes, d->world, busbw, mpi_busbw, busbw / mpi_busbw);
    }
    double mpi_lat = small[0].time_s * 1e6, rd_lat = small[1].time_s * 1e6;
    printf("bench allreduce recdoubling 8 np%d: latency %.2f us, mpi %.2f us, ratio %.2f\n", d->world, rd_lat, mpi_lat,
           rd_lat / mpi_lat);
    printf("bench allreduce bar np%d: ring busbw >= 0.9 x mpi at %zu B: %s (%.2f); recdoubling 8 B latency "
           "<= 1.5 x mpi: %s (%.2f); ring result check: %ld wrong\n",
           d->world, big[0].bytes, ring_ratio >= 0.9 ? "PASS" : "FAIL", ring_ratio,
           rd_lat <= 1.5 * mpi_lat ? "PASS" : "FAIL", rd_lat / mpi_lat, ring_wrong);
    fflush(stdout);
}

static int run(void *ctx, Driver *d)
{
    const Bench *b = ctx;
    if (d->world < 2) {
        ddl_error("bench allreduce compares allreduce algorithms: run it on 2 or more ranks (mpirun -np 2)");
        return 2;
    }
    if (b->bytes % sizeof(float)) {
        ddl_error("--bytes %zu: a whole number of FP32 elements (a multiple of 4)", b->bytes);
        return 2;
    }
    driver_tag(d, "np%d", d->world);
    if (driver_open(d)) return 2;
    /* Every host algorithm of comm's table, in its order (MPI_Allreduce,
     * row 0, first: the ratios divide by it), so a new algorithm is
     * measured by its row there alone; then, at 8 bytes, latency: many
     * calls per round to see past timer resolution. */
    _Static_assert(COMM_ALG_MPI == 0, "the bench's first row is MPI_Allreduce");
    enum { NBIG = COMM_ALG_HOST_COUNT, NSMALL = 2 };
    Row rows[NBIG + NSMALL];
    for (int a = 0; a < NBIG; a++) rows[a] = (Row){ .alg = (CommAlg)a };
    rows[NBIG] = (Row){ .alg = COMM_ALG_MPI };
    rows[NBIG + 1] = (Row){ .alg = COMM_ALG_RECDOUBLING };
    void *buf = ddl_alloc(b->bytes > 8 ? b->bytes : 8);
    interleaved(&d->comm, rows, NBIG, b->bytes, b->rounds, 1, buf);
    interleaved(&d->comm, rows + NBIG, NSMALL, 8, b->rounds * 4, 100, buf);
    ddl_free(buf);
    Meta *meta = ddl_calloc(sizeof *meta); /* collective */
    driver_meta(d, meta);
    meta_set(meta, "seed", "n/a (no random numbers)");
    meta_set(meta, "timing", "FP32 SUM in place; median over %d interleaved rounds (8 B: %d rounds of 100 calls) of "
             "the slowest rank's time; busbw = bytes/time * 2(p-1)/p (nccl-tests)", b->rounds, b->rounds * 4);
    int status = 0;
    if (d->rank == 0) {
        Table *t = result_table(d, meta, rows, NBIG + NSMALL);
        static const TextColumn show[] = {
            { "bytes", "size", "B" }, { "count", "count", "elements" }, { "type", "type", "" },
            { "redop", "redop", "" }, { "alg", "alg", "" }, { "time_us", "time", "us" },
            { "algbw_GBs", "algbw", "GB/s" }, { "busbw_GBs", "busbw", "GB/s" }, { "wrong", "#wrong", "" },
            { "busbw_over_mpi", "busbw/mpi", "" }, { "time_over_mpi", "time/mpi", "" },
        };
        table_print_text(t, show, (int)(sizeof show / sizeof show[0]), stdout);
        print_lines(d, rows, NBIG, rows + NBIG);
        status = table_write(t, d->opt->out) != 0;
        table_free(t);
    }
    ddl_free(meta);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status;
}

int main(int argc, char **argv)
{
    DriverOptions opt = { .out = "results/bench" };
    Bench b = { .bytes = (size_t)64 << 20, .rounds = 12 };
    const CliOption own[] = {
        OPTION_SIZE("bytes", &b.bytes, "the large message (FP32 elements x 4; k, M, G suffixes)", 8,
                    (double)((size_t)1 << 30)),
        OPTION_INT("rounds", &b.rounds, "interleaved rounds (the 8-byte latency runs 4x as many)", 1, 100000),
    };
    const DriverSpec spec = { .program = "allreduce", .usage = "mpirun -np 2 allreduce [options]",
                              .description = "ddlab's allreduce algorithms against MPI_Allreduce, interleaved in one "
                                             "run: busbw at --bytes, latency at 8 bytes (see bench/allreduce.c).",
                              .shared = DRV_PROFILE | DRV_OUT | DRV_TAG, .tag_default = "np<ranks>", .own = own,
                              .nown = (int)(sizeof own / sizeof own[0]), .batch_min = 1, .ctx = &b, .run = run };
    return driver_main(&spec, &opt, argc, argv);
}
