/* step.c - one training step of cnn3, forward, backward and SGD, in one
 * file: nothing but loops and one GEMM (OpenBLAS's, through gemm below).
 *
 * Read this first. Everything libddl does for a step is here in its
 * plainest form; the rest of core/ does the same arithmetic faster (other
 * convolution paths, fused activations, threads, a GPU) and spread over
 * the files that let one model run many ways. tests/test_reference_step.c
 * checks that libddl's step gives this file's numbers.
 *
 * Shapes are row-major, images NCHW, as in PyTorch. A convolution is
 * im2col + GEMM: the 3x3 neighbourhood of every output pixel is copied
 * into a column ("cols", [cin*9][H*W]), so that the convolution becomes
 * one matrix product with the weights ([cout][cin*9]). Its backward pass
 * is two more products and the copy undone (col2im). */
#include "step.h"

#include <cblas.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The one GEMM: C[m][n] = op(A)[m][k] * op(B)[k][n] + beta * C. */
static void gemm(bool ta, bool tb, int m, int n, int k, const float *a, const float *b, float beta, float *c)
{
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a,
                ta ? m : k, b, tb ? k : n, beta, c, n);
}

/* ---- layers: each a forward and a backward ---------------------------- */

/* cols[(c*9 + ky*3 + kx)][y*w + x] = in[c][y+ky-1][x+kx-1] (0 outside). */
static void im2col(const float *in, int c, int h, int w, float *cols)
{
    for (int ci = 0; ci < c; ci++)
        for (int k = 0; k < 9; k++)
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    int iy = y + k / 3 - 1, ix = x + k % 3 - 1;
                    bool inside = iy >= 0 && iy < h && ix >= 0 && ix < w;
                    cols[((size_t)ci * 9 + k) * h * w + y * w + x] = inside ? in[((size_t)ci * h + iy) * w + ix] : 0;
                }
}

/* im2col undone: each column entry's gradient added back to its pixel. */
static void col2im(const float *cols, int c, int h, int w, float *in)
{
    for (int ci = 0; ci < c; ci++)
        for (int k = 0; k < 9; k++)
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    int iy = y + k / 3 - 1, ix = x + k % 3 - 1;
                    if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                        in[((size_t)ci * h + iy) * w + ix] += cols[((size_t)ci * 9 + k) * h * w + y * w + x];
                }
}

/* A 3x3 convolution, padding 1, stride 1: out [n][cout][h][w]. */
static void conv_forward(const float *in, int n, int cin, int cout, int h, int w, const float *wt, const float *bias,
                         float *cols, float *out)
{
    for (int i = 0; i < n; i++) {
        im2col(in + (size_t)i * cin * h * w, cin, h, w, cols);
        float *o = out + (size_t)i * cout * h * w;
        gemm(false, false, cout, h * w, cin * 9, wt, cols, 0.0f, o);
        for (int co = 0; co < cout; co++)
            for (int p = 0; p < h * w; p++) o[(size_t)co * h * w + p] += bias[co];
    }
}

/* Its gradients: dwt and dbias summed over the batch, din (if wanted). */
static void conv_backward(const float *in, const float *dout, int n, int cin, int cout, int h, int w, const float *wt,
                          float *cols, float *dwt, float *dbias, float *din)
{
    for (int i = 0; i < n; i++) {
        const float *d = dout + (size_t)i * cout * h * w;
        im2col(in + (size_t)i * cin * h * w, cin, h, w, cols);
        gemm(false, true, cout, cin * 9, h * w, d, cols, 1.0f, dwt); /* dW += dY cols^T */
        for (int co = 0; co < cout; co++)
            for (int p = 0; p < h * w; p++) dbias[co] += d[(size_t)co * h * w + p];
        if (!din) continue;
        gemm(true, false, cin * 9, h * w, cout, wt, d, 0.0f, cols); /* dcols = W^T dY */
        memset(din + (size_t)i * cin * h * w, 0, sizeof(float) * (size_t)cin * h * w);
        col2im(cols, cin, h, w, din + (size_t)i * cin * h * w);
    }
}

static void relu_forward(float *v, size_t count)
{
    for (size_t i = 0; i < count; i++) v[i] = v[i] > 0 ? v[i] : 0;
}

/* In place: the gradient passes where the output was positive. */
static void relu_backward(const float *out, float *d, size_t count)
{
    for (size_t i = 0; i < count; i++) d[i] = out[i] > 0 ? d[i] : 0;
}

/* 2x2 max pooling, stride 2 (an odd last row or column is dropped):
 * out [planes][h/2][w/2]; arg keeps where each maximum came from. */
