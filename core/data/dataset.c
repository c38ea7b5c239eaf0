/* dataset.c - dataset_load(): find the files, pick the reader, or fall back.
 *
 * The one rule that matters: synthetic data replaces real data only when
 * NONE of a dataset's files exist (and the caller allowed it). A partial or
 * corrupt set is an error, so a broken download can never quietly turn a
 * lab into a run on made-up data. */
#include "dataset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef enum { DS_MNIST, DS_FASHION, DS_CIFAR, DS_SDSS } Kind;

static const struct { const char *name, *dir; } kinds[] = {
    [DS_MNIST] = { "mnist", "mnist" },
    [DS_FASHION] = { "fashion-mnist", "fashion-mnist" },
    [DS_CIFAR] = { "cifar10", "cifar-10-batches-bin" },
    [DS_SDSS] = { "sdss", "sdss" },
};

#define SDSS_FILE "skyserver_dr14.csv"
static const char *const idx_base[2][2] = {
    { "train-images-idx3-ubyte", "train-labels-idx1-ubyte" },
    { "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte" },
};

const char *dataset_root(const DataOptions *opt)
{
    return opt && opt->root && *opt->root ? opt->root : "datasets";
}

/* dir/name[suffix] into path; false if it does not fit (the root length is
 * checked up front, so this only guards against surprises). */
static bool join(char *path, size_t cap, const char *dir, const char *name, const char *suffix)
{
    int r = snprintf(path, cap, "%s/%s%s", dir, name, suffix);
    return r >= 0 && (size_t)r < cap;
}

/* What is at a dataset file's path: nothing (the file is absent), a
 * regular file, or something that cannot be one (a directory, a dangling
 * symbolic link, a FIFO...). The last is an error naming the path: counting
 * it as absent would quietly train on synthetic data instead. */
typedef enum { PATH_ABSENT, PATH_FILE, PATH_BAD } PathKind;

static PathKind probe(const char *path, char err[DDL_ERRLEN])
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return PATH_ABSENT;
        ddl_errf(err, "%s: cannot look at it: %s", path, strerror(errno));
        return PATH_BAD;
    }
    if (stat(path, &st) != 0) {
        ddl_errf(err, "%s: a symbolic link to nothing (%s): remove it, or point it at the data file", path,
                 strerror(errno));
        return PATH_BAD;
    }
    if (!S_ISREG(st.st_mode)) {
        ddl_errf(err, "%s: %s, not a data file: remove it, or put the file there (datasets/fetch.sh)", path,
                 ddl_file_kind(st.st_mode));
        return PATH_BAD;
    }
    return PATH_FILE;
}

/* dir/base, else dir/base.gz: 1 found (path set), 0 neither (path = the
 * plain name), -1 something unusable at one of them (err says which). */
static int find_idx(const char *dir, const char *base, char *path, size_t cap, char err[DDL_ERRLEN])
{
    static const char *const suffix[] = { "", ".gz" };
    for (int i = 0; i < 2; i++) {
        if (!join(path, cap, dir, base, suffix[i])) return ddl_errf(err, "%s/%s: path too long", dir, base);
        PathKind k = probe(path, err);
        if (k == PATH_BAD) return -1;
        if (k == PATH_FILE) return 1;
    }
    join(path, cap, dir, base, "");
    return 0;
}

