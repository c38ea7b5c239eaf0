# labs/launch.sh - the one place that knows how a lab's MPI jobs start.
# Sourced by labs/common.sh. A lab's run.sh starts its jobs only through:
#
#   launch_begin MAXNP        once, after sourcing common.sh and before any
#                             work: checks that the launcher can give MAXNP
#                             ranks (refusing with both numbers), and makes
#                             what it needs (a Slurm allocation, an emulated
#                             cluster); all of it goes at exit
#   lab_mpi NP PROG ARGS...   one MPI job of NP ranks, started in the
#                             background and waited for, so that Ctrl-C,
#                             SIGTERM, SIGHUP, a Slurm time limit or scancel
#                             stop it at once; a failed job says why
#   lab_single PROG ARGS...   a one-process job (lab1) with the node's CPUs
#   launch_cmd NP             the launch prefix of NP ranks, as text
#
# DRY_RUN=1 (make labN DRY_RUN=1): every job is printed on stdout instead
# of run, nothing is allocated or built, and the lab stops before its
# results would be committed: what `make labN` would run, in seconds.
#
# The launcher follows LAUNCH (mpirun or slurm), NET= and PLATFORM=:
#
#   launcher    chosen by                 starts the ranks with
#   mpirun      LAUNCH=mpirun (default)   mpirun on this machine, shared memory
#   srun        LAUNCH=slurm              srun --mpi=pmix in a Slurm allocation:
#                                         the current one (SLURM_JOB_ID), else
#                                         one whole node (NODES=N for more)
#                                         from salloc, released at exit
#   smpirun     PLATFORM=name             SimGrid's smpirun on
#                                         labs/platforms/name.xml (simulated)
#   net-mpirun  NET=rate                  mpirun across emulated hosts, entered
#                                         by the rsh agent (labs/net/rsh.sh)
#   net-srun    NET=rate LAUNCH=slurm     srun across emulated hosts, one
#                                         slurmd in each (labs/slurm/cluster.sh)
#
# Per job, a run.sh may set (as VAR=value lab_mpi ...):
#   LAUNCH_THREADS=N        threads per rank (default: the CPUs per rank)
#   LAUNCH_YIELD=0|1        Open MPI's mpi_yield_when_idle, where it is set
#   LAUNCH_PML=name|""      the pml on this machine (default ob1; "" leaves
#                           the choice to Open MPI, as lab4's monitoring needs)
#   LAUNCH_MCA="k v ..."    more Open MPI parameters (rendered as --mca k v
#                           for mpirun, OMPI_MCA_k=v for srun)
#   LAUNCH_SIM_NETWORK=theory|realistic   the simulated network model
#   LAUNCH_SIM_COMPUTE=0    simulate the network alone: the host's computation
#                           between MPI calls costs no simulated time (a
#                           benchmark of communication, whose times then do
#                           not depend on how busy this machine is)
#   LAUNCH_SIM_BLOCK=bytes  the block SMPI maps shared allocations in
#                           (smpi/shared-malloc-blocksize; default 1 MiB)
# Threads: each rank gets its launcher's CPUs divided among the ranks that
# share them. mpirun here and on emulated hosts (which share this
# machine's cores): cores / ranks, passed as OMP/OPENBLAS_NUM_THREADS.
# srun: nothing is passed; each rank divides its CPU affinity mask, which
# srun sets per task (core/platform/threads.c). Idle OpenMP threads spin (ACTIVE)
# when ranks x threads fit the CPUs and sleep (PASSIVE) when not: spinning
# threads steal the cores from the working ones (4x slower steps measured).

LAUNCHERS="mpirun srun smpirun net-mpirun net-srun"
# DRY_RUN's listing goes to the lab's own stdout, even for a job whose
# output the lab redirects into a file.
[ "${DRY_RUN:-0}" = 1 ] && exec {LAUNCH_DRY_FD}>&1
declare -A LAUNCH_WHAT=(
  [mpirun]="mpirun on this machine (shared memory)"
  [srun]="srun --mpi=pmix in a Slurm allocation"
  [smpirun]="SimGrid's smpirun on a simulated platform"
  [net-mpirun]="mpirun across emulated hosts, through the emulated network's rsh agent"
  [net-srun]="srun --mpi=pmix across emulated hosts, one slurmd on each"
)

case "${LAUNCH:=mpirun}" in
  mpirun|slurm) ;;
  *) echo "error: LAUNCH='$LAUNCH': the launchers are mpirun (the default: this machine) and slurm (srun --mpi=pmix in a Slurm allocation; labs/slurm/README.md)" >&2
     exit 2 ;;
esac
if [ -n "${PLATFORM:-}" ]; then
  [ "$LAUNCH" = mpirun ] || { echo "error: PLATFORM=$PLATFORM and LAUNCH=$LAUNCH: a simulated platform runs under smpirun only" >&2; exit 2; }
  LAUNCHER=smpirun
elif [ -n "${NET:-}" ]; then
  if [ "$LAUNCH" = slurm ]; then LAUNCHER=net-srun; else LAUNCHER=net-mpirun; fi
elif [ "$LAUNCH" = slurm ]; then
  LAUNCHER=srun
else
  LAUNCHER=mpirun
fi
case "${NODES:-}" in
  ''|[1-9]|[1-9][0-9]|[1-9][0-9][0-9]) ;;
  *) echo "error: NODES='$NODES': a number of Slurm nodes to ask for, 1 .. 999" >&2; exit 2 ;;
esac
[ -z "${NODES:-}" ] || [ "$LAUNCHER" = srun ] ||
  { echo "error: NODES=$NODES is for LAUNCH=slurm without an allocation (the nodes salloc asks for)" >&2; exit 2; }

