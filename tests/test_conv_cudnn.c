/* test_conv_cudnn.c - the cuDNN convolution path (core/conv/path_cudnn.c,
 * core/cuda/conv_cudnn.cu) against the reference im2col + GEMM on the CPU.
 *
 * Everywhere (no GPU needed):
 *   - --conv cudnn is a value; the CPU and the emulated GPU cannot run it,
 *     nor a CUDA build without cuDNN, and conv_algo_check says why and
 *     names the values that can; every other value runs on the CPU;
 *     where cuDNN cannot run, a model under --conv cudnn takes no cuDNN
 *     layer (the rule decides, as for any forced path that cannot run).
 *   - The path's plumbing, on a stand-in: the CPU backend with a ConvCudnn
 *     table of plain double-precision loops (standin_*) in place of cuDNN.
 *     One-layer models of several shapes (3x3 stride 1 and 2, 1x1 stride
 *     2, 7x7 stride 2, 5x5, grouped, depthwise, odd planes, a batch below
 *     the sized one) take the cuDNN path and give the reference's output,
 *     input gradient (overwritten and accumulated), weight and bias
 *     gradients (TOL_STANDIN); every call got a workspace at least as big
 *     as the table asked for, which the stand-in writes end to end (ASan
 *     sees an overrun in the sanitizer pass); the conv line says cuDNN.
 *     On such a device (device memory) auto picks no cuDNN layer, as no
 *     rule line for cuDNN is measured yet (core/conv/pick.c), and --conv
 *     reference calls it nowhere.
 * On a GPU with cuDNN (else one skip line says why):
 *   - the same shapes by cuDNN itself against the CPU's im2col model
 *     (TOL_CUDNN), twice: the same bits both times (deterministic
 *     algorithms), and no new descriptor set the second time (plans are
 *     kept per shape and batch, not made per call). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend/registry.h"
#include "conv/cudnn_kernels.h"
#include "util/common.h"
#include "harness.h"
#include "layers/layers.h"
#include "model/model.h"
#include "util/rng.h"
#ifdef DDL_HAVE_CUDA
#include "cuda/cuda_runtime_probe.h"
#endif

/* The stand-in sums in double: only the reference's float rounding. */
#define TOL_STANDIN 1e-5
/* cuDNN's algorithms include FFT and Winograd ones, which round more than
 * a GEMM (ddlab's Winograd F(4x4) is held to the same 1e-4). */
#define TOL_CUDNN 1e-4

typedef struct CaseShape {
    int n, max_batch, C, K, H, W, k, stride, pad, groups;
} CaseShape;

static const CaseShape SHAPES[] = {
    { 2, 2, 3, 8, 9, 9, 3, 1, 1, 1 },      { 3, 3, 16, 32, 16, 16, 3, 2, 1, 1 },  { 2, 2, 32, 64, 8, 8, 1, 2, 0, 1 },
    { 1, 1, 3, 16, 32, 32, 7, 2, 3, 1 },   { 2, 4, 8, 12, 7, 5, 3, 1, 1, 2 },     { 3, 3, 16, 16, 10, 10, 3, 2, 1, 16 },
    { 4, 4, 24, 24, 6, 6, 1, 1, 0, 1 },    { 2, 2, 5, 7, 11, 13, 5, 1, 2, 1 },    { 1, 3, 64, 64, 4, 4, 3, 1, 1, 1 },
};
enum { NSHAPES = sizeof SHAPES / sizeof SHAPES[0] };

static int out_side(int n, int k, int stride, int pad) { return (n + 2 * pad - k) / stride + 1; }

static ConvShape conv_shape(const CaseShape *c)
{
    return (ConvShape){ .cin = c->C, .h = c->H, .w = c->W, .cout = c->K, .oh = out_side(c->H, c->k, c->stride, c->pad),
                        .ow = out_side(c->W, c->k, c->stride, c->pad), .k = c->k, .stride = c->stride,
                        .pad = c->pad, .groups = c->groups };
}

/* ---- the stand-in: cuDNN's contract in plain loops on host memory ---- */

static struct {
    long calls, small_ws;
} standin;