static void pool_forward(const float *in, int planes, int h, int w, float *out, int32_t *arg)
{
    int oh = h / 2, ow = w / 2;
    for (int p = 0; p < planes; p++)
        for (int y = 0; y < oh; y++)
            for (int x = 0; x < ow; x++) {
                int best = (2 * y) * w + 2 * x;
                for (int k = 1; k < 4; k++) {
                    int at = (2 * y + k / 2) * w + 2 * x + k % 2;
                    if (in[(size_t)p * h * w + at] > in[(size_t)p * h * w + best]) best = at;
                }
                out[((size_t)p * oh + y) * ow + x] = in[(size_t)p * h * w + best];
                arg[((size_t)p * oh + y) * ow + x] = best;
            }
}

/* The gradient goes to the pixel that was the maximum, the rest get 0. */
static void pool_backward(const float *dout, const int32_t *arg, int planes, int h, int w, float *din)
{
    int oh = h / 2, ow = w / 2;
    memset(din, 0, sizeof(float) * (size_t)planes * h * w);
    for (int p = 0; p < planes; p++)
        for (int q = 0; q < oh * ow; q++) din[(size_t)p * h * w + arg[(size_t)p * oh * ow + q]] += dout[(size_t)p * oh * ow + q];
}

/* y [n][out] = x [n][in] W^T + b, W as PyTorch stores it: [out][in]. */
static void linear_forward(const float *x, int n, int in, int out, const float *wt, const float *bias, float *y)
{
    gemm(false, true, n, out, in, x, wt, 0.0f, y);
    for (int i = 0; i < n; i++)
        for (int o = 0; o < out; o++) y[(size_t)i * out + o] += bias[o];
}

static void linear_backward(const float *x, const float *dy, int n, int in, int out, const float *wt, float *dwt,
                            float *dbias, float *dx)
{
    gemm(true, false, out, in, n, dy, x, 1.0f, dwt); /* dW += dY^T x */
    for (int i = 0; i < n; i++)
        for (int o = 0; o < out; o++) dbias[o] += dy[(size_t)i * out + o];
    gemm(false, false, n, in, out, dy, wt, 0.0f, dx); /* dx = dY W */
}

/* The mean cross-entropy of softmax(logits); dlogits = (p - onehot) / n. */
static double softmax_ce(const float *logits, const int32_t *y, int n, int k, float *dlogits)
{
    double loss = 0;
    for (int i = 0; i < n; i++) {
        const float *z = logits + (size_t)i * k;
        float mx = z[0];
        for (int j = 1; j < k; j++) mx = z[j] > mx ? z[j] : mx; /* exp of z - max cannot overflow */
        double s = 0;
        for (int j = 0; j < k; j++) s += exp((double)z[j] - mx);
        loss += log(s) - ((double)z[y[i]] - mx);
        for (int j = 0; j < k; j++) dlogits[(size_t)i * k + j] = (float)(exp((double)z[j] - mx) / s) / (float)n;
        dlogits[(size_t)i * k + y[i]] -= 1.0f / (float)n;
    }
    return loss / n;
}

/* ---- the network --------------------------------------------------------- */

/* Where each parameter tensor starts in the flat vector. */
typedef struct Offsets {
    size_t w[5], b[5], total;
} Offsets;

static Offsets offsets(const RefCnn3 *net)
{
    const size_t fan[5][2] = { { (size_t)net->c1, 9 }, { (size_t)net->c2, (size_t)net->c1 * 9 },
                               { (size_t)net->c3, (size_t)net->c2 * 9 }, { (size_t)net->f1, (size_t)net->c3 * 9 },
                               { (size_t)net->classes, (size_t)net->f1 } }; /* out, in per layer */
    Offsets o = { { 0 }, { 0 }, 0 };
    for (int l = 0; l < 5; l++) {
        o.w[l] = o.total;
        o.b[l] = o.w[l] + fan[l][0] * fan[l][1];
        o.total = o.b[l] + fan[l][0];
    }
    return o;
}

size_t ref_cnn3_params(const RefCnn3 *net) { return offsets(net).total; }

/* Every activation of the step, and its gradient (the same sizes). */
typedef struct Acts {
    float *a1, *p1, *a2, *p2, *a3, *p3, *h, *z; /* conv+ReLU, pool; fc1+ReLU; logits */
    int32_t *arg1, *arg2, *arg3;
    float *cols; /* im2col's columns, one image at a time */
} Acts;

/* One flat arena for a step's activations, or its gradients. */
static float *acts_alloc(const RefCnn3 *nt, int n, Acts *a)
{
    size_t s1 = (size_t)n * nt->c1 * 28 * 28, s2 = (size_t)n * nt->c2 * 14 * 14, s3 = (size_t)n * nt->c3 * 7 * 7;
    size_t q1 = s1 / 4, q2 = s2 / 4, q3 = (size_t)n * nt->c3 * 9, cols = (size_t)nt->c2 * 9 * 28 * 28;
    size_t sizes[] = { s1, q1, s2, q2, s3, q3, (size_t)n * nt->f1, (size_t)n * nt->classes, cols, q1, q2, q3 };
    size_t total = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) total += sizes[i];
    float *arena = calloc(total, sizeof(float)), *p = arena; /* int32_t and float are both 4 bytes */
    if (!arena) return NULL;
    float **f[] = { &a->a1, &a->p1, &a->a2, &a->p2, &a->a3, &a->p3, &a->h, &a->z, &a->cols };
    for (int i = 0; i < 9; i++) *f[i] = p, p += sizes[i];
    a->arg1 = (int32_t *)p, p += q1;
    a->arg2 = (int32_t *)p, p += q2;
    a->arg3 = (int32_t *)p;
    return arena;
}

