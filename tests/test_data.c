/* test_data.c - loaders, corrupt-file handling, synthetic data, Batcher.
 *
 * Real-data checks run when the data root (DDL_DATA) has the files and are
 * skipped otherwise. Everything else runs on small files written on the fly
 * into a mkdtemp directory, so it needs nothing but this program. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "harness.h"
#include "data/dataset.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* ---- small file helpers ---------------------------------------------- */

static char tmp_root[256];

static const char *tpath(const char *rel)
{
    static char buf[8][512]; /* test-only rotating buffers (single thread) */
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmp_root, rel);
    return buf[k];
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n)) { perror(path); exit(2); }
    fclose(f);
}

static void write_gz(const char *path, const void *p, size_t n)
{
    gzFile f = gzopen(path, "wb");
    if (!f || (n && gzwrite(f, p, (unsigned)n) != (int)n)) { perror(path); exit(2); }
    gzclose(f);
}

static unsigned char *read_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc(*n + 1);
    if (fread(p, 1, *n, f) != *n) { perror(path); exit(2); }
    fclose(f);
    return p;
}

static void mkdir_p(const char *rel) { mkdir(tpath(rel), 0700); }

static int rm_one(const char *p, const struct stat *s, int flag, struct FTW *ftw)
{
    (void)s; (void)flag; (void)ftw;
    return remove(p);
}

static void rm_tree(const char *dir) { nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8); p[3] = (unsigned char)v;
}

static unsigned char pix(size_t i) { return (unsigned char)(i * 7 + 3); }

/* IDX images: header (magic, n, rows, cols) then `have` of n images. */
static unsigned char *idx_images(uint32_t magic, uint32_t n, uint32_t rows, uint32_t cols,
                                 uint32_t have, size_t *len)
{
    size_t pay = (size_t)have * rows * cols;
    unsigned char *b = malloc(16 + pay + 1);
    put32(b, magic); put32(b + 4, n); put32(b + 8, rows); put32(b + 12, cols);
    for (size_t i = 0; i < pay; i++) b[16 + i] = pix(i);
    *len = 16 + pay;
    return b;
}

static unsigned char *idx_labels(uint32_t magic, uint32_t n, uint32_t have, size_t *len)
{
    unsigned char *b = malloc(8 + have + 1);
    put32(b, magic); put32(b + 4, n);
    for (uint32_t i = 0; i < have; i++) b[8 + i] = (unsigned char)(i % 10);
    *len = 8 + have;
    return b;
}

/* A reader/loader must fail with a one-line message and leave *d empty. */
static void expect_fail(int rc, const Dataset *d, const char *err, const char *name,
                        const char *must_contain)
{
    bool ok = rc == -1 && err[0] && !strchr(err, '\n') && !d->x && !d->y &&
              (!must_contain || strstr(err, must_contain));
    t_checkf(ok, name, "rc %d, err '%s' (want it to mention '%s'), x %p y %p", rc, err,
             must_contain ? must_contain : "", (void *)d->x, (void *)d->y);
    printf("#   %s\n", err);
}

static bool contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

/* ---- IDX ----------------------------------------------------------------- */

