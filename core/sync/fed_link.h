/* fed_link.h - the link between the cloud (rank 0) and its users (ranks
 * 1..U): the only place the cloud-and-users rows send or receive (fed.h).
 * Every message is counted, by kind, when it is posted. */
#ifndef DDL_SYNC_FED_LINK_H
#define DDL_SYNC_FED_LINK_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../comm/comm.h"
#include "../util/common.h"

typedef enum FedTraffic { FED_PAYLOAD, FED_STATE, FED_CONTROL, FED_TRAFFIC_KINDS } FedTraffic;

typedef struct FedCounters {
    uint64_t bytes_up[FED_TRAFFIC_KINDS];   /* user -> cloud (a user: sent; the cloud: received) */
    uint64_t bytes_down[FED_TRAFFIC_KINDS]; /* cloud -> user (the cloud: sent; a user: received) */
    uint64_t msgs_up, msgs_down;
    uint64_t rounds;                        /* uploads of the payload, one per round */
} FedCounters;

typedef struct FedLink {
    MPI_Comm comm;      /* private duplicate */
    int rank, size, users;
    bool cloud;         /* rank 0 */
    CommDtype dtype;    /* payload on the wire: COMM_FP32 or COMM_FP16 */
    uint16_t *wire;     /* FP16 staging, cap halves */
    size_t cap;
    FedCounters ctr;
    /* Where the models' arrays live (fed_link_on): on a device, payloads
     * and statistics pass through `stage` on the host; control values
     * (counts, flags) are always host memory. NULL: the host. */
    const struct Backend *be;
    float *stage;
    size_t stage_cap;
} FedLink;

/* Collective over parent (size >= 2: the cloud and at least one user). */
int fed_link_init(FedLink *l, MPI_Comm parent, CommDtype dtype, char err[DDL_ERRLEN]);
void fed_link_free(FedLink *l);
/* The models' payload and state arrays are be's memory (a device's:
 * staged through the host around every message). */
void fed_link_on(FedLink *l, const struct Backend *be);
/* fedavg_aggregate into dst, which may be device memory (see fed_link_on). */
void fed_aggregate(FedLink *l, float *dst, const float *const *bufs, const double *weights, int users, size_t n);
/* Users send n floats of `mine` (kind FED_PAYLOAD: as l->dtype; state and
 * control: always FP32); the cloud receives user u's into at_cloud[u-1]
 * (FP16 decoded to float, exactly). Collective. */
void fed_upload(FedLink *l, FedTraffic kind, const float *mine, float *const *at_cloud, size_t n);
/* Each user's example count to the cloud, one float each (exact up to
 * 2^24), after its payload: the cloud gets every user's count (ddl_free
 * them), a user NULL. Collective. */
float *fed_upload_count(FedLink *l, float mine);
/* The cloud: dst = the users' bufs averaged, weighted by their counts
 * (fed_upload_count's). */
void fed_aggregate_counts(FedLink *l, float *dst, const float *const *bufs, const float *counts, size_t n);
/* The cloud sends n floats of vec to every user, users receive into vec
 * (FP16: the cloud's values are rounded to half on the way, so users get
 * half values). Collective. */
void fed_download(FedLink *l, FedTraffic kind, float *vec, size_t n);

#endif
