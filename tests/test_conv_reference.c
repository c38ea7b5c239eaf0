/* test_conv_reference.c - --conv reference runs every convolution by
 * im2col + GEMM and every activation on its own, and says so.
 *
 * A CPU backend whose convolution kernels and fused activations count
 * their calls runs a training step (forward and backward) of resnet18 and
 * mobilenetv2 (3x3 stride 1 and 2, 1x1 stride 1 and 2, depthwise: every
 * kind of layer a fast path takes). It also offers cuDNN (a table whose
 * calls are counted and write zeros: no real cuDNN on a CPU), as a GPU
 * with cuDNN would. Under --conv reference: no kernel of a fast path ran,
 * no cuDNN call, im2col did, no batch norm applied an activation, no add
 * a ReLU; every layer's path is im2col + GEMM; the summary line of the
 * outputs says "all N im2col + GEMM; no fused activation (--conv
 * reference)". Under auto (the default) the same step runs fast paths and
 * fused activations, and the line names them; under --conv cudnn every
 * convolution calls cuDNN: the counters can see what the first half rules
 * out. (tests/test_conv_cudnn.c checks the cuDNN path's results.) */
#include <stdio.h>
#include <string.h>

#include "util/bn_act.h"
#include "conv/cudnn_kernels.h"
#include "conv/depthwise_kernels.h"
#include "conv/direct_kernels.h"
#include "conv/kernels_cpu.h"
#include "conv/pointwise_kernels.h"
#include "conv/winofused_kernels.h"
#include "conv/winograd_kernels.h"
#include "cpu/kernels.h"
#include "harness.h"
#include "layers/layers.h"
#include "model/model.h"
#include "train/train.h"

/* Calls of the reference's kernels, of any fast path's, and of fused
 * activations. */
static struct {
    long reference, fast, fused, cudnn;
} calls;

static void c_im2col(const float *x, int nb, int C, int H, int W, int k, int s, int p, int OH, int OW, float *col)
{
    calls.reference++;
    im2col_cpu(x, nb, C, H, W, k, s, p, OH, OW, col);
}
/* Each fast path's first kernel forward and backward. */
static void c_wino_input(const float *x, int nb, int C, int H, int W, float *v)
{
    calls.fast++;
    winograd_input_cpu(x, nb, C, H, W, v);
}
/* The filter transforms share one signature: one counted wrapper each. */
#define COUNTED_FILTER(name, kernel)                                                                                   \
    static void name(const float *w, int K, int C, bool flip, float *u)                                                \
    {                                                                                                                  \
        calls.fast++;                                                                                                  \
        kernel(w, K, C, flip, u);                                                                                      \
    }
COUNTED_FILTER(c_wino_filter, winograd_filter_cpu)
COUNTED_FILTER(c_wino4_filter, winograd4_filter_cpu)
COUNTED_FILTER(c_fused_filter, winofused_filter_cpu)
COUNTED_FILTER(c_pw_filter, pointwise_filter_cpu)
static void c_direct_pad(const float *x, int nb, int C, int H, int W, int s, float *xq)
{
    calls.fast++;
    direct_pad_cpu(x, nb, C, H, W, s, xq);
}
static void c_pw_filter_grad(const float *x, const float *dy, int n, int C, int K, int P, float *dw)
{
    calls.fast++;
    pointwise_filter_grad_cpu(x, dy, n, C, K, P, dw);
}
static void c_dw_forward(const float *x, const float *w, const float *b, float *y, int n, int C, int H, int W, int k,
                         int s, int p, int OH, int OW)
{
    calls.fast++;
    depthwise_forward_cpu(x, w, b, y, n, C, H, W, k, s, p, OH, OW);
}
static void c_dw_backward(const float *x, const float *dy, const float *w, float *dw, float *dx, int n, int C, int H,
                          int W, int k, int s, int p, int OH, int OW, bool acc)
{
    calls.fast++;
    depthwise_backward_cpu(x, dy, w, dw, dx, n, C, H, W, k, s, p, OH, OW, acc);
}
static void c_bn_train(const float *x, float *y, const float *g, const float *b, int n, int c, int p, float eps,
                       float mom, float *rm, float *rv, float *sm, float *si, int act)
{
    calls.fused += act != BN_ACT_NONE;
    batchnorm_forward_train_cpu(x, y, g, b, n, c, p, eps, mom, rm, rv, sm, si, act);
}
static void c_add_relu(const float *a, const float *b, float *y, size_t count)
{
    calls.fused++;
    add_relu_cpu(a, b, y, count);
}