static size_t standin_workspace(const ConvShape *s, int max_batch)
{
    return 64 + sizeof(float) * (size_t)max_batch * (size_t)s->cout;
}

/* The workspace each call gets: at least what the table asked for, all of
 * it writable. */
static void standin_take(const ConvShape *s, int n, int max_batch, void *ws, size_t ws_bytes)
{
    standin.calls++;
    size_t need = standin_workspace(s, max_batch);
    if (!ws || ws_bytes < need || n < 1 || n > max_batch) standin.small_ws++;
    else memset(ws, 0x5a, need);
}

/* x[i][c][y][x] position of output (oy, ox), tap (a, b); -1 in the padding. */
static long tap(const ConvShape *s, int i, int c, int oy, int ox, int a, int b)
{
    int y = oy * s->stride + a - s->pad, x = ox * s->stride + b - s->pad;
    if (y < 0 || y >= s->h || x < 0 || x >= s->w) return -1;
    return (((long)i * s->cin + c) * s->h + y) * s->w + x;
}

/* Every (image, out channel, out position, in channel of its group, tap):
 * visit(x index, w index, y index), the loops the three calls share. */
typedef void (*Visit)(void *ctx, long xi, long wi, long yi);
static void each_product(const ConvShape *s, int n, Visit visit, void *ctx)
{
    int cg = s->cin / s->groups, kg = s->cout / s->groups;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < s->cout; k++)
            for (int oy = 0; oy < s->oh; oy++)
                for (int ox = 0; ox < s->ow; ox++) {
                    long yi = (((long)i * s->cout + k) * s->oh + oy) * s->ow + ox;
                    for (int c = 0; c < cg; c++)
                        for (int a = 0; a < s->k; a++)
                            for (int b = 0; b < s->k; b++) {
                                long xi = tap(s, i, k / kg * cg + c, oy, ox, a, b);
                                if (xi >= 0) visit(ctx, xi, (((long)k * cg + c) * s->k + a) * s->k + b, yi);
                            }
                }
}

typedef struct Sums {
    const float *x, *w, *dy;
    double *acc;
} Sums;
static void add_y(void *ctx, long xi, long wi, long yi)
{
    Sums *t = ctx;
    t->acc[yi] += (double)t->x[xi] * t->w[wi];
}
static void add_dx(void *ctx, long xi, long wi, long yi)
{
    Sums *t = ctx;
    t->acc[xi] += (double)t->dy[yi] * t->w[wi];
}
static void add_dw(void *ctx, long xi, long wi, long yi)
{
    Sums *t = ctx;
    t->acc[wi] += (double)t->dy[yi] * t->x[xi];
}

static void sum_into(const ConvShape *s, int n, Visit v, Sums *t, size_t count, float *out, bool acc)
{
    t->acc = ddl_alloc(sizeof(double) * count);
    memset(t->acc, 0, sizeof(double) * count);
    each_product(s, n, v, t);
    for (size_t i = 0; i < count; i++) out[i] = (float)(t->acc[i] + (acc ? out[i] : 0.0));
    ddl_free(t->acc);
}

static size_t x_count(const ConvShape *s, int n) { return (size_t)n * s->cin * s->h * s->w; }
static size_t y_count(const ConvShape *s, int n) { return (size_t)n * s->cout * s->oh * s->ow; }
static size_t w_count(const ConvShape *s) { return (size_t)s->cout * (s->cin / s->groups) * s->k * s->k; }

static void standin_forward(const ConvShape *s, int n, int max_batch, const float *x, const float *w, float *y,
                            void *ws, size_t ws_bytes)
{
    standin_take(s, n, max_batch, ws, ws_bytes);
    Sums t = { .x = x, .w = w };
    sum_into(s, n, add_y, &t, y_count(s, n), y, false);
}

static void standin_data(const ConvShape *s, int n, int max_batch, const float *dy, const float *w, float *dx,
                         bool acc, void *ws, size_t ws_bytes)
{
    standin_take(s, n, max_batch, ws, ws_bytes);
    Sums t = { .w = w, .dy = dy };
    sum_into(s, n, add_dx, &t, x_count(s, n), dx, acc);
}

