/* start.c - a program's start (driver.h): MPI and threads, the command
 * line, and, when the work starts, the device and the output directory
 * checked before anything is computed. */
#include "driver.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../backend/registry.h"
#include "../util/common.h"
#include "../platform/threads.h"
#include "options.h"
#include "resume.h"

enum { MAX_OPTIONS = 64 };

/* The mode word, when the program has modes. 0, or -1 after a message. */
static int take_mode(Driver *d, int *argc, char ***argv)
{
    const DriverSpec *spec = d->spec;
    d->mode = "";
    if (!spec->modes) return 0;
    bool has_mode = *argc > 1 && (*argv)[1][0] != '-';
    if (!has_mode) return 0;
    d->mode = (*argv)[1];
    (*argc)--;
    (*argv)++;
    const char *p = strstr(spec->modes, d->mode);
    size_t n = strlen(d->mode);
    while (p && !((p == spec->modes || p[-1] == '|') && (p[n] == '\0' || p[n] == '|'))) p = strstr(p + 1, d->mode);
    if (p) return 0;
    ddl_error("unknown mode '%s': %s %s (--help)", d->mode, spec->program, spec->modes);
    return -1;
}

/* --help's paragraph: the program's description, then the environment
 * variables it reads (environment.c's table). */
static void help_text(const char *desc, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "%s\n\nenvironment:", desc ? desc : "");
    const char *name, *meaning;
    for (int i = 0; n < cap && driver_env_row(i, &name, &meaning); i++)
        n += (size_t)snprintf(out + n, cap - n, "\n  %-22s %s", name, meaning);
}

/* This rank's verdict on its command line: 0 to go on, else -1 with
 * d->status (0 after --help, 2 after a message). */
static int read_command_line(Driver *d, bool bad_env, int argc, char **argv)
{
    const DriverSpec *spec = d->spec;
    d->status = 2;
    if (bad_env) return -1;
    if (take_mode(d, &argc, &argv) != 0) return -1;
    CliOption opts[MAX_OPTIONS];
    if (spec->nown > MAX_OPTIONS - 22) /* the shared options' most (driver_cli_fragment) */ ddl_die("%s: too many options (%d)", spec->program, spec->nown);
    memcpy(opts, spec->own, sizeof *opts * (size_t)spec->nown);
    int n = spec->nown + driver_cli_fragment(d, opts + spec->nown);
    char help[4096];
    help_text(spec->description, help, sizeof help);
    int rc = cli_parse(argc, argv, spec->usage, help, opts, n);
    memcpy(d->cli, opts, sizeof *opts * (size_t)n);
    d->ncli = n;
    if (rc != 0) {
        d->status = rc > 0 ? 0 : 2;
        return -1;
    }
    if (spec->modes && !*d->mode) {
        ddl_error("say what to do: %s %s (--help)", spec->program, spec->modes);
        return -1;
    }
    if (driver_check_values(d) != 0) return -1;
    d->status = 0;
    return 0;
}

int driver_start(Driver *d, const DriverSpec *spec, DriverOptions *opt, int argc, char **argv)
{
    memset(d, 0, sizeof *d);
    d->lock_fd[0] = d->lock_fd[1] = -1;
    d->spec = spec;
    d->opt = opt;
    /* A file past the size limit (ulimit -f) is a write that fails, as on
     * a full disk: the write returns EFBIG, the run says which file was
     * not written, goes on and keeps its results. SIGXFSZ's default action
     * killed the run instead, leaving a temp file and no results. */
    signal(SIGXFSZ, SIG_IGN);
    bool bad_env = driver_env_read(&d->env) != 0; /* before MPI: DDL_MALLOC_DEFAULT */
    driver_env_hand_down(&d->env);
    driver_environment(opt, &d->env);
    ddl_program_start(&argc, &argv, &d->rank, &d->world, d->env.malloc_default, d->env.ckpt_on_usr1);
    /* the ranks agree before any work: on settings that differ they would
     * meet in collectives of different sizes, or not at all */
    return driver_agree_start(d, read_command_line(d, bad_env, argc, argv));
}

