/* agree.c - every rank runs the same settings on the same data (options.h).
 *
 * Nothing else makes sure of it: an MPMD launch ("mpirun -np 1 A : -np 1
 * B") or a cluster node whose files differ starts ranks that each parsed
 * their own command line and loaded their own data. They then disagree
 * inside a collective: lab3 with another --model on each rank crashed in
 * free() (the gradients' sizes differ), lab2 bench with other --sizes
 * freed twice, lab4 with --iters 2 against 3 hung, and a rank on synthetic
 * data beside one on real data finished and reported "data: synthetic".
 *
 * So before any work each rank hashes its settings, item by item (the
 * program and mode, every option's value, its verdict on them), and one
 * allreduce of the hash of those hashes (its maximum and the maximum of
 * its complement: equal exactly when every rank has the same) says whether
 * all agree. Only when they do not are the items gathered, to name the
 * first that differs and two ranks' values of it. The data is compared the
 * same way once loaded: its kind, shape, every label and an even sample of
 * the examples, a content hash that no path or file name changes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../util/common.h"
#include "options.h"

enum { ITEMS = 66, SAMPLES = 4096, SHOWN = 240 };

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}
#define FNV_START 0xcbf29ce484222325ULL

/* Collective: -1 when every rank has the same items; otherwise the first
 * item where some rank differs from rank 0, and in *other the lowest such
 * rank. */
static int first_difference(const Driver *d, const uint64_t items[ITEMS], int *other)
{
    uint64_t all = fnv(FNV_START, items, sizeof(uint64_t) * ITEMS);
    uint64_t top[2] = { all, ~all };
    MPI_Allreduce(MPI_IN_PLACE, top, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (top[0] == ~top[1]) return -1; /* the largest is also the smallest */
    uint64_t *every = ddl_alloc(sizeof *every * ITEMS * (size_t)d->world);
    MPI_Allgather(items, ITEMS, MPI_UINT64_T, every, ITEMS, MPI_UINT64_T, MPI_COMM_WORLD);
    int item = -1;
    for (int i = 0; i < ITEMS && item < 0; i++)
        for (int r = 1; r < d->world && item < 0; r++)
            if (every[(size_t)r * ITEMS + i] != every[i]) item = i, *other = r;
    free(every);
    return item;
}

/* Collective: every rank's text of the differing item gathered at rank 0,
 * which gets its own in zero and rank other's in theirs (both SHOWN
 * bytes) and returns true; the other ranks return false. */
static bool two_texts(const Driver *d, const char *mine, int other, char *zero, char *theirs)
{
    char buf[SHOWN];
    memset(buf, 0, sizeof buf);
    ddl_strlcpy(buf, mine, sizeof buf);
    char *all = d->rank == 0 ? ddl_alloc((size_t)SHOWN * (size_t)d->world) : NULL;
    MPI_Gather(buf, SHOWN, MPI_CHAR, all, SHOWN, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!all) return false;
    memcpy(zero, all, SHOWN);
    memcpy(theirs, all + (size_t)SHOWN * (size_t)other, SHOWN);
    free(all);
    return true;
}

static const char *verdict_text(const Driver *d, int verdict)
{
    if (verdict == 0) return "goes on";
    return d->status == 0 ? "stops after --help" : "stops: its command line or environment was refused";
}

/* Item i's name (for the message) and this rank's text of it. */
static void start_item(const Driver *d, int verdict, int i, char *name, char *text, size_t cap)
{
    if (i == 0) {
        snprintf(name, cap, "the program");
        const char *mode = d->mode ? d->mode : "";
        snprintf(text, cap, "%s%s%s", d->spec->program, *mode ? " " : "", mode);
    } else if (i <= d->ncli) {
        snprintf(name, cap, "--%s", d->cli[i - 1].name);
        driver_option_value(&d->cli[i - 1], text, cap);
    } else {
        snprintf(name, cap, "its command line");
        snprintf(text, cap, "%s", verdict_text(d, verdict));
    }
}

int driver_agree_start(Driver *d, int verdict)
{
    if (d->world <= 1) return verdict;
    uint64_t items[ITEMS] = { 0 };
    char name[SHOWN], text[SHOWN];
    int n = d->ncli < ITEMS - 2 ? d->ncli : ITEMS - 2;
    for (int i = 0; i <= n + 1; i++) {
        start_item(d, verdict, i == n + 1 ? ITEMS - 1 : i, name, text, sizeof text);
        items[i == n + 1 ? ITEMS - 1 : i] = fnv(fnv(FNV_START, name, strlen(name) + 1), text, strlen(text));
    }
    int other = 0, item = first_difference(d, items, &other);
    if (item < 0) return verdict;
    start_item(d, verdict, item, name, text, sizeof text);
    char zero[SHOWN], theirs[SHOWN];
    if (two_texts(d, text, other, zero, theirs))
        fprintf(stderr,
                "error: the ranks were started with different settings: %s is '%s' on rank 0 and '%s' on rank %d; "
                "every rank must run the same program with the same options (an MPMD launch 'A : B' gives each "
                "part its own)\n",
                name, zero, theirs, other);
    d->status = 2;
    return -1;
}

/* A split's content: kind, shape, every label, SAMPLES examples' values
 * spread evenly over all of them. */
static uint64_t split_hash(const Dataset *s)
{
    uint64_t h = fnv(FNV_START, s->name, strlen(s->name));
    int dims[6] = { s->synthetic, s->n, s->c, s->h, s->w, s->classes };
    h = fnv(h, dims, sizeof dims);
    h = fnv(h, s->y, sizeof *s->y * (size_t)s->n);
    size_t total = (size_t)s->n * (size_t)s->c * (size_t)s->h * (size_t)s->w;
    for (size_t k = 0; total && k < SAMPLES; k++) {
        size_t at = (size_t)((double)k * (double)(total - 1) / (SAMPLES - 1));
        h = fnv(h, &s->x[at], sizeof *s->x);
    }
    return h;
}

static void split_text(const Dataset *s, const char *which, char *out, size_t cap)
{
    if (!s) {
        snprintf(out, cap, "no %s split", which);
        return;
    }
    if (s->synthetic) snprintf(out, cap, "%.200s", s->source); /* "synthetic mnist (seed S, n N)" */
    else snprintf(out, cap, "real %s, %d examples (%.150s)", s->name, s->n, s->source);
}

int driver_agree_data(Driver *d)
{
    if (d->world <= 1) return 0;
    const Dataset *split[2] = { d->has_train ? &d->train : NULL, d->has_test ? &d->test : NULL };
    static const char *const names[2] = { "training", "test" };
    uint64_t items[ITEMS] = { 0 };
    for (int i = 0; i < 2; i++) items[i] = split[i] ? split_hash(split[i]) : 1;
    int other = 0, item = first_difference(d, items, &other);
    if (item < 0) return 0;
    char text[SHOWN], zero[SHOWN], theirs[SHOWN];
    split_text(split[item], names[item], text, sizeof text);
    if (two_texts(d, text, other, zero, theirs))
        fprintf(stderr,
                "error: the ranks loaded different %s data: rank 0 has %s; rank %d has %s. Every rank must read the "
                "same files (DDL_DATA on each node; a node without them falls back to synthetic data: "
                "--no-synthetic refuses that)\n",
                names[item], zero, other, theirs);
    return 1;
}
