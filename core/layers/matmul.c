/* matmul.c - the GEMM behind linear and convolution layers, in FP32 or,
 * for mixed precision on a backend with an FP16 GEMM, with FP16 operands
 * and FP32 accumulation (Micikevicius et al.: FP16 storage, FP32 sums).
 *
 * In FP16 mode every value a GEMM reads is already a binary16 value held
 * in a float (mixed precision rounds weights, activations and gradients
 * where they are stored), so the casts here are exact: the FP16 GEMM sees
 * the numbers the CPU's rounding emulation multiplies, and only the
 * summation order differs. Weights come from the model's FP16 working copy
 * (kept by core/mixed); any other operand is cast into half_scratch. */
#include "layers.h"

#include "../util/common.h"

/* Floats an operand stored with `rows` rows of leading dimension ld spans,
 * the last row being `cols` long. */
static size_t span(int rows, int cols, int ld) { return rows ? (size_t)(rows - 1) * (size_t)ld + (size_t)cols : 0; }

/* The FP16 copy of operand x: its slice of params16 when x lies in the
 * parameter arena (a weight), else a fresh cast into half_scratch. Device
 * addresses are compared as integers, never dereferenced. */
static const uint16_t *half_operand(const Model *m, const float *x, size_t n, size_t *used)
{
    uintptr_t a = (uintptr_t)x, lo = (uintptr_t)m->params, hi = (uintptr_t)(m->params + m->nparams);
    if (a >= lo && a < hi) return m->params16 + (x - m->params);
    if (*used + n > m->nhalf_scratch)
        ddl_die("model %s: an FP16 GEMM operand of %zu values overflows the %zu-value FP16 scratch", m->name, n,
                m->nhalf_scratch);
    uint16_t *h = m->half_scratch + *used;
    m->be->f32_to_f16(x, h, n);
    *used += n;
    return h;
}

void layer_gemm(const Model *m, bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float *A,
                int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    if (!m->params16) {
        m->be->gemm_f32(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    if (M == 0 || N == 0) return;
    size_t used = 0;
    /* op(A) is M x K, op(B) is K x N; stored transposed when trans */
    const uint16_t *a = half_operand(m, A, trans_a ? span(K, M, lda) : span(M, K, lda), &used);
    const uint16_t *b = half_operand(m, B, trans_b ? span(N, K, ldb) : span(K, N, ldb), &used);
    m->be->gemm_f16(trans_a, trans_b, M, N, K, alpha, a, lda, b, ldb, beta, C, ldc);
}

double weights_flops(const Model *m, const Layer *l)
{
    Shape out = m->tensors[l->out].shape;
    return 2.0 * (double)l->weight_count * out.h * out.w;
}
