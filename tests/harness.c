/* harness.c - see harness.h. */
#include "harness.h"
#include "util/common.h"
#include "util/rng.h"
#include "driver/environment.h"
#include "comm/comm.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int n_fail;

static void vreport(bool cond, const char *name_fmt, va_list ap, const char *why)
{
    char name[512];
    vsnprintf(name, sizeof name, name_fmt, ap);
    if (cond)
        printf("ok - %s\n", name);
    else
        printf("not ok - %s%s%s\n", name, why ? ": " : "", why ? why : "");
    fflush(stdout);
}

bool t_check(bool cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(cond, fmt, ap, NULL);
    va_end(ap);
    if (!cond) n_fail++;
    return cond;
}

bool t_checkf(bool cond, const char *name, const char *why_fmt, ...)
{
    char why[512] = "";
    if (!cond) {
        va_list ap;
        va_start(ap, why_fmt);
        vsnprintf(why, sizeof why, why_fmt, ap);
        va_end(ap);
        n_fail++;
        printf("not ok - %s: %s\n", name, why);
    } else {
        printf("ok - %s\n", name);
    }
    fflush(stdout);
    return cond;
}

void t_skip(const char *name, const char *why)
{
    printf("skip - %s: %s\n", name, why);
    fflush(stdout);
}

void t_left_out(const char *name, const char *why)
{
    printf("# left out - %s: %s\n", name, why);
    fflush(stdout);
}

bool t_check_all(bool cond, const char *fmt, ...)
{
    int local = cond ? 1 : 0, all = local, rank = 0;
    MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!all) n_fail++;
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        vreport(all != 0, fmt, ap, all ? NULL : "failed on at least one rank");
        va_end(ap);
    }
    return all != 0;
}

int t_done(void) { return n_fail ? 1 : 0; }

int t_mpi_comm_start(int *argc, char ***argv, struct Comm *c, int *rank)
{
    int size;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ddl_set_rank(*rank, size);
    comm_init(c, MPI_COMM_WORLD);
    return size;
}

int t_mpi_comm_done(struct Comm *c)
{
    comm_free(c);
    int rc = t_done();
    MPI_Finalize();
    return rc;
}

static char scratch[512];

const char *t_scratch(const char *prefix)
{
    if (scratch[0]) return scratch;
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    if (!mkdtemp(scratch)) {
        printf("not ok - mkdtemp %s: %s\n", scratch, strerror(errno));
        exit(2);
    }
    return scratch;
}

const char *t_at(const char *rel)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", scratch, rel);
    return buf[k];
}

void t_scratch_remove(void)
{
    if (!scratch[0]) return;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf -- '%s'", scratch);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", scratch);
    scratch[0] = 0;
}

float t_hash_value(int k, size_t i)
{
    uint64_t z = 0x9E3779B97F4A7C15ULL * (uint64_t)(k + 1) + 0xD1B54A32D192ED03ULL * (uint64_t)i;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (float)(z >> 40) * 0x1p-23f - 1.0f;
}

bool t_quick(const char *left_fmt, ...)
{
    const char *tier = getenv("DDL_TEST_TIER");
    if (!tier || strcmp(tier, "quick") != 0) return false;
    int inited = 0, rank = 0;
    MPI_Initialized(&inited);
    if (inited) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && left_fmt) {
        va_list ap;
        va_start(ap, left_fmt);
        printf("# quick tier: ");
        vprintf(left_fmt, ap);
        printf(" (make test-full runs it)\n");
        fflush(stdout);
        va_end(ap);
    }
    return true;
}

bool t_sanitized(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return true;
#else
    return false;
#endif
}

void t_reexec_one_blas_thread(char **argv, const char *name)
{
    const char *omp = getenv("OMP_NUM_THREADS");
    if (omp && !strcmp(omp, "1")) return;
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "%s: re-exec: %s\n", name, strerror(errno));
}

double t_rel_err(const float *a, const float *b, size_t n, double floor)
{
    double maxd = 0, maxb = floor;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (isnan(d)) return INFINITY;  /* a poisoned/NaN output is a failure */
        if (d > maxd) maxd = d;
        if (fabs((double)b[i]) > maxb) maxb = fabs((double)b[i]);
    }
    return maxd / maxb;
}

double t_max_abs_diff(const float *a, const float *b, size_t n)
{
    double maxd = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (isnan(d)) return INFINITY;
        if (d > maxd) maxd = d;
    }
    return maxd;
}

