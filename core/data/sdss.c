/* sdss.c - SDSS DR14 SkyServer CSV: photometry + redshift -> 3 classes.
 *
 * Columns are found by header name, so column order does not matter. Rows
 * end in LF or CRLF; numbers may be in E-notation (strtod handles both).
 * Any bad row stops the load with its line number: silently skipping rows
 * would change the class counts the labs report.
 *
 * Features (10): u, g, r, i, z magnitudes, the colours u-g, g-r, r-i, i-z
 * (what astronomers classify on) and the spectroscopic redshift.
 * Classes: GALAXY = 0, STAR = 1, QSO = 2 (SDSS_GALAXY/STAR/QSO).
 *
 * Split: per class, the rows are shuffled with (seed, "sdss-split", class)
 * and the first round(0.8 n_c) go to train, so both splits keep the class
 * proportions to within one example; each split keeps file order. Mean/std
 * per feature are fitted on the train split only (no test leakage) and
 * stored in both splits for the Batcher. */
#include "readers.h"

#include "../util/rng.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SDSS_FEATURES 10
#define SDSS_CLASSES  3
#define SDSS_MAX_BYTES ((long)1 << 28)
#define SDSS_MAX_COLS  256

enum { COL_U, COL_G, COL_R, COL_I, COL_Z, COL_CLASS, COL_REDSHIFT, NCOLS };
static const char *const col_names[NCOLS] = { "u", "g", "r", "i", "z", "class", "redshift" };
static const char *const feature_names[SDSS_FEATURES] = { "u", "g", "r", "i", "z", "u-g", "g-r", "r-i", "i-z",
                                                         "redshift" };

/* Trim spaces, a trailing CR and surrounding double quotes in place. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') { s[n - 1] = '\0'; s++; }
    return s;
}

/* Only spaces, tabs and a CR (a blank line, e.g. a trailing one). Not
 * trim(): it would strip the row's closing quote in place. */
static bool blank(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    return *s == '\0';
}

/* Split a line (modified in place) on commas; returns the field count. */
static int split_fields(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        if (n < max) f[n] = trim(p);
        n++;
        if (!comma) break;
        p = comma + 1;
    }
    return n;
}

static char *read_all(const char *path, long *len, char err[DDL_ERRLEN])
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        ddl_errf(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    long size = -1;
    if (fseek(fp, 0, SEEK_END) == 0) size = ftell(fp);
    if (size < 0 || size > SDSS_MAX_BYTES || fseek(fp, 0, SEEK_SET) != 0) {
        ddl_errf(err, "%s: cannot size the file or it exceeds %ld bytes", path,
                 SDSS_MAX_BYTES);
        fclose(fp);
        return NULL;
    }
    char *buf = malloc((size_t)size + 1);
    if (!buf) ddl_die("out of memory reading %s", path);
    size_t got = fread(buf, 1, (size_t)size, fp);
    fclose(fp);
    if (got != (size_t)size) {
        ddl_errf(err, "%s: read %zu of %ld bytes", path, got, size);
        free(buf);
        return NULL;
    }
    buf[size] = '\0';
    *len = size;
    return buf;
}

static int parse_number(const char *s, double *v)
{
    if (!*s) return -1;
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return (*end || errno == ERANGE || !isfinite(*v)) ? -1 : 0;
}

typedef struct { float (*feat)[SDSS_FEATURES]; int32_t *cls; int n; } Rows;

