/* common.c - lab4's configuration lists and labels. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "lab4.h"

/* Each scheme's name (--scheme) and its label's format (k: the passes
 * removed). Labels have no spaces or commas: gnuplot iterates over them as
 * words. */
static const struct {
    const char *name, *label;
} SCHEMES[] = {
    [SCHEME_ALLREDUCE] = { "allreduce", "all-reduce" },
    [SCHEME_GROUP] = { "group", "k=%d" },
    [SCHEME_LGA] = { "lga", "lga-k=%d" },
};

const char *lab4_scheme_name(Lab4Scheme s)
{
    return (size_t)s < sizeof SCHEMES / sizeof SCHEMES[0] ? SCHEMES[s].name : "?";
}

void lab4_label(const Lab4Config *c, char *out, size_t cap)
{
    snprintf(out, cap, SCHEMES[c->scheme].label, c->passes);
}

static int iterations(const Lab4Options *o, int P, int passes)
{
    return o->iters > 0 ? o->iters : o->iters_base + o->iters_step * (P - passes);
}

/* Append one configuration; -1 with a message when it cannot run at P. */
static int add(const Lab4Options *o, int P, Lab4Scheme scheme, int passes, Lab4Config *out, int *n, int cap)
{
    if (scheme == SCHEME_GROUP && passes < 1) {
        ddl_error("--passes %d: passes count from 1 (k passes average groups of k+1 workers)", passes);
        return -1;
    }
    if (scheme == SCHEME_GROUP && passes > P - 1) {
        ddl_error("--passes %d needs at least %d workers: k passes average groups of k+1, so "
                   "1 <= k <= P-1 (this run has P = %d; k = P-1 is already the full average, 'ar' the "
                   "all-reduce)", passes, passes + 1, P);
        return -1;
    }
    if (scheme == SCHEME_LGA && (passes < 1 || passes > 64)) {
        ddl_error("--passes %d: lga needs 1..64 backward passes per allreduce", passes);
        return -1;
    }
    for (int i = 0; i < *n; i++)
        if (out[i].scheme == scheme && out[i].passes == passes) {
            ddl_error("--passes: %s %d listed twice", lab4_scheme_name(scheme), passes);
            return -1;
        }
    if (*n == cap) {
        ddl_error("more than %d configurations", cap);
        return -1;
    }
    Lab4Config c = { scheme, passes, iterations(o, P, passes) };
    if (c.iters < 1) {
        ddl_error("%s passes %d at %d workers gets %d iterations: check --iters-base/--iters-step",
                   lab4_scheme_name(scheme), passes, P, c.iters);
        return -1;
    }
    out[(*n)++] = c;
    return 0;
}

static int parse_schemes(const char *list, bool *group, bool *lga)
{
    if (driver_choice_list("scheme", list, "group|lga") != 0) return -1;
    char buf[64];
    ddl_strlcpy(buf, list, sizeof buf);
    *group = *lga = false;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        *group |= !strcmp(tok, "group");
        *lga |= !strcmp(tok, "lga");
    }
    return 0;
}

int lab4_configs(const Lab4Options *o, int P, Lab4Config *out, int cap)
{
    bool group, lga;
    if (parse_schemes(o->scheme, &group, &lga) != 0) return -1;
    if (P < 2) {
        ddl_error("lab4 averages across workers: it needs at least 2 MPI ranks "
                   "(mpirun -np 2 .. bin/lab4 run), got %d", P);
        return -1;
    }
    int n = 0;
    if (!strcmp(o->passes, "all")) {
        /* The seed's Table 2 order: all-reduce at the fewest iterations,
         * then fewer passes with more iterations. */
        if (group) {
            if (add(o, P, SCHEME_ALLREDUCE, P, out, &n, cap)) return -1;
            for (int k = P - 1; k >= 1; k--)
                if (add(o, P, SCHEME_GROUP, k, out, &n, cap)) return -1;
        }
        if (lga)
            for (int k = P; k >= 1; k--)
                if (add(o, P, SCHEME_LGA, k, out, &n, cap)) return -1;
        return n;
    }
    char buf[256];
    if (strlen(o->passes) >= sizeof buf) {
        ddl_error("--passes: a list of %zu characters, more than %zu", strlen(o->passes), sizeof buf - 1);
        return -1;
    }
    ddl_strlcpy(buf, o->passes, sizeof buf);
    /* every entry, the empty ones too (strtok skipped them: ",1" ran as "1",
     * where lab2's lists refuse an empty entry) */
    int entry = 0;
    for (char *tok = buf, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next) *next++ = '\0';
        entry++;
        if (!*tok) {
            ddl_error("--passes '%s': entry %d is empty (e.g. --passes ar,2,1)", o->passes, entry);
            return -1;
        }
        if (!strcmp(tok, "ar") || !strcmp(tok, "allreduce")) {
            if (add(o, P, SCHEME_ALLREDUCE, P, out, &n, cap)) return -1;
            continue;
        }
        long long k;
        char why[CLI_WHY];
        if (cli_parse_int(tok, INT32_MIN, INT32_MAX, &k, why) != 0) {
            ddl_error("--passes: '%s' is neither 'ar' nor a number of passes: %s (e.g. --passes ar,2,1)", tok, why);
            return -1;
        }
        if (group && add(o, P, SCHEME_GROUP, (int)k, out, &n, cap)) return -1;
        if (lga && add(o, P, SCHEME_LGA, (int)k, out, &n, cap)) return -1;
    }
    if (n == 0) ddl_error("--passes '%s' names no configuration", o->passes);
    return n > 0 ? n : -1;
}