void t_poison(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = NAN;
}

const char *t_fixture(const char *name)
{
    static char path[1024];
    const char *root = getenv("DDL_TEST_ROOT");
    snprintf(path, sizeof path, "%s/tests/fixtures/%s", root ? root : ".", name);
    return path;
}

const char *t_data_root(const char *sub)
{
    const char *root = getenv("DDL_DATA");
    if (!root || !*root) root = "datasets";
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", root, sub);
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return root;
}

void t_random_batch(uint64_t seed, const char *name, int step, Shape in, int classes, int n, float *x, int32_t *y)
{
    Rng r = rng_make2(seed, name, (uint64_t)step);
    size_t per = shape_numel(in);
    for (size_t i = 0; i < per * (size_t)n; i++) x[i] = rng_normal(&r);
    for (int i = 0; i < n; i++) y[i] = (int32_t)rng_below(&r, (uint32_t)classes);
}

ConvAlgo t_conv = CONV_ALGO_AUTO;

void t_side_init(TSide *s, const char *model, float width, float dropout, int batch, const Backend *be,
                 const float *x, const int32_t *y)
{
    ModelConfig cfg = model_config_default(model, (Shape){ 0, 0, 0 }, 0);
    char err[256];
    cfg.width = width;
    cfg.dropout = dropout;
    cfg.backend = be;
    cfg.conv = t_conv;
    if (model_build(&s->m, model, &cfg, batch, 11, err) != 0) ddl_die("%s", err);
    SgdConfig sc = { 0.05f, 0.9f, 5e-4f, false };
    trainer_init(&s->t, &s->m, &sc);
    size_t nx = shape_numel(s->m.tensors[s->m.input].shape) * (size_t)batch;
    s->x = be->alloc(sizeof(float) * nx);
    s->y = be->alloc(sizeof(int32_t) * (size_t)batch);
    be->to_device(s->x, x, sizeof(float) * nx);
    be->to_device(s->y, y, sizeof(int32_t) * (size_t)batch);
}

void t_side_free(TSide *s)
{
    const Backend *be = s->m.be;
    be->release(s->x);
    be->release(s->y);
    trainer_free(&s->t);
    model_free(&s->m);
}

void t_zoo_batch(const char *model, int batch, uint64_t seed, const char *name, int step, float **x, int32_t **y)
{
    ModelConfig cfg = model_config_default(model, (Shape){ 0, 0, 0 }, 0);
    *x = ddl_alloc(sizeof(float) * shape_numel(cfg.input) * (size_t)batch);
    *y = ddl_alloc(sizeof(int32_t) * (size_t)batch);
    t_random_batch(seed, name, step, cfg.input, cfg.classes, batch, *x, *y);
}

void t_build_eval(Model *m, const char *name, Shape in, int classes, float width, int batch, uint64_t seed)
{
    char err[256];
    ModelConfig cfg = model_config_default(name, in, classes);
    if (width > 0.0f) cfg.width = width;
    cfg.conv = t_conv;
    if (model_build(m, name, &cfg, batch, seed, err) != 0) ddl_die("%s", err);
    model_set_training(m, false);
}

/* Every test program starts at the edge ddlab's programs start at: the
 * DDL_ variables meant for the layers below (the emulated GPU's strict
 * mode, what ddlab's launchers say) are read and handed down before main,
 * as driver_start does (tests/emu_check.sh runs the CUDA tests in strict
 * mode this way). */
__attribute__((constructor)) static void t_edge(void)
{
    if (driver_env_apply() != 0) exit(2);
}

void t_dist_init(TDist *d, struct Comm *c, const SyncConfig *cfg, const char *model, Shape in, int classes,
                 float width, int micro, int global)
{
    SgdConfig sc = { 0.05f, 0.9f, 5e-4f, false };
    t_build_eval(&d->m, model, in, classes, width, micro, 3);
    trainer_init(&d->t, &d->m, &sc);
    char err[256];
    if (sync_init(&d->s, cfg, &d->t, c, err) != 0) ddl_die("%s", err);
    d->per = shape_numel(in);
    d->x = ddl_alloc(sizeof(float) * d->per * (size_t)global);
    d->y = ddl_alloc(sizeof(int32_t) * (size_t)global);
}

void t_dist_free(TDist *d)
{
    ddl_free(d->x);
    ddl_free(d->y);
    sync_free(&d->s);
    trainer_free(&d->t);
    model_free(&d->m);
}