/* Parse every data row into r (allocated here). */
static int parse_csv(char *text, const char *path, Rows *r, char err[DDL_ERRLEN])
{
    char *f[SDSS_MAX_COLS];
    int col[NCOLS];
    char *line = text, *next;
    int lineno = 1;

    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    /* A UTF-8 byte order mark (spreadsheets write one) is not part of the
     * first column's name. */
    if (!strncmp(line, "\xEF\xBB\xBF", 3)) line += 3;
    int ncols = split_fields(line, f, SDSS_MAX_COLS);
    if (ncols > SDSS_MAX_COLS) ncols = SDSS_MAX_COLS;
    /* Two columns of one name: which one holds the values is a guess. */
    for (int j = 0; j < ncols; j++)
        for (int k = j + 1; k < ncols; k++)
            if (strcasecmp(f[j], f[k]) == 0)
                return ddl_errf(err, "%s:1: header names column '%.40s' twice (columns %d and %d)", path, f[j],
                                j + 1, k + 1);
    for (int c = 0; c < NCOLS; c++) {
        col[c] = -1;
        for (int j = 0; j < ncols; j++)
            if (strcasecmp(f[j], col_names[c]) == 0) { col[c] = j; break; }
        if (col[c] < 0) {
            ddl_errf(err, "%s:1: header lacks column '%s' (expected SkyServer DR14 "
                     "columns incl. u,g,r,i,z,class,redshift)", path, col_names[c]);
            return -1;
        }
    }

    int cap = 1;
    for (const char *p = next; p && *p; p++) cap += *p == '\n';
    r->feat = malloc((size_t)cap * sizeof *r->feat);
    r->cls = malloc((size_t)cap * sizeof *r->cls);
    if (!r->feat || !r->cls) ddl_die("out of memory reading %s", path);
    r->n = 0;

    for (line = next; line && *line; line = next) {
        lineno++;
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (blank(line)) continue;
        int nf = split_fields(line, f, SDSS_MAX_COLS);
        if (nf != ncols) {
            ddl_errf(err, "%s:%d: %s row: %d fields, expected %d", path, lineno,
                     nf < ncols ? "short" : "long", nf, ncols);
            return -1;
        }
        double v[NCOLS];
        for (int c = 0; c < NCOLS; c++) {
            if (c == COL_CLASS) continue;
            if (parse_number(f[col[c]], &v[c])) {
                ddl_errf(err, "%s:%d: column '%s': bad number '%.40s'", path,
                         lineno, col_names[c], f[col[c]]);
                return -1;
            }
        }
        const char *cs = f[col[COL_CLASS]];
        int k = strcasecmp(cs, "GALAXY") == 0 ? SDSS_GALAXY
              : strcasecmp(cs, "STAR") == 0   ? SDSS_STAR
              : strcasecmp(cs, "QSO") == 0    ? SDSS_QSO : -1;
        if (k < 0) {
            ddl_errf(err, "%s:%d: unknown class '%.40s', expected GALAXY, STAR or QSO",
                     path, lineno, cs);
            return -1;
        }
        double d[SDSS_FEATURES];
        for (int m = 0; m < 5; m++) d[m] = v[COL_U + m];
        for (int m = 0; m < 4; m++) d[5 + m] = v[COL_U + m] - v[COL_U + m + 1];
        d[9] = v[COL_REDSHIFT];
        /* Finite as a double is not enough: the features are floats, and
         * one inf (e.g. u = 1e39) made that feature's train mean inf, so
         * normalising gave NaN or -inf in every row (tests/fuzz/sdss.c). */
        for (int m = 0; m < SDSS_FEATURES; m++)
            if (!(fabs(d[m]) <= FLT_MAX)) {
                ddl_errf(err, "%s:%d: feature %s = %g is out of float range", path, lineno,
                              feature_names[m], d[m]);
                return -1;
            }
        float *x = r->feat[r->n];
        for (int m = 0; m < SDSS_FEATURES; m++) x[m] = (float)d[m];
        r->cls[r->n++] = k;
    }
    if (r->n == 0) {
        ddl_errf(err, "%s: no data rows after the header", path);
        return -1;
    }
    return 0;
}

/* in_train[i] = 1 for the seeded stratified 80% of each class. */
static void stratified_split(const Rows *r, uint64_t seed, unsigned char *in_train)
{
    int32_t *idx = malloc((size_t)r->n * sizeof *idx);
    if (!idx) ddl_die("out of memory splitting SDSS rows");
    memset(in_train, 0, (size_t)r->n);
    for (int k = 0; k < SDSS_CLASSES; k++) {
        int m = 0;
        for (int i = 0; i < r->n; i++)
            if (r->cls[i] == k) idx[m++] = i;
        Rng g = rng_make2(seed, "sdss-split", (uint64_t)k);
        rng_shuffle(&g, idx, m);
        int ntrain = (int)(((long long)m * 8 + 5) / 10); /* round(0.8 m) */
        for (int j = 0; j < ntrain; j++) in_train[idx[j]] = 1;
    }
    free(idx);
}

