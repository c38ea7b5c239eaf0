/* common.c - what lab2's jobs share: defaults, algorithm lists, metadata,
 * and the calibration of the cost model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "comm/costmodel.h"
#include "lab2.h"

Lab2Options lab2_defaults(void)
{
    Lab2Options o;
    memset(&o, 0, sizeof o);
    o.mode = "";
    o.algs = "all";
    o.sizes = "";
    o.min_bytes = 4;
    o.max_bytes = 64 << 20;
    o.out = "results/lab2";
    o.tex = "report/tables/lab2.tex";
    o.profile = getenv("PROFILE") && *getenv("PROFILE") ? getenv("PROFILE") : "custom";
    o.dataset = "mnist";
    o.dtype = "fp32";
    o.hidden = "16,64,256,1024";
    o.h1 = 128;
    o.epochs = 1;
    o.batch = 32;
    o.lr = 0.1f;
    o.segment_kib = (int)(COMM_DEFAULT_SEGMENT_BYTES / 1024);
    o.seed = 1;
    return o;
}

int lab2_parse_algs(const char *list, CommAlg *algs)
{
    if (!strcmp(list, "all")) {
        for (int a = 0; a < COMM_ALG_COUNT; a++) algs[a] = (CommAlg)a;
        return COMM_ALG_COUNT;
    }
    char buf[512];
    ddl_strlcpy(buf, list, sizeof buf);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == COMM_ALG_COUNT || comm_alg_from_name(tok, &algs[n]) != 0) {
            fprintf(stderr, "error: --algs: unknown or repeated algorithm '%s' (known: mpi, linear, tree, "
                            "recdoubling, rabenseifner, ring, ring_async)\n", tok);
            return -1;
        }
        n++;
    }
    return n;
}

void lab2_meta(Meta *m, const Lab2Options *o, const Comm *c, const char *what)
{
    memset(m, 0, sizeof *m);
    meta_collect(m, "lab2");
    meta_set(m, "experiment", "%s", what);
    meta_set(m, "profile", "%s", o->profile);
    meta_set(m, "seed", "%llu", (unsigned long long)o->seed);
    meta_set(m, "device", "cpu");
    const char *pml = getenv("OMPI_MCA_pml"), *btl = getenv("OMPI_MCA_btl");
    meta_set(m, "mca", "pml %s, btl %s", pml ? pml : "default", btl ? btl : "default");
    meta_set(m, "ring_async_segment_bytes", "%zu", c->segment_bytes);
}

CostParams lab2_calibrate(const Lab2Options *o, Comm *c, const char *tag, double *fit_error)
{
    enum { NSIZES = 11 };
    size_t sizes[NSIZES];
    double bytes[NSIZES], t[NSIZES];
    for (int i = 0; i < NSIZES; i++) {
        sizes[i] = (size_t)8 << (2 * i); /* 8 B .. 8 MiB, x4 */
        bytes[i] = (double)sizes[i];
    }
    CostParams cp = { NAN, NAN, NAN };
    *fit_error = NAN;
    /* Rank 0 against the first rank on another host when there is one (a
     * cluster or a simulated platform: the model is about the links
     * between hosts), else against rank 1. */
    int peer = 1;
    if (c->size >= 2) {
        peer = cost_other_host_peer(c);
        cost_pingpong_peer(c, peer, sizes, NSIZES, 100, t);
        *fit_error = cost_fit_alpha_beta(bytes, t, NSIZES, &cp.alpha, &cp.beta);
    }
#ifdef DDL_SMPI
    /* Simulated ranks run one at a time on one core: each would measure the
     * same thing, and all would hold their 64 MiB at once (every timer read
     * lets the other ranks run). Rank 0 measures for all. */
    double gamma = c->rank == 0 ? cost_measure_gamma((size_t)32 << 20, 5) : 0;
#else
    double gamma = cost_measure_gamma((size_t)32 << 20, 5);
#endif
    MPI_Allreduce(&gamma, &cp.gamma, 1, MPI_DOUBLE, MPI_MAX, c->mpi);

    Meta meta;
    char what[128];
    snprintf(what, sizeof what, "calibration: ping-pong between ranks 0 and %d, local FP32 reduction", peer);
    lab2_meta(&meta, o, c, what);
    if (c->rank != 0) return cp;
    char name[128];
    snprintf(name, sizeof name, "calibration-%s", tag);
    Table *tb = table_new(name, "bytes,measured_us,fitted_us,rel_err");
    tb->meta = meta;
    meta_set(&tb->meta, "alpha_us", "%.4g", cp.alpha * 1e6);
    meta_set(&tb->meta, "beta_ns_per_byte", "%.4g", cp.beta * 1e9);
    meta_set(&tb->meta, "gamma_ns_per_byte", "%.4g", cp.gamma * 1e9);
    meta_set(&tb->meta, "fit", "weighted least squares (1/t^2) of one-way time = alpha + bytes*beta; "
                               "largest relative residual %.3g", *fit_error);
    if (c->size >= 2)
        for (int i = 0; i < NSIZES; i++) {
            double fitted = cp.alpha + cp.beta * bytes[i];
            table_set_num(tb, "bytes", bytes[i], "%.0f");
            table_set_num(tb, "measured_us", t[i] * 1e6, "%.4f");
            table_set_num(tb, "fitted_us", fitted * 1e6, "%.4f");
            table_set_num(tb, "rel_err", (fitted - t[i]) / t[i], "%.4f");
            table_end_row(tb);
        }
    if (table_write(tb, o->out) != 0) ddl_warn("could not write %s/%s.csv", o->out, name);
    table_free(tb);
    return cp;
}
