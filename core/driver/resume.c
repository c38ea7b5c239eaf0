/* resume.c - checkpoints of a run and its continuation (driver.h,
 * driver_train).
 *
 * A checkpoint directory holds one generation of files:
 *   rank<r>-b<batch>.ckpt   every rank's state after <batch> batches
 *   checkpoint.txt          which generation is whole: written by rank 0
 *                           after every rank wrote its file, atomically
 * A run killed while writing leaves the previous generation named by
 * checkpoint.txt, complete; the older generation is removed only after the
 * new one is named. Each file carries the run's settings (every option of
 * the command line but those that may change between the parts of a run:
 * length, where outputs go, labels), the ranks and the strategy, so a
 * checkpoint is never continued by other settings. */
#include "resume.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../common.h"
#include "options.h"

/* Options a continuation may change: the run's length, where its outputs
 * and checkpoints go, and labels. */
static bool may_change(const char *name)
{
    static const char *const free_ones[] = { "iters", "epochs", "checkpoint", "checkpoint-every", "resume", "out",
                                             "figures", "tex", "quiet", "tag", "profile", NULL };
    for (int i = 0; free_ones[i]; i++)
        if (!strcmp(name, free_ones[i])) return true;
    return false;
}

static void value_of(const CliOption *o, char *out, size_t cap)
{
    switch (o->type) {
    case OPT_INT: snprintf(out, cap, "%d", *(const int *)o->target); break;
    case OPT_FLOAT: { /* the shortest text that reads back as the same float: "0.05" */
        float v = *(const float *)o->target;
        for (int digits = 6; digits <= 9; digits++) {
            snprintf(out, cap, "%.*g", digits, (double)v);
            if (strtof(out, NULL) == v) break;
        }
        break;
    }
    case OPT_STR: snprintf(out, cap, "%s", *(const char *const *)o->target ? *(const char *const *)o->target : "");
        break;
    case OPT_FLAG: snprintf(out, cap, "%s", *(const bool *)o->target ? "yes" : "no"); break;
    case OPT_U64: snprintf(out, cap, "%llu", (unsigned long long)*(const uint64_t *)o->target); break;
    case OPT_SIZE: snprintf(out, cap, "%zu", *(const size_t *)o->target); break;
    }
}

/* "program lab1 run\nranks 2\nsync ddp\n--model cnn3\n..." */
static void settings(const Driver *d, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "program %s %s\nranks %d\nsync %s\n", d->spec->program, d->mode,
                                d->world, d->sync ? d->sync->row->name : "-");
    for (int i = 0; i < d->ncli && n < cap; i++) {
        if (may_change(d->cli[i].name)) continue;
        char v[512];
        value_of(&d->cli[i], v, sizeof v);
        n += (size_t)snprintf(out + n, cap - n, "--%s %s\n", d->cli[i].name, v);
    }
}

/* The first line where the checkpoint's settings and this run's differ. */
static void first_difference(const char *saved, const char *mine, char err[DDL_ERRLEN], const char *dir)
{
    while (*saved && *mine) {
        size_t a = strcspn(saved, "\n"), b = strcspn(mine, "\n");
        if (a != b || strncmp(saved, mine, a)) {
            snprintf(err, DDL_ERRLEN, "checkpoint %.120s was written with '%.*s', this run has '%.*s': continue it "
                     "with the same settings, or start afresh without --resume", dir, (int)DDL_MIN(a, 90), saved,
                     (int)DDL_MIN(b, 90), mine);
            return;
        }
        saved += a + (saved[a] == '\n');
        mine += b + (mine[b] == '\n');
    }
    snprintf(err, DDL_ERRLEN, "checkpoint %.200s was written with other settings", dir);
}

static void rank_file(const char *dir, int rank, long batch, char *out, size_t cap)
{
    snprintf(out, cap, "%s/rank%d-b%ld.ckpt", dir, rank, batch);
}

static void manifest_file(const char *dir, char *out, size_t cap)
{
    snprintf(out, cap, "%s/checkpoint.txt", dir);
}

