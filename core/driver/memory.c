/* memory.c - a run that cannot fit in memory is refused before it
 * allocates (options.h: driver_check_memory).
 *
 * Without this check, "mpirun -np 2 bin/lab2 train --hidden 65536 --h1
 * 65536" (an MLP of 4.3 billion weights, 17 GB a copy) was accepted, and
 * the kernel's OOM killer ended a rank 86 s later. The model's arenas are
 * laid out without being allocated (model_size): weights and their
 * gradients, batch-norm state, what backward keeps, every activation and
 * its gradient for the largest batch, the shared scratch; to them come the
 * optimizer's velocity and one more copy of the weights, which the
 * initialisation draws on the host and a strategy may keep for its
 * messages. That is a lower bound of the run's memory (MPI's buffers and
 * the program itself are left out), so a refusal is never a false alarm.
 *
 * It is compared with what this rank may use: the host's MemAvailable
 * shared by the ranks on this host, the cgroup's memory.max less what the
 * group already uses (shared alike), and the address-space limit
 * (ulimit -v) less what this process has mapped. Host memory only: the
 * CPU's arenas and the emulated GPU's; a real GPU's arenas are in device
 * memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "../util/common.h"
#include "../platform/threads.h"
#include "options.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* "Key:   123 kB" from a /proc file: bytes, or -1. */
static double proc_kb(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    double v = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':') {
            v = 1024.0 * strtod(line + n + 1, NULL);
            break;
        }
    fclose(f);
    return v;
}

/* A number in a cgroup file, or -1 ("max", absent, or so large that it
 * means no limit: cgroup v1 writes 2^63 less a page). */
static double cgroup_value(const char *dir, const char *group, const char *file)
{
    char path[1400], text[64] = "";
    snprintf(path, sizeof path, "%s%s/%s", dir, group, file);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    bool got = fgets(text, sizeof text, f) != NULL;
    fclose(f);
    double v = got && text[0] >= '0' && text[0] <= '9' ? strtod(text, NULL) : -1;
    return v >= 0x1p60 ? -1 : v;
}

/* The memory this process's cgroup may still take, or -1: v2's
 * memory.max, else v1's memory.limit_in_bytes, less what the group uses.
 * Inside a cgroup namespace the group's own files are at the mount's
 * root, so that is tried when the path from /proc/self/cgroup is not
 * there. */
static double cgroup_room(void)
{
    static const struct { const char *tag, *dir, *limit, *used; } kinds[] = {
        { "0::", "/sys/fs/cgroup", "memory.max", "memory.current" },
        { ":memory:", "/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes" },
    };
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return -1;
    char line[1100];
    double room = -1;
    while (room < 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && room < 0; k++) {
            const char *at = strstr(line, kinds[k].tag);
            if (!at || (k == 0 && at != line)) continue;
            const char *group = at + strlen(kinds[k].tag);
            if (!strcmp(group, "/")) group = "";
            double max = cgroup_value(kinds[k].dir, group, kinds[k].limit), used = 0;
            if (max >= 0) used = cgroup_value(kinds[k].dir, group, kinds[k].used);
            else if ((max = cgroup_value(kinds[k].dir, "", kinds[k].limit)) >= 0)
                used = cgroup_value(kinds[k].dir, "", kinds[k].used);
            if (max >= 0) room = max - (used > 0 ? used : 0);
        }
    }
    fclose(f);
    return room;
}

typedef struct Room {
    double bytes;      /* the least of the limits below (-1: none known) */
    char what[200];    /* which limit that is, for the message */
} Room;

static void consider(Room *r, double bytes, const char *what)
{
    if (bytes < 0 || (r->bytes >= 0 && bytes >= r->bytes)) return;
    r->bytes = bytes;
    ddl_strlcpy(r->what, what, sizeof r->what);
}

/* What one of node_ranks ranks on this host may use. */
static Room room_for_rank(int node_ranks)
{
    Room r = { -1, "" };
    char what[200];
    double avail = proc_kb("/proc/meminfo", "MemAvailable");
    snprintf(what, sizeof what, "the host's available memory (MemAvailable %.1f GiB) shared by %d rank(s) here",
             avail / GIB, node_ranks);
    if (avail >= 0) consider(&r, avail / node_ranks, what);
    double cg = cgroup_room();
    snprintf(what, sizeof what, "the cgroup's memory limit (%.1f GiB still free) shared by %d rank(s) here", cg / GIB,
             node_ranks);
    if (cg >= 0) consider(&r, cg / node_ranks, what);
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
        double mapped = proc_kb("/proc/self/status", "VmSize");
        snprintf(what, sizeof what, "the address-space limit (ulimit -v %.1f GiB, %.1f GiB mapped already)",
                 (double)as.rlim_cur / GIB, mapped / GIB);
        consider(&r, (double)as.rlim_cur - (mapped > 0 ? mapped : 0), what);
    }
    return r;
}

int driver_check_memory(Driver *d, const char *model, const ModelConfig *cfg, int max_batch)
{
    bool host = d->be->host_memory || !strcmp(d->be->what, "emulated GPU");
#ifdef DDL_SMPI
    /* simulated: every rank lives in this one process, each on a simulated
     * host of its own, so neither "the ranks on this host" nor the host's
     * memory mean here what the check compares: not checked */
    host = false;
#endif
    int node_ranks = 1;
    ddl_node_rank(MPI_COMM_WORLD, &node_ranks); /* collective: before any rank may skip */
    ModelSize s;
    char err[DDL_ERRLEN] = "", msg[768] = "";
    bool bad = false;
    if (host && model_size(model, cfg, max_batch, &s, err) == 0) {
        /* weights, gradients, velocity, one more copy and the program's own;
         * state, aux; activations and their gradients; scratch */
        double need = 4.0 * ((4.0 + DDL_MAX(d->weight_copies, 0)) * (double)s.params + (double)s.state + (double)s.aux + 2.0 * (double)s.acts +
                             (double)s.scratch);
        Room r = room_for_rank(node_ranks);
        bad = r.bytes >= 0 && need > r.bytes;
        if (bad)
            snprintf(msg, sizeof msg,
                     "%s at batch %d needs at least %.1f GiB on rank %d (%zu parameters, %zu activation values), "
                     "but a rank here has %.1f GiB: %s. Give a smaller model, width or batch, or fewer ranks per "
                     "host",
                     model, max_batch, need / GIB, d->rank, s.params, s.acts, r.bytes / GIB, r.what);
    }
    /* an unknown model or impossible config: model_build says so next */
    return driver_first_failure(d, bad, msg) >= 0 ? 2 : 0;
}
