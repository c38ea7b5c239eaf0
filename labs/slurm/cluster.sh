#!/usr/bin/env bash
# labs/slurm/cluster.sh - a Slurm cluster of this machine, started from a
# script (no systemd), for the tests and for trying LAUNCH=slurm before a
# real cluster: munged, slurmctld and slurmd, each started by this script
# and stopped by its PID, every file in one state folder.
#
#   cluster.sh check              can this machine run one? (exit 0, or 1 and
#                                 the reason with what to run)
#   cluster.sh up DIR [--net STATE]
#                                 start it with its state in DIR (made, must
#                                 be empty) and wait until every node is idle;
#                                 prints the SLURM_CONF line to export;
#                                 on any failure it stops what it started
#                                 and removes DIR (exit 1)
#        one node (default): node "ddl0" on 127.0.0.1. It declares
#            DDL_SLURM_CPUS CPUs (default 8), or this machine's CPUs where
#            they are more: every shipped batch script (up to 8 CPUs: lab1's
#            -c 8, lab4's 6 tasks) then runs as written, oversubscribed on
#            a smaller machine (outputs say so), and nothing binds tasks
#            (task/none). Declaring no more than the machine has
#            (DDL_SLURM_CPUS=$(nproc)) gives a faithful node with
#            task/affinity (srun binds each task to CPUs of its own)
#        DDL_SLURM_GPUS=N (default 0): every node declares N GPUs (gres
#            gpu, each an empty file in DIR: Slurm counts and allocates
#            them to jobs, --gpus-per-task=1, but sets no
#            CUDA_VISIBLE_DEVICES), for DEVICE=cuda-emu with
#            DDL_EMU_DEVICES=N: each rank then takes its local rank
#            modulo N, as on a GPU node where every GPU is visible
#        --net STATE: one slurmd per host of the emulated cluster whose
#            state folder is STATE (labs/net/cluster.sh), inside that host's
#            network namespace, named h0, h1, .. at its 198.18.0.x address;
#            slurmctld in h0's namespace, reachable from every host over
#            the emulated links. The hosts share this machine's CPUs, so
#            nothing binds tasks (task/none), as mpirun --bind-to none.
#   cluster.sh down DIR           stop every daemon by its PID (TERM, then
#                                 KILL after 5 s), wait until each is gone
#                                 (at most 10 s after KILL, then 5 s for
#                                 its parent to reap it: one still a zombie
#                                 then has exited all the same), fail if
#                                 one still runs, and remove DIR
#   cluster.sh pids DIR           the daemons' PIDs that are still running
#
# munged runs here (not in a namespace): its socket is a file in DIR, and a
# socket bound to a path is reachable from every network namespace.
# Clients (srun, salloc, sbatch, squeue) find the cluster by SLURM_CONF.
set -uo pipefail

die() { echo "slurm: error: $*" >&2; exit 1; }
say() { echo "slurm: $*" >&2; }

check() {
  local instead="run the lab with LAUNCH=mpirun (the default)"
  if [ "$(id -u)" != 0 ]; then
    echo "a Slurm cluster of this machine needs root (slurmd starts tasks as their users): run as root, or $instead"
    return 1
  fi
  local tool pkg
  for tool in munged:munge slurmctld:slurmctld slurmd:slurmd srun:slurm-client sinfo:slurm-client; do
    command -v "${tool%%:*}" >/dev/null 2>&1 ||
      { echo "'${tool%%:*}' not found: install Debian's ${tool#*:} ('make deps' as root installs slurmctld slurmd slurm-client munge), or $instead"; return 1; }
  done
  if ! compgen -G '/usr/lib*/*/slurm-wlm/mpi_pmix.so' >/dev/null && ! compgen -G '/usr/lib*/slurm/mpi_pmix.so' >/dev/null; then
    echo "Slurm's PMIx plugin (mpi_pmix.so) is missing: Open MPI's ranks need srun --mpi=pmix; install slurm-wlm-basic-plugins"
    return 1
  fi
  return 0
}

# A TCP port nobody listens on here (the one-node cluster shares this
# machine's ports with whatever else runs: two test runs at once, a site's
# own slurmd on 6817/6818).
free_port() {
  local p used
  used=$(ss -Htln 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }')
  for _ in $(seq 50); do
    p=$(( 20000 + RANDOM % 20000 ))
    grep -qx "$p" <<<"$used" || { echo "$p"; return 0; }
  done
  return 1
}