static void test_idx(void)
{
    char err[DDL_ERRLEN];
    Dataset d;
    size_t len;
    unsigned char *b;

    /* Valid, plain and gz: exact pixel values b/255, shape, labels. */
    b = idx_images(0x803, 3, 2, 5, 3, &len);
    write_bytes(tpath("ok-images"), b, len);
    write_gz(tpath("ok-images.gz"), b, len);
    free(b);
    for (int gz = 0; gz < 2; gz++) {
        int rc = idx_read_images(tpath(gz ? "ok-images.gz" : "ok-images"), &d, err);
        bool ok = rc == 0 && d.n == 3 && d.c == 1 && d.h == 2 && d.w == 5;
        for (int i = 0; ok && i < 30; i++) ok = d.x[i] == (float)pix((size_t)i) / 255.0f;
        t_checkf(ok, gz ? "idx: valid gz images read exactly" : "idx: valid plain images read exactly",
                 "rc %d %s", rc, err);
        dataset_free(&d);
    }
    b = idx_labels(0x801, 12, 12, &len);
    write_gz(tpath("ok-labels.gz"), b, len);
    free(b);
    int rc = idx_read_labels(tpath("ok-labels.gz"), &d, err);
    t_checkf(rc == 0 && d.n == 12 && d.y[11] == 1 && d.y[9] == 9, "idx: valid gz labels", "rc %d %s",
             rc, err);
    dataset_free(&d);

    /* Corrupt files. */
    b = idx_images(0x803, 10, 4, 4, 5, &len);
    write_bytes(tpath("trunc-images"), b, len);
    write_gz(tpath("trunc-images.gz"), b, len);
    free(b);
    rc = idx_read_images(tpath("trunc-images"), &d, err);
    expect_fail(rc, &d, err, "idx: truncated plain images rejected", "truncated");
    rc = idx_read_images(tpath("trunc-images.gz"), &d, err);
    expect_fail(rc, &d, err, "idx: truncated images inside gz rejected", "only 80");

    /* Image files gzipped whose header is wrong, read as images or labels. */
    static const struct {
        uint32_t magic, n, rows, cols, have;
        bool as_labels;
        const char *file, *name, *says;
    } bad[] = {
        { 0x802, 2, 4, 4, 2, false, "magic.gz", "idx: wrong image magic rejected", "0x00000803" },
        { 0x803, 2, 4, 4, 2, true, "labels-with-image-magic.gz", "idx: labels file with image magic rejected",
          "0x00000801" },
        { 0x803, 0xFFFFFFFFu, 0xFFFF, 0xFFFF, 0, false, "absurd.gz", /* header only */
          "idx: absurd header dims (overflowing product) rejected", "absurd" },
        { 0x803, 0, 28, 28, 0, false, "zero.gz", "idx: zero images rejected", "absurd" },
        { 0x803, 2, 4, 4, 3, false, "extra.gz", "idx: data after the described payload rejected", "continues" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        b = idx_images(bad[i].magic, bad[i].n, bad[i].rows, bad[i].cols, bad[i].have, &len);
        write_gz(tpath(bad[i].file), b, len);
        free(b);
        const char *path = tpath(bad[i].file);
        rc = bad[i].as_labels ? idx_read_labels(path, &d, err) : idx_read_images(path, &d, err);
        expect_fail(rc, &d, err, bad[i].name, bad[i].says);
    }
    /* Within the caps but far more than the file holds: fails on the data,
     * after a bounded allocation (ASan would flag a huge one). */
    b = idx_images(0x803, 300000, 28, 28, 2, &len);
    write_gz(tpath("oversized.gz"), b, len);
    write_bytes(tpath("oversized"), b, len);
    free(b);
    rc = idx_read_images(tpath("oversized.gz"), &d, err);
    expect_fail(rc, &d, err, "idx: gz header claiming more images than present rejected", "300000");
    rc = idx_read_images(tpath("oversized"), &d, err);
    expect_fail(rc, &d, err, "idx: plain header claiming more than the file size rejected", "holds");
    b = idx_labels(0x801, 0x7FFFFFFFu, 4, &len);
    write_gz(tpath("labels-absurd.gz"), b, len);
    free(b);
    rc = idx_read_labels(tpath("labels-absurd.gz"), &d, err);
    expect_fail(rc, &d, err, "idx: absurd label count rejected", "absurd");

    write_bytes(tpath("empty"), "", 0);
    rc = idx_read_images(tpath("empty"), &d, err);
    expect_fail(rc, &d, err, "idx: empty file rejected", "header");
    rc = idx_read_images(tpath("does-not-exist.gz"), &d, err);
    expect_fail(rc, &d, err, "idx: missing file rejected", "cannot open");

    unsigned char lab[9 + 8];
    put32(lab, 0x801); put32(lab + 4, 9);
    for (int i = 0; i < 9; i++) lab[8 + i] = (unsigned char)i;
    lab[8 + 4] = 10;
    write_gz(tpath("label10.gz"), lab, 17);
    rc = idx_read_labels(tpath("label10.gz"), &d, err);
    expect_fail(rc, &d, err, "idx: label 10 rejected", "index 4");

    /* Truncated gz streams: cut in the middle, and only the 8-byte trailer. */
    b = idx_images(0x803, 50, 28, 28, 50, &len);
    write_gz(tpath("whole.gz"), b, len);
    free(b);
    size_t zlen;
    unsigned char *z = read_bytes(tpath("whole.gz"), &zlen);
    write_bytes(tpath("cut.gz"), z, zlen * 6 / 10);
    write_bytes(tpath("cut-trailer.gz"), z, zlen - 5);
    free(z);
    rc = idx_read_images(tpath("cut.gz"), &d, err);
    expect_fail(rc, &d, err, "idx: truncated gzip stream rejected", "gzip");
    rc = idx_read_images(tpath("cut-trailer.gz"), &d, err);
    expect_fail(rc, &d, err, "idx: gzip stream missing its trailer rejected", "gzip");
    /* A wrong CRC-32 in the trailer: named as such, with the file's path
     * (zlib's own words were "<fd:13>: incorrect data check"). */
    z = read_bytes(tpath("whole.gz"), &zlen);
    z[zlen - 8] ^= 0xff;
    write_bytes(tpath("bad-crc.gz"), z, zlen);
    free(z);
    rc = idx_read_images(tpath("bad-crc.gz"), &d, err);
    expect_fail(rc, &d, err, "idx: a gzip CRC-32 mismatch is named, with the file", "bad-crc.gz: corrupt gzip data (its CRC-32 does not match");
    t_checkf(!strstr(err, "<fd:"), "idx: a gzip error does not name zlib's '<fd:N>'", "%s", err);
}

/* ---- MNIST folder through dataset_load ---------------------------------- */

static void write_mnist(const char *dir, uint32_t n_img, uint32_t n_lab, bool with_test)
{
    char rel[256];
    size_t len;
    unsigned char *b;
    mkdir_p(dir);
    const char *split[2] = { "train", "t10k" };
    for (int s = 0; s < (with_test ? 2 : 1); s++) {
        b = idx_images(0x803, n_img, 28, 28, n_img, &len);
        snprintf(rel, sizeof rel, "%s/%s-images-idx3-ubyte.gz", dir, split[s]);
        write_gz(tpath(rel), b, len);
        free(b);
        b = idx_labels(0x801, n_lab, n_lab, &len);
        snprintf(rel, sizeof rel, "%s/%s-labels-idx1-ubyte", dir, split[s]); /* plain */
        write_bytes(tpath(rel), b, len);
        free(b);
    }
}

static void test_mnist_folder(void)
{
    char err[DDL_ERRLEN], root[512];
    Dataset d;
    DataOptions o = { .root = root, .allow_synthetic = true, .seed = 1 };

    snprintf(root, sizeof root, "%s/good", tmp_root);
    mkdir_p("good");
    write_mnist("good/mnist", 20, 20, true);
    int rc = dataset_load("mnist", SPLIT_TRAIN, &o, &d, err);
    t_checkf(rc == 0 && d.n == 20 && !d.synthetic && d.classes == 10 && d.files_found == 2 &&
             contains(d.source, "train-images-idx3-ubyte.gz") &&
             contains(d.source, "train-labels-idx1-ubyte") && !strcmp(d.name, "mnist") &&
             d.mean[0] == 0.1307f && d.std[0] == 0.3081f && d.mean[1] == 0.0f && d.std[1] == 1.0f,
             "dataset: mnist folder mixing name and name.gz loads with MNIST constants",
             "rc %d err '%s' n %d src '%s'", rc, err, d.n, d.source);
    dataset_free(&d);
    o.limit = 7;
    rc = dataset_load("mnist", SPLIT_TEST, &o, &d, err);
    t_checkf(rc == 0 && d.n == 7 && contains(d.source, "t10k") && contains(d.source, "first 7 of 20"),
             "dataset: limit keeps the first examples and says so", "rc %d n %d src '%s'", rc, d.n,
             d.source);
    dataset_free(&d);
    o.limit = 0;

    /* Count mismatch; corrupt-but-present never falls back to synthetic. */
    snprintf(root, sizeof root, "%s/mismatch", tmp_root);
    mkdir_p("mismatch");
    write_mnist("mismatch/mnist", 20, 19, true);
    rc = dataset_load("mnist", SPLIT_TRAIN, &o, &d, err);
    expect_fail(rc, &d, err, "dataset: image/label count mismatch rejected (synthetic allowed)",
                "19 labels");

    snprintf(root, sizeof root, "%s/partial", tmp_root);
    mkdir_p("partial");
    write_mnist("partial/fashion-mnist", 20, 20, false); /* train only */
    rc = dataset_load("fashion-mnist", SPLIT_TEST, &o, &d, err);
    expect_fail(rc, &d, err, "dataset: partial set (test files missing) is an error, not a fallback",
                "t10k-images");
}

/* ---- CIFAR ---------------------------------------------------------------- */

static void write_cifar(const char *rel, int nrec, int bad_label_at, size_t extra)
{
    size_t len = (size_t)nrec * 3073 + extra;
    unsigned char *b = calloc(len + 1, 1);
    for (int r = 0; r < nrec; r++) {
        unsigned char *rec = b + (size_t)r * 3073;
        rec[0] = (unsigned char)(r == bad_label_at ? 200 : r % 10);
        for (int i = 0; i < 3072; i++) rec[1 + i] = (unsigned char)(i / 1024 * 100 + r);
    }
    write_bytes(tpath(rel), b, len);
    free(b);
}

/* Official batches hold exactly 10000 records: a file cut at a record
 * boundary is an error naming it, unless partial batches are asked for
 * (DataOptions.cifar_partial: the driver sets it from DDL_CIFAR_PARTIAL=1;
 * core below the driver never reads the variable itself). */
static void test_cifar_exact(const char *root)
{
    char err[DDL_ERRLEN];
    Dataset d;
    DataOptions strict = { .root = root };
    int rc = dataset_load("cifar10", SPLIT_TRAIN, &strict, &d, err);
    expect_fail(rc, &d, err, "cifar: a batch of 3 records (cut at a record boundary) is an error naming the file",
                "data_batch_1.bin: 3 records, expected exactly 10000");
    setenv("DDL_CIFAR_PARTIAL", "1", 1);
    rc = dataset_load("cifar10", SPLIT_TRAIN, &strict, &d, err);
    t_checkf(rc != 0, "cifar: DDL_CIFAR_PARTIAL in the environment alone changes nothing in core", "rc %d", rc);
    dataset_free(&d);
    unsetenv("DDL_CIFAR_PARTIAL");
    DataOptions partial = { .root = root, .cifar_partial = true };
    rc = dataset_load("cifar10", SPLIT_TRAIN, &partial, &d, err);
    t_checkf(rc == 0 && d.n == 5, "cifar: cifar_partial accepts partial batches", "rc %d err '%s'", rc, err);
    dataset_free(&d);
    /* a whole batch passes the strict check, in a file and in memory */
    write_cifar("c/cifar-10-batches-bin/test_batch.bin", 10000, -1, 0);
    rc = dataset_load("cifar10", SPLIT_TEST, &strict, &d, err);
    bool ok = rc == 0 && d.n == 10000 && d.y[9999] == 9999 % 10 &&
              d.x[(size_t)9999 * 3072 + 2048] == (float)((200 + 9999) % 256) / 255.0f;
    t_checkf(ok, "cifar: a batch of exactly 10000 records is read", "rc %d err '%s' n %d", rc, err, d.n);
    dataset_free(&d);
    size_t len = (size_t)9999 * 3073;
    unsigned char *b = calloc(len, 1);
    rc = cifar_read_buffer(b, len, "mem.bin", false, &d, err);
    expect_fail(rc, &d, err, "cifar_read_buffer: 9999 records refused", "mem.bin: 9999 records");
    rc = cifar_read_buffer(b, len, "mem.bin", true, &d, err);
    t_checkf(rc == 0 && d.n == 9999 && d.y[5] == 0, "cifar_read_buffer: partial accepts 9999 records", "rc %d '%s'",
             rc, err);
    dataset_free(&d);
    free(b);
}

static void test_cifar(void)
{
    char err[DDL_ERRLEN], root[512];
    Dataset d;
    mkdir_p("c");
    mkdir_p("c/cifar-10-batches-bin");
    write_cifar("c/cifar-10-batches-bin/data_batch_1.bin", 3, -1, 0);
    write_cifar("c/cifar-10-batches-bin/data_batch_3.bin", 2, -1, 0);
    write_cifar("c/cifar-10-batches-bin/test_batch.bin", 4, -1, 0);
    snprintf(root, sizeof root, "%s/c", tmp_root);
    /* hand-made small batches: partial batches asked for */
    DataOptions o = { .root = root, .cifar_partial = true };
    int rc = dataset_load("cifar10", SPLIT_TRAIN, &o, &d, err);
    bool ok = rc == 0 && d.n == 5 && d.c == 3 && d.h == 32 && d.w == 32 && d.files_found == 2 &&
              contains(d.source, "2 of 5 training batches (data_batch_1.bin, data_batch_3.bin)");
    /* record 4 = second record of batch 3: channel k pixels are 100k + 1 */
    for (int ch = 0; ok && ch < 3; ch++)
        ok = d.x[(size_t)4 * 3072 + (size_t)ch * 1024 + 5] == (float)(100 * ch + 1) / 255.0f;
    ok = ok && d.y[2] == 2 && d.y[3] == 0 && d.y[4] == 1 && fabsf(d.mean[0] - 0.4914f) < 1e-6f &&
         fabsf(d.std[2] - 0.2616f) < 1e-6f;
    t_checkf(ok, "cifar: 2 of 5 batches found, records laid out label,R,G,B",
             "rc %d err '%s' n %d found %d src '%s'", rc, err, d.n, d.files_found, d.source);
    dataset_free(&d);
    rc = dataset_load("cifar10", SPLIT_TEST, &o, &d, err);
    t_checkf(rc == 0 && d.n == 4 && d.files_found == 1 && contains(d.source, "test_batch.bin"),
             "cifar: test_batch.bin", "rc %d err '%s'", rc, err);
    dataset_free(&d);

    mkdir_p("c2");
    mkdir_p("c2/cifar-10-batches-bin");
    write_cifar("c2/cifar-10-batches-bin/data_batch_2.bin", 2, -1, 17);
    rc = cifar_read_batches(tpath("c2/cifar-10-batches-bin"), SPLIT_TRAIN, true, &d, err);
    expect_fail(rc, &d, err, "cifar: size not a multiple of 3073 rejected", "3073");
    write_cifar("c2/cifar-10-batches-bin/data_batch_2.bin", 3, 1, 0);
    rc = cifar_read_batches(tpath("c2/cifar-10-batches-bin"), SPLIT_TRAIN, true, &d, err);
    expect_fail(rc, &d, err, "cifar: label 200 rejected", "label 200");
    write_bytes(tpath("c2/cifar-10-batches-bin/data_batch_2.bin"), "", 0);
    rc = cifar_read_batches(tpath("c2/cifar-10-batches-bin"), SPLIT_TRAIN, true, &d, err);
    expect_fail(rc, &d, err, "cifar: empty batch file rejected", "multiple");
    test_cifar_exact(root);
}

/* ---- SDSS ----------------------------------------------------------------- */

/* Columns shuffled and with extras, CRLF, E-notation: the reader must go
 * by header names. */
static const char sdss_head[] = "objid,class,z,ra,u,g,r,i,redshift,plate\r\n";

static void write_sdss(const char *rel, const char *bad_row)
{
    char *buf = malloc(1 << 16);
    size_t at = (size_t)sprintf(buf, "%s", sdss_head);
    const char *cls[3] = { "GALAXY", "STAR", "QSO" };
    int ncls[3] = { 11, 7, 2 };
    int row = 0;
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < ncls[k]; j++, row++) {
            if (bad_row && row == 3) at += (size_t)sprintf(buf + at, "%s\r\n", bad_row);
            at += (size_t)sprintf(buf + at, "1.2376487045771E+18,%s,%.5f,183.5,%.4f,%.3E,%.4f,"
                                  "%.4f,%.6E,752\r\n", cls[k], 15.0 + row * 0.01, 19.0 + row * 0.1,
                                  17.5 + row * 0.05, 17.0 + k, 16.5 + k, 0.001 * (row + 1) * (k + 1));
        }
    write_bytes(tpath(rel), buf, at);
    free(buf);
}