/* This rank's index among the ranks of its host: its GPU. */
/* Rank 0 creates dir and writes a file into it once (then removes it). */
static int probe_dir(const char *flag, const char *dir)
{
    if (!dir || !*dir) {
        ddl_error("--%s is empty: give the directory the outputs go to", flag);
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/.ddlab-probe.%d", dir, (int)getpid());
    FILE *f = mkdir_p(dir) == 0 ? fopen(path, "w") : NULL;
    if (!f) {
        ddl_error("--%s '%s': cannot create or write there (%s)", flag, dir, strerror(errno));
        return -1;
    }
    fclose(f);
    remove(path);
    return 0;
}

int driver_check_dir(Driver *d, const char *flag, const char *dir)
{
    int bad = 0;
    if (d->rank == 0) bad = probe_dir(flag, dir) != 0;
    /* An allreduce, not a broadcast from rank 0: with Open MPI 4.1.4's
     * shared-memory transport, one small MPI_Bcast made every later 8-byte
     * allreduce of the process slower (barrier-timed: 1.1 us instead of
     * 0.6 us on 2 ranks; bench/RESULTS.md, "8-byte latency and one
     * broadcast"), and bench/allreduce measures exactly that. */
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return bad ? 2 : 0;
}

int driver_check_file(Driver *d, const char *flag, const char *path)
{
    if (!path || !*path) {
        ddl_error("--%s is empty: give the file to write", flag);
        return 2;
    }
    const char *slash = strrchr(path, '/');
    char dir[4096] = ".";
    if (slash && slash != path) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    return driver_check_dir(d, flag, dir);
}

int driver_open(Driver *d)
{
    const DriverOptions *o = d->opt;
    Device dev;
    char err[DDL_ERRLEN] = "";
    int (*check)(Device, int, int, char *, size_t, char *) = d->spec->on_backend ? device_check_backend : device_check;
    int node_ranks = 1, node_rank = ddl_node_rank(MPI_COMM_WORLD, &node_ranks);
    bool bad = device_parse(o->device, &dev, err) != 0 ||
               check(dev, node_rank, node_ranks, d->device_desc, sizeof d->device_desc, err) != 0;
    if (!bad && !(d->be = backend_named(o->device))) {
        snprintf(err, sizeof err, "--device %s: this build has no '%s' backend", o->device, o->device);
        bad = true;
    }
    /* --conv cudnn needs cuDNN on this device: refused before any work,
     * naming the values that run (a longer message than err holds) */
    char conv_err[512] = "";
    bool conv_bad = !bad && o->conv && conv_algo_check(d->conv_algo, d->be->conv, conv_err, sizeof conv_err) != 0;
    if (driver_first_failure(d, bad || conv_bad, conv_bad ? conv_err : err) >= 0) return 2;
    if ((d->spec->shared & DRV_OUT) && driver_check_dir(d, "out", o->out) != 0) return 2;
    /* Checkpoints are outputs too: found unwritable after the first epoch,
     * the run would have lost that epoch. The directory (with --checkpoint)
     * is locked from here on; the automatic one, named after the run, once
     * the run has its name (driver_train), its root checked now. */
    const char *root = d->env.checkpoint_root;
    if ((d->spec->shared & DRV_CHECKPOINT) && !o->checkpoint && root && *root &&
        driver_check_dir(d, "checkpoint (DDL_CHECKPOINT_ROOT)", root) != 0)
        return 2;
    if (driver_checkpoint_claim(d) != 0) return 2;
    comm_init(&d->comm, MPI_COMM_WORLD);
    comm_use_device(&d->comm, d->be, !d->env.mpi_device_off); /* device buffers may meet the Comm (staged, or NCCL) */
    d->opened = true;
    return 0;
}

int driver_main(const DriverSpec *spec, DriverOptions *opt, int argc, char **argv)
{
    Driver d;
    if (driver_start(&d, spec, opt, argc, argv) != 0) return driver_end(&d, d.status);
    if (!strcmp(d.mode, "table") || (spec->table_flag && *spec->table_flag)) {
        int rc = driver_check_file(&d, "tex", opt->tex);
        return driver_end(&d, rc ? rc : d.rank == 0 ? spec->table(spec->ctx) : 0);
    }
    if (spec->check && spec->check(spec->ctx, d.world) != 0) return driver_end(&d, 2);
    return driver_end(&d, spec->run(spec->ctx, &d));
}
