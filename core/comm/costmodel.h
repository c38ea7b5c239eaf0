/* costmodel.h - the alpha-beta-gamma model of an allreduce.
 *
 * A message of m bytes costs alpha + m*beta; reducing m bytes costs
 * m*gamma. Each algorithm's time is then a*alpha + b*n*beta + c*n*gamma
 * for a vector of n bytes on p ranks, with the coefficients of Thakur,
 * Rabenseifner & Gropp, "Optimization of collective communication
 * operations in MPICH" (IJHPCA 2005) and Patarasuk & Yuan, "Bandwidth
 * optimal all-reduce algorithms for clusters of workstations" (JPDC 2009).
 * Each algorithm's coefficients are its row's `cost` (alg_<name>.c, next
 * to its schedule); for the algorithms of the table (lg = log2;
 * p' = largest power of two <= p):
 *
 *   linear        2(p-1) alpha + 2(p-1) n beta + (p-1) n gamma
 *   tree          2 ceil(lg p) (alpha + n beta) + ceil(lg p) n gamma
 *   recdoubling   p = p': lg p (alpha + n beta + n gamma);
 *                 else (floor(lg p)+2)(alpha + n beta) + (floor(lg p)+1) n gamma
 *   rabenseifner  2 lg p' alpha + 2 (p'-1)/p' n beta + (p'-1)/p' n gamma,
 *                 plus 2 alpha + 2 n beta + n gamma when p != p' (the fold)
 *   ring          2(p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma
 *   ring_async    with s = ceil(n/p / segment) segments per block:
 *                 2(p-1) s alpha + 2 (p-1)/p n beta + (p-1)/(p s) n gamma
 *                 (reductions overlap transfers except one segment per step)
 *   mpi, nccl     no formula: the library picks its algorithm at run time.
 *
 * alpha and beta come from a ping-pong between two ranks, gamma from
 * timing the library's own FP32 add loop (cost_calibrate). */
#ifndef DDL_COSTMODEL_H
#define DDL_COSTMODEL_H

#include <stddef.h>

#include "comm.h"

typedef struct CostParams {
    double alpha;  /* seconds per message */
    double beta;   /* seconds per byte sent */
    double gamma;  /* seconds per byte reduced */
} CostParams;

/* The coefficients: time = alphas*alpha + beta_bytes*beta + gamma_bytes*gamma. */
typedef struct CostTerms {
    double alphas, beta_bytes, gamma_bytes;
} CostTerms;

/* segment_bytes matters only for ring_async. One rank: zeros. NAN terms
 * for an algorithm whose row has no formula (mpi, nccl). */
CostTerms cost_terms(CommAlg alg, int p, double bytes, double segment_bytes);
/* Predicted seconds (0 on one rank); NAN for an algorithm without a
 * formula (mpi, nccl) or unknown parameters. */
double cost_allreduce(CommAlg alg, int p, double bytes, double segment_bytes, const CostParams *cp);

/* The alpha-beta line t = alpha + beta*bytes, fitted as Hockney's model
 * is: beta is the least-squares slope of the COST_FIT_LARGEST largest
 * sizes (bytes ascending), alpha the smallest size's time less its bytes
 * x beta. Returns the largest relative residual over all points (how well
 * one straight line fits; the middle sizes, where the protocols change,
 * miss most). */
enum { COST_FIT_LARGEST = 3 };
double cost_fit_alpha_beta(const double *bytes, const double *seconds, int n, double *alpha, double *beta);

/* Ping-pong between rank 0 and rank `peer` (1 <= peer < c->size; the
 * others wait at the final broadcast), e.g. the first rank on another
 * host: on a cluster (or a simulated platform) the links between hosts,
 * not shared memory, are what the model describes. one_way_s[i] = min over
 * reps of half a round trip for sizes[i] bytes, on every rank. Collective;
 * needs c->size >= 2. Calibration traffic is raw MPI and not charged to
 * any algorithm. */
void cost_pingpong_peer(Comm *c, int peer, const size_t *sizes, int nsizes, int reps, double *one_way_s);
/* The lowest rank whose MPI processor name differs from rank 0's, else 1
 * (one host). Collective; needs c->size >= 2. */
int cost_other_host_peer(Comm *c);

/* Seconds per byte of the FP32 reduction the algorithms use (acc += in),
 * on arrays of `bytes` bytes each, min over reps. Local. */
double cost_measure_gamma(size_t bytes, int reps);

/* The whole calibration: a ping-pong sweep 8 B .. 8 MiB (x4 steps)
 * between rank 0 and cost_other_host_peer(), the alpha-beta fit, and
 * gamma (max over ranks). Collective. With one rank alpha, beta, the
 * times and fit_error are NAN. */
enum { COST_CALIBRATION_SIZES = 11 };
typedef struct CostCalibration {
    CostParams p;
    int peer;                                   /* rank 0's partner in the ping-pong */
    double bytes[COST_CALIBRATION_SIZES];       /* message sizes */
    double one_way_s[COST_CALIBRATION_SIZES];   /* measured one-way times */
    double fit_error;                           /* largest relative residual of the fit */
} CostCalibration;
void cost_calibrate(Comm *c, CostCalibration *out);

#endif