/* The standardisation constants are the train split's own per-feature
 * mean and (population) std (1 for a constant feature), for all 10
 * features, and not the whole
 * file's: at least one feature's mean over train + test must differ, or
 * this check could not tell the two apart. Returns "" or why not. */
static const char *sdss_train_constants(const Dataset *tr, const Dataset *te)
{
    static char why[256];
    int differ = 0;
    why[0] = '\0';
    for (int j = 0; j < 10; j++) {
        double s = 0, ss = 0, all = 0;
        for (int i = 0; i < tr->n; i++) s += tr->x[(size_t)i * 10 + j];
        double m = s / tr->n;
        for (int i = 0; i < tr->n; i++) ss += pow(tr->x[(size_t)i * 10 + j] - m, 2);
        double sd = sqrt(ss / tr->n);
        if (sd <= 1e-12) sd = 1.0; /* a constant feature: the loader divides by 1 */
        for (int i = 0; i < te->n; i++) all += te->x[(size_t)i * 10 + j];
        all = (all + s) / (tr->n + te->n);
        if (fabs(tr->mean[j] - m) > 1e-5 * fmax(fabs(m), sd) || fabs(tr->std[j] - sd) > 1e-5 * sd) {
            snprintf(why, sizeof why, "feature %d: constants %g/%g, train split %g/%g", j, (double)tr->mean[j],
                     (double)tr->std[j], m, sd);
            return why;
        }
        differ += fabs(all - m) > 1e-4 * sd;
    }
    if (!differ) snprintf(why, sizeof why, "train and whole-file means agree on every feature: check is blind");
    return why;
}

/* A NUL byte is a bad row like any other: at the start of a line it used
 * to end the text there (rows after it silently dropped), inside a line
 * to cut the line short. */
