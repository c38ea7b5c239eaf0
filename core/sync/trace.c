/* trace.c - timelines of one training step: gathering every rank's events
 * and writing them as a Chrome trace (the JSON Perfetto and
 * chrome://tracing open). */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../util/common.h"
#include "../results/results.h"

void sync_gather_events(Sync *s, SyncEvent **out, int **ranks, int *n)
{
    *out = NULL;
    *ranks = NULL;
    *n = 0;
    int world = s->c ? s->c->size : 1, me = s->c ? s->c->rank : 0;
    int *counts = me == 0 ? calloc((size_t)world, sizeof(int)) : NULL;
    if (me == 0 && !counts) ddl_die("out of memory");
    if (s->c) MPI_Gather(&s->nevents, 1, MPI_INT, counts, 1, MPI_INT, 0, s->c->mpi);
    else counts[0] = s->nevents;
    int total = 0;
    int *displs = NULL, *bytes = NULL;
    if (me == 0) {
        displs = malloc(sizeof(int) * (size_t)world);
        bytes = malloc(sizeof(int) * (size_t)world);
        if (!displs || !bytes) ddl_die("out of memory");
        for (int r = 0; r < world; r++) {
            displs[r] = total * (int)sizeof(SyncEvent);
            bytes[r] = counts[r] * (int)sizeof(SyncEvent);
            total += counts[r];
        }
    }
    SyncEvent *all = me == 0 ? malloc(sizeof(SyncEvent) * (size_t)(total ? total : 1)) : NULL;
    if (me == 0 && !all) ddl_die("out of memory");
    /* Ranks run the same binary on the same kind of machine, so the
     * struct travels as bytes. */
    if (s->c)
        MPI_Gatherv(s->events, s->nevents * (int)sizeof(SyncEvent), MPI_BYTE, all, bytes, displs, MPI_BYTE, 0,
                    s->c->mpi);
    else if (s->nevents)
        memcpy(all, s->events, sizeof(SyncEvent) * (size_t)s->nevents);
    if (me == 0) {
        int *rk = malloc(sizeof(int) * (size_t)(total ? total : 1));
        if (!rk) ddl_die("out of memory");
        for (int r = 0, k = 0; r < world; r++)
            for (int i = 0; i < counts[r]; i++) rk[k++] = r;
        *out = all;
        *ranks = rk;
        *n = total;
    }
    free(counts);
    free(displs);
    free(bytes);
}

/* Event names are layer and bucket names; escape anyway. */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

int sync_write_chrome_trace(const char *path, const SyncEvent *ev, const int *ranks, int n, const char *about)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return -1;
    int world = 0;
    for (int i = 0; i < n; i++) world = DDL_MAX(world, ranks[i] + 1);
    fprintf(f, "{\"displayTimeUnit\": \"ms\",\n \"otherData\": {\"about\": ");
    json_string(f, about ? about : "");
    fprintf(f, "},\n \"traceEvents\": [\n");
    for (int r = 0; r < world; r++) {
        fprintf(f, "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, \"args\": {\"name\": \"rank %d\"}},\n", r, r);
        fprintf(f, "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"compute\"}},\n", r);
        fprintf(f, "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": 1, \"args\": {\"name\": \"communication\"}},\n", r);
    }
    for (int i = 0; i < n; i++) {
        const SyncEvent *e = &ev[i];
        fprintf(f, "  {\"name\": ");
        json_string(f, e->name);
        fprintf(f, ", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f",
                e->track == TRACK_COMM ? "comm" : "compute", ranks[i], e->track == TRACK_COMM ? 1 : 0, 1e6 * e->t0,
                1e6 * (e->t1 - e->t0));
        if (e->track == TRACK_COMM) fprintf(f, ", \"args\": {\"bytes\": %.0f}", e->bytes);
        fprintf(f, "}%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, " ]\n}\n");
    if (fclose(f) != 0) {
        free(buf);
        return -1;
    }
    int rc = write_file_atomic(path, buf, len);
    free(buf);
    return rc;
}