# --- what every rank gets ------------------------------------------------------
# launch_threads NP SLOTS: threads per rank for NP ranks sharing SLOTS CPUs.
launch_threads() {
  local t=${LAUNCH_THREADS:-$(( $2 / $1 ))}
  [ "$t" -ge 1 ] 2>/dev/null || t=1
  echo "$t"
}

# launch_rank_env NP SLOTS [threads|nothreads]: RANK_ENV=(NAME=VALUE ...),
# the settings each rank gets, and RANK_PASS=(NAME ...), the lab's settings
# passed on as they are.
launch_rank_env() {
  local np=$1 slots=$2 t policy=${USER_OMP_WAIT_POLICY:-}
  t=$(launch_threads "$np" "$slots")
  RANK_ENV=()
  if [ "${3:-threads}" = threads ] || [ -n "${LAUNCH_THREADS:-}" ]; then
    RANK_ENV+=(OPENBLAS_NUM_THREADS="$t" OMP_NUM_THREADS="$t")
  fi
  if [ -z "$policy" ]; then
    if [ $(( np * t )) -le "$slots" ]; then policy=ACTIVE; else policy=PASSIVE; fi
  fi
  RANK_ENV+=(OMP_WAIT_POLICY="$policy")
  RANK_PASS=(DDL_DATA DDL_DEVICE DDL_PROFILE DDL_CHECKPOINT_ROOT DDL_RESUME)
  # passed only where set: mpirun warns of each -x it cannot find
  [ -n "${DDL_EMU_DEVICES:-}" ] && RANK_PASS+=(DDL_EMU_DEVICES)
  [ -n "${OPENBLAS_CORETYPE:-}" ] && RANK_PASS+=(OPENBLAS_CORETYPE)
  return 0
}