static void test_sdss_nul(void)
{
    char err[DDL_ERRLEN];
    Dataset d;
    write_sdss("s/ok.csv", NULL);
    FILE *f = fopen(tpath("s/ok.csv"), "rb");
    char buf[1 << 16];
    size_t len = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    char *line5 = buf;
    for (int k = 0; k < 4; k++) line5 = strchr(line5, '\n') + 1;
    size_t at = (size_t)(line5 - buf);
    char nul_start[1 << 16];
    memcpy(nul_start, buf, len);
    nul_start[at] = '\0';
    write_bytes(tpath("s/nul.csv"), nul_start, len);
    int rc = sdss_read_csv(tpath("s/nul.csv"), SPLIT_TRAIN, 1, &d, err);
    expect_fail(rc, &d, err, "sdss: a NUL at the start of a line stops the load with its line number",
                "nul.csv:5: NUL byte");
    memcpy(nul_start, buf, len);
    nul_start[at + 7] = '\0';
    rc = sdss_read_buffer(nul_start, len, "mem.csv", SPLIT_TRAIN, 1, &d, err);
    expect_fail(rc, &d, err, "sdss: a NUL inside a line stops the load", "mem.csv:5: NUL byte");
    Dataset a, b;
    int ra = sdss_read_csv(tpath("s/ok.csv"), SPLIT_TEST, 3, &a, err);
    int rb = sdss_read_buffer(buf, len, "mem.csv", SPLIT_TEST, 3, &b, err);
    t_checkf(ra == 0 && rb == 0 && a.n == b.n && a.n > 0 && !memcmp(a.x, b.x, (size_t)a.n * 10 * sizeof *a.x) &&
                 !memcmp(a.y, b.y, (size_t)a.n * sizeof *a.y),
             "sdss_read_buffer reads what sdss_read_csv reads", "rc %d/%d n %d/%d", ra, rb, a.n, b.n);
    if (rb == 0) dataset_free(&b);
    /* Quoted fields: a row that starts and ends with a quoted field keeps
     * its closing quote (a blank-line test that trims the row in place
     * could strip it) */
    static char quoted[1 << 17];
    size_t q = 0;
    for (const char *p = buf, *end = buf + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        /* drop the last column (not a feature) so that a feature ends the row */
        const char *cut = p;
        for (const char *c = p; c < p + n; c++)
            if (*c == ',') cut = c;
        size_t whole = n;
        n = (size_t)(cut - p);
        const char *first = memchr(p, ',', n), *last = first;
        for (const char *c = first; c && c < p + n; c = memchr(c + 1, ',', (size_t)(p + n - c - 1))) last = c;
        if (p == buf || !first) q += (size_t)snprintf(quoted + q, sizeof quoted - q, "%.*s\n", (int)n, p);
        else
            q += (size_t)snprintf(quoted + q, sizeof quoted - q, "\"%.*s\"%.*s\"%.*s\"\n", (int)(first - p), p,
                                  (int)(last + 1 - first), first, (int)(p + n - last - 1), last + 1);
        p += whole + 1;
    }
    rb = sdss_read_buffer(quoted, q, "quoted.csv", SPLIT_TEST, 3, &b, err);
    t_checkf(rb == 0 && a.n == b.n && !memcmp(a.x, b.x, (size_t)a.n * 10 * sizeof *a.x),
             "sdss: rows whose first and last fields are quoted read as the plain rows", "rc %d: %s", rb,
             rb ? err : "values differ");
    if (rb == 0) dataset_free(&b);
    dataset_free(&a);
}

static void test_sdss(void)
{
    char err[DDL_ERRLEN];
    Dataset tr, te, tr2;
    mkdir_p("s");
    write_sdss("s/ok.csv", NULL);
    int rc = sdss_read_csv(tpath("s/ok.csv"), SPLIT_TRAIN, 9, &tr, err);
    int rc2 = sdss_read_csv(tpath("s/ok.csv"), SPLIT_TEST, 9, &te, err);
    int cnt[2][3] = { { 0 } };
    bool ok = rc == 0 && rc2 == 0 && tr.n + te.n == 20 && tr.c == 10 && tr.classes == 3;
    if (ok) {
        for (int i = 0; i < tr.n; i++) cnt[0][tr.y[i]]++;
        for (int i = 0; i < te.n; i++) cnt[1][te.y[i]]++;
        /* round(0.8 * 11, 7, 2) = 9, 6, 2 */
        ok = cnt[0][0] == 9 && cnt[0][1] == 6 && cnt[0][2] == 2 && cnt[1][0] == 2 && cnt[1][1] == 1 &&
             cnt[1][2] == 0;
        /* colours are differences; u from column 'u' although it is 5th */
        for (int i = 0; ok && i < tr.n; i++) {
            const float *x = tr.x + (size_t)i * 10;
            ok = fabsf(x[5] - (x[0] - x[1])) < 1e-4f && fabsf(x[8] - (x[3] - x[4])) < 1e-4f &&
                 x[0] >= 19.0f && x[0] < 21.0f && x[9] > 0.0f;
        }
        ok = ok && memcmp(tr.mean, te.mean, sizeof tr.mean) == 0 &&
             memcmp(tr.std, te.std, sizeof tr.std) == 0;
    }
    t_checkf(ok, "sdss: CRLF, E-notation, reordered columns; stratified 80/20; shared constants",
             "rc %d/%d err '%s' n %d+%d counts %d %d %d / %d %d %d", rc, rc2, err, tr.n, te.n,
             cnt[0][0], cnt[0][1], cnt[0][2], cnt[1][0], cnt[1][1], cnt[1][2]);
    /* Train-only standardisation: standardised train features ~ N(0,1). */
    double m = 0, v = 0;
    for (int i = 0; ok && i < tr.n; i++) {
        double s = (tr.x[(size_t)i * 10 + 2] - tr.mean[2]) / tr.std[2];
        m += s;
        v += s * s;
    }
    t_checkf(ok && fabs(m / tr.n) < 1e-5 && fabs(v / tr.n - 1) < 1e-4,
             "sdss: mean/std fitted on the train split", "mean %g var %g", m / tr.n, v / tr.n);
    if (ok) {
        const char *why = sdss_train_constants(&tr, &te);
        t_checkf(!why[0], "sdss: all 10 constants are the train split's mean/std, not the whole file's", "%s", why);
    }
    /* every row in exactly one split (u = 19.0 + 0.1 row is unique per row) */
    bool seen[20] = { false }, part = ok;
    for (int i = 0; part && i < tr.n + te.n; i++) {
        float u = i < tr.n ? tr.x[(size_t)i * 10] : te.x[(size_t)(i - tr.n) * 10];
        int row = (int)lroundf((u - 19.0f) / 0.1f);
        part = row >= 0 && row < 20 && !seen[row];
        if (part) seen[row] = true;
    }
    t_check(part, "sdss: train and test partition the rows");
    rc = sdss_read_csv(tpath("s/ok.csv"), SPLIT_TRAIN, 9, &tr2, err);
    t_check(rc == 0 && tr2.n == tr.n && !memcmp(tr.x, tr2.x, sizeof(float) * 10 * (size_t)tr.n),
            "sdss: split deterministic for a seed");
    dataset_free(&tr2);
    /* another seed draws another split with the same class counts */
    rc = sdss_read_csv(tpath("s/ok.csv"), SPLIT_TRAIN, 10, &tr2, err);
    int cnt2[3] = { 0 };
    for (int i = 0; rc == 0 && i < tr2.n; i++) cnt2[tr2.y[i]]++;
    t_checkf(rc == 0 && tr2.n == tr.n && memcmp(tr.x, tr2.x, sizeof(float) * 10 * (size_t)tr.n) != 0 &&
                 cnt2[0] == 9 && cnt2[1] == 6 && cnt2[2] == 2,
             "sdss: another seed, another stratified split", "rc %d n %d counts %d %d %d", rc, tr2.n, cnt2[0], cnt2[1],
             cnt2[2]);
    dataset_free(&tr);
    dataset_free(&te);
    dataset_free(&tr2);

    /* LF-only file with a trailing blank line parses too. */
    size_t n;
    unsigned char *raw = read_bytes(tpath("s/ok.csv"), &n);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) if (raw[i] != '\r') raw[w++] = raw[i];
    raw[w++] = '\n';
    write_bytes(tpath("s/lf.csv"), raw, w);
    free(raw);
    rc = sdss_read_csv(tpath("s/lf.csv"), SPLIT_TEST, 9, &te, err);
    t_checkf(rc == 0 && te.n == 3, "sdss: LF line ends and a blank last line", "rc %d %s", rc, err);
    dataset_free(&te);

    Dataset d;
    write_sdss("s/badnum.csv", "1.2E+18,STAR,15.0,183.5,19.1,17.5,1x7.0,16.5,0.001,752");
    rc = sdss_read_csv(tpath("s/badnum.csv"), SPLIT_TRAIN, 1, &d, err);
    expect_fail(rc, &d, err, "sdss: bad number rejected with its line number", ":5: column 'r'");
    write_sdss("s/short.csv", "1.2E+18,STAR,15.0,183.5,19.1");
    rc = sdss_read_csv(tpath("s/short.csv"), SPLIT_TRAIN, 1, &d, err);
    expect_fail(rc, &d, err, "sdss: short row rejected with its line number", ":5: short row");
    write_sdss("s/class.csv", "1.2E+18,PLANET,15.0,183.5,19.1,17.5,17.0,16.5,0.001,752");
    rc = sdss_read_csv(tpath("s/class.csv"), SPLIT_TRAIN, 1, &d, err);
    expect_fail(rc, &d, err, "sdss: unknown class rejected", "PLANET");
    write_bytes(tpath("s/nohead.csv"), "objid,u,g\r\n1,2,3\r\n", 18);
    rc = sdss_read_csv(tpath("s/nohead.csv"), SPLIT_TRAIN, 1, &d, err);
    expect_fail(rc, &d, err, "sdss: header without the needed columns rejected", "'r'");
    test_sdss_nul();
}

