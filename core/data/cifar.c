/* cifar.c - CIFAR-10 binary batches (label byte, 1024 R, 1024 G, 1024 B).
 *
 * Training uses whichever of data_batch_1..5.bin exist, so a partial
 * download still trains; how many were found goes into files_found and the
 * source string so results say so. Each file must hold exactly 10000
 * records, as every official one does (partial = true, DataOptions'
 * cifar_partial (the programs: DDL_CIFAR_PARTIAL=1), accepts other counts: hand-made
 * subsets, test files). Sizes are checked before allocating; labels must
 * be 0..9. */
#include "readers.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CIFAR_PIX   3072
#define CIFAR_REC   (1 + CIFAR_PIX)
#define CIFAR_TRAIN_BATCHES 5
#define CIFAR_BATCH_RECORDS 10000 /* every official batch file */
/* 1M records (3 GB) is 16x the real dataset: anything bigger is not CIFAR. */
#define CIFAR_MAX_RECORDS (1 << 20)
#define CIFAR_CHUNK 256 /* records per fread */

/* Records in a batch file of `size` bytes; -1 with a message naming the
 * file when that is not a batch. The official files hold exactly 10000
 * records each; a file cut at a record boundary (a partial download, a
 * full disk) would otherwise pass as a smaller batch, so any other count
 * is an error unless partial batches were asked for. */
static long long batch_records(const char *name, long long size, bool partial, char err[DDL_ERRLEN])
{
    if (size <= 0 || size % CIFAR_REC != 0) {
        ddl_errf(err, "%s: size %lld bytes is not a positive multiple of the %d-byte record (label + 3x32x32)%s",
                      name, size, CIFAR_REC, partial ? "" : "; an official batch holds 10000 records");
        return -1;
    }
    long long n = size / CIFAR_REC;
    if (!partial && n != CIFAR_BATCH_RECORDS) {
        ddl_errf(err, "%s: %lld records, expected exactly %d (%d bytes): a truncated or foreign batch file "
                      "(datasets/fetch.sh cifar10 fetches it again; DDL_CIFAR_PARTIAL=1 accepts batches of other "
                      "sizes)", name, n, CIFAR_BATCH_RECORDS, CIFAR_BATCH_RECORDS * CIFAR_REC);
        return -1;
    }
    return n;
}

/* Returns 1 present (records set), 0 absent, -1 error. */
static int stat_batch(const char *path, bool partial, long long *records, char err[DDL_ERRLEN])
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        ddl_errf(err, "%s: cannot stat: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        ddl_errf(err, "%s: not a regular file", path);
        return -1;
    }
    *records = batch_records(path, (long long)st.st_size, partial, err);
    return *records < 0 ? -1 : 1;
}

/* Records rec[0..nrec) (numbered from `first` in messages) into x/y. */
static int decode_records(const unsigned char *rec, int nrec, int first, float *x, int32_t *y, const char *name,
                          char err[DDL_ERRLEN])
{
    /* Exact division through a table: b / 255.0f, correctly rounded. */
    float lut[256];
    for (int i = 0; i < 256; i++) lut[i] = (float)i / 255.0f;
    for (int r = 0; r < nrec; r++, rec += CIFAR_REC) {
        if (rec[0] > 9)
            return ddl_errf(err, "%s: record %d has label %u, expected 0..9", name, first + r, rec[0]);
        y[r] = rec[0];
        float *dst = x + (size_t)r * CIFAR_PIX;
        for (int i = 0; i < CIFAR_PIX; i++) dst[i] = lut[rec[1 + i]];
    }
    return 0;
}

/* Append `nrec` records of `path` at x/y. */
static int read_batch(const char *path, int nrec, float *x, int32_t *y, char err[DDL_ERRLEN])
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        ddl_errf(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    unsigned char *buf = malloc((size_t)CIFAR_CHUNK * CIFAR_REC);
    if (!buf) ddl_die("out of memory reading %s", path);
    int rc = 0;
    for (int done = 0; done < nrec && rc == 0;) {
        int k = DDL_MIN(CIFAR_CHUNK, nrec - done);
        size_t got = fread(buf, CIFAR_REC, (size_t)k, f);
        if (got != (size_t)k) {
            ddl_errf(err, "%s: read failed at record %d of %d (file changed?)",
                     path, done + (int)got, nrec);
            rc = -1;
            break;
        }
        rc = decode_records(buf, k, done, x + (size_t)done * CIFAR_PIX, y + done, path, err);
        done += k;
    }
    free(buf);
    fclose(f);
    return rc;
}