cpus_here() { env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc; }
declared_gpus() {
  local want=${DDL_SLURM_GPUS:-0}
  case "$want" in ''|*[!0-9]*|0?*) die "DDL_SLURM_GPUS='$want': the GPUs each node declares, 0 or more" ;; esac
  echo "$want"
}
declared_cpus() {
  local here want=${DDL_SLURM_CPUS:-8}
  here=$(cpus_here)
  case "$want" in ''|*[!0-9]*|0*) die "DDL_SLURM_CPUS='$want': the CPUs the node declares, a positive number" ;; esac
  echo $(( want > here ? want : here ))
}

# slurm.conf for DIR: nodes given as "name addr" lines on stdin.
write_conf() { # dir ctld_addr ctld_port slurmd_port task_plugin cpus_per_node gpus_per_node
  local dir=$1 addr=$2 cport=$3 dport=$4 task=$5 cpus=$6 gpus=$7 name naddr gres=""
  cat > "$dir/slurm.conf" <<EOF
# Written by labs/slurm/cluster.sh: a cluster of this machine for ddlab.
ClusterName=ddlab
SlurmctldHost=$(hostname)($addr)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$cport
SlurmdPort=$dport
AuthType=auth/munge
# cred_expire: a requeued job may start again only this long after it
# stopped (Slurm's default, 120 s, is a site's; a test of requeue here
# waits 10).
AuthInfo=socket=$dir/munge/socket,cred_expire=10
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
# Each node's own temporary folder: Slurm's PMIx plugin makes its
# spmix_appdir_<job>.<step> there, and the nodes of one machine would race
# for it in /tmp ("Cannot create directory ...: File exists").
TmpFS=$dir/tmp/%n
SlurmctldPidFile=$dir/slurmctld.pidfile
SlurmdPidFile=$dir/slurmd-%n.pidfile
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=$task
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# MpiDefault stays none, as at many sites: ddlab asks for --mpi=pmix itself.
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
# A step killed by a time limit or scancel gets SIGTERM, then SIGKILL
# 5 s later: time to remove its temporary files.
KillWait=5
SlurmdTimeout=30
InactiveLimit=0
EOF
  if [ "$cpus" -gt "$(cpus_here)" ]; then
    cat >> "$dir/slurm.conf" <<EOF
# This machine has $(cpus_here) CPU(s); the node declares $cpus, so that the
# shipped batch scripts' tasks fit: slurmd takes the declared count.
SlurmdParameters=config_overrides
EOF
  fi
  if [ "$gpus" -gt 0 ]; then
    gres=" Gres=gpu:$gpus"
    echo "GresTypes=gpu" >> "$dir/slurm.conf"
    # Emulated GPUs (DDL_SLURM_GPUS): slurmd drops a GPU without a file
    # ("Removing file-less GPU"), so each has an empty one of its own.
    # Slurm 22.05 then counts and allocates them, and sets no
    # CUDA_VISIBLE_DEVICES for its tasks (measured 2026-11-29).
    mkdir -p "$dir/dev"
    for (( i = 0; i < gpus; i++ )); do : > "$dir/dev/gpu$i"; done
    echo "Name=gpu File=$dir/dev/gpu[0-$((gpus - 1))]" > "$dir/gres.conf"
  fi
  while read -r name naddr; do
    echo "NodeName=$name NodeAddr=$naddr CPUs=$cpus$gres State=UNKNOWN" >> "$dir/slurm.conf"
  done
  echo "PartitionName=ddlab Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >> "$dir/slurm.conf"
}

# Start one daemon in the background, in a namespace or not, in its own
# session (a Ctrl-C to the job that started it must not stop it before
# `down` does), and record its PID.
start_daemon() { # dir name netns|- command...
  local dir=$1 name=$2 ns=$3; shift 3
  if [ "$ns" = - ]; then
    setsid "$@" > "$dir/$name.out" 2>&1 < /dev/null &
  else
    # Only the network namespace: `ip netns exec` also mounts the
    # namespace's own sysfs over /sys, without the cgroup file systems that
    # slurmd needs (it stops: "No filesystem mounted on /sys/fs/cgroup").
    nsenter --net="/run/netns/$ns" setsid "$@" > "$dir/$name.out" 2>&1 < /dev/null &
  fi
  echo $! > "$dir/$name.pid"
}