/* The batch count of the whole generation checkpoint.txt names; -1. */
static long manifest_batch(const char *dir)
{
    char path[1200], line[256];
    manifest_file(dir, path, sizeof path);
    FILE *f = fopen(path, "r");
    long batch = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "batch: %ld", &batch) == 1) break;
    if (f) fclose(f);
    return batch;
}

void driver_checkpoint_paths(Driver *d)
{
    const DriverOptions *o = d->opt;
    d->ckpt_dir[0] = d->resume_dir[0] = '\0';
    d->ckpt_at = -1;
    if (!(d->spec->shared & DRV_CHECKPOINT)) return;
    const char *root = getenv("DDL_CHECKPOINT_ROOT");
    char automatic[1024] = "";
    if (root && *root) snprintf(automatic, sizeof automatic, "%s/%s-%s", root, d->spec->program, d->tag);
    if (o->checkpoint) ddl_strlcpy(d->ckpt_dir, o->checkpoint, sizeof d->ckpt_dir);
    else ddl_strlcpy(d->ckpt_dir, automatic, sizeof d->ckpt_dir);
    const char *again = getenv("DDL_RESUME");
    if (o->resume) ddl_strlcpy(d->resume_dir, o->resume, sizeof d->resume_dir);
    else if (again && !strcmp(again, "1") && *automatic) ddl_strlcpy(d->resume_dir, automatic, sizeof d->resume_dir);
    if (d->ckpt_scope[0]) {
        char sub[1100];
        if (d->ckpt_dir[0]) {
            snprintf(sub, sizeof sub, "%.1000s/%s", d->ckpt_dir, d->ckpt_scope);
            ddl_strlcpy(d->ckpt_dir, sub, sizeof d->ckpt_dir);
        }
        if (d->resume_dir[0]) {
            snprintf(sub, sizeof sub, "%.1000s/%s", d->resume_dir, d->ckpt_scope);
            ddl_strlcpy(d->resume_dir, sub, sizeof d->resume_dir);
        }
    }
    /* $DDL_RESUME continues what is there; --resume insists, but for one
     * of several trainings (a scope) the program asks driver_checkpoint_found */
    bool optional = !o->resume || d->ckpt_scope[0];
    if (d->resumed || (optional && d->resume_dir[0] && manifest_batch(d->resume_dir) < 0)) d->resume_dir[0] = '\0';
}

void driver_checkpoint_scope(Driver *d, const char *scope)
{
    ddl_strlcpy(d->ckpt_scope, scope ? scope : "", sizeof d->ckpt_scope);
}

bool driver_checkpoint_found(Driver *d, const char *scope)
{
    char keep[64];
    ddl_strlcpy(keep, d->ckpt_scope, sizeof keep);
    driver_checkpoint_scope(d, scope);
    driver_checkpoint_paths(d);
    int found = d->rank == 0 && d->resume_dir[0] && manifest_batch(d->resume_dir) >= 0;
    MPI_Bcast(&found, 1, MPI_INT, 0, MPI_COMM_WORLD);
    driver_checkpoint_scope(d, keep);
    driver_checkpoint_paths(d);
    return found;
}

/* Everything of this rank into one checkpoint. */
static Ckpt *collect(Driver *d, const DriverHooks *h, const char *set)
{
    Ckpt *c = ckpt_new();
    ckpt_put_str(c, "settings", set);
    ckpt_put(c, "driver.state", &d->st, sizeof d->st);
    /* A batch staged ahead on a device is fetched again after resuming. */
    Batcher b = d->b;
    int32_t epochs[2] = { d->fetch_epoch, d->put_epoch };
    if (d->prefetched) {
        b.epoch = d->unfetched.epoch;
        b.pos = d->unfetched.pos;
        b.aug = d->unfetched.aug;
        epochs[0] = epochs[1] = d->unfetched.fetch_epoch;
    }
    ckpt_put(c, "driver.epochs", epochs, sizeof epochs);
    ckpt_put_model(c, "model", &d->m);
    ckpt_put_sgd(c, "sgd", &d->t.opt);
    if (d->has_batcher) ckpt_put_batcher(c, "batcher", &b);
    sync_save(d->sync, c);
    if (d->nevents) { /* a timeline taken before the checkpoint */
        ckpt_put(c, "driver.trace", d->events, sizeof *d->events * (size_t)d->nevents);
        ckpt_put(c, "driver.trace_ranks", d->event_ranks, sizeof *d->event_ranks * (size_t)d->nevents);
    }
    if (h->save) h->save(d, c, h->ctx);
    return c;
}

