/* dataset.c - dataset_load(): find the files, pick the reader, or fall back.
 *
 * The one rule that matters: synthetic data replaces real data only when
 * NONE of a dataset's files exist (and the caller allowed it). A partial or
 * corrupt set is an error, so a broken download can never quietly turn a
 * lab into a run on made-up data. */
#include "dataset.h"

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
    if (opt && opt->root && *opt->root) return opt->root;
    const char *env = getenv("DDL_DATA");
    return env && *env ? env : "datasets";
}

/* dir/name[suffix] into path; false if it does not fit (the root length is
 * checked up front, so this only guards against surprises). */
static bool join(char *path, size_t cap, const char *dir, const char *name, const char *suffix)
{
    int r = snprintf(path, cap, "%s/%s%s", dir, name, suffix);
    return r >= 0 && (size_t)r < cap;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir/base, else dir/base.gz; false (path = the plain name) if neither. */
static bool find_idx(const char *dir, const char *base, char *path, size_t cap)
{
    if (join(path, cap, dir, base, "") && is_file(path)) return true;
    if (join(path, cap, dir, base, ".gz") && is_file(path)) return true;
    join(path, cap, dir, base, "");
    return false;
}

/* How many of the dataset's files (both splits) exist. */
static int files_present(Kind k, const char *dir)
{
    char path[1024];
    int n = 0;
    if (k == DS_MNIST || k == DS_FASHION) {
        for (int s = 0; s < 2; s++)
            for (int j = 0; j < 2; j++) n += find_idx(dir, idx_base[s][j], path, sizeof path);
    } else if (k == DS_CIFAR) {
        static const char *const names[] = { "data_batch_1.bin", "data_batch_2.bin",
            "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin" };
        for (int b = 0; b < 6; b++) n += join(path, sizeof path, dir, names[b], "") && is_file(path);
    } else {
        n += join(path, sizeof path, dir, SDSS_FILE, "") && is_file(path);
    }
    return n;
}

static int load_idx(const char *dir, Split split, Dataset *out, char err[DDL_ERRLEN])
{
    char ipath[1024], lpath[1024];
    bool hi = find_idx(dir, idx_base[split][0], ipath, sizeof ipath);
    bool hl = find_idx(dir, idx_base[split][1], lpath, sizeof lpath);
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

/* DataOptions.cifar_partial, or DDL_CIFAR_PARTIAL=1 for programs that
 * do not set it (the labs). */
static bool cifar_partial(const DataOptions *opt)
{
    const char *env = getenv("DDL_CIFAR_PARTIAL");
    return opt->cifar_partial || (env && !strcmp(env, "1"));
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
    if (!force && files_present((Kind)k, dir) == 0) {
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
        else if (k == DS_CIFAR) rc = cifar_read_batches(dir, split, cifar_partial(&opt), out, err);
        else {
            char path[1100];
            join(path, sizeof path, dir, SDSS_FILE, "");
            rc = sdss_read_csv(path, split, opt.seed, out, err);
        }
        if (rc) return -1;
        ddl_strlcpy(out->name, kinds[k].name, sizeof out->name);
        set_constants((Kind)k, out);
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

int dataset_load_for_run(const char *name, Split split, int limit, uint64_t seed, bool allow_synthetic,
                         bool force_synthetic, Dataset *out)
{
    char err[DDL_ERRLEN];
    DataOptions dopt = { .root = NULL, .allow_synthetic = allow_synthetic, .force_synthetic = force_synthetic,
                         .seed = seed, .limit = limit, .synthetic_n = 0 };
    if (dataset_load(name, split, &dopt, out, err) != 0) {
        ddl_error("%s", err);
        return -1;
    }
    return 0;
}
