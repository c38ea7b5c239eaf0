/* cli.c - see cli.h. */
#include "cli.h"

#include <errno.h>
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
static int fail(const char *fmt, const char *a, const char *b)
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
        if (strncmp(a, "--", 2) != 0) return fail("unexpected argument '%s'%s", a, "");
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const CliOption *opt = NULL;
        for (int k = 0; k < n; k++)
            if (strlen(o[k].name) == len && !strncmp(o[k].name, name, len)) opt = &o[k];
        if (!opt) return fail("unknown option '%s'%s", a, "");
        if (opt->type == OPT_FLAG) {
            if (eq) return fail("option --%s takes no value%s", opt->name, "");
            *(bool *)opt->target = true;
            continue;
        }
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v) return fail("option --%s needs a value%s", opt->name, "");
        char *end = NULL;
        errno = 0;
        double num = 0;
        switch (opt->type) {
        case OPT_STR: *(const char **)opt->target = v; continue;
        case OPT_INT:
        case OPT_U64: {
            long long x = strtoll(v, &end, 10);
            if (errno || end == v || *end || (opt->type == OPT_U64 && x < 0))
                return fail("option --%s expects an integer, got '%s'", opt->name, v);
            if (opt->type == OPT_INT && (x > INT32_MAX || x < INT32_MIN))
                return fail("option --%s: %s is out of range", opt->name, v);
            num = (double)x;
            if (opt->type == OPT_INT) *(int *)opt->target = (int)x;
            else *(uint64_t *)opt->target = (uint64_t)x;
            break;
        }
        case OPT_SIZE: {
            size_t x = 0;
            if (cli_parse_size(v, &x) != 0)
                return fail("option --%s expects a size in bytes (N, or N with k, M or G = x1024), got '%s'",
                            opt->name, v);
            *(size_t *)opt->target = x;
            num = (double)x;
            break;
        }
        case OPT_FLOAT: {
            double x = strtod(v, &end);
            if (errno || end == v || *end || x != x)
                return fail("option --%s expects a number, got '%s'", opt->name, v);
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
