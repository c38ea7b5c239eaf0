/* cifar.c - CIFAR-10 binary batches (label byte, 1024 R, 1024 G, 1024 B).
 *
 * Training uses whichever of data_batch_1..5.bin exist, so a partial
 * download (or a deliberately small subset) still trains; how many were
 * found goes into files_found and the source string so results say so.
 * Sizes are checked before allocating; labels must be 0..9. */
#include "readers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CIFAR_PIX   3072
#define CIFAR_REC   (1 + CIFAR_PIX)
#define CIFAR_TRAIN_BATCHES 5
/* 1M records (3 GB) is 16x the real dataset: anything bigger is not CIFAR. */
#define CIFAR_MAX_RECORDS (1 << 20)
#define CIFAR_CHUNK 256 /* records per fread */

/* Returns 1 present (size set), 0 absent, -1 error. */
static int stat_batch(const char *path, long long *size, char err[DDL_ERRLEN])
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        ddl_data_errf(err, "%s: cannot stat: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        ddl_data_errf(err, "%s: not a regular file", path);
        return -1;
    }
    *size = (long long)st.st_size;
    if (*size == 0 || *size % CIFAR_REC != 0) {
        ddl_data_errf(err, "%s: size %lld bytes is not a positive multiple of the "
                 "%d-byte record (label + 3x32x32)", path, *size, CIFAR_REC);
        return -1;
    }
    return 1;
}

/* Append `nrec` records of `path` at x/y; labels checked. */
static int read_batch(const char *path, int nrec, float *x, int32_t *y, const float lut[256],
                      char err[DDL_ERRLEN])
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        ddl_data_errf(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    unsigned char *buf = malloc((size_t)CIFAR_CHUNK * CIFAR_REC);
    if (!buf) ddl_die("out of memory reading %s", path);
    int rc = 0;
    for (int done = 0; done < nrec && rc == 0;) {
        int k = DDL_MIN(CIFAR_CHUNK, nrec - done);
        size_t got = fread(buf, CIFAR_REC, (size_t)k, f);
        if (got != (size_t)k) {
            ddl_data_errf(err, "%s: read failed at record %d of %d (file changed?)",
                     path, done + (int)got, nrec);
            rc = -1;
            break;
        }
        for (int r = 0; r < k; r++) {
            const unsigned char *rec = buf + (size_t)r * CIFAR_REC;
            if (rec[0] > 9) {
                ddl_data_errf(err, "%s: record %d has label %u, expected 0..9", path,
                         done + r, rec[0]);
                rc = -1;
                break;
            }
            y[done + r] = rec[0];
            float *dst = x + (size_t)(done + r) * CIFAR_PIX;
            for (int i = 0; i < CIFAR_PIX; i++) dst[i] = lut[rec[1 + i]];
        }
        done += k;
    }
    free(buf);
    fclose(f);
    return rc;
}

int cifar_read_batches(const char *dir, Split split, Dataset *out, char err[DDL_ERRLEN])
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
    long long size[CIFAR_TRAIN_BATCHES];
    bool present[CIFAR_TRAIN_BATCHES];
    long long records = 0;
    int found = 0;
    for (int k = 0; k < nfiles; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        int st = stat_batch(path, &size[k], err);
        if (st < 0) return -1;
        present[k] = st == 1;
        if (present[k]) { found++; records += size[k] / CIFAR_REC; }
    }
    if (found == 0) {
        ddl_data_errf(err, "%s: no %s found", dir,
                 split == SPLIT_TRAIN ? "data_batch_1..5.bin" : "test_batch.bin");
        return -1;
    }
    if (records > CIFAR_MAX_RECORDS) {
        ddl_data_errf(err, "%s: %lld records, more than the cap of %d: not CIFAR-10",
                 dir, records, CIFAR_MAX_RECORDS);
        return -1;
    }

    float lut[256];
    for (int i = 0; i < 256; i++) lut[i] = (float)i / 255.0f;
    float *x = ddl_alloc((size_t)records * CIFAR_PIX * sizeof *x);
    int32_t *y = ddl_alloc((size_t)records * sizeof *y);
    char list[256] = "";
    long long at = 0;
    for (int k = 0; k < nfiles; k++) {
        if (!present[k]) continue;
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        int nrec = (int)(size[k] / CIFAR_REC);
        if (read_batch(path, nrec, x + (size_t)at * CIFAR_PIX, y + at, lut, err)) {
            ddl_free(x);
            ddl_free(y);
            return -1;
        }
        at += nrec;
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", names[k]);
    }

    out->n = (int)records;
    out->c = 3;
    out->h = out->w = 32;
    out->classes = 10;
    out->x = x;
    out->y = y;
    for (int i = 0; i < DDL_DATA_MAXCH; i++) { out->mean[i] = 0.0f; out->std[i] = 1.0f; }
    out->files_found = found;
    if (split == SPLIT_TRAIN)
        snprintf(out->source, sizeof out->source, "%s: %d of %d training batches (%s)", dir,
                 found, CIFAR_TRAIN_BATCHES, list);
    else
        snprintf(out->source, sizeof out->source, "%s/%s", dir, names[0]);
    return 0;
}