/* ---- absent files, names, synthetic fallback ------------------------------ */

static void test_fallback(void)
{
    char err[DDL_ERRLEN], root[512];
    Dataset d;
    snprintf(root, sizeof root, "%s/empty-root", tmp_root);
    mkdir_p("empty-root");
    DataOptions o = { .root = root, .seed = 3 };
    const char *names[4] = { "mnist", "fashion-mnist", "cifar10", "sdss" };
    for (int k = 0; k < 4; k++) {
        char name[96];
        snprintf(name, sizeof name, "dataset: absent %s without fallback names fetch.sh", names[k]);
        int rc = dataset_load(names[k], SPLIT_TRAIN, &o, &d, err);
        expect_fail(rc, &d, err, name, "datasets/fetch.sh");
    }
    o.allow_synthetic = true;
    o.synthetic_n = 500;
    int rc = dataset_load("mnist", SPLIT_TRAIN, &o, &d, err);
    t_checkf(rc == 0 && d.synthetic && d.n == 500 && d.c == 1 && d.h == 28 &&
             !strcmp(d.source, "synthetic mnist (seed 3, n 500)") && !strcmp(d.name, "mnist"),
             "dataset: absent files + allow_synthetic -> marked synthetic", "rc %d '%s' '%s'", rc,
             err, d.source);
    dataset_free(&d);
    o.synthetic_n = 0;
    o.limit = 100;
    rc = dataset_load("cifar10", SPLIT_TEST, &o, &d, err);
    t_checkf(rc == 0 && d.synthetic && d.n == 100 && d.c == 3 && d.h == 32,
             "dataset: synthetic honours limit", "rc %d n %d", rc, d.n);
    dataset_free(&d);
    o.limit = 0;

    /* force_synthetic and the synthetic- prefix ignore present files. */
    snprintf(root, sizeof root, "%s/good", tmp_root);
    DataOptions f = { .root = root, .force_synthetic = true, .synthetic_n = 50 };
    rc = dataset_load("mnist", SPLIT_TRAIN, &f, &d, err);
    t_check(rc == 0 && d.synthetic && d.n == 50, "dataset: force_synthetic ignores real files");
    dataset_free(&d);
    f.force_synthetic = false;
    rc = dataset_load("synthetic-sdss", SPLIT_TEST, &f, &d, err);
    t_check(rc == 0 && d.synthetic && d.n == 50 && d.c == 10 && d.classes == 3 &&
            contains(d.source, "synthetic sdss"), "dataset: synthetic-sdss name");
    dataset_free(&d);
    rc = dataset_load("imagenet", SPLIT_TRAIN, &f, &d, err);
    expect_fail(rc, &d, err, "dataset: unknown name rejected", "imagenet");

    /* Root lookup: opt->root, else "datasets". DDL_DATA is the driver's
     * (core/driver/environment.c): core below it never reads the
     * environment, so a set DDL_DATA changes nothing here. */
    char *saved = getenv("DDL_DATA") ? strdup(getenv("DDL_DATA")) : NULL;
    setenv("DDL_DATA", root, 1);
    DataOptions none = { 0 };
    bool ok = !strcmp(dataset_root(&none), "datasets") && !strcmp(dataset_root(NULL), "datasets");
    DataOptions at = { .root = root };
    rc = dataset_load("mnist", SPLIT_TRAIN, &at, &d, err);
    ok = ok && rc == 0 && d.n == 20 && !d.synthetic;
    dataset_free(&d);
    unsetenv("DDL_DATA");
    none.root = "/x";
    ok = ok && !strcmp(dataset_root(&none), "/x");
    if (saved) { setenv("DDL_DATA", saved, 1); free(saved); }
    t_check(ok, "dataset: root = opt->root, else datasets (DDL_DATA is read by the driver, not here)");
}

/* ---- synthetic data ------------------------------------------------------- */

static double nearest_centroid_acc(const Dataset *tr, const Dataset *te)
{
    int D = tr->c * tr->h * tr->w, K = tr->classes;
    double *cen = calloc((size_t)K * D, sizeof *cen);
    int cnt[16] = { 0 };
    for (int i = 0; i < tr->n; i++) {
        cnt[tr->y[i]]++;
        for (int j = 0; j < D; j++) cen[(size_t)tr->y[i] * D + j] += tr->x[(size_t)i * D + j];
    }
    for (int k = 0; k < K; k++)
        for (int j = 0; j < D; j++) cen[(size_t)k * D + j] /= DDL_MAX(cnt[k], 1);
    int ok = 0;
    for (int i = 0; i < te->n; i++) {
        int best = 0;
        double bd = INFINITY;
        for (int k = 0; k < K; k++) {
            double s = 0;
            for (int j = 0; j < D; j++) {
                double t = te->x[(size_t)i * D + j] - cen[(size_t)k * D + j];
                s += t * t;
            }
            if (s < bd) { bd = s; best = k; }
        }
        ok += best == te->y[i];
    }
    free(cen);
    return (double)ok / te->n;
}

