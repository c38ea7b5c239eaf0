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
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../util/common.h"
#include "options.h" /* driver_option_value, driver_first_failure */

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

/* "program lab1 run\nranks 2\nsync ddp\n--model cnn3\n..." */
static void settings(const Driver *d, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "program %s %s\nranks %d\nsync %s\n", d->spec->program, d->mode,
                                d->world, d->sync ? d->sync->row->name : "-");
    for (int i = 0; i < d->ncli && n < cap; i++) {
        if (may_change(d->cli[i].name)) continue;
        char v[512];
        driver_option_value(&d->cli[i], v, sizeof v);
        n += (size_t)snprintf(out + n, cap - n, "--%s %s\n", d->cli[i].name, v);
    }
    if (n < cap) snprintf(out + n, cap - n, "%s", d->data_identity);
}

/* Collective: d->data_identity, once per loaded data: "data train: ...\n"
 * and "data test: ...\n" (dataset_identity), computed by rank 0 (every
 * rank loaded the same files) and sent to all. 0, or 2 after a message. */
static int know_data(Driver *d)
{
    char err[DDL_ERRLEN] = "";
    bool bad = false;
    if (d->rank == 0 && !d->data_identity[0]) {
        char line[1024];
        const Dataset *split[2] = { d->has_train ? &d->train : NULL, d->has_test ? &d->test : NULL };
        static const char *const names[2] = { "train", "test" };
        size_t n = 0, cap = sizeof d->data_identity;
        for (int i = 0; i < 2 && !bad; i++) {
            if (!split[i]) continue;
            bad = dataset_identity(split[i], line, sizeof line, err) != 0;
            if (!bad && n < cap) n += (size_t)snprintf(d->data_identity + n, cap - n, "data %s: %s\n", names[i], line);
        }
        if (!d->data_identity[0] && !bad) ddl_strlcpy(d->data_identity, "data: none\n", cap);
    }
    if (driver_first_failure(d, bad, err) >= 0) return 2;
    MPI_Bcast(d->data_identity, (int)sizeof d->data_identity, MPI_CHAR, 0, MPI_COMM_WORLD);
    return 0;
}

/* Messages of a refused continuation name two settings lines (a data
 * identity line runs to a few hundred characters): room beyond DDL_ERRLEN. */
#define RESUME_ERRLEN 1024

/* The first line where the checkpoint's settings and this run's differ,
 * each shown from a little before where they part. */
static void first_difference(const char *saved, const char *mine, char err[RESUME_ERRLEN], const char *dir)
{
    while (*saved && *mine) {
        size_t a = strcspn(saved, "\n"), b = strcspn(mine, "\n");
        if (a != b || strncmp(saved, mine, a)) {
            size_t p = 0;
            while (p < a && p < b && saved[p] == mine[p]) p++;
            size_t from = p > 80 ? p - 60 : 0;
            /* a long line keeps its label ("data test:") before the cut */
            int key = from ? (int)DDL_MIN(strcspn(saved, ":"), (size_t)30) : 0;
            const char *cut = from ? ": ..." : "";
            snprintf(err, RESUME_ERRLEN, "checkpoint %.300s was written with '%.*s%s%.*s', this run has '%.*s%s%.*s'",
                     dir, key, saved, cut, (int)DDL_MIN(a - from, 240), saved + from, key, mine, cut,
                     (int)DDL_MIN(b - from, 240), mine + from);
            return;
        }
        saved += a + (saved[a] == '\n');
        mine += b + (mine[b] == '\n');
    }
    snprintf(err, RESUME_ERRLEN, "checkpoint %.300s was written with other settings", dir);
}

static void rank_file(const char *dir, int rank, long batch, char *out, size_t cap)
{
    snprintf(out, cap, "%s/rank%d-b%ld.ckpt", dir, rank, batch);
}

static void manifest_file(const char *dir, char *out, size_t cap)
{
    snprintf(out, cap, "%s/checkpoint.txt", dir);
}

/* The batch count of the whole generation checkpoint.txt names: -1 when
 * there is none (no such file), -2 when it is there but unusable (err says
 * why: not a regular file, too big to be one, no batch line). It is opened
 * without blocking and read only when it is a regular file of a sane size:
 * a FIFO would block forever and /dev/zero never end. */
