/* test_data_checks.c - what the loaders refuse before a run trains on the
 * wrong thing (core/data/dataset.c, identity.c, sdss.c):
 *
 *   - a test split whose examples are not the training split's shape
 *     (28x28 training images, 14x14 test images: the model is built for
 *     the first, and read the second past its end), either way round;
 *   - a dataset file that is a directory or a dangling symbolic link
 *     (counted as absent, it made the run quietly synthetic);
 *   - SDSS CSVs: a UTF-8 byte order mark is accepted, a column named twice
 *     is refused, a file too small for a test split is refused naming it;
 *   - the data identity a checkpoint records tells synthetic from real
 *     data and sees one changed byte in a file.
 * Everything is written into a mkdtemp directory; no data set is needed. */
#include "harness.h"
#include "data/dataset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *root; /* the scratch folder */

static void put32(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8); p[3] = (unsigned char)v;
}

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n)) { perror(path); exit(2); }
    fclose(f);
}

/* An IDX image file of n side x side images and its label file. */
static void write_idx(const char *dir, const char *images, const char *labels, unsigned n, unsigned side)
{
    size_t pay = (size_t)n * side * side;
    unsigned char *b = malloc(16 + pay);
    put32(b, 0x803); put32(b + 4, n); put32(b + 8, side); put32(b + 12, side);
    for (size_t i = 0; i < pay; i++) b[16 + i] = (unsigned char)(i * 7);
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, images);
    write_file(path, b, 16 + pay);
    put32(b, 0x801); put32(b + 4, n);
    for (unsigned i = 0; i < n; i++) b[8 + i] = (unsigned char)(i % 10);
    snprintf(path, sizeof path, "%s/%s", dir, labels);
    write_file(path, b, 8 + n);
    free(b);
}

/* An MNIST folder under root/name with training images of train_side and
 * test images of test_side pixels. */
static void write_mnist(const char *name, unsigned train_side, unsigned test_side)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    mkdir(dir, 0700);
    snprintf(dir, sizeof dir, "%s/%s/mnist", root, name);
    mkdir(dir, 0700);
    write_idx(dir, "train-images-idx3-ubyte", "train-labels-idx1-ubyte", 20, train_side);
    write_idx(dir, "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", 10, test_side);
}

/* Both splits of mnist under root/name, then the pair check. */
static int load_pair(const char *name, Dataset *tr, Dataset *te, char err[DDL_ERRLEN])
{
    char data_root[600];
    snprintf(data_root, sizeof data_root, "%s/%s", root, name);
    DataOptions o = { .root = data_root, .seed = 1 };
    memset(tr, 0, sizeof *tr);
    memset(te, 0, sizeof *te);
    if (dataset_load("mnist", SPLIT_TRAIN, &o, tr, err) || dataset_load("mnist", SPLIT_TEST, &o, te, err)) return -2;
    return dataset_check_pair(tr, te, err);
}

static void test_pair(void)
{
    static const struct { const char *name; unsigned train, test; } cases[] = {
        { "big-train", 28, 14 }, { "big-test", 14, 28 },
    };
    for (int i = 0; i < 2; i++) {
        write_mnist(cases[i].name, cases[i].train, cases[i].test);
        Dataset tr, te;
        char err[DDL_ERRLEN] = "", name[160];
        int rc = load_pair(cases[i].name, &tr, &te, err);
        char want_train[32], want_test[32];
        snprintf(want_train, sizeof want_train, "1x%ux%u", cases[i].train, cases[i].train);
        snprintf(want_test, sizeof want_test, "1x%ux%u", cases[i].test, cases[i].test);
        snprintf(name, sizeof name, "train %ux%u with test %ux%u is refused, naming both files and shapes",
                 cases[i].train, cases[i].train, cases[i].test, cases[i].test);
        t_checkf(rc == -1 && strstr(err, "train-images-idx3-ubyte") && strstr(err, "t10k-images-idx3-ubyte") &&
                     strstr(err, want_train) && strstr(err, want_test),
                 name, "rc %d: %s", rc, err);
        dataset_free(&tr);
        dataset_free(&te);
    }
    write_mnist("same", 28, 28);
    Dataset tr, te;
    char err[DDL_ERRLEN] = "";
    int rc = load_pair("same", &tr, &te, err);
    t_checkf(rc == 0, "train and test of one shape pass the pair check", "rc %d: %s", rc, err);
    dataset_free(&tr);
    dataset_free(&te);
}

/* A dataset path holding something that is no file: refused by name, with
 * synthetic data allowed or not (it is neither absent nor data). */
