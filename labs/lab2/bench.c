/* bench.c - lab2 bench: every algorithm at every message size.
 *
 * Per (size, algorithm), interleaved so that a noisy neighbour slows all
 * algorithms alike: one checked call on exact data (#wrong), the traffic
 * of that call (ddlab's counters; MPI_T monitoring for MPI_Allreduce when
 * Open MPI provides it, else n/a), then warm-up and timed calls
 * (comm_time_allreduce: slowest rank per call; min, median, mean). The
 * alpha-beta-gamma prediction, fitted on this machine first, goes in the
 * same row. Output: OSU-style text on stdout, results/lab2/bench-<tag>.csv.
 * --dtype fp16 sends halves (the model then counts half the bytes; its
 * gamma is still the FP32 add, without the conversions). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cli.h"
#include "util/common.h"
#include "comm/measure.h"
#include "comm/monitor.h"
#include "lab2.h"

enum { MAX_SIZES = 64 };

typedef struct Point {
    AllreduceTiming t;
    long wrong;                   /* -1: not checked (simulated, shared buffers) */
    double sent_bytes, sent_msgs; /* max over ranks, one call; NAN = n/a */
    const char *source;
} Point;

/* The sizes to time, from --sizes or the x2 sweep; -1 after a message
 * (printed by rank 0) when they make no sweep. */
static int parse_sizes(const Lab2Options *o, size_t *sizes, int rank)
{
    int n = 0;
    if (o->sizes && o->sizes[0]) {
        char buf[1024];
        ddl_strlcpy(buf, o->sizes, sizeof buf);
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && n < MAX_SIZES;
             tok = strtok_r(NULL, ",", &save)) {
            size_t b = 0;
            if (cli_parse_size(tok, &b) != 0 || b < 4 || b > ((size_t)1 << 30)) {
                if (rank == 0)
                    fprintf(stderr, "error: --sizes: '%s' is not a size of 4 bytes to 1G (N, or N with k, M or G "
                                    "= x1024)\n", tok);
                return -1;
            }
            sizes[n++] = b;
        }
    } else if (o->min_bytes > o->max_bytes) {
        if (rank == 0)
            fprintf(stderr, "error: --min-bytes %zu is larger than --max-bytes %zu: nothing to sweep\n", o->min_bytes,
                    o->max_bytes);
        return -1;
    } else {
        for (size_t b = o->min_bytes; b <= o->max_bytes && n < MAX_SIZES; b *= 2) sizes[n++] = b;
    }
    if (n == 0 && rank == 0) fprintf(stderr, "error: --sizes: no size given\n");
    return n > 0 ? n : -1;
}

static int compare_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static double max_over_ranks(double v, MPI_Comm comm)
{
    double m = v;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    return m;
}

/* checked: one call on exact data first (false: timing only, on a shared
 * simulated buffer whose contents mean nothing; the traffic counts come
 * from the first timed call instead). */
static Point measure_point(const Lab2Options *o, Comm *c, CommMonitor *mon, CommAlg alg, CommDtype dtype,
                           size_t count, void *buf, bool checked)
{
    Point p;
    uint64_t m0 = 0, b0 = 0, m1 = 0, b1 = 0;
    bool monitored = comm_monitor_read(mon, &m0, &b0);
    comm_counters_reset(c);
    if (checked) {
        p.wrong = comm_check_allreduce(c, alg, dtype, count, buf);
    } else {
        p.wrong = -1;
        comm_allreduce(c, buf, count, dtype, COMM_SUM, alg);
    }
    monitored = monitored && comm_monitor_read(mon, &m1, &b1);
    if (alg != COMM_ALG_MPI) {
        p.sent_bytes = max_over_ranks((double)c->count[alg].bytes_sent, c->mpi);
        p.sent_msgs = max_over_ranks((double)c->count[alg].msgs_sent, c->mpi);
        p.source = "ddlab counters";
    } else if (monitored) {
        p.sent_bytes = max_over_ranks((double)(b1 - b0), c->mpi);
        p.sent_msgs = max_over_ranks((double)(m1 - m0), c->mpi);
        p.source = "MPI_T pml monitoring";
    } else {
        p.sent_bytes = p.sent_msgs = NAN;
        p.source = "n/a (no MPI_T monitoring)";
    }
    size_t bytes = count * comm_dtype_size(dtype);
    int warmup = o->warmups >= 0 ? o->warmups : bytes >= ((size_t)1 << 20) ? 2 : 10;
    p.t = comm_time_allreduce(c, alg, dtype, count, warmup, o->reps, buf);
    return p;
}