static long manifest_batch(const char *dir, char err[DDL_ERRLEN])
{
    char path[1200], text[16384];
    manifest_file(dir, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return -1;
        ddl_errf(err, "%s: %s", path, strerror(errno));
        return -2;
    }
    struct stat st;
    ssize_t got = -1;
    if (fstat(fd, &st) != 0)
        ddl_errf(err, "%s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        ddl_errf(err, "%s is %s, not a file a run wrote", path, ddl_file_kind(st.st_mode));
    else if (st.st_size >= (off_t)sizeof text)
        ddl_errf(err, "%s holds %lld bytes, more than a checkpoint.txt can (%zu)", path, (long long)st.st_size,
                 sizeof text - 1);
    else if ((got = pread(fd, text, (size_t)st.st_size, 0)) < 0)
        ddl_errf(err, "%s: %s", path, strerror(errno));
    close(fd);
    if (got < 0) return -2;
    text[got] = '\0';
    long batch = -1;
    for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (sscanf(line, "batch: %ld", &batch) == 1 && batch >= 0) return batch;
    ddl_errf(err, "%s names no generation (no 'batch:' line)", path);
    return -2;
}

void driver_checkpoint_bases(const Driver *d, char *ckpt, char *resume, size_t cap)
{
    const DriverOptions *o = d->opt;
    ckpt[0] = resume[0] = '\0';
    if (!(d->spec->shared & DRV_CHECKPOINT)) return;
    const char *root = d->env.checkpoint_root;
    char automatic[1024] = "";
    if (root && *root && d->tag[0]) snprintf(automatic, sizeof automatic, "%s/%s-%s", root, d->spec->program, d->tag);
    ddl_strlcpy(ckpt, o->checkpoint ? o->checkpoint : automatic, cap);
    if (o->resume) ddl_strlcpy(resume, o->resume, cap);
    else if (d->env.resume && *automatic) ddl_strlcpy(resume, automatic, cap);
}

void driver_checkpoint_paths(Driver *d)
{
    const DriverOptions *o = d->opt;
    d->ckpt_at = -1;
    driver_checkpoint_bases(d, d->ckpt_dir, d->resume_dir, sizeof d->ckpt_dir);
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
     * of several trainings (a scope) the program asks driver_checkpoint_found.
     * A checkpoint.txt that is there but unusable is not skipped: restore
     * refuses it with the reason. */
    bool optional = !o->resume || d->ckpt_scope[0];
    char err[DDL_ERRLEN];
    if (d->resumed || (optional && d->resume_dir[0] && manifest_batch(d->resume_dir, err) == -1))
        d->resume_dir[0] = '\0';
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
    char err[DDL_ERRLEN];
    int found = d->rank == 0 && d->resume_dir[0] && manifest_batch(d->resume_dir, err) != -1;
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
    int32_t who[2] = { d->rank, d->world }; /* so that swapped rank files are refused */
    ckpt_put(c, "driver.rank", who, sizeof who);
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
    char path[1200], text[9216];
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
    if (d->env.kill_after >= 0 && d->st.batch >= d->env.kill_after) raise(SIGKILL);
}

int driver_checkpoint_save(Driver *d, const DriverHooks *h)
{
    char set[8192], path[1200], err[DDL_ERRLEN] = "";
    if (know_data(d) != 0) return 2;
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
    int32_t who[2];
    if (ckpt_get(c, "driver.rank", who, sizeof who, err)) return -1;
    if (who[0] != d->rank || who[1] != d->world)
        return ddl_errf(err, "holds the state of rank %d of %d, but this is rank %d of %d: rank files renamed, "
                             "swapped or copied between checkpoints", (int)who[0], (int)who[1], d->rank, d->world);
    if (ckpt_get(c, "driver.state", &d->st, sizeof d->st, err)) return -1;
    if (ckpt_get(c, "driver.epochs", epochs, 2 * sizeof *epochs, err)) return -1;
    if (ckpt_get_model(c, "model", &d->m, err) || ckpt_get_sgd(c, "sgd", &d->t.opt, err)) return -1;
    if (d->has_batcher && ckpt_get_batcher(c, "batcher", &d->b, err)) return -1;
    if (sync_load(d->sync, c, err) || restore_trace(d, c, err)) return -1;
    return h->load ? h->load(d, c, h->ctx, err) : 0;
}

/* This rank's state from the generation checkpoint.txt names. */
static int restore(Driver *d, const DriverHooks *h, char err[RESUME_ERRLEN])
{
    char bad[DDL_ERRLEN];
    long batch = manifest_batch(d->resume_dir, bad);
    if (batch == -1) return ddl_errf(err, "--resume %s: no checkpoint there (no checkpoint.txt)", d->resume_dir);
    if (batch < 0) return ddl_errf(err, "--resume %.200s: %s", d->resume_dir, bad);
    char path[1200], set[8192];
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
        char why[RESUME_ERRLEN];
        ddl_strlcpy(why, err, sizeof why);
        snprintf(err, RESUME_ERRLEN, "%.300s: %.600s", path, why);
    }
    ckpt_free(c);
    return rc;
}

int driver_checkpoint_resume(Driver *d, const DriverHooks *h, long total)
{
    char err[RESUME_ERRLEN] = "";
    if (know_data(d) != 0) return 2;
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
    if (rc == -2) {
        size_t n = strlen(err);
        snprintf(err + n, sizeof err - n, ": continue it with the same settings and data, or start afresh without "
                                          "--resume");
    }
    if (!bad && d->st.batch > total) {
        snprintf(err, sizeof err, "--resume %.100s: the checkpoint is at iteration %ld, past this run's %ld: ask for "
                 "more --iters/--epochs", d->resume_dir, d->st.batch, total);
        bad = true;
    }
    if (driver_first_failure(d, bad, err) >= 0) return 2;
    d->resumed = true;
    d->resumed_at = d->st.batch;
    if (d->rank == 0) /* even when quiet: not progress, but what this run is */
        fprintf(stderr, "%s: resumed from %s at batch %ld of %ld\n", d->spec->program, d->resume_dir, d->st.batch,
                total);
    return 0;
}
