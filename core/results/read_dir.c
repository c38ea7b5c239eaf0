/* read_dir.c - what the programs that turn runs into tables (the labs'
 * table jobs) read and print: every run summary of a results folder, one
 * named table, and byte counts as their tables show them. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "results.h"

Table *table_read_at(const char *dir, const char *name)
{
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    Table *t = table_read_csv(path, err, sizeof err);
    if (!t) fprintf(stderr, "error: %s\n", err);
    return t;
}

void format_bytes(double b, char *out, size_t cap)
{
    if (!(b >= 0 && b < 1e300)) snprintf(out, cap, "n/a"); /* NaN and infinities */
    else if (b >= 1 << 30) snprintf(out, cap, "%.3g GiB", b / (1 << 30));
    else if (b >= 1 << 20) snprintf(out, cap, "%.3g MiB", b / (1 << 20));
    else if (b >= 1 << 10) snprintf(out, cap, "%.3g KiB", b / (1 << 10));
    else snprintf(out, cap, "%.0f B", b);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int table_read_dir(const char *dir, const char *suffix, const char *need, Table **out, int cap)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    /* names first, sorted, so the order of the tables never depends on
     * the file system's */
    char **names = NULL;
    int nnames = 0, capnames = 0;
    size_t sl = strlen(suffix);
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len <= sl || strcmp(e->d_name + len - sl, suffix) != 0) continue;
        if (nnames == capnames) {
            capnames = capnames ? 2 * capnames : 32;
            char **grown = realloc(names, sizeof *names * (size_t)capnames);
            if (!grown) break;
            names = grown;
        }
        if (!(names[nnames] = strdup(e->d_name))) break;
        nnames++;
    }
    closedir(d);
    qsort(names, (size_t)nnames, sizeof *names, by_name);
    int n = 0;
    for (int i = 0; i < nnames; i++) {
        char path[1024], err[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        Table *t = n < cap ? table_read_csv(path, err, sizeof err) : NULL;
        if (n >= cap) fprintf(stderr, "warning: skipping %s: more than %d runs\n", path, cap);
        else if (!t) fprintf(stderr, "warning: skipping %s\n", err);
        else if (t->nrows < 1 || (need && !table_get(t, 0, need))) {
            fprintf(stderr, "warning: skipping %s: no summary row%s%s\n", path, need ? " with " : "", need ? need : "");
            table_free(t);
        } else {
            out[n++] = t;
        }
        free(names[i]);
    }
    free(names);
    return n;
}
