/* fed_link.c - the only place the cloud-and-users rows send or receive: every message
 * between the cloud and a user is counted here when it is posted, by kind
 * (fed.h). Plain point-to-point messages, the cloud serving users in rank
 * order: seed 004's star of links, not an allreduce. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fed_link.h"
#include "../backend/backend.h"
#include "../util/common.h"
#include "../util/half.h"
#include "fedavg_aggregate.h"

int fed_link_init(FedLink *l, MPI_Comm parent, CommDtype dtype, char err[DDL_ERRLEN])
{
    memset(l, 0, sizeof *l);
    MPI_Comm_dup(parent, &l->comm);
    MPI_Comm_rank(l->comm, &l->rank);
    MPI_Comm_size(l->comm, &l->size);
    if (l->size < 2) {
        snprintf(err, DDL_ERRLEN, "a cloud and its users need at least 2 ranks (rank 0 the cloud, 1.. the users); got %d",
                 l->size);
        MPI_Comm_free(&l->comm);
        return -1;
    }
    l->users = l->size - 1;
    l->cloud = l->rank == 0;
    l->dtype = dtype;
    return 0;
}

void fed_link_free(FedLink *l)
{
    if (l->comm != MPI_COMM_NULL && l->comm != 0) MPI_Comm_free(&l->comm);
    ddl_free(l->wire);
    ddl_free(l->stage);
    memset(l, 0, sizeof *l);
}

void fed_link_on(FedLink *l, const Backend *be) { l->be = be && !be->host_memory ? be : NULL; }

/* The host buffer for n floats of a device array; NULL when the arrays are
 * host memory or the message is control values. */
static float *staging(FedLink *l, FedTraffic kind, size_t n)
{
    if (!l->be || kind == FED_CONTROL) return NULL;
    if (n > l->stage_cap) {
        ddl_free(l->stage);
        l->stage = ddl_alloc(sizeof(float) * (n ? n : 1));
        l->stage_cap = n;
    }
    return l->stage;
}

void fed_aggregate(FedLink *l, float *dst, const float *const *bufs, const double *weights, int users, size_t n)
{
    float *host = staging(l, FED_PAYLOAD, n);
    fedavg_aggregate(host ? host : dst, bufs, weights, users, n);
    if (host) l->be->to_device(dst, host, sizeof(float) * n);
}

static uint16_t *wire(FedLink *l, size_t n)
{
    if (n > l->cap) {
        ddl_free(l->wire);
        l->wire = ddl_alloc(sizeof(uint16_t) * n);
        l->cap = n;
    }
    return l->wire;
}

static int count_of(size_t bytes)
{
    if (bytes > (size_t)INT_MAX) ddl_die("fed: message of %zu bytes exceeds MPI's int count", bytes);
    return (int)bytes;
}

static bool halves(const FedLink *l, FedTraffic kind) { return kind == FED_PAYLOAD && l->dtype == COMM_FP16; }

void fed_upload(FedLink *l, FedTraffic kind, const float *mine, float *const *at_cloud, size_t n)
{
    bool h = halves(l, kind);
    size_t bytes = n * (h ? sizeof(uint16_t) : sizeof(float));
    int tag = 100 + (int)kind;
    if (kind == FED_PAYLOAD) l->ctr.rounds++;
    if (!l->cloud) {
        float *host = staging(l, kind, n);
        if (host) {
            l->be->to_host(host, mine, sizeof(float) * n);
            mine = host;
        }
        const void *buf = mine;
        if (h) {
            half_from_float_array(wire(l, n), mine, n);
            buf = l->wire;
        }
        l->ctr.bytes_up[kind] += bytes;
        l->ctr.msgs_up++;
        MPI_Send(buf, count_of(bytes), MPI_BYTE, 0, tag, l->comm);
        return;
    }
    for (int u = 1; u <= l->users; u++) {
        void *buf = h ? (void *)wire(l, n) : (void *)at_cloud[u - 1];
        l->ctr.bytes_up[kind] += bytes;
        l->ctr.msgs_up++;
        MPI_Recv(buf, count_of(bytes), MPI_BYTE, u, tag, l->comm, MPI_STATUS_IGNORE);
        if (h) half_to_float_array(at_cloud[u - 1], l->wire, n);
    }
}

void fed_download(FedLink *l, FedTraffic kind, float *vec, size_t n)
{
    bool h = halves(l, kind);
    size_t bytes = n * (h ? sizeof(uint16_t) : sizeof(float));
    int tag = 200 + (int)kind;
    float *host = staging(l, kind, n), *dev = vec;
    if (host) {
        if (l->cloud) l->be->to_host(host, vec, sizeof(float) * n);
        vec = host;
    }
    if (l->cloud) {
        const void *buf = vec;
        if (h) {
            half_from_float_array(wire(l, n), vec, n);
            buf = l->wire;
        }
        for (int u = 1; u <= l->users; u++) {
            l->ctr.bytes_down[kind] += bytes;
            l->ctr.msgs_down++;
            MPI_Send(buf, count_of(bytes), MPI_BYTE, u, tag, l->comm);
        }
        return;
    }
    void *buf = h ? (void *)wire(l, n) : (void *)vec;
    l->ctr.bytes_down[kind] += bytes;
    l->ctr.msgs_down++;
    MPI_Recv(buf, count_of(bytes), MPI_BYTE, 0, tag, l->comm, MPI_STATUS_IGNORE);
    if (h) half_to_float_array(vec, l->wire, n);
    if (host) l->be->to_device(dev, host, sizeof(float) * n);
}

float *fed_upload_count(FedLink *l, float mine)
{
    int U = l->users;
    float *counts = NULL, **at = NULL;
    if (l->cloud) {
        counts = ddl_alloc(sizeof(float) * (size_t)U);
        at = ddl_alloc(sizeof(float *) * (size_t)U);
        for (int u = 0; u < U; u++) at[u] = counts + u;
    }
    fed_upload(l, FED_CONTROL, &mine, at, 1);
    ddl_free(at);
    return counts;
}

void fed_aggregate_counts(FedLink *l, float *dst, const float *const *bufs, const float *counts, size_t n)
{
    int U = l->users;
    double *weights = ddl_alloc(sizeof(double) * (size_t)U);
    for (int u = 0; u < U; u++) weights[u] = counts[u];
    fed_aggregate(l, dst, bufs, weights, U, n);
    ddl_free(weights);
}