static void test_synthetic(void)
{
    const char *likes[4] = { "mnist", "fashion-mnist", "cifar10", "sdss" };
    const int shape[4][4] = { { 1, 28, 28, 10 }, { 1, 28, 28, 10 }, { 3, 32, 32, 10 }, { 10, 1, 1, 3 } };
    const int sizes[4][2] = { { 60000, 10000 }, { 60000, 10000 }, { 50000, 10000 }, { 8000, 2000 } };
    for (int k = 0; k < 4; k++) {
        Dataset a, b, c, t, p;
        int n = 3000;
        synthetic_generate(likes[k], SPLIT_TRAIN, n, 5, &a);
        synthetic_generate(likes[k], SPLIT_TRAIN, n, 5, &b);
        synthetic_generate(likes[k], SPLIT_TRAIN, n, 6, &c);
        synthetic_generate(likes[k], SPLIT_TEST, 1000, 5, &t);
        synthetic_generate(likes[k], SPLIT_TRAIN, 700, 5, &p);
        size_t D = (size_t)a.c * a.h * a.w;
        t_check(a.c == shape[k][0] && a.h == shape[k][1] && a.w == shape[k][2] &&
                a.classes == shape[k][3] && a.synthetic && a.files_found == 0 &&
                synthetic_default_n(likes[k], SPLIT_TRAIN) == sizes[k][0] &&
                synthetic_default_n(likes[k], SPLIT_TEST) == sizes[k][1],
                "synthetic %s: shape, classes, default sizes", likes[k]);
        t_check(!memcmp(a.x, b.x, n * D * sizeof(float)) && !memcmp(a.y, b.y, n * sizeof(int32_t)) &&
                !memcmp(a.mean, b.mean, sizeof a.mean) && !memcmp(a.std, b.std, sizeof a.std),
                "synthetic %s: same seed bit-identical", likes[k]);
        t_check(memcmp(a.x, c.x, n * D * sizeof(float)) != 0, "synthetic %s: other seed differs",
                likes[k]);
        t_check(!memcmp(p.x, a.x, 700 * D * sizeof(float)) && memcmp(t.x, a.x, 1000 * D * sizeof(float)),
                "synthetic %s: smaller n is a prefix; test stream differs from train", likes[k]);
        t_check(!memcmp(t.mean, a.mean, sizeof a.mean) && !memcmp(t.std, a.std, sizeof a.std) &&
                !memcmp(p.mean, a.mean, sizeof a.mean),
                "synthetic %s: constants from the train split, same in both splits", likes[k]);
        int cnt[10] = { 0 };
        bool in01 = true, finite = true;
        for (int i = 0; i < n; i++) cnt[a.y[i]]++;
        for (size_t i = 0; i < n * D; i++) {
            in01 = in01 && a.x[i] >= 0.0f && a.x[i] <= 1.0f;
            finite = finite && isfinite(a.x[i]);
        }
        bool bal = true;
        for (int j = 0; j < a.classes; j++) bal = bal && cnt[j] == n / a.classes;
        t_check(bal, "synthetic %s: classes balanced", likes[k]);
        t_check(k == 3 ? finite : in01, "synthetic %s: values %s", likes[k],
                k == 3 ? "finite" : "in [0,1]");
        /* Learnable but not trivial for template matching, and train/test
         * from one distribution: similar accuracy on both. */
        Dataset a_head = a;
        a_head.n = 1000;
        double acc_te = nearest_centroid_acc(&a, &t), acc_tr = nearest_centroid_acc(&a, &a_head);
        double chance = 1.0 / a.classes;
        t_checkf(acc_te > chance + 0.2 && acc_te < 0.95 && fabs(acc_te - acc_tr) < 0.06,
                 k == 0 ? "synthetic mnist: nearest-centroid above chance, below 95%, train ~ test"
                 : k == 1 ? "synthetic fashion-mnist: nearest-centroid above chance, below 95%, train ~ test"
                 : k == 2 ? "synthetic cifar10: nearest-centroid above chance, below 95%, train ~ test"
                          : "synthetic sdss: nearest-centroid above chance, below 95%, train ~ test",
                 "test %.3f train %.3f", acc_te, acc_tr);
        printf("#   synthetic %s nearest-centroid accuracy: train %.3f test %.3f\n", likes[k],
               acc_tr, acc_te);
        if (k == 3) {
            bool colours = true;
            for (int i = 0; i < n; i++) {
                const float *x = a.x + (size_t)i * 10;
                colours = colours && fabsf(x[5] - (x[0] - x[1])) < 1e-4f;
            }
            t_check(colours, "synthetic sdss: colours consistent with magnitudes");
        }
        dataset_free(&a); dataset_free(&b); dataset_free(&c); dataset_free(&t); dataset_free(&p);
    }
    Dataset big;
    double t0 = ddl_now();
    synthetic_generate("mnist", SPLIT_TRAIN, 0, 1, &big);
    double dt = ddl_now() - t0;
    t_check(big.n == 60000 && big.mean[0] > 0.05f && big.std[0] > 0.05f,
            "synthetic mnist: default 60000 examples");
    printf("#   synthetic mnist 60000 generated in %.3f s\n", dt);
    dataset_free(&big);
}

/* ---- Batcher -------------------------------------------------------------- */

/* Tabular toy set: example i has features (i, 2i) and label i % 3. */
static Dataset toy(int n)
{
    Dataset d;
    memset(&d, 0, sizeof d);
    d.n = n; d.c = 2; d.h = d.w = 1; d.classes = 3;
    d.x = ddl_alloc((size_t)n * 2 * sizeof(float));
    d.y = ddl_alloc((size_t)n * sizeof(int32_t));
    for (int i = 0; i < n; i++) { d.x[2 * i] = (float)i; d.x[2 * i + 1] = 2.0f * i; d.y[i] = i % 3; }
    for (int j = 0; j < DDL_DATA_MAXCH; j++) { d.mean[j] = 0; d.std[j] = 1; }
    ddl_strlcpy(d.name, "toy", sizeof d.name);
    return d;
}

/* Run one epoch on every rank; global[j] = the j-th entry of the padded
 * list (rank j % W, position j / W). Returns entries, or -1 if labels or
 * the second feature did not follow the example. */
static int epoch_all(const Dataset *d, BatcherOptions o, int epoch, int32_t *global, int *nbatches)
{
    float x[64 * 2];
    int32_t y[64];
    int total = 0;
    for (int r = 0; r < o.world; r++) {
        o.rank = r;
        Batcher b;
        batcher_init(&b, d, &o);
        batcher_epoch(&b, epoch);
        int k, pos = 0, nb = 0;
        while ((k = batcher_next(&b, x, y)) > 0) {
            nb++;
            for (int j = 0; j < k; j++, pos++) {
                int i = (int)x[2 * j];
                if (y[j] != i % 3 || x[2 * j + 1] != 2.0f * i) { batcher_free(&b); return -1; }
                global[(size_t)pos * o.world + r] = i;
            }
        }
        if (nbatches) nbatches[r] = nb;
        if (nb != batcher_batches(&b)) { batcher_free(&b); return -1; }
        total += pos;
        batcher_free(&b);
    }
    return total;
}

