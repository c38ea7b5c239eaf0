/* cli.c - see cli.h. */
#include "cli.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *type_hint(OptType t)
{
    switch (t) {
    case OPT_INT: return "N";
    case OPT_U64: return "N";
    case OPT_SIZE: return "BYTES";
    case OPT_FLOAT: return "X";
    case OPT_STR: return "S";
    default: return "";
    }
}

int cli_parse_size(const char *s, size_t *bytes)
{
    if (!s || *s < '0' || *s > '9') return -1;   /* no sign, no space, no empty */
    errno = 0;
    char *end = NULL;
    unsigned long long n = strtoull(s, &end, 10);
    if (errno || end == s) return -1;
    int shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: return -1;
    }
    if (*end || n > (SIZE_MAX >> shift)) return -1;
    *bytes = (size_t)n << shift;
    return 0;
}

/* Decimal digits (after an optional '-' when negative values are allowed)
 * and nothing else: strtoll alone would take " 5", "+5", "5abc" (with end
 * checks) and wrap nothing, but say nothing of why. */
static bool all_digits(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return false;
    return true;
}

int cli_parse_int(const char *s, long long min, long long max, long long *out, char why[CLI_WHY])
{
    if (!s || !all_digits(s[0] == '-' && min < 0 ? s + 1 : s)) {
        snprintf(why, CLI_WHY, "'%.40s' is not a whole number (decimal digits%s only)", s ? s : "",
                 min < 0 ? ", a leading -" : "");
        return -1;
    }
    errno = 0;
    long long x = strtoll(s, NULL, 10);
    if (errno == ERANGE || x < min || x > max) {
        snprintf(why, CLI_WHY, "%.40s is outside %lld..%lld", s, min, max);
        return -1;
    }
    *out = x;
    return 0;
}

int cli_parse_u64(const char *s, uint64_t *out, char why[CLI_WHY])
{
    if (!s || !all_digits(s)) {
        snprintf(why, CLI_WHY, "'%.40s' is not a whole number (decimal digits only)", s ? s : "");
        return -1;
    }
    errno = 0;
    unsigned long long x = strtoull(s, NULL, 10);
    if (errno == ERANGE) {
        snprintf(why, CLI_WHY, "%.40s is outside 0..%llu", s, (unsigned long long)UINT64_MAX);
        return -1;
    }
    *out = (uint64_t)x;
    return 0;
}

int cli_parse_float(const char *s, double *out, char why[CLI_WHY])
{
    /* strtod's own syntax, minus what it takes beyond plain numbers:
     * leading space, inf/nan and hex floats. */
    bool plain = s && *s && strspn(s, "0123456789.eE+-") == strlen(s) && strpbrk(s, "0123456789");
    char *end = NULL;
    errno = 0;
    double x = plain ? strtod(s, &end) : 0.0;
    if (!plain || end == s || *end) {
        snprintf(why, CLI_WHY, "'%.40s' is not a number", s ? s : "");
        return -1;
    }
    if (x != 0.0 && fabs(x) < FLT_MIN) { /* before ERANGE: strtod sets it on underflow too */
        /* a float would hold 0 (or a value of few bits): "--lr 1e-50" ran as lr 0 */
        snprintf(why, CLI_WHY, "%.40s is too small for a float (the smallest is %.2g)", s, (double)FLT_MIN);
        return -1;
    }
    if (errno == ERANGE || !isfinite(x) || fabs(x) > FLT_MAX) {
        snprintf(why, CLI_WHY, "%.40s is out of range", s);
        return -1;
    }
    *out = x;
    return 0;
}

