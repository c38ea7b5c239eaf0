/* environment.c - the one place a program reads its configuration from
 * the environment (environment.h). Each variable is a row: its name, what
 * kind of value it takes, where the value goes, and a line for --help.
 * A value of the wrong kind is refused by name before any work starts: a
 * run that silently ignored DDL_RESUME=yes would start over from scratch.
 *
 * Values meant for the layers below (what ddlab's launchers say about the
 * run, the emulated GPU's strict mode) are handed down once, before
 * MPI_Init (driver_env_hand_down). The variables of other programs that
 * describe where a process was started (SLURM_*, OMPI_*,
 * OMP_NUM_THREADS...) are read where the start is handled
 * (core/platform/placement.c, core/platform/threads.c) and recorded with
 * the results (core/results/meta.c); make's variables (DEVICE, PROFILE,
 * NP...) are translated into these names by labs/common.sh. */
#include "environment.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include "../cpu/isa.h"
#include "../util/cli.h"
#include "../util/common.h"
#include "../platform/placement.h"
#ifdef DDL_HAVE_CUDA_EMU
#include "../cuda/emu/switches.h"
#endif

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
    { "DDL_RESTARTS", ENV_COUNT, offsetof(DriverEnv, restarts),
      "set by labs/launch.sh (--max-restarts): how often this run was relaunched inside its job" },
    { "DDL_CHECKPOINT_ON_USR1", ENV_ONE, offsetof(DriverEnv, ckpt_on_usr1),
      "1: on SIGUSR1 (sbatch --signal), every rank checkpoints at the next optimizer step and stops (status 3)" },
    { "DDL_MPI_CUDA_AWARE", ENV_ZERO, offsetof(DriverEnv, mpi_device_off),
      "0: stage device buffers through the host even where MPI is CUDA-aware" },
    { "DDL_MALLOC_DEFAULT", ENV_ONE, offsetof(DriverEnv, malloc_default),
      "1: keep glibc's malloc thresholds (default: freed memory stays in the heap)" },
    { "DDL_EMU_STRICT", ENV_TEXT, offsetof(DriverEnv, emu_strict),
      "1: the emulated GPU checks every launch, copy and stream (core/cuda/README.md)" },
    { "DDL_EMU_ORDER", ENV_TEXT, offsetof(DriverEnv, emu_order),
      "the emulated GPU's thread order: forward | reverse | shuffled | seeded" },
    { "DDL_EMU_SEED", ENV_TEXT, offsetof(DriverEnv, emu_seed), "seeds the emulated GPU's thread and stream order" },
    { "DDL_EMU_DEVICES", ENV_TEXT, offsetof(DriverEnv, emu_devices),
      "N: the emulated GPU shows N devices (default 1); each rank takes its local rank modulo N" },
    { "DDL_ISA", ENV_TEXT, offsetof(DriverEnv, isa),
      "portable | avx2 | avx512: the build of the CPU's kernels to run (default: the best this CPU runs)" },
    /* set by ddlab's own launchers, recorded in every output's provenance */
    { "DDL_NET", ENV_TEXT, offsetof(DriverEnv, net), "set by labs/net/net.sh: the emulated network" },
    { "DDL_NET_SETUP", ENV_TEXT, offsetof(DriverEnv, net_setup), "set by labs/net/net.sh: how it was built" },
    { "DDL_NET_HOST", ENV_TEXT, offsetof(DriverEnv, net_host), "set by labs/net: this rank's emulated host" },
    { "DDL_SIM_PLATFORM", ENV_TEXT, offsetof(DriverEnv, sim_platform),
      "set by labs/platforms/sim.sh: the simulated platform" },
    { "DDL_SIM_NETWORK", ENV_TEXT, offsetof(DriverEnv, sim_network), "set by sim.sh: theory | realistic" },
    { "DDL_SIM_HOST_SPEED", ENV_TEXT, offsetof(DriverEnv, sim_host_speed), "set by sim.sh: smpi/host-speed" },
    { "DDL_SIM_PLATFORM_SPEED", ENV_TEXT, offsetof(DriverEnv, sim_platform_speed),
      "set by sim.sh: the platform's core speed" },
    { "DDL_SIM_COLL_SELECTOR", ENV_TEXT, offsetof(DriverEnv, sim_coll_selector),
      "set by sim.sh: SMPI's collective selector" },
    { "DDL_SIM_COMPUTE", ENV_TEXT, offsetof(DriverEnv, sim_compute),
      "set by labs/launch.sh: 0 = the network alone, no computation" },
    { "DDL_GRADE_TAPE", ENV_TEXT, offsetof(DriverEnv, grade_tape),
      "set by the grader: record:PATH | replay:PATH (labs/grade/tape)" },
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