static void print_osu(const Meta *meta, CommAlg alg, CommDtype dtype, const size_t *sizes, int nsizes,
                      const Point *pts, int stride, const CostParams *cp, int ranks, size_t segment)
{
    char summary[512];
    meta_summary(meta, summary, sizeof summary);
    printf("\n# ddlab lab2 allreduce (OSU style): %s - %s\n", comm_alg_name(alg), comm_alg_description(alg));
    printf("# %s; %s SUM in place; time = slowest rank per call\n", summary, dtype == COMM_FP16 ? "FP16" : "FP32");
    printf("# %-10s %16s %16s %16s %12s %12s %8s %12s\n", "Size", "Avg Latency(us)", "Min Latency(us)",
           "Median(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong", "model(us)");
    for (int s = 0; s < nsizes; s++) {
        const Point *p = &pts[s * stride];
        double bytes = (double)sizes[s], model = cost_allreduce(alg, ranks, bytes, (double)segment, cp);
        char model_s[32] = "n/a", wrong_s[32] = "n/a";
        if (isfinite(model)) snprintf(model_s, sizeof model_s, "%.2f", model * 1e6);
        if (p->wrong >= 0) snprintf(wrong_s, sizeof wrong_s, "%ld", p->wrong);
        printf("%-12zu %16.2f %16.2f %16.2f %12.3f %12.3f %8s %12s\n", sizes[s], p->t.mean_s * 1e6,
               p->t.min_s * 1e6, p->t.median_s * 1e6, comm_algbw(bytes, p->t.median_s) / 1e9,
               comm_busbw(bytes, p->t.median_s, ranks) / 1e9, wrong_s, model_s);
    }
    fflush(stdout);
}

static void table_row(Table *t, CommAlg alg, CommDtype dtype, size_t bytes, int ranks, const Point *p,
                      const CostParams *cp, size_t segment)
{
    double model = cost_allreduce(alg, ranks, (double)bytes, (double)segment, cp);
    table_set_str(t, "alg", comm_alg_name(alg));
    table_set_int(t, "bytes", (long long)bytes);
    table_set_int(t, "count", (long long)(bytes / comm_dtype_size(dtype)));
    table_set_str(t, "dtype", comm_dtype_name(dtype));
    table_set_int(t, "ranks", ranks);
    table_set_int(t, "reps", p->t.reps);
    table_set_num(t, "avg_us", p->t.mean_s * 1e6, "%.3f");
    table_set_num(t, "min_us", p->t.min_s * 1e6, "%.3f");
    table_set_num(t, "median_us", p->t.median_s * 1e6, "%.3f");
    table_set_num(t, "algbw_GBs", comm_algbw((double)bytes, p->t.median_s) / 1e9, "%.4f");
    table_set_num(t, "busbw_GBs", comm_busbw((double)bytes, p->t.median_s, ranks) / 1e9, "%.4f");
    if (p->wrong >= 0) table_set_int(t, "wrong", p->wrong);
    else table_set_str(t, "wrong", "n/a");
    if (isfinite(model)) {
        table_set_num(t, "model_us", model * 1e6, "%.3f");
        table_set_num(t, "model_over_measured", model / p->t.median_s, "%.3f");
    }
    if (isfinite(p->sent_bytes)) {
        table_set_num(t, "sent_bytes_max", p->sent_bytes, "%.0f");
        table_set_num(t, "sent_msgs_max", p->sent_msgs, "%.0f");
    }
    table_set_str(t, "traffic_source", p->source);
    table_end_row(t);
}