/* cuDNN's calls, counted; their results are zeros (only the counts are
 * read). */
static size_t c_cudnn_workspace(const ConvShape *s, int max_batch) { return (size_t)max_batch * (size_t)s->cout; }
static void c_cudnn_forward(const ConvShape *s, int n, int max_batch, const float *x, const float *w, float *y,
                            void *ws, size_t ws_bytes)
{
    calls.cudnn++;
    memset(y, 0, sizeof(float) * (size_t)n * s->cout * s->oh * s->ow);
}
static void c_cudnn_data(const ConvShape *s, int n, int max_batch, const float *dy, const float *w, float *dx,
                         bool acc, void *ws, size_t ws_bytes)
{
    calls.cudnn++;
    if (!acc) memset(dx, 0, sizeof(float) * (size_t)n * s->cin * s->h * s->w);
}
static void c_cudnn_filter(const ConvShape *s, int n, int max_batch, const float *x, const float *dy, float *dw,
                           void *ws, size_t ws_bytes)
{
    calls.cudnn++;
}
static const char *c_cudnn_version(void) { return "a counting stand-in for cuDNN"; }
static long c_cudnn_plans(void) { return 0; }
static const ConvCudnn counting_cudnn = { NULL,           c_cudnn_workspace, c_cudnn_forward, c_cudnn_data,
                                          c_cudnn_filter, c_cudnn_version,   c_cudnn_plans };

/* The CPU's kernel tables with one kernel of each fast path counted, put
 * in place of the paths' own (ConvKernels.instead). */
static WinogradKernels counting_wino, counting_wino4;
static DirectKernels counting_direct;
static WinofusedKernels counting_fused;
static PointwiseKernels counting_pw;
static DepthwiseKernels counting_dw;
static const void *counting_paths[CONV_PATHS_MAX];
static ConvKernels counting_conv;
static Backend counting;

static void make_counting_backend(void)
{
    counting_wino = winograd_kernels_cpu;
    counting_wino.input = c_wino_input;
    counting_wino.grad_input = c_wino_input;
    counting_wino.filter = c_wino_filter;
    counting_wino4 = winograd4_kernels_cpu;
    counting_wino4.filter = c_wino4_filter;
    counting_wino4.grad_input = c_wino_input;
    counting_direct = direct_kernels_cpu;
    counting_direct.pad = c_direct_pad;
    counting_fused = winofused_kernels_cpu;
    counting_fused.filter = c_fused_filter;
    counting_fused.grad_pad = c_direct_pad;
    counting_pw = pointwise_kernels_cpu;
    counting_pw.filter = c_pw_filter;
    counting_pw.filter_grad = c_pw_filter_grad;
    counting_dw = depthwise_kernels_cpu;
    counting_dw.forward = c_dw_forward;
    counting_dw.backward = c_dw_backward;
    counting_paths[conv_path_named("winograd")] = &counting_wino;
    counting_paths[conv_path_named("winograd4")] = &counting_wino4;
    counting_paths[conv_path_named("direct")] = &counting_direct;
    counting_paths[conv_path_named("winofused")] = &counting_fused;
    counting_paths[conv_path_named("pointwise")] = &counting_pw;
    counting_paths[conv_path_named("depthwise")] = &counting_dw;
    counting_paths[conv_path_named("cudnn")] = &counting_cudnn;
    counting_conv = conv_kernels_cpu;
    counting_conv.im2col = c_im2col;
    counting_conv.instead = counting_paths;
    counting = ddl_backend_cpu;
    counting.conv = &counting_conv;
    counting.batchnorm_forward_train = c_bn_train;
    counting.add_relu = c_add_relu;
}

/* One training step of model under algo on the counting backend; the
 * summary line into line. */