static void standin_filter(const ConvShape *s, int n, int max_batch, const float *x, const float *dy, float *dw,
                           void *ws, size_t ws_bytes)
{
    standin_take(s, n, max_batch, ws, ws_bytes);
    Sums t = { .x = x, .dy = dy };
    sum_into(s, n, add_dw, &t, w_count(s), dw, true);
}

static const char *standin_version(void) { return "a stand-in for cuDNN (tests/test_conv_cudnn.c)"; }
static long standin_plans(void) { return 0; }

static const ConvCudnn STANDIN = { NULL,           standin_workspace, standin_forward, standin_data,
                                   standin_filter, standin_version,   standin_plans };
static const void *standin_paths[CONV_PATHS_MAX];
static ConvKernels standin_conv;
static Backend standin_host, standin_device;

static void make_standin_backends(void)
{
    standin_paths[conv_path_named("cudnn")] = &STANDIN;
    standin_conv = conv_kernels_cpu;
    standin_conv.instead = standin_paths;
    standin_host = ddl_backend_cpu;
    standin_host.conv = &standin_conv;
    standin_device = standin_host;
    standin_device.host_memory = false; /* the device rule (pick.c's DEVICE_RULE) */
}

/* ---- one conv layer, forward and backward, on any backend ---- */

typedef struct Result {
    float *y, *dx, *dxacc, *grads;
    size_t ny, nx, np;
    ConvPath path;
} Result;

static float *random_array(Rng *r, size_t n)
{
    float *a = ddl_alloc(sizeof(float) * n);
    for (size_t i = 0; i < n; i++) a[i] = rng_uniform_range(r, -1.0f, 1.0f);
    return a;
}

static float *to_host(const Model *m, const float *src, size_t n)
{
    float *a = ddl_alloc(sizeof(float) * n);
    m->be->to_host(a, src, sizeof(float) * n);
    return a;
}

/* The layer of c on backend be under algo: its results on the host (the
 * weights, inputs and output gradient drawn from seed, the same on every
 * backend). */
static Result run(const CaseShape *c, const Backend *be, ConvAlgo algo, uint64_t seed)
{
    Model m;
    model_begin(&m, "conv_cudnn", (Shape){ c->C, c->H, c->W });
    m.be = be;
    m.conv_algo = algo;
    mb_conv2d(&m, "conv", m.input, c->K, c->k, c->stride, c->pad, c->groups, true);
    model_finalize(&m, c->max_batch, 5);
    Layer *l = &m.layers[0];
    ConvShape s = conv_shape(c);
    Result r = { .nx = x_count(&s, c->n), .ny = y_count(&s, c->n), .np = m.nparams, .path = l->conv_path };
    Rng g = rng_make(seed, "test_conv_cudnn");
    float *x = random_array(&g, r.nx), *dy = random_array(&g, r.ny), *dx0 = random_array(&g, r.nx);
    m.batch = c->n;
    be->to_device(model_tensor(&m, l->in), x, sizeof(float) * r.nx);
    layer_forward(&m, l);
    r.y = to_host(&m, model_tensor(&m, l->out), r.ny);
    be->to_device(model_tensor_grad(&m, l->out), dy, sizeof(float) * r.ny);
    layer_backward(&m, l, true, false);
    r.dx = to_host(&m, model_tensor_grad(&m, l->in), r.nx);
    r.grads = to_host(&m, m.grads, r.np);
    be->to_device(model_tensor_grad(&m, l->in), dx0, sizeof(float) * r.nx);
    layer_backward(&m, l, true, true);
    r.dxacc = to_host(&m, model_tensor_grad(&m, l->in), r.nx);
    ddl_free(x), ddl_free(dy), ddl_free(dx0);
    model_free(&m);
    return r;
}

static void result_free(Result *r) { ddl_free(r->y), ddl_free(r->dx), ddl_free(r->dxacc), ddl_free(r->grads); }

static void case_name(const CaseShape *c, char *buf, size_t cap)
{
    snprintf(buf, cap, "n%d (sized for %d) %dx%dx%d -> %d, %dx%d stride %d pad %d groups %d", c->n, c->max_batch, c->C,
             c->H, c->W, c->K, c->k, c->k, c->stride, c->pad, c->groups);
}