# launch_mca NP: MCA=(key value ...), the Open MPI parameters of this
# launcher, then LAUNCH_MCA's.
launch_mca() {
  MCA=()
  case $LAUNCHER in
    mpirun) [ -n "${LAUNCH_PML-ob1}" ] && MCA+=(pml "${LAUNCH_PML-ob1}")
            MCA+=(btl self,vader) ;;
    net-mpirun|net-srun) [ -n "${LAUNCH_PML-ob1}" ] && MCA+=(pml "${LAUNCH_PML-ob1}")
                         net_mca "$1" ;;
  esac
  [ -n "${LAUNCH_YIELD:-}" ] && launch_mca_set mpi_yield_when_idle "$LAUNCH_YIELD"
  # shellcheck disable=SC2206
  local extra=(${LAUNCH_MCA:-}) i
  for (( i = 0; i + 1 < ${#extra[@]}; i += 2 )); do launch_mca_set "${extra[i]}" "${extra[i+1]}"; done
  return 0
}
launch_mca_set() { # key value: set, or replace (Open MPI refuses a key given twice)
  local i
  for (( i = 0; i < ${#MCA[@]}; i += 2 )); do
    [ "${MCA[i]}" = "$1" ] && { MCA[i+1]=$2; return 0; }
  done
  MCA+=("$1" "$2")
}

# --- the launchers: launch_prefix_<launcher> NP fills LAUNCH_CMD -----------------
launch_prefix_mpirun() {
  local np=$1 a
  launch_rank_env "$np" "$CORES"
  launch_mca "$np"
  LAUNCH_CMD=(mpirun -np "$np")
  [ "$(id -u)" = 0 ] && LAUNCH_CMD+=(--allow-run-as-root)
  [ "$np" -gt "$CORES" ] && LAUNCH_CMD+=(--oversubscribe)
  launch_mpirun_tail
}
# What every mpirun gets after its placement: MCA, binding, environment.
launch_mpirun_tail() {
  local i a
  for (( i = 0; i < ${#MCA[@]}; i += 2 )); do LAUNCH_CMD+=(--mca "${MCA[i]}" "${MCA[i+1]}"); done
  LAUNCH_CMD+=(--bind-to none)
  for a in "${RANK_ENV[@]}" "${RANK_PASS[@]}"; do LAUNCH_CMD+=(-x "$a"); done
}

launch_prefix_net-mpirun() {
  local np=$1
  launch_rank_env "$np" "$CORES"
  launch_mca "$np"
  LAUNCH_CMD=(ip netns exec "$NET_NAME-h0" env DDL_NET_HOST="${NET_SUBNET%.0/24}.1"
              mpirun -np "$np" --hostfile "$NET_STATE/hostfile" --map-by node)
  [ "$(id -u)" = 0 ] && LAUNCH_CMD+=(--allow-run-as-root)
  [ "$np" -gt "$NET_HOSTS" ] && LAUNCH_CMD+=(--oversubscribe)
  # mpirun in host 0's namespace, the ranks one per host round-robin
  # (--map-by node; past HOSTS ranks the hosts are shared, and mpirun is
  # told so), orted on the other hosts through the namespace agent.
  # No rtc/hwloc in the daemons: the orted of another host crashed now and
  # then (SIGSEGV in hwloc_shmem_topology_write: 8 of 60 launches of a
  # 3-host cluster, 0 of 48 without the component) while the emulated hosts
  # shared one session directory, where that topology file is written.
  # labs/net/rsh.sh now gives each host its own, and 100 of 100 launches
  # then started with the component too; it stays off, as nothing here
  # binds processes (--bind-to none), which is what it serves.
  # Open MPI splits plm_rsh_agent at blanks: the agent runs from the run's
  # state folder (/run/ddlab-net/<name>), whatever path the checkout has.
  local agent=$NET_STATE/rsh.sh
  case $agent in *[[:space:]]*) echo "error: the emulated network's state folder '$NET_STATE' holds a blank, which Open MPI's remote agent cannot: set DDL_NET_RUN to a folder without one" >&2; return 2 ;; esac
  if [ -d "$NET_STATE" ] && [ ! -x "$agent" ]; then # (a dry run has no state folder)
    install -m 755 labs/net/rsh.sh "$agent" || return 2
  fi
  LAUNCH_CMD+=(--mca plm rsh --mca plm_rsh_agent "$agent" --mca rtc ^hwloc
               --mca oob_tcp_if_include "$NET_SUBNET")
  launch_mpirun_tail
  LAUNCH_CMD+=(-x DDL_NET -x DDL_NET_SETUP)
}

# srun's flags for NP ranks in the allocation: CPUs per task that share
# the allocation's CPUs out (at most a node's), or --overcommit where the
# ranks outnumber them (oversubscribed: the outputs say so, and the ranks
# yield when idle, core/platform/placement.c); a -c the allocation was given is kept.
launch_srun_flags() { # np
  local np=$1 c
  SRUN_FLAGS=(--mpi=pmix --jobid="$LAUNCH_JOB" -J "${LAUNCH_STEP_NAME:-$LAB_NAME}" -n "$np" --export=ALL
              --kill-on-bad-exit=1)
  if [ "$np" -gt "$LAUNCH_CPUS" ]; then SRUN_FLAGS+=(--overcommit)
  elif [ -z "${SLURM_CPUS_PER_TASK:-}" ]; then
    c=$(( LAUNCH_CPUS / np ))
    [ "$c" -gt "$LAUNCH_NODE_CPUS" ] && c=$LAUNCH_NODE_CPUS
    SRUN_FLAGS+=(-c "$c")
  fi
  # Each task on cores of its own, said rather than left to the site's
  # default, where the cluster binds at all (not task/none: srun would
  # warn on every job) and the tasks fit.
  if [ "${LAUNCH_CAN_BIND:-0}" = 1 ] && [ "$np" -le "$LAUNCH_CPUS" ]; then SRUN_FLAGS+=(--cpu-bind=cores); fi
  # On GPUs, in an allocation that has them per task (sbatch
  # --gpus-per-task=1): each task its own, local task i on the node's GPU
  # i (--gpu-bind=single:1). Where Slurm can bind (the GPUs' device files
  # in gres.conf) it shows each task only its GPU, as device 0; where it
  # cannot, each rank sees the node's GPUs and takes its local rank modulo
  # their count (core/platform/device.c): the same GPU either way.
  if [ "${DDL_DEVICE:-cpu}" != cpu ] && [ -n "${SLURM_GPUS_PER_TASK:-}" ]; then
    SRUN_FLAGS+=(--gpus-per-task="$SLURM_GPUS_PER_TASK" --gpu-bind=single:1)
  fi
  return 0
}
launch_prefix_srun() {
  local np=$1 a i
  launch_rank_env "$np" "$LAUNCH_CPUS" nothreads
  launch_mca "$np"
  launch_srun_flags "$np"
  LAUNCH_CMD=(env "${RANK_ENV[@]}")
  for (( i = 0; i < ${#MCA[@]}; i += 2 )); do LAUNCH_CMD+=(OMPI_MCA_"${MCA[i]}"="${MCA[i+1]}"); done
  LAUNCH_CMD+=(srun "${SRUN_FLAGS[@]}")
}
launch_prefix_net-srun() {
  local np=$1 i
  # The hosts share this machine's cores and nothing binds: threads as mpirun.
  launch_rank_env "$np" "$CORES"
  launch_mca "$np"
  launch_srun_flags "$np"
  LAUNCH_CMD=(nsenter --net="/run/netns/$NET_NAME-h0" env SLURM_CONF="$LAUNCH_SLURM_DIR/slurm.conf" "${RANK_ENV[@]}")
  for (( i = 0; i < ${#MCA[@]}; i += 2 )); do LAUNCH_CMD+=(OMPI_MCA_"${MCA[i]}"="${MCA[i+1]}"); done
  LAUNCH_CMD+=(srun "${SRUN_FLAGS[@]}" --ntasks-per-node=$(( (np + NET_HOSTS - 1) / NET_HOSTS )))
  [ "$np" -ge "$NET_HOSTS" ] && LAUNCH_CMD+=(-N "$NET_HOSTS")
  return 0
}

launch_prefix_smpirun() {
  local np=$1 net=${LAUNCH_SIM_NETWORK:-realistic}
  case "$net" in
    theory|realistic) ;;
    *) echo "error: LAUNCH_SIM_NETWORK='$net': theory or realistic" >&2; return 2 ;;
  esac
  local hosts=results/sim/hosts-$SIM_PLATFORM-np$np
  mkdir -p results/sim
  sim_hostfile "$np" "$hosts"
  # One rank has nothing to select, and SimGrid 3.32's ompi reduce aborts
  # there ("Actor pid=-1 is gone??" in MPI_Reduce): default collectives.
  local coll=$DDL_SIM_COLL_SELECTOR
  [ "$np" -le 1 ] && coll=default
  local compute=${LAUNCH_SIM_COMPUTE:-1}
  case "$compute" in 0|1) ;; *) echo "error: LAUNCH_SIM_COMPUTE='$compute': 0 or 1" >&2; return 2 ;; esac
  LAUNCH_CMD=(env DDL_SIM_NETWORK="$net" DDL_SIM_COLL_SELECTOR="$coll" DDL_SIM_COMPUTE="$compute"
              smpirun -np "$np" -platform "$PLATFORM_XML" -hostfile "$hosts" --cfg=smpi/host-speed:"${SIM_HOST_SPEED}"f)
  [ "$compute" = 0 ] && LAUNCH_CMD+=(--cfg=smpi/simulate-computation:no)
  # Shared allocations are mapped in blocks of this size (SMPI's default 1
  # MiB): 1024 ranks x a 64 MiB shared buffer in 1 MiB blocks are 66,000
  # mappings, past Linux's vm.max_map_count (65530), and SMPI aborts
  # ("Could not map folded virtual memory"); one 64 MiB block costs 64 MiB
  # once.
  if [ -n "${LAUNCH_SIM_BLOCK:-}" ]; then
    case "$LAUNCH_SIM_BLOCK" in ''|*[!0-9]*) echo "error: LAUNCH_SIM_BLOCK='$LAUNCH_SIM_BLOCK': bytes" >&2; return 2 ;; esac
    LAUNCH_CMD+=(--cfg=smpi/shared-malloc-blocksize:"$LAUNCH_SIM_BLOCK")
  fi
  # theory: CM02 without cross-traffic, a message of n bytes takes
  # alpha + n beta (the alpha-beta model); realistic: SMPI's own model.
  [ "$net" = theory ] && LAUNCH_CMD+=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0)
  [ "$coll" != default ] && LAUNCH_CMD+=(--cfg=smpi/coll-selector:"$coll")
  # SimGrid's configuration echo and start-up notes are noise in lab logs.
  LAUNCH_CMD+=(--log=root.thres:warning)
}

launch_prefix() { "launch_prefix_$LAUNCHER" "$@"; }
launch_cmd() { launch_prefix "$1" && echo "${LAUNCH_CMD[*]}"; }

# --- allocations and clusters: launch_begin_<launcher> MAXNP -------------------
launch_begin_mpirun() {
  command -v mpirun >/dev/null 2>&1 || { echo "error: mpirun not found: run 'make deps' (Open MPI)" >&2; exit 2; }
}
launch_begin_smpirun() { :; }
launch_begin_net-mpirun() { net_up; }

# Slurm's commands and a controller that answers, or what to do instead.
slurm_reachable() {
  local tool
  for tool in srun salloc scontrol squeue; do
    command -v "$tool" >/dev/null 2>&1 || {
      echo "error: LAUNCH=slurm needs Slurm's $tool: install slurm-client (Debian) or load your site's Slurm module; or run with LAUNCH=mpirun" >&2
      exit 2; }
  done
  local out
  if ! out=$(timeout 15 scontrol ping 2>&1) || ! grep -q 'is UP' <<<"$out"; then
    echo "error: LAUNCH=slurm: no Slurm controller answers (scontrol ping: $(head -1 <<<"$out")):" >&2
    echo "  on a cluster, check SLURM_CONF and that slurmctld runs; on this machine, start one as root with" >&2
    echo "  labs/slurm/cluster.sh up DIR and export the SLURM_CONF it prints; or run with LAUNCH=mpirun" >&2
    exit 2
  fi
}

# "2(x3),4" -> "2 2 2 4": a Slurm list of counts per node, expanded.
slurm_counts() {
  local part n r sum=0 min=
  IFS=, read -ra part <<<"$1"
  for n in "${part[@]}"; do
    r=1
    [[ $n =~ ^([0-9]+)\(x([0-9]+)\)$ ]] && { n=${BASH_REMATCH[1]}; r=${BASH_REMATCH[2]}; }
    # Counted, not spelled out ("1(x50000000)" is 50 million nodes), and
    # at most 9 digits each, so the sums stay far inside bash's integers.
    [[ $n =~ ^[0-9]{1,9}$ ]] && [[ $r =~ ^[0-9]{1,9}$ ]] || return 1
    n=$((10#$n)) r=$((10#$r))
    [ "$r" -ge 1 ] || return 1
    sum=$(( sum + n * r ))
    [ -z "$min" ] || [ "$n" -lt "$min" ] && min=$n
  done
  [ -n "$min" ] && echo "$sum $min"
}

# Ask salloc for an allocation that returns at once (--no-shell): its id in
# LAUNCH_JOB, released at exit. Never a queue that waits forever: salloc
# gives up after SLURM_WAIT seconds (default 120) without one.
slurm_allocate() { # maxnp nodes [command prefix...]
  local maxnp=$1 nodes=$2; shift 2
  local out wait=${SLURM_WAIT:-120}
  case "$wait" in ''|*[!0-9]*) echo "error: SLURM_WAIT='$wait': seconds to wait for an allocation" >&2; exit 2 ;; esac
  note "salloc: $nodes whole node(s) for up to $maxnp ranks (waiting at most ${wait} s)"
  out=$("$@" salloc --no-shell -N "$nodes" --exclusive -J "ddlab-$LAB_NAME" --immediate="$wait" 2>&1) || {
    echo "error: LAUNCH=slurm: salloc gave no allocation of $nodes node(s) in ${wait} s: $(tail -1 <<<"$out")" >&2; exit 2; }
  LAUNCH_JOB=$(sed -n 's/.*Granted job allocation \([0-9][0-9]*\).*/\1/p' <<<"$out")
  [ -n "$LAUNCH_JOB" ] || { echo "error: salloc said: $out" >&2; exit 2; }
  LAUNCH_RELEASE=("$@") LAUNCH_OWN_JOB=$LAUNCH_JOB
  lab_on_exit launch_release
}
launch_release() {
  [ -n "${LAUNCH_JOB:-}" ] || return 0
  "${LAUNCH_RELEASE[@]}" scancel "$LAUNCH_JOB" 2>/dev/null
  LAUNCH_JOB=
}
# The allocation's CPUs in all (LAUNCH_CPUS) and on its smallest node
# (LAUNCH_NODE_CPUS): inside it, from SLURM_JOB_CPUS_PER_NODE; for the one
# salloc gave, from scontrol (whole nodes of one kind).
slurm_job_cpus() { # job [command prefix...]
  local job=$1; shift
  local counts show nodes
  if [ "$job" = "${SLURM_JOB_ID:-}" ] && counts=$(slurm_counts "${SLURM_JOB_CPUS_PER_NODE:-}"); then
    LAUNCH_CPUS=${counts% *} LAUNCH_NODE_CPUS=${counts#* }
  else
    show=$("$@" scontrol show job "$job" 2>/dev/null)
    LAUNCH_CPUS=$(sed -n 's/.* NumCPUs=\([0-9]*\).*/\1/p' <<<"$show" | head -1)
    nodes=$(sed -n 's/.*NumNodes=\([0-9]*\).*/\1/p' <<<"$show" | head -1)
    [ -n "$LAUNCH_CPUS" ] && [ -n "$nodes" ] && [ "$nodes" -ge 1 ] || return 1
    LAUNCH_NODE_CPUS=$(( LAUNCH_CPUS / nodes ))
  fi
  [ "${LAUNCH_CPUS:-0}" -ge 1 ] && [ "${LAUNCH_NODE_CPUS:-0}" -ge 1 ]
}

launch_begin_srun() {
  local maxnp=$1
  slurm_reachable
  local config; config=$(timeout 15 scontrol show config 2>/dev/null) || true
  if grep -q '^TaskPlugin *= *.*task/affinity' <<<"$config"; then LAUNCH_CAN_BIND=1; fi
  if [ -n "${SLURM_JOB_ID:-}" ]; then
    # Inside an allocation (sbatch, salloc): use it; too few tasks for the
    # lab is refused now, not found half-way through.
    LAUNCH_JOB=$SLURM_JOB_ID
    local tasks=${SLURM_NTASKS:-}
    if [ -n "$tasks" ] && [ "$tasks" -lt "$maxnp" ]; then
      echo "error: LAUNCH=slurm: allocation $SLURM_JOB_ID has $tasks task(s), and $LAB_NAME's largest job has $maxnp ranks (NP=$NP): ask for -n $maxnp (or more), or a smaller NP" >&2
      exit 2
    fi
    slurm_job_cpus "$LAUNCH_JOB" || { echo "error: cannot tell the CPUs of Slurm job $LAUNCH_JOB" >&2; exit 2; }
    note "Slurm allocation $LAUNCH_JOB: ${tasks:-any number of} task(s) on $LAUNCH_CPUS CPU(s), nodes ${SLURM_JOB_NODELIST:-?}"
  else
    slurm_allocate "$maxnp" "${NODES:-1}"
    slurm_job_cpus "$LAUNCH_JOB" || { echo "error: cannot tell the CPUs of Slurm job $LAUNCH_JOB" >&2; exit 2; }
    note "Slurm allocation $LAUNCH_JOB: $LAUNCH_CPUS CPU(s), released at exit"
  fi
  export SLURM_JOB_ID=$LAUNCH_JOB
}

# The emulated cluster, then one slurmd per host (its state inside the
# cluster's), then an allocation of every host.
launch_begin_net-srun() {
  local maxnp=$1
  net_up
  [ "$(id -u)" = 0 ] || { echo "error: NET= with LAUNCH=slurm needs root" >&2; exit 2; }
  LAUNCH_SLURM_DIR=$NET_STATE/slurm
  lab_no_lock labs/slurm/cluster.sh up "$LAUNCH_SLURM_DIR" --net "$NET_STATE" > /dev/null || exit 1
  lab_on_exit launch_slurm_down
  local pre=(nsenter --net="/run/netns/$NET_NAME-h0" env SLURM_CONF="$LAUNCH_SLURM_DIR/slurm.conf")
  slurm_allocate "$maxnp" "$NET_HOSTS" "${pre[@]}"
  slurm_job_cpus "$LAUNCH_JOB" "${pre[@]}" || { echo "error: cannot tell the CPUs of Slurm job $LAUNCH_JOB" >&2; exit 2; }
  note "Slurm on the emulated hosts: allocation $LAUNCH_JOB over $NET_HOSTS node(s)"
}
launch_slurm_down() {
  launch_release
  labs/slurm/cluster.sh down "$LAUNCH_SLURM_DIR" --quiet || true
}

# What Open MPI needs of this machine before it starts, checked here, where
# the words can be plain: mpirun's own reports of these are a hang ("system
# limit on number of pipes", then a crash in PMIx_Finalize), "unreachable
# proc" and "orte_session_dir failed". Measured with lab2's smoke run
# (2026-12-06): 4 ranks need an open-file limit of 48 (40 hung) and 8
# ranks 64 (56 hung); 4 ranks ran with 8 MiB of /dev/shm and not with 1.
launch_need_files() { echo $(( 64 + 8 * $1 )); }
launch_check_machine() { # maxnp
  local np=$1 need have tmp=${TMPDIR:-/tmp} probe
  need=$(launch_need_files "$np")
  have=$(ulimit -Sn)
  if [ "$have" != unlimited ] && [ "$have" -lt "$need" ]; then
    # Raise the soft limit where the hard one allows; refuse otherwise.
    ulimit -Sn "$need" 2>/dev/null ||
      refuse "the open-file limit is $have (ulimit -n) and $np ranks need about $need (Open MPI's pipes and sockets):" \
        "raise it with 'ulimit -n $need' (the hard limit is $(ulimit -Hn))"
  fi
  probe=$(mktemp -d -p "$tmp" ddlab-probe.XXXXXX 2>/dev/null) ||
    refuse "TMPDIR=$tmp cannot hold a folder (missing, read-only or full): Open MPI keeps its session there; set TMPDIR to a writable folder"
  rmdir "$probe"
  have=$(df -Pk "$tmp" 2>/dev/null | awk 'NR == 2 { print $4 }')
  [ -z "$have" ] || [ "$have" -ge 1024 ] ||
    refuse "TMPDIR=$tmp has ${have} KiB free; Open MPI's session folder needs about 1 MiB: free some, or set TMPDIR elsewhere"
  # Shared memory between local ranks (the vader transport): only where
  # ranks run on this machine.
  if [ "$LAUNCHER" = mpirun ] && [ "$np" -gt 1 ] && [ -d /dev/shm ]; then
    need=$(( 2048 * (np + 1) ))
    have=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
    [ -z "$have" ] || [ "$have" -ge "$need" ] ||
      refuse "/dev/shm has $(( have / 1024 )) MiB free and $np ranks on this machine need about $(( need / 1024 )) MiB" \
        "for Open MPI's shared memory: free it (files of stopped runs?) or enlarge it (docker run --shm-size=...)"
  fi
}

launch_begin() { # maxnp
  case "${1:-}" in ''|*[!0-9]*|0*) echo "error: launch_begin: a rank count (got '${1:-}')" >&2; exit 2 ;; esac
  [ "${DRY_RUN:-0}" = 1 ] || launch_check_machine "$1"
  if [ "${DRY_RUN:-0}" = 1 ]; then
    # Names only: the jobs are printed with the allocation a real run would
    # have (this machine's CPUs, one job id).
    LAUNCH_JOB=DRY LAUNCH_CPUS=$CORES LAUNCH_NODE_CPUS=$CORES LAUNCH_SLURM_DIR=/run/ddlab-net/DRY/slurm
    case $LAUNCHER in net-*) net_names ;; esac
  else
    "launch_begin_$LAUNCHER" "$1"
  fi
  note "launcher: $LAUNCHER (${LAUNCH_WHAT[$LAUNCHER]})"
}

# --- running a job ---------------------------------------------------------------
LAUNCH_CHILD=
# The name of a job's Slurm step (srun -J), so that sacct and squeue
# --steps say which run is which: lab, mode, then the run's --tag, or
# else the options that tell its runs apart, and the ranks:
# "lab3-run-scale-ddp-np2", "lab2-bench-np4", "lab5-run-csgd-fp16-np5".
launch_step_name() { # np prog args...
  local np=$1 name=$LAB_NAME prev= a tag= what=
  shift 2
  [ $# -gt 0 ] && [ "${1#-}" = "$1" ] && name+=-$1
  for a in "$@"; do
    case $prev in
      --tag) tag=-$a ;;
      --model|--dataset|--scheme|--precision|--workload|--style|--sync) what+=-$a ;;
    esac
    prev=$a
  done
  name+=${tag:-$what}
  [[ $name == *-np$np ]] || name+=-np$np
  echo "$name"
}
lab_mpi() { # np prog args...
  local np=$1; shift
  if declare -F lab_job_selected >/dev/null && ! lab_job_selected; then return 0; fi
  LAUNCH_STEP_NAME=$(launch_step_name "$np" "$@")
  launch_prefix "$np" || return 2
  [ "${DRY_RUN:-0}" = 1 ] || note "${LAUNCH_CMD[*]} $*"
  launch_wait "${LAUNCH_CMD[@]}" "$@"
}

# A one-process job with all the CPUs its launcher gives one process.
lab_single() { # prog args...
  if declare -F lab_job_selected >/dev/null && ! lab_job_selected; then return 0; fi
  case $LAUNCHER in
    srun) LAUNCH_STEP_NAME=$(launch_step_name 1 "$@")
          launch_srun_flags 1
          [ "${DRY_RUN:-0}" = 1 ] || note "srun ${SRUN_FLAGS[*]} $*"
          launch_wait srun "${SRUN_FLAGS[@]}" "$@" ;;
    mpirun) [ "${DRY_RUN:-0}" = 1 ] || note "$*"
            launch_wait env OPENBLAS_NUM_THREADS="$(launch_threads 1 "$CORES")" "$@" ;;
    *) lab_mpi 1 "$@" ;;
  esac
}

# Run the job in the background and wait: bash runs a trap only between
# commands, so a job in the foreground would keep SIGTERM's clean-up
# waiting until it ended by itself (a NET= run took over 10 minutes).
# With LAUNCH_BESIDE=1 (see launch_beside_ok) the job is only started:
# launch_beside_wait waits for all that were.
LAUNCH_BESIDE_CMD=()
launch_wait() {
  if [ "${DRY_RUN:-0}" = 1 ]; then echo "$*" >&"$LAUNCH_DRY_FD"; return 0; fi
  local rc
  while :; do
    "$@" &
    if [ "${LAUNCH_BESIDE:-0}" = 1 ]; then
      LAUNCH_CHILD+="${LAUNCH_CHILD:+ }$!"
      LAUNCH_BESIDE_CMD+=("$*")
      return 0
    fi
    LAUNCH_CHILD=$!
    rc=0
    launch_reap "$LAUNCH_CHILD" "$*" || rc=$?
    [ "$rc" != 0 ] && launch_restart "$rc" && continue
    return "$rc"
  done
}

# Restarts inside the allocation (torchrun's --max-restarts): a job that
# failed while its Slurm job still runs (a rank died, a node's process was
# killed) starts again at once, from its last checkpoint (DDL_RESUME=1),
# up to DDL_MAX_RESTARTS times in the lab's whole run (the sbatch
# scripts' --max-restarts N; default 0). Each restart is a line in the
# lab's log and in $OUT.tmp/restarts.txt ("# restarts: N", then one line
# each), which the results keep.
case "${DDL_MAX_RESTARTS:=0}" in
  [0-9]|[1-9][0-9]) ;;
  *) echo "error: DDL_MAX_RESTARTS='$DDL_MAX_RESTARTS' (--max-restarts): restarts of a failed job inside the allocation, 0 .. 99" >&2
     exit 2 ;;
esac
LAUNCH_RESTARTS=0
launch_restart() { # status of the failed job: 0 when it is to start again
  local rc=$1 file
  [ "$LAUNCH_RESTARTS" -lt "$DDL_MAX_RESTARTS" ] || return 1
  case $LAUNCHER in srun|net-srun) ;; *) return 1 ;; esac
  # Not after Slurm's warning (the requeue follows), nor when the
  # allocation is ending (a time limit, scancel: its state is not RUNNING).
  [ "${LAUNCH_USR1:-0}" = 0 ] && [ -z "$(launch_slurm_state)" ] || return 1
  LAUNCH_RESTARTS=$(( LAUNCH_RESTARTS + 1 ))
  export DDL_RESUME=1 DDL_RESTARTS=$LAUNCH_RESTARTS
  note "restart $LAUNCH_RESTARTS of $DDL_MAX_RESTARTS (--max-restarts) inside Slurm job $LAUNCH_JOB: the job that exited with status $rc starts again from its last checkpoint (RESUME=1)"
  if [ -n "${OUT:-}" ] && [ -d "$OUT.tmp" ]; then
    file=$OUT.tmp/restarts.txt
    {
      echo "# restarts: $LAUNCH_RESTARTS"
      [ -f "$file" ] && grep -v '^# restarts:' "$file"
      echo "restart $LAUNCH_RESTARTS of $DDL_MAX_RESTARTS: ${LAUNCH_STEP_NAME:-$LAB_NAME} exited with status $rc in Slurm job $LAUNCH_JOB at $(date -u +%FT%TZ); started again from its last checkpoint"
    } > "$file.new" 2>/dev/null && mv "$file.new" "$file"
  fi
  return 0
}
# launch_reap PID COMMAND: wait for one job, then what its end means.
launch_reap() {
  local pid=$1 rc
  while :; do
    rc=0
    wait "$pid" || rc=$?
    # A trapped SIGUSR1 (launch_usr1) ends `wait` early: the job still runs.
    [ "$rc" -gt 128 ] && kill -0 "$pid" 2>/dev/null && continue
    break
  done
  # Side by side, the others are waited for before any requeue.
  if [ "${LAUNCH_BESIDE:-0}" != 1 ]; then
    LAUNCH_CHILD=
    [ "$LAUNCH_USR1" = 1 ] && launch_requeue "$rc"
  fi
  if [ "$rc" = 0 ]; then
    if declare -F lab_job_done >/dev/null; then lab_job_done "$2"; fi
  else
    launch_failed "$rc"
  fi
  return "$rc"
}