static void step(const char *model, float width, ConvAlgo algo, char *line, size_t cap, bool *all_im2col)
{
    enum { BATCH = 2 };
    Model m;
    ModelConfig cfg = model_config_default(model, (Shape){ 0, 0, 0 }, 0);
    cfg.width = width;
    cfg.backend = &counting;
    cfg.conv = algo;
    char err[256];
    if (model_build(&m, model, &cfg, BATCH, 3, err) != 0) ddl_die("%s", err);
    float *x;
    int32_t *y;
    t_zoo_batch(model, BATCH, 5, "conv_reference", 0, &x, &y);
    Trainer t;
    SgdConfig sc = { 0.05f, 0.9f, 0.0f, false };
    trainer_init(&t, &m, &sc);
    memset(&calls, 0, sizeof calls);
    int correct = 0;
    trainer_forward_backward(&t, x, y, BATCH, &correct);
    *all_im2col = true;
    for (int i = 0; i < m.nlayers; i++)
        if (m.layers[i].kind == LAYER_CONV2D && m.layers[i].conv_path != CONV_PATH_IM2COL) *all_im2col = false;
    conv2d_algo_summary(&m, line, cap);
    trainer_free(&t);
    model_free(&m);
    ddl_free(x);
    ddl_free(y);
}

static void check_model(const char *model, float width, int convs)
{
    char line[256], want[256], name[4][96];
    bool all_im2col;
    snprintf(name[0], sizeof name[0], "conv reference: %s runs only im2col + GEMM", model);
    snprintf(name[1], sizeof name[1], "conv reference: %s runs no fused activation", model);
    snprintf(name[2], sizeof name[2], "conv reference: %s's conv line says so", model);
    snprintf(name[3], sizeof name[3], "conv auto: %s runs fast paths and fused activations", model);
    step(model, width, CONV_ALGO_REFERENCE, line, sizeof line, &all_im2col);
    t_checkf(calls.fast == 0 && calls.cudnn == 0 && calls.reference > 0, name[0],
             "%ld calls of fast-path kernels, %ld of cuDNN, %ld of im2col", calls.fast, calls.cudnn, calls.reference);
    t_checkf(calls.fused == 0, name[1],
             "%ld batch norms or adds applied an activation", calls.fused);
    t_check(all_im2col, "conv reference: every convolution of %s took the im2col + GEMM path", model);
    snprintf(want, sizeof want, "%d convolutions: all %d im2col + GEMM; no fused activation (--conv reference)", convs,
             convs);
    t_checkf(!strcmp(line, want), name[2], "got '%s'", line);

    step(model, width, CONV_ALGO_AUTO, line, sizeof line, &all_im2col);
    snprintf(name[2], sizeof name[2], "conv auto: %s's conv line names the fast paths", model);
    t_checkf(calls.fast > 0 && calls.fused > 0, name[3],
             "%ld fast-path kernel calls, %ld fused activations", calls.fast, calls.fused);
    t_checkf(!all_im2col && strstr(line, "activations fused") && strstr(line, "(--conv auto)") &&
                 (strstr(line, "Winograd") || strstr(line, "direct") || strstr(line, "pointwise") ||
                  strstr(line, "depthwise")),
             name[2], "got '%s'", line);

    step(model, width, conv_algo_named("cudnn"), line, sizeof line, &all_im2col);
    snprintf(want, sizeof want, "%d convolutions: all %d cuDNN;", convs, convs);
    /* forward and weight gradient everywhere, the input gradient but in
     * the first layer (the model's input needs none) */
    snprintf(name[0], sizeof name[0], "conv cudnn: %s calls cuDNN for every convolution, and says so", model);
    t_checkf(calls.cudnn == 3L * convs - 1 && calls.reference == 0 && !strncmp(line, want, strlen(want)), name[0],
             "%ld cuDNN calls (want %d), %ld of im2col; '%s'", calls.cudnn, 3 * convs - 1, calls.reference, line);
}

int main(void)
{
    make_counting_backend();
    check_model("resnet18", 0.125f, 20);
    check_model("mobilenetv2", 0.125f, 52);
    ConvAlgo a;
    t_check(conv_algo_parse("reference", &a) == 0 && a == CONV_ALGO_REFERENCE && conv_algo_parse("fast", &a) != 0,
            "conv: --conv reference is a value, an unknown name is not");
    return t_done();
}
