/* placement.h - where a rank runs: who launched it, its place among the
 * ranks of its host, and the CPUs it may use.
 *
 * Every answer comes from what the launcher told the process (environment
 * variables, the CPU affinity mask), never from a collective that could
 * hang across hosts, except as the last resort for a communicator that is
 * not MPI_COMM_WORLD or a launcher that says nothing. */
#ifndef DDL_PLACEMENT_H
#define DDL_PLACEMENT_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

/* The one rule for "oversubscribed", in every output (core/results/meta.c)
 * and for yielding (below): a host runs more ranks than the CPUs those
 * ranks can use, the union of their affinity masks (not the CPUs a Slurm
 * node declares, which may be more than it has). */
bool ddl_oversubscribed(long ranks, long cpus);

/* That union before MPI_Init, from what one task sees: `tasks` tasks on
 * the node, `own` CPUs in its mask, `step` in its slurmstepd's (the
 * step's CPUs). Bound tasks have CPUs of their own (tasks x own, at most
 * the step's); unbound ones share the step's. -1 when unknown. */
long ddl_node_cpus_before_init(long tasks, int own, int step);

/* Before MPI_Init. A rank started directly by srun does not learn from
 * Open MPI that its node runs more ranks than it has CPUs (mpirun tells
 * its ranks; srun cannot), so it would busy-poll and keep the other ranks
 * off the CPUs: measured with srun -n 4 on 2 cores, 80-260 ms latencies
 * polling against 0.1-2 ms yielding. When the rule above says this node is
 * oversubscribed, this sets OMPI_MCA_mpi_yield_when_idle=1 (unless the
 * user set it). */
void ddl_placement_before_init(void);

/* This rank's place among the ranks of comm on its host, and how many they
 * are, from, in this order:
 *   1. Open MPI's launcher (OMPI_COMM_WORLD_LOCAL_RANK/LOCAL_SIZE), which
 *      wins wherever it is set (mpirun inside sbatch sees the batch step's
 *      SLURM_LOCALID=0 on every rank);
 *   2. Slurm's step (SLURM_LOCALID and the tasks on this node), only when
 *      the rank is a task of a direct srun launch of this very world;
 *   3. otherwise MPI_Comm_split_type, collective over comm. Open MPI
 *      4.1's can hang when ranks of several hosts talk over its TCP
 *      transport (open-mpi/ompi#9010, seen on the emulated cluster with
 *      two ranks on one of two hosts), which 1 and 2 avoid.
 * 1 and 2 describe MPI_COMM_WORLD; another comm always takes 3. */
int ddl_node_rank(MPI_Comm comm, int *ranks);

/* The number of CPUs in this process's affinity mask (what taskset, srun
 * --cpu-bind or mpirun --bind-to allow it), or the online CPUs where the
 * mask cannot be read. */
int ddl_cpus_allowed(void);

/* The CPUs this rank's threads may use: its mask, or, for a task of a
 * direct srun launch, SLURM_CPUS_PER_TASK when that is fewer (srun -c 1
 * without a binding plugin leaves the mask whole). */
int ddl_cpus_for_threads(void);

/* The CPUs online on this machine. */
int ddl_cpus_online(void);

/* What ddlab's own launchers tell every rank about how it was started:
 * labs/net/net.sh the emulated network (DDL_NET, DDL_NET_SETUP) and each
 * rank's emulated host (DDL_NET_HOST), labs/platforms/sim.sh the
 * simulated platform (DDL_SIM_*). The environment is read at the edge
 * (core/driver/environment.c) and handed here once, before MPI_Init;
 * placement and the results' provenance (core/results/meta.c) read it
 * back. NULL or "": not said. */
typedef struct LaunchInfo {
    const char *net, *net_setup, *net_host;
    const char *sim_platform, *sim_network, *sim_host_speed, *sim_platform_speed, *sim_coll_selector, *sim_compute;
} LaunchInfo;
void ddl_launch_info_set(const LaunchInfo *info);
/* What was handed (all NULL before). */
const LaunchInfo *ddl_launch_info(void);

/* Writes the name of the host this rank runs on: the emulated host
 * (LaunchInfo.net_host, which labs/net's agent and labs/launch.sh set:
 * emulated hosts share one machine's host name), else the Slurm node
 * (SLURMD_NODENAME), else MPI_Get_processor_name's. Call after MPI_Init. */
void ddl_host_name(char *out, size_t cap);

/* Writes the launcher's name into out: "srun", "mpirun", "smpirun",
 * "mpirun via the emulated network's rsh agent", or "none (a singleton
 * without a launcher)". Call after MPI_Init. */
void ddl_launcher(char *out, size_t cap);

#endif
