/* conv.h - the convolution wing's one interface: how a 2-d convolution
 * layer (core/layers/conv2d.c) picks its path, sizes its scratch and runs.
 *
 * Every convolution can run by the reference path, im2col + one GEMM per
 * chunk of images (reference.c: start reading there). Faster paths, each
 * one row of the table in conv.c (paths.h), run where a rule measured on
 * the kind of place the kernels run says they pay (pick.c; the numbers
 * are in bench/RESULTS.md), or where --conv forces them. --conv reference
 * turns every fast path off. This header includes nothing above the
 * kernels: a path is handed its kernels (a backend's sub-table,
 * kernels.h), its GEMM and its buffers in a ConvRun. */
#ifndef DDL_CONV_H
#define DDL_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include "kernels.h"

/* --conv's values: auto, reference, then one per row of conv.c's table
 * that forces its path on some kinds of layer (its --conv name), in the
 * table's order (conv_algo_parse, conv_algo_count; what each does:
 * pick.c). */
typedef int ConvAlgo;
enum { CONV_ALGO_AUTO, CONV_ALGO_REFERENCE };

/* A path: its row's index in conv.c's table, at most CONV_PATHS_MAX rows;
 * the reference, im2col + GEMM, is row 0. Others by their name
 * (conv_path_named). */
typedef int ConvPath;
enum { CONV_PATH_IM2COL = 0, CONV_PATHS_MAX = 16 };

/* The GEMM a path multiplies with: core/cpu/gemm.h's gemm_f32 arguments,
 * after the caller's context (the layer's: FP32, or FP16 operands). */
typedef void (*ConvGemm)(const void *ctx, bool trans_a, bool trans_b, int M, int N, int K, float alpha,
                         const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* One forward or backward call. Tensors are NCHW, batch images. */
typedef struct ConvRun {
    const ConvKernels *k; /* the device's kernels */
    ConvGemm gemm;
    const void *gemm_ctx;
    ConvShape s;
    ConvPath path;        /* as conv_path_now says */
    int batch, max_batch; /* images now; the scratch was sized for max_batch */
    float *scratch;       /* conv_scratch floats */
    float *cols;          /* reference path: the whole batch's columns kept from forward for backward
                           * (conv_columns floats); NULL: backward lowers the input again */
    const float *x, *w, *bias; /* bias: read only where conv_adds_bias */
    float *y;             /* forward writes it */
    const float *dy;      /* backward reads it, */
    float *dw, *dx;       /* adds the weight gradient to dw, and writes (acc: adds) dx unless NULL */
    bool acc;
} ConvRun;

/* The path a layer takes under algo on the device whose kernels are k;
 * host_memory: they run where host memory is (the CPU's rule), else a
 * device's. A path k cannot run (cuDNN on the CPU) is never picked. */
ConvPath conv_pick(const ConvShape *s, ConvAlgo algo, const ConvKernels *k, bool host_memory);
/* The path a picked one runs now: with FP16 GEMM operands the paths whose
 * kernels are FP32 only run the reference instead. */
ConvPath conv_path_now(ConvPath picked, bool fp16_gemm);
/* Scratch floats for max_batch images on the device whose kernels are k
 * (for an FP32-only path, also the reference's, which it runs with FP16
 * GEMM operands). */
size_t conv_scratch(const ConvKernels *k, const ConvShape *s, ConvPath path, int max_batch);
/* Floats of a batch's im2col columns (what keeping them costs). */
size_t conv_columns(const ConvShape *s, int batch);
/* The path adds the bias itself (the caller adds it otherwise). */
bool conv_adds_bias(ConvPath p);
void conv_forward(const ConvRun *r);
void conv_backward(const ConvRun *r);

const char *conv_path_name(ConvPath p);
/* The path whose row's short name (its --conv name, or "depthwise") is
 * key; the program stops on a name no row has. */
ConvPath conv_path_named(const char *key);
/* How many rows the table has: the paths are 0 to this, less one. */
int conv_path_count(void);
/* Path p's kernel table on the device whose kernels are k (its row's, or
 * k->instead's): the type its kernels header names (winograd_kernels.h,
 * ...), NULL where the build has no kernels for that device. */
const void *conv_path_kernels(const ConvKernels *k, ConvPath p);
/* cuDNN's version ("cuDNN 9.19.0 (built against 9.19.0)") where the device
 * whose kernels are k runs it, else NULL (path_cudnn.c). */
const char *conv_cudnn_version(const ConvKernels *k);
/* --conv's value: 0 and *out, or -1 for a name it does not know. */
int conv_algo_parse(const char *name, ConvAlgo *out);
const char *conv_algo_name(ConvAlgo a);
/* The value named name; the program stops on a name that is none. */
ConvAlgo conv_algo_named(const char *name);
/* How many --conv values there are: they are 0 to this, less one. */
int conv_algo_count(void);
/* "auto|reference|im2col|...": the values in order, for choices and
 * messages. */
const char *conv_algo_choices(void);
/* Whether algo can run on the device whose kernels are k (--conv cudnn
 * needs cuDNN there): 0, or -1 with why, naming the values that can. */
int conv_algo_check(ConvAlgo algo, const ConvKernels *k, char *why, size_t cap);
/* For outputs: how many convolutions ran by each path (count[path]), how
 * many activations ran fused into the layer before them, under which
 * --conv: "20 convolutions: 13 fused Winograd F(2x2,3x3), 4 direct 3x3,
 * 3 im2col + GEMM; 17 activations fused into batch norm or add (--conv
 * auto)", or "20 convolutions: all 20 im2col + GEMM; no fused activation
 * (--conv reference)". */
void conv_summary(const int count[CONV_PATHS_MAX], int fused_acts, ConvAlgo algo, char *buf, size_t cap);

#endif