static void test_unusable_paths(void)
{
    mkdir(t_at("dir-root"), 0700);
    mkdir(t_at("dir-root/mnist"), 0700);
    mkdir(t_at("dir-root/mnist/train-images-idx3-ubyte"), 0700);
    mkdir(t_at("link-root"), 0700);
    mkdir(t_at("link-root/cifar-10-batches-bin"), 0700);
    if (symlink(t_at("nothing-here"), t_at("link-root/cifar-10-batches-bin/test_batch.bin")) != 0) perror("symlink");
    static const struct { const char *root, *dataset, *path, *what; } cases[] = {
        { "dir-root", "mnist", "mnist/train-images-idx3-ubyte", "a directory" },
        { "link-root", "cifar10", "cifar-10-batches-bin/test_batch.bin", "a symbolic link to nothing" },
    };
    for (int i = 0; i < 2; i++)
        for (int allow = 0; allow < 2; allow++) {
            DataOptions o = { .root = t_at(cases[i].root), .allow_synthetic = allow, .seed = 1 };
            Dataset d;
            char err[DDL_ERRLEN] = "", name[200];
            int rc = dataset_load(cases[i].dataset, SPLIT_TRAIN, &o, &d, err);
            snprintf(name, sizeof name, "%s: a dataset file that is %s is refused, naming it (synthetic data %s)",
                     cases[i].dataset, cases[i].what, allow ? "allowed" : "not allowed");
            t_checkf(rc == -1 && !d.x && strstr(err, cases[i].path) && strstr(err, cases[i].what) &&
                         !strstr(err, "no files"),
                     name, "rc %d synthetic %d: %s", rc, d.synthetic, err);
            if (rc == 0) dataset_free(&d);
        }
}

/* A SkyServer CSV: header, then rows of `per_class` rows of each class. */
static size_t sdss_csv(char *buf, size_t cap, const char *header, int per_class)
{
    size_t n = (size_t)snprintf(buf, cap, "%s\n", header);
    static const char *const cls[3] = { "GALAXY", "STAR", "QSO" };
    for (int r = 0; r < per_class * 3 && n < cap; r++)
        n += (size_t)snprintf(buf + n, cap - n, "%s,%d,%.2f,%.2f,17.0,16.5,16.2,%.4f\n", cls[r % 3], r,
                              19.0 + r * 0.1, 17.5 + r * 0.05, 0.001 * (r + 1));
    return n;
}

static void test_sdss_header(void)
{
    char buf[8192], err[DDL_ERRLEN];
    Dataset d;
    /* the byte order mark before "class", the first column */
    memcpy(buf, "\xEF\xBB\xBF", 3);
    size_t n = 3 + sdss_csv(buf + 3, sizeof buf - 3, "class,objid,u,g,r,i,z,redshift", 5);
    int rc = sdss_read_buffer(buf, n, "bom.csv", SPLIT_TRAIN, 1, &d, err);
    t_checkf(rc == 0 && d.n == 12, "sdss: a UTF-8 byte order mark before the header is accepted",
             "rc %d n %d: %s", rc, d.n, rc ? err : "");
    if (rc == 0) dataset_free(&d);
    /* refused at the header, before any row is read */
    n = sdss_csv(buf, sizeof buf, "class,objid,u,g,r,i,z,redshift,G", 5);
    rc = sdss_read_buffer(buf, n, "dup.csv", SPLIT_TRAIN, 1, &d, err);
    t_checkf(rc == -1 && strstr(err, "dup.csv:1") && strstr(err, "twice"),
             "sdss: a column named twice ('g' and 'G') is refused", "rc %d: %s", rc, err);
    n = sdss_csv(buf, sizeof buf, "class,objid,u,g,r,i,z,redshift", 0);
    n += (size_t)snprintf(buf + n, sizeof buf - n, "STAR,1,19.1,17.5,17.0,16.5,16.2,0.001\n");
    write_file(t_at("one-row.csv"), buf, n);
    for (int s = 0; s < 2; s++) {
        rc = sdss_read_csv(t_at("one-row.csv"), (Split)s, 1, &d, err);
        t_checkf(rc == -1 && strstr(err, t_at("one-row.csv")) && strstr(err, "empty"),
                 s ? "sdss: a 1-row CSV is refused for the test split, naming the file"
                   : "sdss: a 1-row CSV is refused for the train split too, naming the file",
                 "rc %d: %s", rc, err);
    }
}

static void test_identity(void)
{
    char a[2048], b[2048], err[DDL_ERRLEN];
    Dataset syn;
    synthetic_generate("mnist", SPLIT_TRAIN, 20, 1, &syn);
    int rs = dataset_identity(&syn, a, sizeof a, err);
    Dataset tr, te;
    int rp = load_pair("same", &tr, &te, err);
    int rr = dataset_identity(&tr, b, sizeof b, err);
    t_checkf(rs == 0 && rp == 0 && rr == 0 && strstr(a, "synthetic") && strstr(b, "real") &&
                 strstr(b, "train-images-idx3-ubyte") && strcmp(a, b),
             "identity: synthetic and real data of one shape are told apart", "%s | %s", a, b);
    /* one byte of the training images changed (size kept) */
    FILE *f = fopen(t_at("same/mnist/train-images-idx3-ubyte"), "r+b");
    if (f) {
        fseek(f, 100, SEEK_SET);
        fputc(0xAB, f);
        fclose(f);
    }
    char c[2048];
    int rc = dataset_identity(&tr, c, sizeof c, err);
    t_checkf(rc == 0 && strcmp(b, c), "identity: one changed byte in a data file changes it", "%s", c);
    unlink(t_at("same/mnist/train-images-idx3-ubyte"));
    rc = dataset_identity(&tr, c, sizeof c, err);
    t_checkf(rc == -1 && strstr(err, "train-images-idx3-ubyte"), "identity: a data file gone since loading is an error",
             "rc %d: %s", rc, err);
    dataset_free(&syn);
    dataset_free(&tr);
    dataset_free(&te);
}

int main(void)
{
    root = t_scratch("ddl-data-checks");
    test_pair();
    test_unusable_paths();
    test_sdss_header();
    test_identity();
    t_scratch_remove();
    return t_done();
}