static void test_batcher(void)
{
    int32_t g[256], g2[256], g3[256];
    int nb[8];
    Dataset d = toy(12);
    BatcherOptions o = { .batch = 2, .world = 3, .shuffle = true, .seed = 11 };
    int tot = epoch_all(&d, o, 0, g, nb);
    int seen[64] = { 0 };
    for (int j = 0; j < tot; j++) seen[g[j]]++;
    bool once = tot == 12;
    for (int i = 0; i < 12; i++) once = once && seen[i] == 1;
    t_checkf(once && nb[0] == 2 && nb[2] == 2, "batcher: n % W == 0 covers every index once",
             "total %d", tot);
    bool shuffled = false;
    for (int j = 0; j < 12; j++) shuffled = shuffled || g[j] != j;
    t_check(shuffled, "batcher: shuffle permutes");
    epoch_all(&d, o, 0, g2, NULL);
    epoch_all(&d, o, 1, g3, NULL);
    t_check(!memcmp(g, g2, 12 * sizeof *g) && memcmp(g, g3, 12 * sizeof *g),
            "batcher: same seed+epoch same order, next epoch different");
    BatcherOptions o2 = o;
    o2.seed = 12;
    epoch_all(&d, o2, 0, g2, NULL);
    t_check(memcmp(g, g2, 12 * sizeof *g) != 0, "batcher: other seed, other order");
    dataset_free(&d);

    /* n = 10, W = 4: total 12, each rank 3; entries 10, 11 repeat 0, 1. */
    d = toy(10);
    o = (BatcherOptions){ .batch = 2, .world = 4, .shuffle = true, .seed = 2 };
    tot = epoch_all(&d, o, 3, g, nb);
    memset(seen, 0, sizeof seen);
    for (int j = 0; j < 10 && tot == 12; j++) seen[g[j]]++;
    bool perm = tot == 12;
    for (int i = 0; i < 10; i++) perm = perm && seen[i] == 1;
    t_checkf(perm && g[10] == g[0] && g[11] == g[1] && nb[0] == 2 && nb[3] == 2,
             "batcher: padding wraps to ceil(n/W)*W like DistributedSampler", "total %d", tot);
    /* W > n: wraps more than once */
    Dataset tiny = toy(2);
    o = (BatcherOptions){ .batch = 4, .world = 5, .shuffle = false, .seed = 2 };
    tot = epoch_all(&tiny, o, 0, g, NULL);
    t_check(tot == 5 && g[0] == 0 && g[1] == 1 && g[2] == 0 && g[3] == 1 && g[4] == 0,
            "batcher: world larger than n wraps repeatedly");
    dataset_free(&tiny);

    /* No shuffle, one rank: identity; drop_last vs partial last batch. */
    o = (BatcherOptions){ .batch = 3, .world = 1 };
    tot = epoch_all(&d, o, 0, g, nb);
    bool ident = tot == 10;
    for (int i = 0; i < 10 && ident; i++) ident = g[i] == i;
    t_check(ident && nb[0] == 4, "batcher: no shuffle = file order; last partial batch kept");
    Batcher b;
    float x[64];
    int32_t y[8];
    o.drop_last = true;
    batcher_init(&b, &d, &o);
    int k1 = batcher_next(&b, x, y), k2 = batcher_next(&b, x, y), k3 = batcher_next(&b, x, y),
        k4 = batcher_next(&b, x, y);
    t_check(batcher_batches(&b) == 3 && k1 == 3 && k2 == 3 && k3 == 3 && k4 == 0,
            "batcher: drop_last drops the partial batch");
    batcher_free(&b);

    /* Normalisation per feature. */
    d.mean[0] = 4.0f; d.std[0] = 2.0f; d.mean[1] = -1.0f; d.std[1] = 0.5f;
    o = (BatcherOptions){ .batch = 10, .world = 1, .normalize = true };
    batcher_init(&b, &d, &o);
    int k = batcher_next(&b, x, NULL);
    bool norm = k == 10;
    for (int i = 0; i < 10 && norm; i++)
        norm = x[2 * i] == ((float)i - 4.0f) / 2.0f && x[2 * i + 1] == (2.0f * i + 1.0f) / 0.5f;
    t_check(norm, "batcher: normalize = (x - mean) / std per feature");
    batcher_free(&b);
    dataset_free(&d);
}

/* out must be src cropped at offset (dy, dx) in [-4, 4] with zero padding,
 * then maybe flipped: find the (dy, dx, flip) that explains it. */
static int explain_aug(const float *src, const float *out, int c, int h, int w)
{
    for (int flip = 0; flip < 2; flip++)
        for (int dy = -4; dy <= 4; dy++)
            for (int dx = -4; dx <= 4; dx++) {
                bool ok = true;
                for (int ch = 0; ch < c && ok; ch++)
                    for (int y = 0; y < h && ok; y++)
                        for (int x = 0; x < w && ok; x++) {
                            int sy = y + dy, sx = (flip ? w - 1 - x : x) + dx;
                            float want = sy >= 0 && sy < h && sx >= 0 && sx < w
                                             ? src[(ch * h + sy) * w + sx] : 0.0f;
                            ok = out[(ch * h + y) * w + x] == want;
                        }
                if (ok) return flip;
            }
    return -1;
}

static void test_augment(void)
{
    Dataset d;
    memset(&d, 0, sizeof d);
    d.n = 40; d.c = 3; d.h = d.w = 32; d.classes = 10;
    size_t D = 3 * 32 * 32;
    d.x = ddl_alloc(d.n * D * sizeof(float));
    d.y = ddl_alloc(d.n * sizeof(int32_t));
    for (int i = 0; i < d.n; i++) {
        d.y[i] = i % 10;
        /* distinct nonzero values, exact in float; no shift maps one
         * example onto another (|dp| < 4096) */
        for (size_t p = 0; p < D; p++) d.x[i * D + p] = (float)(1 + p + (size_t)i * 4096) / 262144.0f;
    }
    for (int j = 0; j < DDL_DATA_MAXCH; j++) { d.mean[j] = 0; d.std[j] = 1; }
    BatcherOptions o = { .batch = 8, .world = 2, .rank = 1, .shuffle = true, .augment = true, .seed = 4 };
    float *x1 = malloc((8 * D + 16) * sizeof(float)), *x2 = malloc((8 * D + 16) * sizeof(float));
    int32_t y1[8], y2[8];
    Batcher b1, b2;
    batcher_init(&b1, &d, &o);
    batcher_init(&b2, &d, &o);
    bool same = true, explained = true, guard = true;
    int flips = 0, moved = 0, total = 0;
    for (int epoch = 0; epoch < 3; epoch++) {
        batcher_epoch(&b1, epoch);
        batcher_epoch(&b2, epoch);
        int k;
        for (;;) {
            t_poison(x1, 8 * D + 16);
            k = batcher_next(&b1, x1, y1);
            int k2 = batcher_next(&b2, x2, y2);
            if (k != k2) { same = false; break; }
            if (k == 0) break;
            same = same && !memcmp(x1, x2, k * D * sizeof(float)) && !memcmp(y1, y2, k * sizeof(int32_t));
            for (size_t i = (size_t)k * D; i < 8 * D + 16; i++) guard = guard && isnan(x1[i]);
            for (int j = 0; j < k; j++) {
                /* recover the example from a pixel that no crop loses */
                int idx = -1;
                for (int i = 0; i < d.n && idx < 0; i++)
                    if (explain_aug(d.x + (size_t)i * D, x1 + (size_t)j * D, 3, 32, 32) >= 0) idx = i;
                int fl = idx >= 0 ? explain_aug(d.x + (size_t)idx * D, x1 + (size_t)j * D, 3, 32, 32) : -1;
                explained = explained && idx >= 0 && d.y[idx] == y1[j];
                flips += fl == 1;
                moved += idx >= 0 && memcmp(d.x + (size_t)idx * D, x1 + (size_t)j * D, D * sizeof(float)) != 0;
                total++;
            }
        }
    }
    t_check(same, "augment: same options -> bit-identical batches");
    t_check(explained && guard && total == 60,
            "augment: each output is a pad-4 crop (+flip) of its example, shape kept");
    t_checkf(flips > total / 4 && flips < 3 * total / 4 && moved > total * 3 / 4,
             "augment: about half flipped, most shifted", "flips %d moved %d of %d", flips, moved, total);
    batcher_free(&b1);
    batcher_free(&b2);
    /* Another rank draws another augmentation stream. */
    o.rank = 0;
    batcher_init(&b1, &d, &o);
    o.rank = 1;
    batcher_init(&b2, &d, &o);
    batcher_next(&b1, x1, y1);
    batcher_next(&b2, x2, y2);
    t_check(memcmp(x1, x2, 8 * D * sizeof(float)) != 0, "augment: ranks use different streams");
    batcher_free(&b1);
    batcher_free(&b2);
    free(x1);
    free(x2);
    dataset_free(&d);
}

/* ---- real data (skipped when absent) -------------------------------------- */

/* Real-data root for `sub` only when `file` (or file.gz) is really there:
 * an empty folder (say, after a failed fetch) is not data. */
/* The data root that holds real `name` data (sub/file or sub/file.gz),
 * or NULL after a skip line that says what is missing. */
static const char *real_root(const char *name, const char *sub, const char *file)
{
    const char *root = t_data_root(sub);
    char path[1024], what[64];
    struct stat st;
    if (root) {
        snprintf(path, sizeof path, "%s/%s/%s", root, sub, file);
        if (stat(path, &st) == 0) return root;
        snprintf(path, sizeof path, "%s/%s/%s.gz", root, sub, file);
        if (stat(path, &st) == 0) return root;
    }
    snprintf(what, sizeof what, "real %s", name);
    snprintf(path, sizeof path, "no %s/%s[.gz] under DDL_DATA", sub, file);
    t_skip(what, path);
    return NULL;
}