/* The timeline, when the checkpoint has one. */
static int restore_trace(Driver *d, const Ckpt *c, char err[DDL_ERRLEN])
{
    size_t len, rlen;
    const void *ev = ckpt_find(c, "driver.trace", &len), *rk = ckpt_find(c, "driver.trace_ranks", &rlen);
    if (!ev) return 0;
    int n = (int)(len / sizeof *d->events);
    if (!rk || len % sizeof *d->events || rlen != sizeof *d->event_ranks * (size_t)n)
        return ddl_errf(err, "checkpoint's timeline is damaged");
    free(d->events);
    free(d->event_ranks);
    d->events = malloc(len ? len : 1);
    d->event_ranks = malloc(rlen ? rlen : 1);
    if (!d->events || !d->event_ranks) ddl_die("out of memory");
    memcpy(d->events, ev, len);
    memcpy(d->event_ranks, rk, rlen);
    d->nevents = n;
    return 0;
}

/* Rank 0: the generation is whole; name it, then drop the older ones. */
static int name_generation(Driver *d, const char *set, char err[DDL_ERRLEN])
{
    char path[1200], text[8192];
    manifest_file(d->ckpt_dir, path, sizeof path);
    int n = snprintf(text, sizeof text, "# ddlab checkpoint: continue with --resume %s (same settings)\nbatch: %ld\n"
                     "ranks: %d\nformat: %u\n%s", d->ckpt_dir, d->st.batch, d->world, CKPT_VERSION, set);
    if (write_file_atomic(path, text, (size_t)DDL_MIN(n, (int)sizeof text - 1)) != 0) {
        snprintf(err, DDL_ERRLEN, "cannot write %.200s", path);
        return -1;
    }
    DIR *dir = opendir(d->ckpt_dir);
    for (struct dirent *e; dir && (e = readdir(dir));) {
        int r;
        long b;
        char tail;
        char old[1400];
        if (sscanf(e->d_name, "rank%d-b%ld.ckp%c", &r, &b, &tail) == 3 && b != d->st.batch) {
            snprintf(old, sizeof old, "%s/%.300s", d->ckpt_dir, e->d_name);
            remove(old);
        }
    }
    if (dir) closedir(dir);
    return 0;
}

/* Fault injection: $DDL_FAULT_KILL_AFTER=N kills the process (SIGKILL, as
 * the OOM killer or a lost node would) right after the first checkpoint
 * at or past batch N, so tests/e2e_resume.sh can kill a run at a known
 * point instead of racing it. */
static void crash_for_tests(const Driver *d)
{
    const char *at = getenv("DDL_FAULT_KILL_AFTER");
    if (at && *at && d->st.batch >= atol(at)) raise(SIGKILL);
}

int driver_checkpoint_save(Driver *d, const DriverHooks *h)
{
    char set[6144], path[1200], err[DDL_ERRLEN] = "";
    settings(d, set, sizeof set);
    bool bad = false;
    if (d->rank == 0 && mkdir_p(d->ckpt_dir) != 0) {
        snprintf(err, sizeof err, "--checkpoint %.150s: cannot create it (%.40s)", d->ckpt_dir, strerror(errno));
        bad = true;
    }
    MPI_Bcast(&bad, 1, MPI_C_BOOL, 0, MPI_COMM_WORLD);
    if (!bad) {
        Ckpt *c = collect(d, h, set);
        rank_file(d->ckpt_dir, d->rank, d->st.batch, path, sizeof path);
        bad = ckpt_write(c, path, err) != 0;
        ckpt_free(c);
    }
    if (driver_first_failure(d, bad, err) >= 0) return 2;
    bad = d->rank == 0 && name_generation(d, set, err) != 0;
    if (driver_first_failure(d, bad, err) >= 0) return 2;
    d->ckpt_at = d->st.batch;
    crash_for_tests(d);
    return 0;
}