/* got (the cuDNN path on its backend) against want (im2col on the CPU). */
static void compare(const char *who, const CaseShape *c, const Result *got, const Result *want, double tol)
{
    char name[160], what[320];
    case_name(c, name, sizeof name);
    ConvShape s = conv_shape(c);
    size_t nw = w_count(&s);
    double ey = t_rel_err(got->y, want->y, got->ny, 1e-30), edx = t_rel_err(got->dx, want->dx, got->nx, 1e-30);
    double eacc = t_rel_err(got->dxacc, want->dxacc, got->nx, 1e-30);
    double edw = t_rel_err(got->grads, want->grads, nw, 1e-30);
    double edb = t_rel_err(got->grads + nw, want->grads + nw, got->np - nw, 1e-30);
    printf("# %s %s: y %.2e, dx %.2e, dx acc %.2e, dw %.2e, db %.2e (relative to the largest value)\n", who, name, ey,
           edx, eacc, edw, edb);
    snprintf(what, sizeof what, "%s %s: the layer took the cuDNN path", who, name);
    t_checkf(got->path == conv_path_named("cudnn") && want->path == CONV_PATH_IM2COL, what, "paths %d and %d",
             (int)got->path, (int)want->path);
    snprintf(what, sizeof what, "%s %s: output, input gradient (and acc), weight and bias gradients within %.0e of "
                                "the CPU's im2col", who, name, tol);
    t_checkf(got->np == want->np && ey < tol && edx < tol && eacc < tol && edw < tol && edb < tol, what,
             "y %.3g, dx %.3g, dx acc %.3g, dw %.3g, db %.3g", ey, edx, eacc, edw, edb);
}

/* ---- everywhere: the value, the refusals, the fallback ---- */

static void check_refusals(void)
{
    ConvAlgo a;
    t_check(conv_algo_parse("cudnn", &a) == 0 && a == conv_algo_named("cudnn") && !strcmp(conv_algo_name(a), "cudnn") &&
                strstr(conv_algo_choices(), "|cudnn"),
            "conv cudnn: --conv cudnn is a value, listed among the choices");
    char why[512] = "";
    int rc = conv_algo_check(conv_algo_named("cudnn"), &conv_kernels_cpu, why, sizeof why);
    const char *list = strstr(why, "the values that run here: ");
    t_checkf(rc != 0 && strstr(why, "--conv cudnn: cuDNN runs on a GPU") && strstr(why, "not on the CPU") && list &&
                 !strcmp(list, "the values that run here: auto, reference, im2col, winograd, winograd4, winofused, "
                               "direct, pointwise"),
             "conv cudnn: refused on the CPU, naming the values that run there", "rc %d: '%s'", rc, why);
    int others = 0;
    for (int i = 0; i < conv_algo_count(); i++)
        if (i != conv_algo_named("cudnn"))
            others += conv_algo_check((ConvAlgo)i, &conv_kernels_cpu, why, sizeof why) != 0;
    t_checkf(others == 0, "conv cudnn: every other --conv value runs on the CPU", "%d refused", others);
    const Backend *emu = backend_named("cuda-emu");
    if (!emu) {
        t_skip("conv cudnn: refused on the emulated GPU", "this build has no emulated GPU");
    } else {
        rc = conv_algo_check(conv_algo_named("cudnn"), emu->conv, why, sizeof why);
        t_checkf(rc != 0 && !conv_cudnn_version(emu->conv) && strstr(why, "the emulated GPU") && strstr(why, "auto, "),
                 "conv cudnn: refused on the emulated GPU, saying why", "rc %d: '%s'", rc, why);
    }
    const Backend *cuda = backend_named("cuda");
    if (!cuda) {
        t_skip("conv cudnn: the CUDA backend's answer", "this build has no CUDA");
    } else if (!conv_cudnn_version(cuda->conv)) {
        rc = conv_algo_check(conv_algo_named("cudnn"), cuda->conv, why, sizeof why);
        t_checkf(rc != 0 && strstr(why, "this build has no cuDNN"),
                 "conv cudnn: a CUDA build without cuDNN refuses it, saying so", "rc %d: '%s'", rc, why);
    } else {
        const char *v = conv_cudnn_version(cuda->conv);
        t_checkf(conv_algo_check(conv_algo_named("cudnn"), cuda->conv, why, sizeof why) == 0 &&
                     !strncmp(v, "cuDNN ", 6),
                 "conv cudnn: the CUDA backend of a build with cuDNN offers it", "'%s', version '%s'", why, v);
    }
}