# Jobs side by side: repeats whose accuracy, not time, is read (lab6's
# seed repeats), one core each, started with LAUNCH_BESIDE=1 and waited
# for with launch_beside_wait. Only where mpirun starts them on this
# machine with a core for each (launch_beside_ok N); elsewhere the caller
# runs them one after another (a Slurm step or an emulated host would
# need its own share of the allocation).
launch_beside_ok() { # jobs
  [ "$LAUNCHER" = mpirun ] && [ "${DRY_RUN:-0}" != 1 ] && [ "$CORES" -ge "$1" ]
}
launch_beside_wait() { # -> the first failed job's status, after all ended
  local pids i first=0 rc
  read -ra pids <<< "$LAUNCH_CHILD"
  for i in "${!pids[@]}"; do
    rc=0
    LAUNCH_BESIDE=1 launch_reap "${pids[$i]}" "${LAUNCH_BESIDE_CMD[$i]}" || rc=$?
    [ "$first" = 0 ] && first=$rc
  done
  LAUNCH_CHILD= LAUNCH_BESIDE_CMD=()
  [ "$LAUNCH_USR1" = 1 ] && launch_requeue "$first"
  return "$first"
}

# Why a job failed, in one line, and how to continue.
launch_failed() { # rc
  local rc=$1 why="exited with status $rc"
  [ "$rc" -gt 128 ] && why="was killed by signal $(kill -l $(( rc - 128 )) 2>/dev/null || echo $(( rc - 128 )))"
  note "the MPI job $why$(launch_slurm_state)"
}
# " (Slurm job 812: TIMEOUT)" when the allocation has ended or is ending.
launch_slurm_state() {
  [ -n "${LAUNCH_JOB:-}" ] || return 0
  local pre=() state
  [ "$LAUNCHER" = net-srun ] && pre=(nsenter --net="/run/netns/$NET_NAME-h0" env SLURM_CONF="$LAUNCH_SLURM_DIR/slurm.conf")
  # "JobState=COMPLETING Reason=TimeLimit": while it ends, the reason says why.
  state=$(timeout 5 "${pre[@]}" scontrol show job "$LAUNCH_JOB" 2>/dev/null |
          sed -n 's/.*JobState=\([A-Z_]*\) Reason=\([^ ]*\).*/\1 \2/p' | head -1) || true
  case "$state" in
    ''|RUNNING*) ;;
    *" None") echo " (Slurm job $LAUNCH_JOB: ${state% *})" ;;
    *) echo " (Slurm job $LAUNCH_JOB: ${state% *}, ${state#* })" ;;
  esac
  return 0
}
# How to continue, only where there is something to continue from: the
# training runs' checkpoints (core/driver/resume.c), when any was written.
# Nothing (status 1) otherwise: lab2's programs keep no checkpoints.
launch_resume_hint() {
  local again="make $LAB_NAME RESUME=1" root=${DDL_CHECKPOINT_ROOT:-results/checkpoints} d found=
  # Only this lab's trainings (folders <program>-<run>, core/driver/resume.c):
  # the root is shared, and another lab's checkpoints are no reason to rerun this one.
  for d in "$root/$LAB_NAME"-*/; do
    [ -d "$d" ] && [ -n "$(find "$d" -maxdepth 3 -name checkpoint.txt -print -quit 2>/dev/null)" ] && { found=1; break; }
  done
  [ -n "$found" ] || return 1
  [ -n "${SLURM_JOB_ID:-}" ] && [ -z "${LAUNCH_OWN_JOB:-}" ] && [ -f "labs/slurm/$LAB_NAME.sbatch" ] &&
    again="sbatch --export=ALL,RESUME=1 labs/slurm/$LAB_NAME.sbatch"
  echo "training runs keep their checkpoints in $root: $again continues them"
}