static const char *const cifar_names[] = { "data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                                           "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin" };

/* The names of one split's files that are there (space-separated into
 * names); -1 when one of them is unusable. */
static int split_files(Kind k, const char *dir, Split split, char *names, size_t cap, char err[DDL_ERRLEN])
{
    char path[1024];
    int n = 0;
    names[0] = '\0';
    for (int j = 0; j < 6; j++) {
        const char *name;
        int found;
        if (k == DS_MNIST || k == DS_FASHION) {
            if (j >= 2) break;
            found = find_idx(dir, idx_base[split][j], path, sizeof path, err);
            name = strrchr(path, '/') + 1;
        } else {
            bool mine = k == DS_CIFAR ? (j == 5) == (split == SPLIT_TEST) : j == 0;
            if (!mine) continue;
            name = k == DS_CIFAR ? cifar_names[j] : SDSS_FILE;
            PathKind pk = join(path, sizeof path, dir, name, "") ? probe(path, err) : PATH_BAD;
            found = pk == PATH_BAD ? -1 : pk == PATH_FILE;
        }
        if (found < 0) return -1;
        if (!found) continue;
        size_t len = strlen(names);
        snprintf(names + len, cap - len, "%s%s", len ? " " : "", name);
        n++;
    }
    return n;
}

/* How many of the dataset's files (both splits) exist; -1 when one of
 * them is unusable (err names it). */
static int files_present(Kind k, const char *dir, char err[DDL_ERRLEN])
{
    char names[256];
    int train = split_files(k, dir, SPLIT_TRAIN, names, sizeof names, err);
    if (train < 0) return -1;
    if (k == DS_SDSS) return train; /* one file holds both splits */
    int test = split_files(k, dir, SPLIT_TEST, names, sizeof names, err);
    return test < 0 ? -1 : train + test;
}

static int load_idx(const char *dir, Split split, Dataset *out, char err[DDL_ERRLEN])
{
    char ipath[1024], lpath[1024];
    int hi = find_idx(dir, idx_base[split][0], ipath, sizeof ipath, err);
    int hl = hi < 0 ? -1 : find_idx(dir, idx_base[split][1], lpath, sizeof lpath, err);
    if (hi < 0 || hl < 0) return -1;
    if (!hi || !hl) {
        ddl_errf(err, "%s: missing %s[.gz] (partial download? re-run datasets/fetch.sh)",
                 dir, hi ? idx_base[split][1] : idx_base[split][0]);
        return -1;
    }
    Dataset lab;
    if (idx_read_images(ipath, out, err)) return -1;
    if (idx_read_labels(lpath, &lab, err)) {
        dataset_free(out);
        return -1;
    }
    if (lab.n != out->n) {
        ddl_errf(err, "%s: %d labels, but %s holds %d images", lpath, lab.n,
                 strrchr(ipath, '/') + 1, out->n);
        dataset_free(&lab);
        dataset_free(out);
        return -1;
    }
    out->y = lab.y;
    out->files_found = 2;
    size_t len = strlen(out->source); /* the images path */
    if (len + 4 < sizeof out->source)
        ddl_strlcpy(out->source + len, " + ", sizeof out->source - len);
    len = strlen(out->source);
    ddl_strlcpy(out->source + len, strrchr(lpath, '/') + 1, sizeof out->source - len);
    return 0;
}

static void set_constants(Kind k, Dataset *d)
{
    static const float cifar_mean[3] = { 0.4914f, 0.4822f, 0.4465f };
    static const float cifar_std[3] = { 0.2470f, 0.2435f, 0.2616f };
    if (k == DS_MNIST) { d->mean[0] = 0.1307f; d->std[0] = 0.3081f; }
    if (k == DS_FASHION) { d->mean[0] = 0.2860f; d->std[0] = 0.3530f; }
    if (k == DS_CIFAR)
        for (int c = 0; c < 3; c++) { d->mean[c] = cifar_mean[c]; d->std[c] = cifar_std[c]; }
    /* SDSS: fitted on its train split by the reader. */
}

static int load_private(const char *name, Split split, const DataOptions *opt_in, Dataset *out,
                        char err[DDL_ERRLEN])
{
    DataOptions opt = { 0 };
    if (opt_in) opt = *opt_in;
    memset(out, 0, sizeof *out);
    err[0] = '\0';
    if (!name) name = "";
    bool force = opt.force_synthetic;
    const char *like = name;
    if (strncmp(name, "synthetic-", 10) == 0) { like = name + 10; force = true; }
    int k = -1;
    for (int j = 0; j < (int)(sizeof kinds / sizeof kinds[0]); j++)
        if (strcmp(like, kinds[j].name) == 0) k = j;
    if (k < 0) {
        ddl_errf(err, "unknown dataset '%s': expected mnist, fashion-mnist, "
                 "cifar10 or sdss (optionally prefixed synthetic-)", name);
        return -1;
    }
    if (split != SPLIT_TRAIN && split != SPLIT_TEST) {
        ddl_errf(err, "%s: bad split %d", name, (int)split);
        return -1;
    }

    char dir[1024];
    const char *root = dataset_root(&opt);
    if (strlen(root) > 900 || !join(dir, sizeof dir, root, kinds[k].dir, ""))
        return ddl_errf(err, "%s: data root path too long (%zu chars)", like, strlen(root));
    int present = force ? 0 : files_present((Kind)k, dir, err);
    if (present < 0) return -1;
    if (!force && present == 0) {
        if (!opt.allow_synthetic) {
            ddl_errf(err, "%s: no files in %s; datasets/fetch.sh %s downloads "
                     "them (or set DDL_DATA, or allow synthetic data)", like, dir, like);
            return -1;
        }
        force = true;
    }

    if (force) {
        int n = opt.synthetic_n > 0 ? opt.synthetic_n : synthetic_default_n(like, split);
        /* A smaller n is a prefix of the full stream: generate only that. */
        if (opt.limit > 0 && opt.limit < n) n = opt.limit;
        synthetic_generate(like, split, n, opt.seed, out);
    } else {
        int rc;
        if (k == DS_MNIST || k == DS_FASHION) rc = load_idx(dir, split, out, err);
        else if (k == DS_CIFAR) rc = cifar_read_batches(dir, split, opt.cifar_partial, out, err);
        else {
            char path[1100];
            join(path, sizeof path, dir, SDSS_FILE, "");
            rc = sdss_read_csv(path, split, opt.seed, out, err);
        }
        if (rc) return -1;
        ddl_strlcpy(out->name, kinds[k].name, sizeof out->name);
        set_constants((Kind)k, out);
        if (out->n < 1) { /* e.g. CIFAR batch files of 0 records, accepted as partial */
            ddl_errf(err, "%.300s: no examples in the %s split", out->source, split == SPLIT_TRAIN ? "train" : "test");
            dataset_free(out);
            return -1;
        }
        ddl_strlcpy(out->dir, dir, sizeof out->dir);
        if (split_files((Kind)k, dir, split, out->files, sizeof out->files, err) < 0) {
            dataset_free(out);
            return -1;
        }
    }

    if (opt.limit > 0 && opt.limit < out->n) {
        size_t len = strlen(out->source);
        snprintf(out->source + len, sizeof out->source - len, " (first %d of %d)", opt.limit,
                 out->n);
        out->n = opt.limit;
    }
    return 0;
}

#ifdef DDL_SMPI
#include <mpi.h>
/* Simulated runs (SimGrid SMPI) hold every rank in one process: 80 ranks
 * each loading MNIST would keep 80 copies (15 GiB). A dataset is
 * read-only once loaded (the Batcher copies what it changes), so the first
 * rank to load a given (name, split, root, options) keeps it in SMPI's
 * process-wide call cache and the other ranks share its arrays, which live
 * until the simulation ends (dataset_free leaves them alone). Failures are
 * not cached: every rank reports its own error. */
static const char *const SHARED_LOAD = "ddl_dataset_load", *const SHARED_ARRAY = "ddl_dataset_array";

int dataset_load(const char *name, Split split, const DataOptions *opt, Dataset *out, char err[DDL_ERRLEN])
{
    char key[1400];
    snprintf(key, sizeof key, "%s|%d|%s|%d|%d|%llu|%d|%d|%d", name ? name : "", (int)split, dataset_root(opt),
             opt && opt->allow_synthetic, opt && opt->force_synthetic,
             (unsigned long long)(opt ? opt->seed : 0), opt ? opt->limit : 0, opt ? opt->synthetic_n : 0,
             opt && opt->cifar_partial);
    if (smpi_shared_known_call(SHARED_LOAD, key)) {
        *out = *(const Dataset *)smpi_shared_get_call(SHARED_LOAD, key);
        err[0] = '\0';
        return 0;
    }
    if (load_private(name, split, opt, out, err) != 0) return -1;
    Dataset *keep = malloc(sizeof *keep);
    if (!keep) return 0; /* not shared then: this rank keeps its own copy */
    *keep = *out;
    char ptr[32];
    snprintf(ptr, sizeof ptr, "%p", (void *)out->x);
    smpi_shared_set_call(SHARED_LOAD, key, keep);
    smpi_shared_set_call(SHARED_ARRAY, ptr, keep);
    return 0;
}

static bool shared_arrays(const Dataset *d)
{
    char ptr[32];
    snprintf(ptr, sizeof ptr, "%p", (void *)d->x);
    return d->x && smpi_shared_known_call(SHARED_ARRAY, ptr);
}
#else
int dataset_load(const char *name, Split split, const DataOptions *opt, Dataset *out, char err[DDL_ERRLEN])
{
    return load_private(name, split, opt, out, err);
}

static bool shared_arrays(const Dataset *d) { (void)d; return false; }
#endif

void dataset_free(Dataset *d)
{
    if (!d) return;
    if (shared_arrays(d)) { /* simulated ranks' shared copy: see dataset_load */
        memset(d, 0, sizeof *d);
        return;
    }
    ddl_free(d->x);
    ddl_free(d->y);
    memset(d, 0, sizeof *d);
}

int dataset_check_pair(const Dataset *train, const Dataset *test, char err[DDL_ERRLEN])
{
    if (train->c == test->c && train->h == test->h && train->w == test->w && train->classes == test->classes)
        return 0;
    /* The file names first (a long data root would cut them off), then
     * where they are. */
    return ddl_errf(err, "training data %dx%dx%d, %d classes (%.100s) and test data %dx%dx%d, %d classes (%.100s) "
                         "differ: both splits must hold one kind of example (in %.150s)",
                    train->c, train->h, train->w, train->classes, train->files[0] ? train->files : train->source,
                    test->c, test->h, test->w, test->classes, test->files[0] ? test->files : test->source,
                    test->files[0] ? test->dir : "");
}

int dataset_load_for_run(const char *name, Split split, const DataOptions *opt, Dataset *out)
{
    char err[DDL_ERRLEN];
    if (dataset_load(name, split, opt, out, err) != 0) {
        ddl_error("%s", err);
        return -1;
    }
    return 0;
}
