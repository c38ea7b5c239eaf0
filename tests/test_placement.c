/* test_placement.c - where a rank thinks it runs (core/platform/placement.c) and
 * how many threads it takes (core/platform/threads.c), under each launcher's
 * environment: Open MPI's variables win, Slurm's step is trusted only for
 * a direct srun launch of this very world, and a batch step's
 * SLURM_LOCALID=0 (every rank of mpirun in sbatch sees it) is ignored.
 * One process, MPI as a singleton; each case sets the variables a launcher
 * would and clears the others. */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "platform/placement.h"
#include "results/results.h"
#include "platform/threads.h"
#include "driver/environment.h"

static const char *const launch_vars[] = {
    "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
    "SLURM_STEP_ID", "SLURM_STEP_NUM_TASKS", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_GTIDS",
    "SLURM_STEP_TASKS_PER_NODE", "SLURM_NODEID", "SLURM_CPUS_ON_NODE", "SLURM_JOB_ID",
    "SLURM_JOB_NODELIST", "OMPI_MCA_mpi_yield_when_idle", "DDL_NET", "SLURM_CPUS_PER_TASK",
};

static void clear_launch(void)
{
    for (size_t i = 0; i < sizeof launch_vars / sizeof launch_vars[0]; i++) unsetenv(launch_vars[i]);
}

/* "NAME=value NAME=value": set each (after clearing them all). */
static void launch_env(const char *assignments)
{
    clear_launch();
    char buf[512];
    snprintf(buf, sizeof buf, "%s", assignments);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = '\0';
        setenv(tok, eq + 1, 1);
    }
    driver_env_apply(); /* as at a program's start */
    /* DDL_NET reaches placement on an emulated host only: this test runs on
     * the machine's own network, where the edge drops it
     * (core/driver/environment.c), so it is handed down as the edge does there. */
    const char *net = getenv("DDL_NET");
    if (net) ddl_launch_info_set(&(LaunchInfo){ .net = net });
}