int sdss_read_buffer(const char *data, size_t len, const char *name, Split split, uint64_t seed, Dataset *out,
                     char err[DDL_ERRLEN])
{
    memset(out, 0, sizeof *out);
    /* The parser works on C strings, where a NUL byte would end the text
     * early (a NUL at the start of a line silently dropped every row after
     * it): a CSV holds none, so one anywhere is a bad row. */
    const char *nul = memchr(data, '\0', len);
    if (nul) {
        int line = 1;
        for (const char *p = data; p < nul; p++) line += *p == '\n';
        return ddl_errf(err, "%s:%d: NUL byte at offset %zu: not a text CSV", name, line, (size_t)(nul - data));
    }
    char *text = malloc(len + 1);
    if (!text) ddl_die("out of memory reading %s", name);
    memcpy(text, data, len);
    text[len] = '\0';
    Rows r = { 0 };
    const char *path = name;
    int rc = parse_csv(text, path, &r, err);
    free(text);
    if (rc) {
        free(r.feat);
        free(r.cls);
        return -1;
    }

    unsigned char *in_train = malloc((size_t)r.n);
    if (!in_train) ddl_die("out of memory splitting SDSS rows");
    stratified_split(&r, seed, in_train);

    /* Standardisation fitted on train rows only, in double. */
    double sum[SDSS_FEATURES] = { 0 }, sq[SDSS_FEATURES] = { 0 };
    int ntrain = 0;
    for (int i = 0; i < r.n; i++) {
        if (!in_train[i]) continue;
        ntrain++;
        for (int j = 0; j < SDSS_FEATURES; j++) sum[j] += r.feat[i][j];
    }
    for (int j = 0; j < SDSS_FEATURES; j++) sum[j] /= DDL_MAX(ntrain, 1);
    for (int i = 0; i < r.n; i++) {
        if (!in_train[i]) continue;
        for (int j = 0; j < SDSS_FEATURES; j++) {
            double d = r.feat[i][j] - sum[j];
            sq[j] += d * d;
        }
    }

    int want = split == SPLIT_TRAIN ? 1 : 0;
    int n = split == SPLIT_TRAIN ? ntrain : r.n - ntrain;
    if (ntrain == 0 || ntrain == r.n) { /* a row or two per class all go to train: nothing to test on */
        ddl_errf(err, "%s: only %d data row%s: the %s split (80/20 per class) would be empty", path, r.n,
                 r.n == 1 ? "" : "s", ntrain ? "test" : "train");
        free(in_train);
        free(r.feat);
        free(r.cls);
        return -1;
    }
    out->x = ddl_alloc((size_t)DDL_MAX(n, 1) * SDSS_FEATURES * sizeof *out->x);
    out->y = ddl_alloc((size_t)DDL_MAX(n, 1) * sizeof *out->y);
    int at = 0;
    for (int i = 0; i < r.n; i++) {
        if (in_train[i] != want) continue;
        memcpy(out->x + (size_t)at * SDSS_FEATURES, r.feat[i], sizeof r.feat[i]);
        out->y[at++] = r.cls[i];
    }
    out->n = n;
    out->c = SDSS_FEATURES;
    out->h = out->w = 1;
    out->classes = SDSS_CLASSES;
    for (int j = 0; j < DDL_DATA_MAXCH; j++) { out->mean[j] = 0.0f; out->std[j] = 1.0f; }
    for (int j = 0; j < SDSS_FEATURES; j++) {
        double sd = sqrt(sq[j] / DDL_MAX(ntrain, 1));
        out->mean[j] = (float)sum[j];
        out->std[j] = sd > 1e-12 ? (float)sd : 1.0f;
    }
    out->files_found = 1;
    snprintf(out->source, sizeof out->source, "%s: %d rows, %s split %d (stratified 80/20, "
             "seed %llu)", path, r.n, split == SPLIT_TRAIN ? "train" : "test", n,
             (unsigned long long)seed);
    free(in_train);
    free(r.feat);
    free(r.cls);
    return 0;
}

int sdss_read_csv(const char *path, Split split, uint64_t seed, Dataset *out, char err[DDL_ERRLEN])
{
    memset(out, 0, sizeof *out);
    long len = 0;
    char *text = read_all(path, &len, err);
    if (!text) return -1;
    int rc = sdss_read_buffer(text, (size_t)len, path, split, seed, out, err);
    free(text);
    return rc;
}