/* Where cuDNN cannot run, a model under --conv cudnn (built without the
 * driver's check) takes the rule's paths. */
static void check_fallback(void)
{
    const Backend *bes[2] = { &ddl_backend_cpu, backend_named("cuda-emu") };
    for (int b = 0; b < 2; b++) {
        if (!bes[b]) continue;
        Result r = run(&SHAPES[1], bes[b], conv_algo_named("cudnn"), 1);
        t_checkf(r.path != conv_path_named("cudnn"), "conv cudnn: without cuDNN a forced layer takes the rule's path",
                 "%s: took cuDNN", bes[b]->name);
        result_free(&r);
    }
}

/* ---- the stand-in ---- */

static void check_standin(void)
{
    double worst = 0.0;
    for (int i = 0; i < NSHAPES; i++) {
        memset(&standin, 0, sizeof standin);
        Result got = run(&SHAPES[i], &standin_host, conv_algo_named("cudnn"), 40 + (uint64_t)i);
        Result want = run(&SHAPES[i], &ddl_backend_cpu, CONV_ALGO_REFERENCE, 40 + (uint64_t)i);
        compare("stand-in", &SHAPES[i], &got, &want, TOL_STANDIN);
        char name[160];
        case_name(&SHAPES[i], name, sizeof name);
        t_checkf(standin.calls == 5 && standin.small_ws == 0,
                 "stand-in: every call got the workspace it asked for, within the batch it was sized for",
                 "%s: %ld calls (want 5: forward, and twice filter and data), %ld short", name, standin.calls,
                 standin.small_ws);
        worst = fmax(worst, t_rel_err(got.y, want.y, got.ny, 1e-30));
        result_free(&got), result_free(&want);
    }
    printf("# stand-in, worst output error over the shapes: %.2e\n", worst);
}

/* The conv line, auto on a device with cuDNN, --conv reference. */
static void check_picks(void)
{
    static const struct {
        const Backend *be;
        const char *algo;
        bool want_cudnn;
        const char *what;
    } CASES[] = {
        { &standin_device, "cudnn", true, "--conv cudnn on a device with cuDNN: every layer by cuDNN" },
        { &standin_device, "auto", false,
          "auto on a device with cuDNN picks no cuDNN layer (no rule line for it is measured)" },
        { &standin_device, "reference", false, "--conv reference on a device with cuDNN: no cuDNN layer" },
        { &standin_host, "auto", false, "auto on host memory with cuDNN: no cuDNN layer" },
    };
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        Model m;
        model_begin(&m, "conv_cudnn picks", (Shape){ 3, 32, 32 });
        m.be = CASES[c].be;
        m.conv_algo = conv_algo_named(CASES[c].algo);
        /* every kind of layer: 3x3 stride 1 and 2, 7x7, 5x5, grouped, depthwise, 1x1 stride 1 and 2 */
        int t = mb_conv2d(&m, "3x3", m.input, 16, 3, 1, 1, 1, false);
        t = mb_conv2d(&m, "3x3 stride 2", t, 16, 3, 2, 1, 1, false);
        t = mb_conv2d(&m, "7x7 stride 2", t, 16, 7, 2, 3, 1, false);
        t = mb_conv2d(&m, "5x5", t, 16, 5, 1, 2, 1, false);
        t = mb_conv2d(&m, "grouped", t, 16, 3, 1, 1, 2, false);
        t = mb_conv2d(&m, "depthwise", t, 16, 3, 1, 1, 16, false);
        t = mb_conv2d(&m, "1x1", t, 32, 1, 1, 0, 1, false);
        mb_conv2d(&m, "1x1 stride 2", t, 32, 1, 2, 0, 1, false);
        model_finalize(&m, 2, 1);
        int n = 0;
        for (int i = 0; i < m.nlayers; i++) n += m.layers[i].conv_path == conv_path_named("cudnn");
        char line[384], want[96];
        conv2d_algo_summary(&m, line, sizeof line);
        snprintf(want, sizeof want, "%d convolutions: all %d cuDNN;", m.nlayers, m.nlayers);
        bool ok = CASES[c].want_cudnn ? n == m.nlayers && !strncmp(line, want, strlen(want)) : n == 0;
        t_checkf(ok, CASES[c].what, "%d of %d layers by cuDNN; '%s'", n, m.nlayers, line);
        model_free(&m);
    }
}