static void fill_dataset(Dataset *out, long long records, float *x, int32_t *y, int found)
{
    out->n = (int)records;
    out->c = 3;
    out->h = out->w = 32;
    out->classes = 10;
    out->x = x;
    out->y = y;
    for (int i = 0; i < DDL_DATA_MAXCH; i++) { out->mean[i] = 0.0f; out->std[i] = 1.0f; }
    out->files_found = found;
}

int cifar_read_buffer(const unsigned char *data, size_t len, const char *name, bool partial, Dataset *out,
                      char err[DDL_ERRLEN])
{
    memset(out, 0, sizeof *out);
    long long n = batch_records(name, len > (size_t)LLONG_MAX ? -1 : (long long)len, partial, err);
    if (n < 0) return -1;
    if (n > CIFAR_MAX_RECORDS)
        return ddl_errf(err, "%s: %lld records, more than the cap of %d: not CIFAR-10", name, n, CIFAR_MAX_RECORDS);
    float *x = ddl_alloc((size_t)n * CIFAR_PIX * sizeof *x);
    int32_t *y = ddl_alloc((size_t)n * sizeof *y);
    if (decode_records(data, (int)n, 0, x, y, name, err) != 0) {
        ddl_free(x);
        ddl_free(y);
        return -1;
    }
    fill_dataset(out, n, x, y, 1);
    ddl_strlcpy(out->source, name, sizeof out->source);
    return 0;
}

int cifar_read_batches(const char *dir, Split split, bool partial, Dataset *out, char err[DDL_ERRLEN])
{
    memset(out, 0, sizeof *out);
    char names[CIFAR_TRAIN_BATCHES][32];
    int nfiles = 0;
    if (split == SPLIT_TRAIN) {
        for (int k = 1; k <= CIFAR_TRAIN_BATCHES; k++)
            snprintf(names[nfiles++], sizeof names[0], "data_batch_%d.bin", k);
    } else {
        snprintf(names[nfiles++], sizeof names[0], "test_batch.bin");
    }

    char path[1024];
    long long nrecs[CIFAR_TRAIN_BATCHES];
    bool present[CIFAR_TRAIN_BATCHES];
    long long records = 0;
    int found = 0;
    for (int k = 0; k < nfiles; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        int st = stat_batch(path, partial, &nrecs[k], err);
        if (st < 0) return -1;
        present[k] = st == 1;
        if (present[k]) { found++; records += nrecs[k]; }
    }
    if (found == 0) {
        ddl_errf(err, "%s: no %s found", dir,
                 split == SPLIT_TRAIN ? "data_batch_1..5.bin" : "test_batch.bin");
        return -1;
    }
    if (records > CIFAR_MAX_RECORDS) {
        ddl_errf(err, "%s: %lld records, more than the cap of %d: not CIFAR-10",
                 dir, records, CIFAR_MAX_RECORDS);
        return -1;
    }

    float *x = ddl_alloc((size_t)records * CIFAR_PIX * sizeof *x);
    int32_t *y = ddl_alloc((size_t)records * sizeof *y);
    char list[256] = "";
    long long at = 0;
    for (int k = 0; k < nfiles; k++) {
        if (!present[k]) continue;
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        int nrec = (int)nrecs[k];
        if (read_batch(path, nrec, x + (size_t)at * CIFAR_PIX, y + at, err)) {
            ddl_free(x);
            ddl_free(y);
            return -1;
        }
        at += nrec;
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", names[k]);
    }

    fill_dataset(out, records, x, y, found);
    if (split == SPLIT_TRAIN)
        snprintf(out->source, sizeof out->source, "%s: %d of %d training batches (%s)", dir,
                 found, CIFAR_TRAIN_BATCHES, list);
    else
        snprintf(out->source, sizeof out->source, "%s/%s", dir, names[0]);
    return 0;
}
