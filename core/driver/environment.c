/* environment.c - the one place a program reads its configuration from
 * the environment (environment.h). Each variable is a row: its name, what
 * kind of value it takes, where the value goes, and a line for --help.
 * A value of the wrong kind is refused by name before any work starts: a
 * run that silently ignored DDL_RESUME=yes would start over from scratch.
 *
 * The variables of other programs that describe where a process was
 * started (SLURM_*, OMPI_*, OMP_NUM_THREADS...) are read where the start
 * is handled (core/placement.c, core/threads.c) and recorded with the
 * results (core/results/meta.c); make's variables (DEVICE, PROFILE, NP...)
 * are translated into these names by labs/common.sh. */
#include "environment.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../cli.h"
#include "../common.h"

typedef enum { ENV_TEXT, ENV_ONE, ENV_ZERO, ENV_COUNT } EnvKind;

typedef struct EnvRow {
    const char *name;
    EnvKind kind;       /* TEXT: any non-empty value; ONE / ZERO: "1" / "0" sets the flag; COUNT: 0.. */
    size_t at;          /* offsetof(DriverEnv, field) */
    const char *meaning;
} EnvRow;

static const EnvRow ROWS[] = {
    { "DDL_DEVICE", ENV_TEXT, offsetof(DriverEnv, device), "--device's default: cpu | cuda | cuda-emu" },
    { "DDL_PROFILE", ENV_TEXT, offsetof(DriverEnv, profile), "--profile's default: quick | paper | smoke | custom" },
    { "DDL_DATA", ENV_TEXT, offsetof(DriverEnv, data_root), "the data root (default datasets)" },
    { "DDL_CIFAR_PARTIAL", ENV_ONE, offsetof(DriverEnv, cifar_partial),
      "1: accept CIFAR-10 batch files of other than 10000 records" },
    { "DDL_CHECKPOINT_ROOT", ENV_TEXT, offsetof(DriverEnv, checkpoint_root),
      "without --checkpoint: checkpoints go to ROOT/<program>-<run name>" },
    { "DDL_RESUME", ENV_ONE, offsetof(DriverEnv, resume), "1: continue from that automatic checkpoint" },
    { "DDL_FAULT_KILL_AFTER", ENV_COUNT, offsetof(DriverEnv, kill_after),
      "N: die (SIGKILL) after the first checkpoint at or past batch N (tests of resume)" },
    { "DDL_CHECKPOINT_ON_USR1", ENV_ONE, offsetof(DriverEnv, ckpt_on_usr1),
      "1: on SIGUSR1 (sbatch --signal), every rank checkpoints at the next optimizer step and stops (status 3)" },
    { "DDL_MPI_CUDA_AWARE", ENV_ZERO, offsetof(DriverEnv, mpi_device_off),
      "0: stage device buffers through the host even where MPI is CUDA-aware" },
    { "DDL_MALLOC_DEFAULT", ENV_ONE, offsetof(DriverEnv, malloc_default),
      "1: keep glibc's malloc thresholds (default: freed memory stays in the heap)" },
};
enum { NROWS = sizeof ROWS / sizeof ROWS[0] };

/* One row's value into env; 0, or -1 after a message. */
static int take(const EnvRow *r, const char *v, DriverEnv *env)
{
    char *field = (char *)env + r->at;
    switch (r->kind) {
    case ENV_TEXT: *(const char **)field = v; return 0;
    case ENV_ONE:
    case ENV_ZERO: {
        const char *on = r->kind == ENV_ONE ? "1" : "0";
        if (strcmp(v, "0") && strcmp(v, "1")) break;
        *(bool *)field = !strcmp(v, on);
        return 0;
    }
    case ENV_COUNT: {
        long long n;
        char why[CLI_WHY];
        if (cli_parse_int(v, 0, 1000000000000LL, &n, why) != 0) {
            ddl_error("%s=%s: %s", r->name, v, why);
            return -1;
        }
        *(long *)field = (long)n;
        return 0;
    }
    }
    ddl_error("%s=%s: 0 or 1 (%s)", r->name, v, r->meaning);
    return -1;
}

int driver_env_read(DriverEnv *env)
{
    memset(env, 0, sizeof *env);
    env->kill_after = -1;
    for (int i = 0; i < NROWS; i++) {
        const char *v = getenv(ROWS[i].name);
        if (v && *v && take(&ROWS[i], v, env) != 0) return -1;
    }
    return 0;
}

bool driver_env_row(int i, const char **name, const char **meaning)
{
    if (i < 0 || i >= NROWS) return false;
    *name = ROWS[i].name;
    *meaning = ROWS[i].meaning;
    return true;
}