/* dataset_load of a real training split, its time printed. */
static int load_real_train(const char *name, const DataOptions *o, Dataset *d, char *err)
{
    double t0 = ddl_now();
    int rc = dataset_load(name, SPLIT_TRAIN, o, d, err);
    if (rc == 0) printf("#   %s train (%s) loaded in %.3f s\n", name, d->source, ddl_now() - t0);
    return rc;
}

/* The real test split of `name`: 10000 examples. */
static void real_test_split(const char *name, const DataOptions *o)
{
    char err[DDL_ERRLEN], what[64];
    Dataset d;
    int rc = dataset_load(name, SPLIT_TEST, o, &d, err);
    snprintf(what, sizeof what, "real %s: test 10000", name);
    t_checkf(rc == 0 && d.n == 10000, what, "%s", err);
    if (rc == 0) dataset_free(&d);
}

static void channel_stats(const Dataset *d, int ch, double *mean, double *sd)
{
    size_t hw = (size_t)d->h * d->w;
    double s = 0, q = 0;
    for (int i = 0; i < d->n; i++) {
        const float *p = d->x + ((size_t)i * d->c + ch) * hw;
        for (size_t j = 0; j < hw; j++) { s += p[j]; q += (double)p[j] * p[j]; }
    }
    double cnt = (double)d->n * hw;
    *mean = s / cnt;
    *sd = sqrt(q / cnt - *mean * *mean);
}

static void test_real_mnist(void)
{
    const char *root = real_root("mnist", "mnist", "train-images-idx3-ubyte");
    if (!root) return;
    char err[DDL_ERRLEN];
    Dataset d;
    DataOptions o = { .root = root };
    int rc = load_real_train("mnist", &o, &d, err);
    if (!t_checkf(rc == 0 && d.n == 60000 && d.h == 28 && !d.synthetic, "real mnist: train loads",
                  "%s", err)) return;
    static const int want[10] = { 5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949 };
    int cnt[10] = { 0 };
    for (int i = 0; i < d.n; i++) cnt[d.y[i]]++;
    t_check(!memcmp(cnt, want, sizeof cnt), "real mnist: train label counts exact");
    double m, s;
    channel_stats(&d, 0, &m, &s);
    t_checkf(fabs(m - 0.1307) < 5e-4 && fabs(s - 0.3081) < 5e-4, "real mnist: pixel mean/std 0.1307/0.3081",
             "%.4f/%.4f", m, s);
    dataset_free(&d);
    real_test_split("mnist", &o);
}

static void test_real_fashion(void)
{
    const char *root = real_root("fashion-mnist", "fashion-mnist", "train-images-idx3-ubyte");
    if (!root) return;
    char err[DDL_ERRLEN];
    Dataset d;
    DataOptions o = { .root = root };
    int rc = dataset_load("fashion-mnist", SPLIT_TRAIN, &o, &d, err);
    if (!t_checkf(rc == 0 && d.n == 60000, "real fashion-mnist: train loads", "%s", err)) return;
    double m, s;
    channel_stats(&d, 0, &m, &s);
    t_checkf(fabs(m - 0.2860) < 5e-4 && fabs(s - 0.3530) < 5e-4,
             "real fashion-mnist: pixel mean/std 0.2860/0.3530", "%.4f/%.4f", m, s);
    dataset_free(&d);
}

static void test_real_cifar(void)
{
    const char *root = real_root("cifar10", "cifar-10-batches-bin", "data_batch_1.bin");
    if (!root) return;
    char err[DDL_ERRLEN], want[64];
    Dataset d;
    DataOptions o = { .root = root };
    int rc = load_real_train("cifar10", &o, &d, err);
    if (!t_checkf(rc == 0, "real cifar10: train loads", "%s", err)) return;
    snprintf(want, sizeof want, "%d of 5 training batches", d.files_found);
    t_checkf(d.n == 10000 * d.files_found && contains(d.source, want), "real cifar10: batches counted",
             "n %d found %d src '%s'", d.n, d.files_found, d.source);
    if (d.files_found == 1)
        t_check(contains(d.source, "1 of 5 training batches (data_batch_1.bin)"),
                "real cifar10: 1 of 5 batches (the shared subset)");
    const double ref[3] = { 125.3, 123.0, 113.9 };
    bool ok = true;
    double m[3], s;
    for (int c = 0; c < 3; c++) {
        channel_stats(&d, c, &m[c], &s);
        ok = ok && fabs(m[c] * 255 - ref[c]) < 1.5;
    }
    t_checkf(ok, "real cifar10: channel means about 125.3/123.0/113.9", "%.1f/%.1f/%.1f", m[0] * 255,
             m[1] * 255, m[2] * 255);
    dataset_free(&d);
    real_test_split("cifar10", &o);
}

static void test_real_sdss(void)
{
    const char *root = real_root("sdss", "sdss", "skyserver_dr14.csv");
    if (!root) return;
    char err[DDL_ERRLEN];
    Dataset tr, te, tr2, tr3;
    DataOptions o = { .root = root, .seed = 1 };
    int rc = load_real_train("sdss", &o, &tr, err);
    int rc2 = dataset_load("sdss", SPLIT_TEST, &o, &te, err);
    if (!t_checkf(rc == 0 && rc2 == 0, "real sdss: loads", "%s", err)) return;
    int c[2][3] = { { 0 } };
    for (int i = 0; i < tr.n; i++) c[0][tr.y[i]]++;
    for (int i = 0; i < te.n; i++) c[1][te.y[i]]++;
    t_checkf(tr.n + te.n == 10000 && c[0][0] + c[1][0] == 4998 && c[0][1] + c[1][1] == 4152 &&
             c[0][2] + c[1][2] == 850, "real sdss: 10000 rows, GALAXY 4998 STAR 4152 QSO 850",
             "n %d+%d", tr.n, te.n);
    bool strat = true;
    for (int k = 0; k < 3; k++) {
        double want = 0.8 * (c[0][k] + c[1][k]);
        strat = strat && fabs(c[0][k] - want) <= 1.0;
    }
    t_checkf(strat && tr.n == 8000, "real sdss: split stratified 80/20 within one example per class",
             "train %d %d %d", c[0][0], c[0][1], c[0][2]);
    rc = dataset_load("sdss", SPLIT_TRAIN, &o, &tr2, err);
    o.seed = 2;
    rc2 = dataset_load("sdss", SPLIT_TRAIN, &o, &tr3, err);
    t_check(rc == 0 && rc2 == 0 && tr2.n == tr.n && !memcmp(tr.x, tr2.x, (size_t)tr.n * 10 * sizeof(float)) &&
            !memcmp(tr.y, tr2.y, (size_t)tr.n * sizeof(int32_t)) && tr3.n == tr.n &&
            memcmp(tr.x, tr3.x, (size_t)tr.n * 10 * sizeof(float)) != 0,
            "real sdss: split deterministic per seed, differs across seeds");
    t_check(!memcmp(tr.mean, te.mean, sizeof tr.mean) && !memcmp(tr.std, te.std, sizeof tr.std) &&
            tr.std[9] > 0.0f, "real sdss: test split carries the train constants");
    const char *why = sdss_train_constants(&tr, &te);
    t_checkf(!why[0], "real sdss: constants are the train split's mean/std, not the whole file's", "%s", why);
    dataset_free(&tr); dataset_free(&te); dataset_free(&tr2); dataset_free(&tr3);
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "%s/ddl-test-data.XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmp_root)) { perror("mkdtemp"); return 2; }
    test_idx();
    test_mnist_folder();
    test_cifar();
    test_sdss();
    test_fallback();
    test_synthetic();
    test_batcher();
    test_augment();
    test_real_mnist();
    test_real_fashion();
    test_real_cifar();
    test_real_sdss();
    rm_tree(tmp_root);
    return t_done();
}