static void forward(const RefCnn3 *nt, const float *w, const Offsets *o, const float *x, int n, Acts *a)
{
    conv_forward(x, n, 1, nt->c1, 28, 28, w + o->w[0], w + o->b[0], a->cols, a->a1);
    relu_forward(a->a1, (size_t)n * nt->c1 * 28 * 28);
    pool_forward(a->a1, n * nt->c1, 28, 28, a->p1, a->arg1);
    conv_forward(a->p1, n, nt->c1, nt->c2, 14, 14, w + o->w[1], w + o->b[1], a->cols, a->a2);
    relu_forward(a->a2, (size_t)n * nt->c2 * 14 * 14);
    pool_forward(a->a2, n * nt->c2, 14, 14, a->p2, a->arg2);
    conv_forward(a->p2, n, nt->c2, nt->c3, 7, 7, w + o->w[2], w + o->b[2], a->cols, a->a3);
    relu_forward(a->a3, (size_t)n * nt->c3 * 7 * 7);
    pool_forward(a->a3, n * nt->c3, 7, 7, a->p3, a->arg3); /* [n][c3][3][3], read flat by fc1 */
    linear_forward(a->p3, n, nt->c3 * 9, nt->f1, w + o->w[3], w + o->b[3], a->h);
    relu_forward(a->h, (size_t)n * nt->f1);
    linear_forward(a->h, n, nt->f1, nt->classes, w + o->w[4], w + o->b[4], a->z);
}

/* From d->z (the loss's gradient) back to every parameter's, into g. */
static void backward(const RefCnn3 *nt, const float *w, const Offsets *o, const float *x, int n, Acts *a, Acts *d,
                     float *g)
{
    linear_backward(a->h, d->z, n, nt->f1, nt->classes, w + o->w[4], g + o->w[4], g + o->b[4], d->h);
    relu_backward(a->h, d->h, (size_t)n * nt->f1);
    linear_backward(a->p3, d->h, n, nt->c3 * 9, nt->f1, w + o->w[3], g + o->w[3], g + o->b[3], d->p3);
    pool_backward(d->p3, a->arg3, n * nt->c3, 7, 7, d->a3);
    relu_backward(a->a3, d->a3, (size_t)n * nt->c3 * 7 * 7);
    conv_backward(a->p2, d->a3, n, nt->c2, nt->c3, 7, 7, w + o->w[2], a->cols, g + o->w[2], g + o->b[2], d->p2);
    pool_backward(d->p2, a->arg2, n * nt->c2, 14, 14, d->a2);
    relu_backward(a->a2, d->a2, (size_t)n * nt->c2 * 14 * 14);
    conv_backward(a->p1, d->a2, n, nt->c1, nt->c2, 14, 14, w + o->w[1], a->cols, g + o->w[1], g + o->b[1], d->p1);
    pool_backward(d->p1, a->arg1, n * nt->c1, 28, 28, d->a1);
    relu_backward(a->a1, d->a1, (size_t)n * nt->c1 * 28 * 28);
    conv_backward(x, d->a1, n, 1, nt->c1, 28, 28, w + o->w[0], a->cols, g + o->w[0], g + o->b[0], NULL);
}

/* torch.optim.SGD: v = momentum v + (g + wd w); w -= lr v. */
static void sgd(const RefSgd *s, float *w, const float *g, float *v, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        float gi = g[i] + s->weight_decay * w[i];
        v[i] = s->momentum * v[i] + gi;
        w[i] -= s->lr * v[i];
    }
}

double ref_cnn3_step(const RefCnn3 *net, const RefSgd *s, float *params, float *velocity, const float *x,
                     const int32_t *y, int n)
{
    Offsets o = offsets(net);
    Acts a, d;
    float *acts = acts_alloc(net, n, &a), *grads = acts_alloc(net, n, &d), *g = calloc(o.total, sizeof(float));
    double loss = NAN;
    if (acts && grads && g) {
        forward(net, params, &o, x, n, &a);
        loss = softmax_ce(a.z, y, n, net->classes, d.z);
        backward(net, params, &o, x, n, &a, &d, g);
        sgd(s, params, g, velocity, o.total);
    }
    free(acts);
    free(grads);
    free(g);
    return loss;
}