int cli_parse_int_list(const char *list, long long min, long long max, int *out, int cap, char why[CLI_WHY])
{
    int n = 0;
    const char *p = list ? list : "";
    if (!*p) {
        snprintf(why, CLI_WHY, "the list is empty");
        return -1;
    }
    for (;;) {
        size_t len = strcspn(p, ",");
        char item[64];
        if (len == 0 || len >= sizeof item) {
            snprintf(why, CLI_WHY, len ? "entry '%.20s...' is too long" : "an entry is empty in '%.60s'",
                     len ? p : list);
            return -1;
        }
        if (n == cap) {
            snprintf(why, CLI_WHY, "more than %d entries", cap);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        long long x;
        if (cli_parse_int(item, min, max, &x, why) != 0) return -1;
        out[n++] = (int)x;
        if (!p[len]) return n;
        p += len + 1;
    }
}

void cli_format_size(size_t bytes, char *out, size_t cap)
{
    static const char suffix[] = "GMk";
    for (int i = 0; i < 3; i++) {
        size_t unit = (size_t)1 << (30 - 10 * i);
        if (bytes >= unit && bytes % unit == 0) {
            snprintf(out, cap, "%zu%c", bytes / unit, suffix[i]);
            return;
        }
    }
    snprintf(out, cap, "%zu", bytes);
}

static void print_help(FILE *f, const char *usage, const char *desc, const CliOption *o, int n)
{
    fprintf(f, "usage: %s\n", usage);
    if (desc) fprintf(f, "\n%s\n", desc);
    fprintf(f, "\noptions:\n");
    for (int i = 0; i < n; i++) {
        char flag[64];
        snprintf(flag, sizeof flag, "--%s %s", o[i].name, type_hint(o[i].type));
        char def[64] = "";
        switch (o[i].type) {
        case OPT_INT: snprintf(def, sizeof def, " (default %d)", *(int *)o[i].target); break;
        case OPT_U64: snprintf(def, sizeof def, " (default %llu)", (unsigned long long)*(uint64_t *)o[i].target); break;
        case OPT_FLOAT: snprintf(def, sizeof def, " (default %g)", (double)*(float *)o[i].target); break;
        case OPT_SIZE: {
            char size[32];
            cli_format_size(*(size_t *)o[i].target, size, sizeof size);
            snprintf(def, sizeof def, " (default %s)", size);
            break;
        }
        case OPT_STR:
            if (*(const char **)o[i].target) snprintf(def, sizeof def, " (default %s)", *(const char **)o[i].target);
            break;
        default: break;
        }
        fprintf(f, "  %-22s %s%s\n", flag, o[i].help, def);
    }
    fprintf(f, "  %-22s %s\n", "--help", "show this help and exit");
}

/* Bad command line: one "error:" line and where to look. fmt takes two %s. */
static int refuse_argv(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "error: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(run with --help for all options)\n");
    return -1;
}

int cli_parse(int argc, char **argv, const char *usage, const char *desc, const CliOption *o, int n)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            print_help(stdout, usage, desc, o, n);
            return 1;
        }
        if (strncmp(a, "--", 2) != 0) return refuse_argv("unexpected argument '%s'%s", a, "");
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const CliOption *opt = NULL;
        for (int k = 0; k < n; k++)
            if (strlen(o[k].name) == len && !strncmp(o[k].name, name, len)) opt = &o[k];
        if (!opt) return refuse_argv("unknown option '%s'%s", a, "");
        if (opt->type == OPT_FLAG) {
            if (eq) return refuse_argv("option --%s takes no value%s", opt->name, "");
            *(bool *)opt->target = true;
            continue;
        }
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v) return refuse_argv("option --%s needs a value%s", opt->name, "");
        /* "--out --synthetic": the value is missing and the next option
         * would be taken for it (a folder named --synthetic). */
        if (!eq && !strncmp(v, "--", 2))
            return refuse_argv("option --%s needs a value, but the next argument is the option '%s' (a value that starts "
                        "with -- is given as --option=value)", opt->name, v);
        char why[CLI_WHY];
        double num = 0;
        switch (opt->type) {
        case OPT_STR: *(const char **)opt->target = v; continue;
        case OPT_INT: {
            long long x;
            if (cli_parse_int(v, INT32_MIN, INT32_MAX, &x, why) != 0)
                return refuse_argv("option --%s expects an integer: %s", opt->name, why);
            *(int *)opt->target = (int)x;
            num = (double)x;
            break;
        }
        case OPT_U64: {
            uint64_t x;
            if (cli_parse_u64(v, &x, why) != 0) return refuse_argv("option --%s expects an integer: %s", opt->name, why);
            *(uint64_t *)opt->target = x;
            num = (double)x;
            break;
        }
        case OPT_SIZE: {
            size_t x = 0;
            if (cli_parse_size(v, &x) != 0)
                return refuse_argv("option --%s expects a size in bytes (N, or N with k, M or G = x1024), got '%s'",
                            opt->name, v);
            *(size_t *)opt->target = x;
            num = (double)x;
            break;
        }
        case OPT_FLOAT: {
            double x;
            if (cli_parse_float(v, &x, why) != 0) return refuse_argv("option --%s expects a number: %s", opt->name, why);
            *(float *)opt->target = (float)x;
            num = x;
            break;
        }
        default: break;
        }
        if (opt->min < opt->max && (num < opt->min || num > opt->max)) {
            char range[96];
            if (opt->type == OPT_SIZE) {
                char lo[32], hi[32];
                cli_format_size((size_t)opt->min, lo, sizeof lo);
                cli_format_size((size_t)opt->max, hi, sizeof hi);
                snprintf(range, sizeof range, "%s..%s bytes", lo, hi);
            } else {
                snprintf(range, sizeof range, "%g..%g", opt->min, opt->max);
            }
            fprintf(stderr, "error: option --%s: %s is outside the allowed range %s\n", opt->name, v, range);
            return -1;
        }
    }
    return 0;
}
