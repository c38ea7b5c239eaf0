/* common.c - what lab2's jobs share: algorithm lists, metadata, and the calibration of the cost model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "comm/costmodel.h"
#include "lab2.h"

int lab2_parse_algs(const char *list, CommAlg *algs)
{
    /* "all": every host algorithm; nccl (GPU memory) only when named. */
    bool seen[COMM_ALG_COUNT] = { false };
    char buf[512], known[256];
    comm_alg_names(known, sizeof known, ", ");
    ddl_strlcpy(buf, list, sizeof buf);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        CommAlg a;
        if (!strcmp(tok, "all")) {
            for (int h = 0; h < COMM_ALG_HOST_COUNT; h++)
                if (!seen[h]) seen[h] = true, algs[n++] = (CommAlg)h;
            continue;
        }
        if (comm_alg_from_name(tok, &a) != 0 || seen[a]) {
            fprintf(stderr, "error: --algs: unknown or repeated algorithm '%s' (known: all, %s)\n", tok, known);
            return -1;
        }
        seen[a] = true;
        algs[n++] = a;
    }
    if (n == 0) /* "," or "": strtok found nothing to run */
        fprintf(stderr, "error: --algs '%s' names no algorithm (all, %s)\n", list, known);
    return n > 0 ? n : -1;
}

int lab2_list_algs(const Driver *d)
{
    if (d->rank == 0)
        for (int a = 0; a < COMM_ALG_COUNT; a++)
            printf("%s %s %s\n", comm_alg_name((CommAlg)a), a < COMM_ALG_HOST_COUNT ? "host" : "device",
                   comm_alg_description((CommAlg)a));
    return 0;
}

int lab2_parse_hidden(const char *list, int *h, int cap)
{
    char why[CLI_WHY];
    int n = cli_parse_int_list(list, 1, 65536, h, cap, why);
    if (n < 0) ddl_error("--hidden '%s': %s (a comma list of widths, e.g. 16,64,256)", list, why);
    return n;
}

void lab2_meta(Meta *m, const Lab2Options *o, Driver *d, const char *what)
{
    memset(m, 0, sizeof *m);
    driver_meta(d, m);
    meta_set(m, "experiment", "%s", what);
    char order[256];
    comm_alg_names(order, sizeof order, " ");
    meta_set(m, "alg_order", "%s", order);
    meta_set(m, "ring_async_segment_bytes", "%zu", d->comm.segment_bytes);
}

CostParams lab2_calibrate(const Lab2Options *o, Driver *d, double *fit_error)
{
    Comm *c = &d->comm;
    CostCalibration cal;
    cost_calibrate(c, &cal);
    *fit_error = cal.fit_error;
    Meta meta;
    char what[128];
    snprintf(what, sizeof what, "calibration: ping-pong between ranks 0 and %d, local FP32 reduction", cal.peer);
    lab2_meta(&meta, o, d, what);
    if (c->rank != 0) return cal.p;
    char name[160];
    snprintf(name, sizeof name, "calibration-%s", d->tag);
    Table *tb = table_new(name, "bytes,measured_us,fitted_us,rel_err");
    tb->meta = meta;
    meta_set(&tb->meta, "alpha_us", "%.4g", cal.p.alpha * 1e6);
    meta_set(&tb->meta, "beta_ns_per_byte", "%.4g", cal.p.beta * 1e9);
    meta_set(&tb->meta, "gamma_ns_per_byte", "%.4g", cal.p.gamma * 1e9);
    meta_set(&tb->meta, "fit", "one-way time = alpha + bytes*beta; beta: least-squares slope of the %d largest sizes, "
                               "alpha: the smallest size's time less its bytes*beta; "
                               "largest relative residual %.3g", COST_FIT_LARGEST, cal.fit_error);
    if (c->size >= 2)
        for (int i = 0; i < COST_CALIBRATION_SIZES; i++) {
            double fitted = cal.p.alpha + cal.p.beta * cal.bytes[i], t = cal.one_way_s[i];
            table_set_num(tb, "bytes", cal.bytes[i], "%.0f");
            table_set_num(tb, "measured_us", t * 1e6, "%.4f");
            table_set_num(tb, "fitted_us", fitted * 1e6, "%.4f");
            table_set_num(tb, "rel_err", (fitted - t) / t, "%.4f");
            table_end_row(tb);
        }
    if (table_write(tb, o->run.out) != 0) ddl_warn("could not write %s/%s.csv", o->run.out, name);
    table_free(tb);
    return cal.p;
}
