/* payload.c - the vector being reduced, FP32 or FP16 on the wire, always
 * summed in FP32. See comm_impl.h. */
#include "comm_impl.h"

#include <string.h>

#include "../util/common.h"
#include "../util/half.h"

size_t payload_elem_bytes(CommDtype dtype) { return dtype == COMM_FP16 ? 2 : 4; }

static void *grow_scratch(Payload *p, size_t bytes)
{
    if (bytes > p->scratch_bytes) {
        ddl_free(p->scratch);
        p->scratch = ddl_alloc(bytes);
        p->scratch_bytes = bytes;
    }
    return p->scratch;
}

void payload_begin(Payload *p, void *buf, size_t count, CommDtype dtype, CommReduceOp op, int ranks)
{
    p->dtype = dtype;
    p->op = op;
    p->count = count;
    p->ranks = ranks;
    p->user = buf;
    if (dtype == COMM_FP32) {
        /* Sum in place; only reductions need somewhere to receive. */
        p->acc = buf;
        p->wire_in = grow_scratch(p, count * sizeof(float));
        p->wire_out = NULL;
    } else {
        /* FP32 sums, then half staging in and out, 64-byte aligned each. */
        size_t acc_bytes = (count * sizeof(float) + 63) & ~(size_t)63;
        size_t half_bytes = (count * sizeof(uint16_t) + 63) & ~(size_t)63;
        char *s = grow_scratch(p, acc_bytes + 2 * half_bytes);
        p->acc = (float *)s;
        p->wire_in = s + acc_bytes;
        p->wire_out = (uint16_t *)(s + acc_bytes + half_bytes);
        half_to_float_array(p->acc, buf, count);
    }
}

const void *payload_send_buf(Payload *p, size_t off, size_t n)
{
    if (p->dtype == COMM_FP32) return p->acc + off;
    /* FP16: the sender keeps exactly what it sent. In recursive doubling
     * both partners go on with a + b; had each kept its own unrounded
     * FP32 value, they would compute a + half(b) and half(a) + b and
     * drift apart. The other algorithms never reuse what they sent. */
    uint16_t *out = p->wire_out + off;
    float *acc = p->acc + off;
    half_from_float_array(out, acc, n);
    half_to_float_array(acc, out, n);
    return out;
}

void *payload_recv_buf(Payload *p, size_t off, size_t n, AbsorbMode mode)
{
    (void)n;
    if (p->dtype == COMM_FP32)
        return mode == ABSORB_COPY ? (void *)(p->acc + off) : (void *)((float *)p->wire_in + off);
    return (uint16_t *)p->wire_in + off;
}

void reduce_add_fp32(float *restrict acc, const float *restrict in, size_t n)
{
    for (size_t i = 0; i < n; i++) acc[i] += in[i];
}

static void add_fp16(float *restrict acc, const uint16_t *restrict in, size_t n)
{
    for (size_t i = 0; i < n; i++) acc[i] += half_to_float(in[i]);
}

void payload_absorb(Payload *p, size_t off, size_t n, AbsorbMode mode)
{
    if (p->dtype == COMM_FP32) {
        if (mode == ABSORB_REDUCE) reduce_add_fp32(p->acc + off, (float *)p->wire_in + off, n);
        /* ABSORB_COPY received straight into the sums */
        return;
    }
    const uint16_t *in = (uint16_t *)p->wire_in + off;
    if (mode == ABSORB_REDUCE) add_fp16(p->acc + off, in, n);
    else half_to_float_array(p->acc + off, in, n);
}

void payload_finish(Payload *p, size_t off, size_t n)
{
    float *a = p->acc + off;
    if (p->op == COMM_AVG) {
        /* Divide (correctly rounded) rather than multiply by an inexact
         * 1/p, so every algorithm and the MPI baseline average alike. */
        float ranks = (float)p->ranks;
        for (size_t i = 0; i < n; i++) a[i] /= ranks;
    }
    if (p->dtype == COMM_FP16)
        for (size_t i = 0; i < n; i++) a[i] = half_to_float(half_from_float(a[i]));
}

void payload_end(Payload *p)
{
    if (p->dtype == COMM_FP16) half_from_float_array(p->user, p->acc, p->count);
}

void payload_free(Payload *p)
{
    ddl_free(p->scratch);
    memset(p, 0, sizeof *p);
}