static void test_threads_rule(void)
{
    static const struct { int allowed, online, local, want; const char *what; } cases[] = {
        {2, 2, 1, 2, "one rank, every CPU: all of them"},
        {2, 2, 2, 1, "mpirun --bind-to none, 2 ranks on 2 CPUs: one each"},
        {2, 2, 4, 1, "4 ranks on 2 CPUs (oversubscribed): at least one"},
        {1, 2, 2, 1, "srun binds each of 2 tasks to a CPU of its own: one"},
        {1, 2, 1, 1, "srun -n 1 -c 1 on a 2-CPU node: one, not the node's 2"},
        {8, 16, 2, 8, "2 ranks, each bound to its socket of 8: 8 each"},
        {16, 16, 2, 8, "2 ranks sharing 16 CPUs: 8 each"},
        {4, 16, 4, 4, "4 ranks with 4 CPUs of their own: 4 each"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = ddl_threads_for(cases[i].allowed, cases[i].online, cases[i].local);
        char name[160];
        snprintf(name, sizeof name, "threads per rank: %s", cases[i].what);
        t_checkf(got == cases[i].want, name, "%d allowed of %d, %d local ranks -> %d (want %d)", cases[i].allowed,
                 cases[i].online, cases[i].local, got, cases[i].want);
    }
}

/* srun -c N without a binding plugin leaves the mask whole: a task of a
 * direct srun launch takes the fewer of its mask and SLURM_CPUS_PER_TASK. */
static void test_cpus_per_task(void)
{
    int mask = ddl_cpus_allowed();
    launch_env("SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=1 SLURM_PROCID=0 SLURM_GTIDS=0 SLURM_CPUS_PER_TASK=1");
    t_check(ddl_cpus_for_threads() == 1, "srun -c 1 with the mask whole: 1 CPU for threads (mask %d)", mask);
    launch_env("SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=1 SLURM_PROCID=0 SLURM_GTIDS=0 SLURM_CPUS_PER_TASK=999");
    t_check(ddl_cpus_for_threads() == mask, "srun -c more than the mask: the mask's %d", mask);
    launch_env("OMPI_COMM_WORLD_SIZE=1 SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=1 SLURM_PROCID=0 SLURM_CPUS_PER_TASK=1");
    t_check(ddl_cpus_for_threads() == mask, "mpirun inside an allocation of -c 1: the mask (Open MPI placed it)");
    clear_launch();
}

static void node_rank_case(const char *env, int want_rank, int want_size, const char *what)
{
    launch_env(env);
    int size = -1, rank = ddl_node_rank(MPI_COMM_WORLD, &size);
    char name[200];
    snprintf(name, sizeof name, "local rank and size: %s", what);
    t_checkf(rank == want_rank && size == want_size, name, "got %d of %d, want %d of %d", rank, size, want_rank,
             want_size);
}

static void test_node_rank(void)
{
    node_rank_case("OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_LOCAL_RANK=2 OMPI_COMM_WORLD_LOCAL_SIZE=3", 2, 3,
                   "mpirun's variables");
    node_rank_case("OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_LOCAL_SIZE=2 "
                   "SLURM_LOCALID=0 SLURM_PROCID=0 SLURM_GTIDS=0",
                   1, 2, "mpirun inside sbatch: Open MPI's variables win over the batch step's SLURM_LOCALID=0");
    node_rank_case("SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=1 SLURM_PROCID=0 SLURM_LOCALID=1 SLURM_GTIDS=3,4,5", 1, 3,
                   "a direct srun launch: SLURM_LOCALID of the step's tasks on this node (SLURM_GTIDS)");
    node_rank_case("SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=1 SLURM_PROCID=0 SLURM_LOCALID=2 "
                   "SLURM_STEP_TASKS_PER_NODE=2(x3),4,1 SLURM_NODEID=3",
                   2, 4, "a direct srun launch without SLURM_GTIDS: SLURM_STEP_TASKS_PER_NODE at SLURM_NODEID");
    node_rank_case("SLURM_LOCALID=0 SLURM_PROCID=0 SLURM_GTIDS=0,1", 0, 1,
                   "a batch step (no SLURM_STEP_ID): Slurm's variables are not this world's, the collective decides");
    node_rank_case("SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=4 SLURM_PROCID=0 SLURM_LOCALID=0 SLURM_GTIDS=0,1", 0, 1,
                   "a step of 4 tasks that is not this world of 1: the collective decides");
    node_rank_case("", 0, 1, "no launcher: the collective");
}

static void launcher_case(const char *env, const char *want, const char *what)
{
    launch_env(env);
    char got[128];
    ddl_launcher(got, sizeof got);
    char name[160];
    snprintf(name, sizeof name, "launcher: %s", what);
    t_checkf(strcmp(got, want) == 0, name, "'%s', want '%s'", got, want);
}

static void test_launcher(void)
{
    launcher_case("OMPI_COMM_WORLD_SIZE=1", "mpirun", "mpirun");
    launcher_case("OMPI_COMM_WORLD_SIZE=1 SLURM_STEP_ID=0 SLURM_JOB_ID=7", "mpirun", "mpirun inside an allocation");
    launcher_case("OMPI_COMM_WORLD_SIZE=1 DDL_NET=2", "mpirun via the emulated network's rsh agent",
                  "mpirun on the emulated network");
    launcher_case("SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=1 SLURM_PROCID=0", "srun", "srun");
    launcher_case("", "none (a singleton without a launcher)", "no launcher");
}

static void yield_case(const char *env, const char *want, const char *what)
{
    launch_env(env);
    ddl_placement_before_init();
    const char *got = getenv("OMPI_MCA_mpi_yield_when_idle");
    bool ok = want ? got && strcmp(got, want) == 0 : !got;
    char name[160];
    snprintf(name, sizeof name, "yield when idle: %s", what);
    t_checkf(ok, name, "OMPI_MCA_mpi_yield_when_idle=%s, want %s", got ? got : "(unset)", want ? want : "(unset)");
}

/* "Oversubscribed" and yielding follow one rule: more ranks on a host than
 * the CPUs they can use (the union of their masks), estimated before
 * MPI_Init from one task's mask and its slurmstepd's. */
static void test_oversubscribed_rule(void)
{
    static const struct { long tasks; int own, step; long want; const char *what; } cases[] = {
        {4, 2, 2, 2, "task/none, 4 tasks on a 2-CPU machine that declares 8: the 2 they share"},
        {4, 1, 8, 4, "task/affinity, 4 tasks bound to a CPU each of 8: 4"},
        {4, 1, 2, 2, "srun --overcommit, 4 tasks bound on 2 CPUs: the step's 2"},
        {1, 1, 2, 1, "srun -n 1 -c 1, bound: 1"},
        {2, 2, 1, 2, "a step mask narrower than the task's is taken as the task's"},
        {0, 2, 2, -1, "no task count: unknown"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long got = ddl_node_cpus_before_init(cases[i].tasks, cases[i].own, cases[i].step);
        char name[200];
        snprintf(name, sizeof name, "node CPUs before MPI_Init: %s", cases[i].what);
        t_checkf(got == cases[i].want, name, "%ld tasks, own %d, step %d -> %ld (want %ld)", cases[i].tasks,
                 cases[i].own, cases[i].step, got, cases[i].want);
    }
    t_check(ddl_oversubscribed(4, 2) && !ddl_oversubscribed(2, 2) && !ddl_oversubscribed(4, -1),
            "oversubscribed: more ranks than CPUs, and never on an unknown count");
}

static void test_yield(void)
{
    /* This process's own mask stands for both the task's and the step's. */
    int cpus = ddl_cpus_online(); /* no mask of this process or its parent is wider */
    char over[400], fit[64];
    int n = snprintf(over, sizeof over, "SLURM_STEP_ID=0 SLURM_CPUS_ON_NODE=%d SLURM_GTIDS=0", 4 * cpus);
    for (int t = 1; t <= cpus && n < (int)sizeof over - 8; t++) n += snprintf(over + n, sizeof over - (size_t)n, ",%d", t);
    snprintf(fit, sizeof fit, "SLURM_STEP_ID=0 SLURM_GTIDS=0 SLURM_CPUS_ON_NODE=%d", cpus);
    yield_case(over, "1", "srun's tasks, one more than the CPUs they share, yield (whatever the node declares)");
    yield_case(fit, NULL, "one srun task on its CPUs polls");
    yield_case("SLURM_STEP_ID=0 SLURM_GTIDS=0,1,2 SLURM_CPUS_ON_NODE=2 OMPI_MCA_mpi_yield_when_idle=0", "0",
               "a value the user set is kept");
    yield_case("OMPI_COMM_WORLD_SIZE=3 SLURM_STEP_ID=0 SLURM_GTIDS=0,1,2 SLURM_CPUS_ON_NODE=2", NULL,
               "under mpirun, Open MPI decides itself");
}

/* The outputs say how the run was placed, with numbers. */
static void test_meta(void)
{
    launch_env("SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=1 SLURM_PROCID=0 SLURM_JOB_ID=42 SLURM_JOB_NODELIST=n[0-1]");
    Meta m = {0};
    meta_collect(&m, "test_placement");
    const char *launcher = meta_get(&m, "launcher"), *job = meta_get(&m, "slurm_job"),
               *nodes = meta_get(&m, "slurm_nodes"), *cpus = meta_get(&m, "cpus_allowed"),
               *threads = meta_get(&m, "threads"), *transport = meta_get(&m, "mpi_transport");
    t_check(launcher && !strcmp(launcher, "srun"), "meta: launcher srun (%s)", launcher ? launcher : "missing");
    t_check(job && !strcmp(job, "42") && nodes && !strcmp(nodes, "n[0-1]"), "meta: the Slurm job and its nodes");
    char want[16];
    snprintf(want, sizeof want, "%d", ddl_cpus_allowed());
    t_check(cpus && !strcmp(cpus, want), "meta: cpus_allowed is the affinity mask's size (%s)", cpus ? cpus : "missing");
    char *end;
    long t = threads ? strtol(threads, &end, 10) : 0;
    t_check(threads && *threads && !*end && t >= 1, "meta: threads is a number (%s)", threads ? threads : "missing");
    t_check(transport && !strncmp(transport, "pml ", 4), "meta: mpi_transport read from Open MPI (%s)",
            transport ? transport : "missing");
    clear_launch();
    Meta plain = {0};
    meta_collect(&plain, "test_placement");
    t_check(!meta_get(&plain, "slurm_job"), "meta: no slurm_job outside an allocation");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    test_threads_rule();
    test_cpus_per_task();
    test_node_rank();
    test_launcher();
    test_oversubscribed_rule();
    test_yield();
    test_meta();
    MPI_Finalize();
    return t_done();
}