/* Every part of the run from c, in the order collect() put them. */
static int restore_sections(Driver *d, const DriverHooks *h, const Ckpt *c, int32_t epochs[2], char err[DDL_ERRLEN])
{
    if (ckpt_get(c, "driver.state", &d->st, sizeof d->st, err)) return -1;
    if (ckpt_get(c, "driver.epochs", epochs, 2 * sizeof *epochs, err)) return -1;
    if (ckpt_get_model(c, "model", &d->m, err) || ckpt_get_sgd(c, "sgd", &d->t.opt, err)) return -1;
    if (d->has_batcher && ckpt_get_batcher(c, "batcher", &d->b, err)) return -1;
    if (sync_load(d->sync, c, err) || restore_trace(d, c, err)) return -1;
    return h->load ? h->load(d, c, h->ctx, err) : 0;
}

/* This rank's state from the generation checkpoint.txt names. */
static int restore(Driver *d, const DriverHooks *h, char err[DDL_ERRLEN])
{
    long batch = manifest_batch(d->resume_dir);
    if (batch < 0)
        return ddl_errf(err, "--resume %s: no checkpoint there (no readable checkpoint.txt)", d->resume_dir);
    char path[1200], set[6144];
    rank_file(d->resume_dir, d->rank, batch, path, sizeof path);
    Ckpt *c;
    if (ckpt_read(path, &c, err) != 0) return -1;
    settings(d, set, sizeof set);
    const char *saved = ckpt_str(c, "settings");
    int32_t epochs[2];
    int rc = -1;
    if (!saved || strcmp(saved, set)) {
        first_difference(saved ? saved : "", set, err, d->resume_dir);
        rc = -2; /* nothing restored yet */
    } else {
        rc = restore_sections(d, h, c, epochs, err);
    }
    if (rc == 0 && d->st.batch != batch)
        rc = ddl_errf(err, "%s: holds batch %ld, checkpoint.txt says %ld", path, d->st.batch, batch);
    if (rc == 0) {
        d->fetch_epoch = d->put_epoch = epochs[0];
        d->ckpt_at = d->st.batch;
    } else if (!strstr(err, path) && !strstr(err, d->resume_dir)) {
        char why[DDL_ERRLEN];
        ddl_strlcpy(why, err, sizeof why);
        snprintf(err, DDL_ERRLEN, "%.100s: %.150s", path, why);
    }
    ckpt_free(c);
    return rc;
}

int driver_checkpoint_resume(Driver *d, const DriverHooks *h, long total)
{
    char err[DDL_ERRLEN] = "";
    int rc = restore(d, h, err);
    /* $DDL_RESUME (make labN RESUME=1) finds the checkpoint of a run of the
     * same name but other settings (another NP, another profile): that run
     * is not this one, which starts afresh. --resume insists. */
    int other = rc == -2;
    MPI_Bcast(&other, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (other && !d->opt->resume) {
        if (d->rank == 0) fprintf(stderr, "%s: %s; starting afresh\n", d->spec->program, err);
        d->resume_dir[0] = '\0';
        return 0;
    }
    bool bad = rc != 0;
    if (!bad && d->st.batch > total) {
        snprintf(err, sizeof err, "--resume %.100s: the checkpoint is at iteration %ld, past this run's %ld: ask for "
                 "more --iters/--epochs", d->resume_dir, d->st.batch, total);
        bad = true;
    }
    if (driver_first_failure(d, bad, err) >= 0) return 2;
    d->resumed = true;
    if (d->rank == 0) /* even when quiet: not progress, but what this run is */
        fprintf(stderr, "%s: resumed from %s at batch %ld of %ld\n", d->spec->program, d->resume_dir, d->st.batch,
                total);
    return 0;
}