wait_idle() { # dir nodes_expected ns|-
  local dir=$1 want=$2 ns=$3 i states pre=()
  [ "$ns" != - ] && pre=(ip netns exec "$ns")
  for i in $(seq 300); do
    states=$(SLURM_CONF=$dir/slurm.conf timeout 5 "${pre[@]}" sinfo -h -N -o '%T' 2>/dev/null | grep -c '^idle$')
    [ "$states" = "$want" ] && return 0
    for f in "$dir"/*.pid; do
      kill -0 "$(cat "$f")" 2>/dev/null || { say "$(basename "$f" .pid) died: $(tail -3 "${f%.pid}.out" "$dir"/*.log 2>/dev/null)"; return 1; }
    done
    sleep 0.1
  done
  say "the nodes did not become idle in 30 s: $(SLURM_CONF=$dir/slurm.conf "${pre[@]}" sinfo -N 2>&1)"
  return 1
}

# up's EXIT trap: a set-up that did not finish stops what it started.
UP_DIR=
up_failed() {
  local rc=$?
  [ -n "$UP_DIR" ] || return 0
  set +E +e
  trap - ERR
  say "set-up failed: stopping what started"
  down "$UP_DIR" --quiet
  UP_DIR=
  exit $(( rc == 0 ? 1 : rc ))
}

up() { # dir [--net state]
  local dir=$1 net=""; shift
  [ "${1:-}" = --net ] && { net=$2; shift 2; }
  [ $# = 0 ] || die "up: unknown argument '$1'"
  # Every argument and setting is checked before anything starts.
  if [ -n "$net" ]; then
    [ -r "$net/hosts" ] || die "--net $net: no emulated cluster's hosts file there (labs/net/cluster.sh up makes it)"
    grep -q . "$net/hosts" || die "--net $net: its hosts file names no host"
  fi
  local why; why=$(check) || die "$why"
  local gpus; gpus=$(declared_gpus) || exit 1
  [ -n "$net" ] || declared_cpus > /dev/null || exit 1
  mkdir -p "$dir" || die "cannot create $dir"
  dir=$(cd "$dir" && pwd)
  [ -z "$(ls -A "$dir")" ] || die "up: $dir is not empty (a cluster running there? cluster.sh down $dir)"
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
  # down removes the folder whole: only one that up made (this mark) is taken.
  echo "a Slurm cluster's state folder made by labs/slurm/cluster.sh up; cluster.sh down removes it" > "$dir/$CLUSTER_MARK"
  chmod 755 "$dir"
  chmod 700 "$dir/munge"
  # From here any failure (a command, die, a signal) stops what was
  # started and removes DIR, which was empty.
  UP_DIR=$dir
  trap up_failed EXIT
  trap 'exit 1' INT TERM HUP
  trap 'exit 1' ERR
  set -E -e
  dd if=/dev/urandom of="$dir/munge/key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/key"
  start_daemon "$dir" munged - munged -F --force --key-file="$dir/munge/key" --socket="$dir/munge/socket" \
    --pid-file="$dir/munge/pidfile" --log-file="$dir/munge/log" --seed-file="$dir/munge/seed"
  local i; for i in $(seq 50); do [ -S "$dir/munge/socket" ] && break; sleep 0.1; done
  [ -S "$dir/munge/socket" ] || { say "munged did not start: $(cat "$dir/munged.out")"; false; }

  local nodes=() ctld_ns=- addr cport dport task cpus
  if [ -z "$net" ]; then
    addr=127.0.0.1; cport=$(free_port); dport=$(free_port); task=task/affinity; cpus=$(declared_cpus)
    # A node that declares more CPUs than this machine has cannot bind each
    # task to CPUs of its own (task/affinity then fails "Unable to layout
    # tasks" for srun -c 8 on 2 CPUs): nothing binds, as on emulated hosts.
    if [ "$cpus" -gt "$(cpus_here)" ]; then task=task/none; fi
    nodes=("ddl0 127.0.0.1 -")
  else
    local a ns k=0
    while read -r a ns; do nodes+=("h$k $a $ns"); k=$((k + 1)); done < "$net/hosts"
    addr=${nodes[0]#* }; addr=${addr%% *}; ctld_ns=${nodes[0]##* }
    cport=6817; dport=6818; task=task/none; cpus=$(cpus_here)
  fi
  local n
  for n in "${nodes[@]}"; do echo "${n% *}"; done | write_conf "$dir" "$addr" "$cport" "$dport" "$task" "$cpus" "$gpus"
  start_daemon "$dir" slurmctld "$ctld_ns" slurmctld -D -c -f "$dir/slurm.conf"
  for n in "${nodes[@]}"; do
    read -r name naddr ns <<<"$n"
    mkdir -p "$dir/spool/$name" "$dir/tmp/$name"
    start_daemon "$dir" "slurmd-$name" "$ns" slurmd -D -N "$name" -f "$dir/slurm.conf"
  done
  set +E +e
  trap - ERR
  if ! wait_idle "$dir" "${#nodes[@]}" "$ctld_ns"; then
    [ -z "${DDL_SLURM_KEEP:-}" ] || { UP_DIR=; say "DDL_SLURM_KEEP: the daemons and $dir are kept"; }
    exit 1
  fi
  UP_DIR=
  trap - EXIT INT TERM HUP
  say "${#nodes[@]} node(s) idle: $(for n in "${nodes[@]}"; do echo -n "${n%% *} "; done)(controller $addr:$cport); state in $dir"
  echo "export SLURM_CONF=$dir/slurm.conf"
}

# A process that has ended but is not reaped yet (a zombie: its parent has
# not waited for it) no longer runs: kill -0 still succeeds on it, and down
# reported "could not stop" for a daemon that had exited.
running() { # pid
  local state
  state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}
present() { kill -0 "$1" 2>/dev/null; } # running, or exited and not reaped yet

CLUSTER_MARK=.ddlab-slurm-cluster
pids() { # dir [running|present]: the daemons' "PID name" lines
  local f p is=${2:-running}
  for f in "$1"/*.pid; do
    [ -f "$f" ] || continue
    p=$(cat "$f")
    "$is" "$p" && echo "$p $(basename "$f" .pid)"
  done
  for p in $(stepds "$1"); do "$is" "$p" && echo "$p slurmstepd"; done
  return 0
}
# A step's daemon (slurmstepd, started by slurmd per job step) has no PID
# file and may outlive its slurmd (one held a make test's step 10.2 for
# 25 minutes after its cluster went down): found by the slurm.conf of this
# cluster in its environment, which no other cluster's process has.
stepds() { # dir
  local p conf
  conf=$(cd "$1" 2>/dev/null && pwd)/slurm.conf
  for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] || continue
    # 2> before <: a step that ends between the listing and the read has
    # no environ, and a redirection fails before the ones after it apply.
    tr '\0' '\n' 2>/dev/null < "$p/environ" | grep -qxF "SLURM_CONF=$conf" && echo "${p#/proc/}"
  done
  return 0
}

# Wait until no daemon of dir is running|present, polling every 0.1 s for
# at most N tenths.
wait_none() { # dir running|present tenths
  local i
  for (( i = 0; i < $3; i++ )); do
    [ -z "$(pids "$1" "$2")" ] && return 0
    sleep 0.1
  done
  [ -z "$(pids "$1" "$2")" ]
}

down() { # dir [--quiet]
  local dir=$1 quiet=0 f p left
  [ "${2:-}" = --quiet ] && quiet=1
  [ -d "$dir" ] || { [ "$quiet" = 1 ] || say "down: $dir: no such cluster"; return 0; }
  [ -f "$dir/$CLUSTER_MARK" ] ||
    die "down: $dir is not a cluster's state folder made by cluster.sh up (no $CLUSTER_MARK): nothing stopped or removed"
  dir=$(cd "$dir" && pwd)
  trap '' INT TERM HUP # finish, whatever the job around us receives
  # Jobs first, while the controller is there to end them.
  [ -f "$dir/slurm.conf" ] && SLURM_CONF=$dir/slurm.conf timeout 5 scancel --quiet --user=root >/dev/null 2>&1
  # Daemons in reverse order of start: nodes, controller, munged last.
  for f in "$dir"/slurmd-*.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
  done
  for p in $(stepds "$dir"); do kill -TERM "$p" 2>/dev/null; done
  wait_none "$dir" running 50
  left=$(pids "$dir")
  if [ -n "$left" ]; then
    # SIGKILL ends a process at once, but its exit (closing its files and
    # sockets, a daemon in the kernel's slow paths) may take a while on a
    # busy machine: 0.3 s was too short twice in one quiet run. 10 s bound.
    while read -r p _; do kill -KILL "$p" 2>/dev/null; done <<<"$left"
    wait_none "$dir" running 100
  fi
  # Then, until their parent has reaped them (at most 5 s more): gone from
  # the process table, as whoever checks with kill -0 expects. One that is
  # still a zombie after that has exited all the same.
  wait_none "$dir" present 50
  left=$(pids "$dir")
  if [ -n "$left" ]; then say "could not stop: $left"; return 1; fi
  rm -rf "$dir"
  [ "$quiet" = 1 ] || say "stopped; $dir removed"
}

cmd=${1:-}
shift || true
case "$cmd" in
  check) check ;;
  up) [ $# -ge 1 ] || die "usage: cluster.sh up DIR [--net STATE]"; up "$@" ;;
  down) [ $# -ge 1 ] || die "usage: cluster.sh down DIR [--quiet]"; down "$@" ;;
  pids) [ $# -ge 1 ] || die "usage: cluster.sh pids DIR"; pids "$@" ;;
  -h|--help|help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
  *) die "usage: cluster.sh check|up|down|pids (cluster.sh --help)" ;;
esac