int lab2_bench(const Lab2Options *o, Driver *d)
{
    Comm *c = &d->comm;
    CommAlg algs[COMM_ALG_COUNT];
    size_t sizes[MAX_SIZES];
    int nalgs = lab2_parse_algs(o->algs, algs), nsizes = parse_sizes(o, sizes, c->rank);
    if (nalgs <= 0 || nsizes <= 0) return 2;
    CommDtype dtype = !strcmp(o->dtype, "fp16") ? COMM_FP16 : COMM_FP32;
    const size_t esize = comm_dtype_size(dtype);
    const char *tag = driver_tag(d, "np%d", c->size);
    driver_run_begin(d, o->run.out, (const char *const[]){ "bench-*", "calibration-*", NULL });

    double fit_error = NAN;
    CostParams cp = { NAN, NAN, NAN };
    if (!o->no_calibrate) cp = lab2_calibrate(o, d, &fit_error);
    if (c->rank == 0 && !o->run.quiet)
        fprintf(stderr, "lab2 bench: %d ranks; model: alpha %.3g us, beta %.3g ns/B (%.2f GB/s), gamma %.3g ns/B "
                        "(fit residual up to %.0f%%)\n",
                c->size, cp.alpha * 1e6, cp.beta * 1e9, 1 / cp.beta / 1e9, cp.gamma * 1e9, 100 * fit_error);

    CommMonitor mon;
    comm_monitor_open(&mon, c);
    /* Simulated runs at many ranks (--sim-shared-bytes): sizes from that
     * many bytes are timed on SMPI shared memory (80 ranks x 2 x 64 MiB
     * would not fit), so their data are not checked; the smaller sizes,
     * run first, are checked on private buffers as usual. The comm scratch
     * grows with the size, so it too is shared from then on. */
    size_t shared_from = SIZE_MAX;
#ifdef DDL_SMPI
    if (o->sim_shared_bytes > 0) shared_from = o->sim_shared_bytes;
#else
    if (o->sim_shared_bytes > 0 && c->rank == 0)
        fprintf(stderr, "lab2 bench: --sim-shared-bytes only applies to simulated builds (make SIM=1): ignored\n");
#endif
    if (shared_from != SIZE_MAX) qsort(sizes, (size_t)nsizes, sizeof sizes[0], compare_size);
    size_t largest = 0, largest_private = 0;
    for (int s = 0; s < nsizes; s++) {
        largest = DDL_MAX(largest, sizes[s]);
        if (sizes[s] < shared_from) largest_private = DDL_MAX(largest_private, sizes[s]);
    }
    /* On a device the buffer is device memory: nccl reduces it in place,
     * the host algorithms copy it to page-locked host memory and back
     * inside every call (comm_use_device), and their times include that. */
    const Backend *be = d->be;
    void *buf = be->alloc(largest_private + esize), *shared_buf = NULL;
    Point *pts = calloc((size_t)nsizes * nalgs, sizeof *pts);
    if (!pts) ddl_die("out of memory for %d x %d points", nsizes, nalgs);
    double t0 = ddl_now();
    for (int s = 0; s < nsizes; s++) {
        sizes[s] = DDL_MAX(sizes[s] / esize, (size_t)1) * esize;
        bool checked = sizes[s] < shared_from;
        if (!checked && !shared_buf) {
            ddl_sim_share_allocations(shared_from);
            shared_buf = ddl_alloc(largest + esize);
        }
        for (int a = 0; a < nalgs; a++)
            pts[s * nalgs + a] =
                measure_point(o, c, &mon, algs[a], dtype, sizes[s] / esize, checked ? buf : shared_buf, checked);
        if (c->rank == 0 && !o->run.quiet)
            fprintf(stderr, "lab2 bench np%d: %zu bytes done (%.0f s)\n", c->size, sizes[s], ddl_now() - t0);
    }

    Meta meta;
    lab2_meta(&meta, o, d, "allreduce microbenchmark");
    meta_set(&meta, "alpha_us", "%.4g", cp.alpha * 1e6);
    meta_set(&meta, "beta_ns_per_byte", "%.4g", cp.beta * 1e9);
    meta_set(&meta, "gamma_ns_per_byte", "%.4g", cp.gamma * 1e9);
    meta_set(&meta, "model_fit_max_rel_err", "%.3g", fit_error);
    meta_set(&meta, "model_fit", "ping-pong between rank 0 and the first rank on another host (rank 1 on one host); "
                                 "see calibration-%s.csv", tag);
    meta_set(&meta, "dtype", "%s", comm_dtype_name(dtype));
    meta_set(&meta, "timing", "per call: slowest rank after a barrier; min/median/mean over calls; "
                              "busbw = bytes/median * 2(p-1)/p (nccl-tests)");
    if (o->warmups >= 0) meta_set(&meta, "warmups", "%d untimed call(s) before each point's timed ones", o->warmups);
    else meta_set(&meta, "warmups", "2 untimed calls before each point's timed ones from 1 MiB, 10 below");
    meta_set(&meta, "mpi_traffic", "%s", mon.available ? "MPI_T pml monitoring" : mon.why);
    if (!be->host_memory)
        meta_set(&meta, "buffers", "%s memory; nccl reduces it in place (%s), every other algorithm copies it to "
                 "page-locked host memory and back inside each timed call", be->what,
                 comm_nccl_version(c) ? comm_nccl_version(c) : "no NCCL");
    if (shared_buf)
        meta_set(&meta, "sim_shared_bytes", "sizes from %zu bytes timed on SMPI shared buffers (no memory per rank, "
                 "no copies); their data are not checked (wrong = n/a)", shared_from);
    int status = 0;
    if (c->rank == 0) {
        for (int a = 0; a < nalgs; a++)
            print_osu(&meta, algs[a], dtype, sizes, nsizes, pts + a, nalgs, &cp, c->size, c->segment_bytes);
        char name[160];
        snprintf(name, sizeof name, "bench-%s", tag);
        Table *t = table_new(name, "alg,bytes,count,dtype,ranks,reps,avg_us,min_us,median_us,algbw_GBs,busbw_GBs,wrong,"
                                   "model_us,model_over_measured,sent_bytes_max,sent_msgs_max,traffic_source");
        t->meta = meta;
        for (int a = 0; a < nalgs; a++)
            for (int s = 0; s < nsizes; s++)
                table_row(t, algs[a], dtype, sizes[s], c->size, &pts[s * nalgs + a], &cp, c->segment_bytes);
        if (table_write(t, o->run.out) != 0) status = 1;
        else if (!o->run.quiet) fprintf(stderr, "lab2 bench: wrote %s/%s.csv\n", o->run.out, name);
        table_free(t);
    }
    long wrong = 0;
    for (int i = 0; i < nsizes * nalgs; i++) wrong += DDL_MAX(pts[i].wrong, 0L);
    if (wrong) {
        if (c->rank == 0) fprintf(stderr, "lab2 bench: %ld wrong elements in total: see the #wrong column\n", wrong);
        status = 1;
    }
    free(pts);
    be->release(buf);
    if (shared_buf) {
        ddl_free(shared_buf);
        ddl_sim_share_allocations(0);
    }
    comm_monitor_close(&mon);
    return status;
}
