/* common.c - see common.h. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Rank used only to prefix messages; written once at start-up by the
 * program (not by library code). Under SimGrid SMPI all ranks share one
 * process, but smpirun loads the program (libddl included) once per rank
 * (privatization, its default), so each rank has its own copy. */
static int g_rank = -1, g_size = 0;

void ddl_error(const char *fmt, ...)
{
    if (g_rank > 0) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void ddl_set_rank(int rank, int size) { g_rank = rank; g_size = size; }

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (g_size > 1)
        fprintf(stderr, "ddlab[rank %d]: %s%s\n", g_rank, kind, buf);
    else
        fprintf(stderr, "ddlab: %s%s\n", kind, buf);
    fflush(stderr);
}

void ddl_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("error: ", fmt, ap);
    va_end(ap);
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (inited && !finalized && g_size > 1)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

void ddl_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("warning: ", fmt, ap);
    va_end(ap);
}

#ifdef DDL_SMPI
/* Allocations of at least this many bytes come from SMPI's shared malloc
 * (0: none). Per rank: SMPI privatizes each rank's globals. */
static size_t g_shared_min = 0;

void ddl_sim_share_allocations(size_t min_bytes) { g_shared_min = min_bytes; }

/* Allocations of at least this many bytes are aliased (0: none), and how
 * many this rank made so far: the k-th aliased allocation of a size is the
 * same memory on every rank that aliases. */
static size_t g_alias_min = 0;
static unsigned long g_alias_seq = 0;

void ddl_sim_alias_allocations(size_t min_bytes) { g_alias_min = min_bytes; }

/* The live shared and aliased blocks, so that ddl_sim_is_shared can tell
 * them from private memory (SMPI's own test is C++ only) and ddl_free
 * leaves an aliased one to the others. A few dozen at most: a model's
 * arenas, its optimizer state, its buckets. */
static struct { const char *p; size_t n; bool aliased; } *g_shared;
static int g_nshared, g_capshared;

static void shared_remember(const void *p, size_t n, bool aliased)
{
    g_shared = ddl_grow(g_shared, g_nshared, &g_capshared, sizeof *g_shared, 16, "the shared blocks");
    g_shared[g_nshared].p = p;
    g_shared[g_nshared].aliased = aliased;
    g_shared[g_nshared++].n = n;
}

/* Forgets p; 0: not one of them, 1: a shared block, 2: an aliased one. */
static int shared_forget(const void *p)
{
    for (int i = 0; i < g_nshared; i++)
        if (g_shared[i].p == p) {
            int kind = g_shared[i].aliased ? 2 : 1;
            g_shared[i] = g_shared[--g_nshared];
            return kind;
        }
    return 0;
}

/* The process-wide block for this rank's next aliased allocation of n
 * bytes, made by the first rank to ask (SMPI's call cache is the one
 * store all ranks see: their globals are their own). */
static void *alias_block(size_t n)
{
    char key[64];
    snprintf(key, sizeof key, "%lu:%zu", g_alias_seq++, n);
    void *p = smpi_shared_known_call("ddl_alias", key) ? smpi_shared_get_call("ddl_alias", key) : NULL;
    if (!p) {
        p = aligned_alloc(64, n);
        if (!p) ddl_die("out of memory allocating %zu bytes", n);
        smpi_shared_set_call("ddl_alias", key, p);
    }
    shared_remember(p, n, true);
    return p;
}

bool ddl_sim_is_shared(const void *p)
{
    const char *c = p;
    for (int i = 0; i < g_nshared; i++)
        if (c >= g_shared[i].p && c < g_shared[i].p + g_shared[i].n) return true;
    return false;
}
#else
void ddl_sim_share_allocations(size_t min_bytes) { (void)min_bytes; }
void ddl_sim_alias_allocations(size_t min_bytes) { (void)min_bytes; }
bool ddl_sim_is_shared(const void *p) { (void)p; return false; }
#endif

void *ddl_grow(void *p, int n, int *cap, size_t size, int first, const char *what)
{
    if (n < *cap) return p;
    int grown = *cap ? 2 * *cap : first;
    p = realloc(p, size * (size_t)grown);
    if (!p) ddl_die("out of memory growing %s to %d", what, grown);
    *cap = grown;
    return p;
}

void *ddl_alloc(size_t bytes)
{
    if (bytes == 0) bytes = 64;
    size_t rounded = (bytes + 63) & ~(size_t)63;
#ifdef DDL_SMPI
    /* Page-aligned memory that every rank's such allocations alias (SMPI's
     * default "global" shared malloc): no memory per rank, no copies in
     * simulated messages, contents meaningless. free() (SMPI's) knows it. */
    if (g_alias_min && rounded >= g_alias_min) return alias_block(rounded);
    if (g_shared_min && rounded >= g_shared_min) {
        void *shared = SMPI_SHARED_MALLOC(rounded);
        shared_remember(shared, rounded, false);
        return shared;
    }
#endif
    void *p = aligned_alloc(64, rounded);
    if (!p) ddl_die("out of memory allocating %zu bytes", bytes);
    return p;
}

void *ddl_calloc(size_t bytes)
{
    void *p = ddl_alloc(bytes);
    memset(p, 0, bytes ? bytes : 64);
    return p;
}

void ddl_free(void *p)
{
#ifdef DDL_SMPI
    /* SMPI's free() knows shared blocks; an aliased block stays for the
     * other ranks (and the process's end) */
    if (p && shared_forget(p) == 2) return;
#endif
    free(p);
}

double ddl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ddl_strlcpy(char *dst, const char *src, size_t cap)
{
    if (cap == 0) return;
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

const char *ddl_file_kind(unsigned mode)
{
    static const struct { unsigned type; const char *name; } kinds[] = {
        { S_IFREG, "a regular file" }, { S_IFDIR, "a directory" }, { S_IFIFO, "a FIFO" }, { S_IFCHR, "a device" },
        { S_IFBLK, "a device" },      { S_IFSOCK, "a socket" },    { S_IFLNK, "a symbolic link" },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if ((mode & S_IFMT) == kinds[i].type) return kinds[i].name;
    return "not a regular file";
}

int ddl_errf(char err[DDL_ERRLEN], const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, DDL_ERRLEN, fmt, ap);
    va_end(ap);
    return -1;
}
