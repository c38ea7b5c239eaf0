/* placement.c - see placement.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "placement.h"

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"

/* A non-negative integer from the environment, or -1. */
static long env_count(const char *name)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v) return -1;
    long n = strtol(v, &end, 10);
    return !*end && n >= 0 && n < 1000000 ? n : -1;
}

/* Tasks of this srun step on this node: the count of SLURM_GTIDS ("0,1"),
 * or SLURM_STEP_TASKS_PER_NODE ("2(x3),1": 2 on each of the first three
 * nodes, then 1) at this node's index SLURM_NODEID; -1 when neither says. */
static long slurm_tasks_here(void)
{
    const char *gtids = getenv("SLURM_GTIDS");
    if (gtids && *gtids) {
        long n = 1;
        for (const char *p = gtids; *p; p++) n += *p == ',';
        return n;
    }
    const char *list = getenv("SLURM_STEP_TASKS_PER_NODE");
    long node = env_count("SLURM_NODEID");
    if (!list || node < 0) return -1;
    for (const char *p = list; *p;) {
        char *end;
        long tasks = strtol(p, &end, 10), repeat = 1;
        if (end == p || tasks < 0) return -1;
        if (strncmp(end, "(x", 2) == 0) {
            repeat = strtol(end + 2, &end, 10);
            if (*end != ')' || repeat < 1) return -1;
            end++;
        }
        if (node < repeat) return tasks;
        node -= repeat;
        if (*end != ',') return -1;
        p = end + 1;
    }
    return -1;
}

/* A task of a direct srun launch (srun --mpi=pmix bin/labN), not mpirun
 * inside an allocation: Slurm's step variables describe this process, and
 * Open MPI's launcher variables are absent. world < 1: not yet known
 * (before MPI_Init). */
static bool srun_direct(int world, int rank)
{
    if (getenv("OMPI_COMM_WORLD_SIZE") || env_count("SLURM_STEP_ID") < 0) return false;
    if (world < 1) return true;
    return env_count("SLURM_STEP_NUM_TASKS") == world && env_count("SLURM_PROCID") == rank;
}

bool ddl_oversubscribed(long ranks, long cpus)
{
    return ranks > 0 && cpus > 0 && ranks > cpus;
}

/* The CPUs in the affinity mask of process pid (0: this one), or -1. */
static int mask_cpus(pid_t pid)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(pid, sizeof set, &set) != 0) return -1;
    int n = CPU_COUNT(&set);
    return n >= 1 ? n : -1;
}

long ddl_node_cpus_before_init(long tasks, int own, int step)
{
    /* Before MPI_Init no rank can see the others' masks, but each knows its
     * own and its slurmstepd's (the step's CPUs, which task plugins never
     * narrow: only the tasks are bound). Unbound tasks (task/none,
     * --cpu-bind=none) share the step's CPUs; bound ones have CPUs of their
     * own, at most the step's. Slurm's declared SLURM_CPUS_ON_NODE is not
     * used: a node may declare more CPUs than it has. */
    if (tasks < 1 || own < 1) return -1;
    if (step < own) step = own;
    long bound = tasks * (long)own;
    return bound < step ? bound : step;
}

void ddl_placement_before_init(void)
{
    if (!srun_direct(0, 0) || getenv("OMPI_MCA_mpi_yield_when_idle")) return;
    long tasks = slurm_tasks_here();
    if (ddl_oversubscribed(tasks, ddl_node_cpus_before_init(tasks, mask_cpus(0), mask_cpus(getppid()))))
        setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
}

int ddl_node_rank(MPI_Comm comm, int *ranks)
{
    int same = 0, world = 1, me = 0;
    bool is_world = comm == MPI_COMM_WORLD ||
                    (MPI_Comm_compare(comm, MPI_COMM_WORLD, &same) == MPI_SUCCESS && same == MPI_IDENT);
    if (is_world) {
        long r = env_count("OMPI_COMM_WORLD_LOCAL_RANK"), n = env_count("OMPI_COMM_WORLD_LOCAL_SIZE");
        if (r >= 0 && n > r) {
            *ranks = (int)n;
            return (int)r;
        }
        MPI_Comm_size(MPI_COMM_WORLD, &world);
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        r = env_count("SLURM_LOCALID");
        n = slurm_tasks_here();
        if (srun_direct(world, me) && r >= 0 && n > r) {
            *ranks = (int)n;
            return (int)r;
        }
    }
    MPI_Comm node;
    int r = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &r);
    MPI_Comm_size(node, ranks);
    MPI_Comm_free(&node);
    return r;
}

int ddl_cpus_online(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (int)n : 1;
}

int ddl_cpus_allowed(void)
{
    int n = mask_cpus(0);
    return n >= 1 ? n : ddl_cpus_online();
}

int ddl_cpus_for_threads(void)
{
    int n = ddl_cpus_allowed(), world = 1, me = 0, inited = 0;
    MPI_Initialized(&inited);
    if (inited) {
        MPI_Comm_size(MPI_COMM_WORLD, &world);
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
    }
    /* Without a binding plugin (task/none) srun -c 1 leaves the mask whole:
     * the task's CPUs are then what Slurm allocated it. */
    long per_task = env_count("SLURM_CPUS_PER_TASK");
    if (srun_direct(world, me) && per_task >= 1 && per_task < n) n = (int)per_task;
    return n;
}

/* Identical on every rank of a simulated run (one environment), so one
 * copy serves SMPI's ranks, which share this address space. */
static LaunchInfo launch_info;

void ddl_launch_info_set(const LaunchInfo *info) { launch_info = *info; }

const LaunchInfo *ddl_launch_info(void) { return &launch_info; }

void ddl_host_name(char *out, size_t cap)
{
    const char *names[] = {launch_info.net_host, getenv("SLURMD_NODENAME")};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i] && *names[i]) {
            snprintf(out, cap, "%s", names[i]);
            return;
        }
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    MPI_Get_processor_name(name, &len);
    snprintf(out, cap, "%s", name);
}

void ddl_launcher(char *out, size_t cap)
{
#ifdef DDL_SMPI
    snprintf(out, cap, "smpirun");
    return;
#endif
    int world = 1, me = 0, inited = 0;
    MPI_Initialized(&inited);
    if (inited) {
        MPI_Comm_size(MPI_COMM_WORLD, &world);
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
    }
    if (getenv("OMPI_COMM_WORLD_SIZE")) {
        /* labs/net/net.sh passes DDL_NET to every rank it starts. */
        const char *net = launch_info.net;
        snprintf(out, cap, "%s", net && *net ? "mpirun via the emulated network's rsh agent" : "mpirun");
    } else if (srun_direct(world, me)) {
        snprintf(out, cap, "srun");
    } else if (world == 1) {
        snprintf(out, cap, "none (a singleton without a launcher)");
    } else {
        snprintf(out, cap, "unknown");
    }
}