/* 1 when this process runs in a named network namespace (one of
 * /run/netns, where `ip netns add` pins them): where labs/net's rsh agent
 * or slurmd starts every rank of an emulated cluster. The machine's own
 * namespace has no name there. (Comparing with pid 1's namespace would be
 * simpler, but containers refuse to read pid 1's, even to root.) */
static int in_named_netns(void)
{
    struct stat self, ns;
    if (stat("/proc/self/ns/net", &self) != 0) return 0;
    DIR *dir = opendir("/run/netns");
    if (!dir) return 0;
    int found = 0;
    char path[512];
    for (struct dirent *e; !found && (e = readdir(dir));) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/run/netns/%.255s", e->d_name);
        found = stat(path, &ns) == 0 && ns.st_ino == self.st_ino && ns.st_dev == self.st_dev;
    }
    closedir(dir);
    return found;
}

int driver_env_read(DriverEnv *env)
{
    memset(env, 0, sizeof *env);
    env->kill_after = -1;
    for (int i = 0; i < NROWS; i++) {
        const char *v = getenv(ROWS[i].name);
        if (v && *v && take(&ROWS[i], v, env) != 0) return -1;
    }
    /* The platform a run is labelled with comes from where it ran: a
     * DDL_NET left in a shell would otherwise label a shared-memory run
     * "emulated network", and the report would judge a network claim on
     * it. */
    if (env->net && !in_named_netns()) {
        fprintf(stderr, "warning: DDL_NET is set but this process runs on the machine's own network, "
                        "not on an emulated host (labs/net): the label is dropped\n");
        env->net = env->net_setup = env->net_host = NULL;
    }
    return 0;
}

void driver_env_hand_down(const DriverEnv *env)
{
    const LaunchInfo launch = { env->net,          env->net_setup,     env->net_host,
                                env->sim_platform, env->sim_network,   env->sim_host_speed,
                                env->sim_platform_speed, env->sim_coll_selector, env->sim_compute };
    ddl_launch_info_set(&launch);
    ddl_isa_request(env->isa);
#ifdef DDL_HAVE_CUDA_EMU
    ddl_emu_switches_set(env->emu_strict, env->emu_order, env->emu_seed);
    ddl_emu_devices_set(env->emu_devices);
#endif
}

int driver_env_apply(void)
{
    /* static: the strings handed down are the environment's own, and the
     * struct outlives the call for whoever keeps pointers into it */
    static DriverEnv env;
    if (driver_env_read(&env) != 0) return -1;
    driver_env_hand_down(&env);
    return 0;
}

const char *driver_env_text(const char *name)
{
    for (int i = 0; i < NROWS; i++)
        if (ROWS[i].kind == ENV_TEXT && !strcmp(ROWS[i].name, name)) {
            const char *v = getenv(name);
            return v && *v ? v : NULL;
        }
    ddl_die("driver_env_text(%s): not a text variable of core/driver/environment.c's table", name);
}

bool driver_env_row(int i, const char **name, const char **meaning)
{
    if (i < 0 || i >= NROWS) return false;
    *name = ROWS[i].name;
    *meaning = ROWS[i].meaning;
    return true;
}