/* ---- a GPU with cuDNN ---- */

/* The cuDNN-capable GPU backend, or NULL after saying why there is none. */
static const Backend *gpu_with_cudnn(void)
{
    const char *name = "cuda cudnn against the CPU reference";
    const Backend *bes[8], *cuda = NULL;
    int nb = backend_usable(bes, 8);
    for (int b = 0; b < nb; b++)
        if (!strcmp(bes[b]->name, "cuda")) cuda = bes[b];
    char why[256] = "this build has no CUDA";
#ifdef DDL_HAVE_CUDA
    char desc[160];
    if (!cuda && ddl_cuda_probe(0, desc, sizeof desc, why, sizeof why) == 0)
        snprintf(why, sizeof why, "%s answers, but backend_usable() does not list it", desc);
#endif
    if (!cuda) {
        char text[320];
        snprintf(text, sizeof text, "no usable GPU (%s)", why);
        t_skip(name, text);
        return NULL;
    }
    if (conv_algo_check(conv_algo_named("cudnn"), cuda->conv, why, sizeof why) != 0) {
        t_skip(name, why);
        return NULL;
    }
    return cuda;
}

static bool same_bits(const Result *a, const Result *b)
{
    return !memcmp(a->y, b->y, sizeof(float) * a->ny) && !memcmp(a->dx, b->dx, sizeof(float) * a->nx) &&
           !memcmp(a->dxacc, b->dxacc, sizeof(float) * a->nx) && !memcmp(a->grads, b->grads, sizeof(float) * a->np);
}

/* The CUDA backend's cuDNN table (there: cuDNN runs). */
static const ConvCudnn *cudnn_of(const Backend *cuda)
{
    return conv_path_kernels(cuda->conv, conv_path_named("cudnn"));
}

static void check_gpu(const Backend *cuda)
{
    printf("# %s\n", conv_cudnn_version(cuda->conv));
    for (int i = 0; i < NSHAPES; i++) {
        char name[160];
        case_name(&SHAPES[i], name, sizeof name);
        Result got = run(&SHAPES[i], cuda, conv_algo_named("cudnn"), 70 + (uint64_t)i);
        long plans = cudnn_of(cuda)->plans_made();
        Result again = run(&SHAPES[i], cuda, conv_algo_named("cudnn"), 70 + (uint64_t)i);
        Result want = run(&SHAPES[i], &ddl_backend_cpu, CONV_ALGO_REFERENCE, 70 + (uint64_t)i);
        compare("cuda cudnn", &SHAPES[i], &got, &want, TOL_CUDNN);
        t_checkf(same_bits(&got, &again), "cuda cudnn: a second run gives the same bits (deterministic algorithms)",
                 "%s: they differ", name);
        t_checkf(cudnn_of(cuda)->plans_made() == plans && plans > 0,
                 "cuda cudnn: the second run made no new descriptors (kept per shape and batch)",
                 "%s: %ld plans after the first run, %ld after the second", name, plans,
                 cudnn_of(cuda)->plans_made());
        result_free(&got), result_free(&again), result_free(&want);
    }
}

int main(void)
{
    make_standin_backends();
    check_refusals();
    check_fallback();
    check_standin();
    check_picks();
    const Backend *cuda = gpu_with_cudnn();
    if (cuda) check_gpu(cuda);
    return t_done();
}