# Slurm's warning before a time limit or a preemption (sbatch
# --signal=B:USR1@N) reaches the batch shell, this one: it passes SIGUSR1
# to the running job (srun and mpirun pass it to every rank), whose ranks
# agree to checkpoint at their next optimizer step and stop
# (DDL_CHECKPOINT_ON_USR1=1, core/driver/preempt.c); then the job is
# requeued. Between jobs, it is requeued at once: the finished trainings
# have their checkpoints.
LAUNCH_USR1=0
launch_usr1() {
  LAUNCH_USR1=1
  if [ -n "${LAUNCH_CHILD:-}" ]; then
    note "SIGUSR1 (Slurm's warning before the time limit or a preemption): passed to the running job, to checkpoint at its next optimizer step"
    kill -USR1 $LAUNCH_CHILD 2>/dev/null || true # one pid, or those side by side
  else
    launch_requeue 0
  fi
}
# What a requeued job continues from, promised only where it exists: the
# lab's own checkpoints (launch_resume_hint), none for a run stopped
# before its first step (status DRIVER_EXIT_NO_CHECKPOINT, 4).
launch_requeue_what() { # status
  local what
  if launch_resume_hint > /dev/null; then
    what="its runs continue from $LAB_NAME's checkpoints in ${DDL_CHECKPOINT_ROOT:-results/checkpoints} (RESUME=1)"
  else
    what="$LAB_NAME has no checkpoint to continue from: it runs again from the start"
  fi
  if [ "$1" = 4 ]; then
    what="the run in progress stopped before its first step, with no checkpoint yet: it starts afresh"
    launch_resume_hint > /dev/null && what+="; the lab's other runs continue from their checkpoints (RESUME=1)"
  fi
  echo "$what"
}
# After the warning: requeue this batch job (sbatch --requeue; it comes
# back with SLURM_RESTART_COUNT set, and the labs/slurm scripts set
# RESUME=1), else stop and say how to continue. Never returns.
launch_requeue() { # status of the job that was running
  local rc=$1 out
  trap '' USR1
  if [ -n "${SLURM_JOB_ID:-}" ] && [ -z "${LAUNCH_OWN_JOB:-}" ]; then
    # Said first: the requeue ends this shell (SIGTERM) at once.
    note "the job (status $rc) stopped on SIGUSR1; requeueing Slurm job $SLURM_JOB_ID: $(launch_requeue_what "$rc")"
    LAUNCH_REQUEUED=1
    if out=$(timeout 15 scontrol requeue "$SLURM_JOB_ID" 2>&1); then
      for _ in $(seq 600); do sleep 1; done # until Slurm's SIGTERM
      exit 3
    fi
    LAUNCH_REQUEUED=0
  fi
  note "the job (status $rc) stopped on SIGUSR1; not requeued${out:+ (scontrol requeue: $(head -1 <<<"$out"))}"
  exit 3
}

# A signal to the lab (Ctrl-C, kill, Slurm's SIGTERM at a time limit or
# scancel): stop the running job (TERM, then KILL after 10 s), then exit;
# the EXIT trap removes what launch_begin made.
# (Every step may fail harmlessly: the job may be gone already, and the
# labs run under set -e, which would end the handler with status 1.)
launch_stop_child() {
  [ -n "${LAUNCH_CHILD:-}" ] || return 0
  # shellcheck disable=SC2086 # one pid, or those side by side
  kill -TERM $LAUNCH_CHILD 2>/dev/null || true
  local i p alive
  for i in $(seq 100); do
    alive=0
    for p in $LAUNCH_CHILD; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 1 ] || break
    sleep 0.1
  done
  # shellcheck disable=SC2086
  kill -KILL $LAUNCH_CHILD 2>/dev/null || true
  for p in $LAUNCH_CHILD; do wait "$p" 2>/dev/null || true; done
  LAUNCH_CHILD=
}
