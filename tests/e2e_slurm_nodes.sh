#!/usr/bin/env bash
# e2e_slurm_nodes.sh - the batch scripts on several nodes and on GPUs
# (labs/slurm/README.md, "Several nodes, GPUs"), on Slurm clusters of this
# machine. Every Slurm run is one array task of labs/slurm/lab3.sbatch as
# shipped: job 4 of lab3's smoke list, Task 3 (DDP) at 2 ranks.
#   1. without Slurm (mpirun, one node): on the emulated GPU showing 2
#      devices (DDL_EMU_DEVICES=2) each rank records a GPU of its own
#      (rank_places "0 <host> gpu0, 1 <host> gpu1"); showing 1, both take
#      gpu0 and device_detail says they share it; DDL_EMU_DEVICES=0 is
#      refused by name; the same job on the CPU, the reference of step 3;
#   2. a one-node cluster with 2 emulated GPUs (DDL_SLURM_GPUS=2): sbatch
#      --gpus-per-task=1 lab3.sbatch on cuda-emu runs srun with
#      --gpus-per-task=1 --gpu-bind=single:1, its ranks record "ddl0 gpu0"
#      and "ddl0 gpu1", and its losses are step 1's; the cluster goes down;
#   3. an emulated 2-host network (labs/net) with one slurmd per host
#      (labs/slurm/cluster.sh up --net): sbatch --nodes=2
#      --ntasks-per-node=1 lab3.sbatch runs one rank per node (rank_places
#      "0 h0, 1 h1", slurm_nodes h[0-1], Open MPI over TCP), with the
#      losses and test loss of step 1's single-node CPU run;
#   4. on those 2 nodes, a job that loses rank 1 on h1 (SIGKILL) half-way
#      restarts inside its allocation (--max-restarts 1) and trains to the
#      losses of the same job never disturbed; no daemon, namespace or
#      state is left.
# Quick tier (DDL_TEST_TIER=quick, make test): all of it (four lab3 runs
# of 3 steps each, two of 64, and two clusters).
# Prints "skip - ..." only where Slurm or the emulated network cannot run
# here (not root, packages missing).
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "slurm nodes"
e2e_lab_env NET HOSTS PLATFORM LAUNCH NODES SLURM_JOB_ID SLURM_CONF NP DEVICE DDL_EMU_DEVICES DDL_SLURM_GPUS
CLUSTER=$tmp/cluster NET_TAG=ddl-$$ NET_UP=0
# e2e_begin's trap removes $tmp alone; the clusters and the network go first
cleanup() {
  labs/slurm/cluster.sh down "$CLUSTER" --quiet 2>/dev/null
  if [ "$NET_UP" = 1 ]; then
    labs/slurm/cluster.sh down "/run/ddlab-net/$NET_TAG/slurm" --quiet 2>/dev/null
    labs/net/cluster.sh down "$NET_TAG" --quiet 2>/dev/null
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
losses() { col "$1/task3-iters.csv" loss 2>/dev/null | tr '\n' ' '; } # dir
# lab3's job 4 (Task 3, DDP at 2 ranks, smoke settings) as an array task.
JOB=(LAB3_SMOKE=1 LAB_ARRAY_TASK=4)
out() { echo "$tmp/$1.array-$2/task-4"; } # name id: where that task's outputs land

# --- 1. the rank-to-GPU mapping, no Slurm -----------------------------------------
env "${JOB[@]}" LAB_ARRAY_ID=1 NP=2 DEVICE=cuda-emu DDL_EMU_DEVICES=2 RESULTS="$tmp/emu" BIN="$BIN" \
  labs/lab3/run.sh > "$tmp/emu.log" 2>&1
st=$?
E=$(out emu 1) host=$(hostname)
places=$(meta "$E/task3-summary.csv" rank_places 2>/dev/null)
check $(all '[ "$st" = 0 ] && [ "$places" = "0 $host gpu0, 1 $host gpu1" ]') \
  "mpirun, 2 ranks on cuda-emu showing 2 GPUs: each rank records a GPU of its own" "status $st, rank_places '$places'"
tiny=(run --device cuda-emu --model cnn3 --dataset mnist --synthetic --width 0.25 --limit 64 --test-limit 16
      --global-batch 8 --iters 2 --timed 2 --quiet --tag one)
timeout 120 mpirun -np 2 --bind-to none "$BIN/lab3" "${tiny[@]}" --out "$tmp/one" > "$tmp/one.log" 2>&1
st=$?
places=$(meta "$tmp/one/one-summary.csv" rank_places 2>/dev/null) detail=$(meta "$tmp/one/one-summary.csv" device_detail 2>/dev/null)
check $(all '[ "$st" = 0 ] && [ "$places" = "0 $host gpu0, 1 $host gpu0" ] && [[ "$detail" == *"2 ranks of this node share 1 GPU"* ]]') \
  "showing 1 GPU (the default), both ranks take gpu0 and the outputs say they share it" "status $st, '$places', '$detail'"
DDL_EMU_DEVICES=0 timeout 60 "$BIN/lab3" "${tiny[@]}" --out "$tmp/zero" > "$tmp/zero.log" 2>&1
st=$?
check $(all '[ "$st" != 0 ] && grep -q "DDL_EMU_DEVICES=0: .* 1 .. 64" "$tmp/zero.log"') "DDL_EMU_DEVICES=0 is refused by name" \
  "status $st: $(tail -1 "$tmp/zero.log")"
env "${JOB[@]}" LAB_ARRAY_ID=1 NP=2 RESULTS="$tmp/cpu" BIN="$BIN" labs/lab3/run.sh > "$tmp/cpu.log" 2>&1
st=$?
C=$(out cpu 1)
check $(all '[ "$st" = 0 ] && [ -n "$(losses "$C")" ]') "the same job on the CPU, one node (the reference of step 3)" \
  "status $st: $(tail -2 "$tmp/cpu.log")"
# Task 2b (job 3) for 64 steps, long enough to lose a rank half-way: the
# reference of step 4.
env LAB3_SMOKE=1 LAB3_SMOKE_ITERS=64 LAB_ARRAY_TASK=3 LAB_ARRAY_ID=1 NP=2 RESULTS="$tmp/long" BIN="$BIN" \
  labs/lab3/run.sh > "$tmp/long.log" 2>&1
st=$?
L=$tmp/long.array-1/task-3/task2b
long_losses() { echo "$(col "$1-iters.csv" loss 2>/dev/null | tr '\n' ' ')$(col "$1-summary.csv" test_loss 2>/dev/null)"; }
check $(all '[ "$st" = 0 ] && [ -n "$(col "$L-iters.csv" loss 2>/dev/null)" ]') \
  "Task 2b for 64 steps on one node (the reference of step 4)" "status $st: $(tail -2 "$tmp/long.log")"

if ! why=$(labs/slurm/cluster.sh check); then
  echo "skip - slurm nodes: $why"
  exit $fail
fi

# Poll a job until it ends (at most 300 s): its final state.
wait_job() { # job [command prefix...]
  local job=$1 s=""; shift
  for _ in $(seq 600); do
    s=$("$@" scontrol show job "$job" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1)
    case "$s" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) echo "$s"; return 0 ;; esac
    sleep 0.5
  done
  "$@" scancel "$job" 2>/dev/null
  echo "still ${s:-unknown} after 300 s"
}

# --- 2. GPUs: one node, 2 emulated GPUs, --gpus-per-task=1 ------------------------------
DDL_SLURM_GPUS=2 labs/slurm/cluster.sh up "$CLUSTER" > "$tmp/up.out" 2> "$tmp/up.err"
st=$?
check $(all '[ "$st" = 0 ] && SLURM_CONF=$CLUSTER/slurm.conf sinfo -h -N -o %G | grep -qx "gpu:2"') \
  "a one-node cluster declaring 2 GPUs comes up (DDL_SLURM_GPUS=2)" "status $st: $(tail -2 "$tmp/up.err")"
if [ "$st" = 0 ]; then
  job=$(SLURM_CONF=$CLUSTER/slurm.conf sbatch --parsable --ntasks-per-node=2 --gpus-per-task=1 -o "$tmp/gpu.out" \
        --export=ALL,SLURM_CONF=$CLUSTER/slurm.conf,DEVICE=cuda-emu,DDL_EMU_DEVICES=2,LAB3_SMOKE=1,LAB_ARRAY_TASK=4,LAB_ARRAY_ID=2,RESULTS=$tmp/gpu,BIN=$BIN \
        labs/slurm/lab3.sbatch 2> "$tmp/gpu.err")
  state=$(wait_job "$job" env SLURM_CONF="$CLUSTER/slurm.conf")
  G=$(out gpu 2)
  places=$(meta "$G/task3-summary.csv" rank_places 2>/dev/null)
  check $(all '[ "$state" = COMPLETED ] && [ "$places" = "0 ddl0 gpu0, 1 ddl0 gpu1" ]') \
    "sbatch --gpus-per-task=1 lab3.sbatch on cuda-emu: each rank records its node and a GPU of its own" \
    "job '$job' $state, rank_places '$places': $(tail -2 "$tmp/gpu.out" "$tmp/gpu.err" 2>/dev/null)"
  check $(all 'grep -q "srun .* --gpus-per-task=1 --gpu-bind=single:1 bin/lab3 run" "$tmp/gpu.out"') \
    "its srun asks for one GPU per task, bound (--gpus-per-task=1 --gpu-bind=single:1)" "$(grep -m1 "srun --mpi" "$tmp/gpu.out")"
  a=$(losses "$E") b=$(losses "$G")
  check $(all '[ -n "$a" ] && [ "$a" = "$b" ]') "its losses are those of the same job under mpirun" "mpirun: $a; sbatch: $b"
fi
labs/slurm/cluster.sh down "$CLUSTER" --quiet
check $(all '[ ! -e "$CLUSTER" ]') "the cluster goes down, its folder removed" "$(ls "$CLUSTER" 2>&1 | head -3)"

# --- 3. two nodes: emulated hosts, one slurmd each -------------------------------------
if ! why=$(labs/net/cluster.sh check); then
  echo "skip - slurm nodes: emulated hosts: $why"
  exit $fail
fi
# --- 4. a rank lost on one node, the job restarted inside its allocation ---------
# Task 2b across the 2 nodes with --max-restarts 1; once its first
# checkpoint exists, rank 1's process (on h1) is killed (SIGKILL). The job
# must end COMPLETED without a requeue, say it restarted, and train to the
# losses of the reference never disturbed.
lost_rank() {
  local job state pid R ck
  job=$("${H0[@]}" sbatch --parsable --nodes=2 --ntasks-per-node=1 --time=5 -o "$tmp/lost.out" \
        --export=ALL,SLURM_CONF=$S/slurm/slurm.conf,LAB3_SMOKE=1,LAB3_SMOKE_ITERS=64,LAB_ARRAY_TASK=3,LAB_ARRAY_ID=4,RESULTS=$tmp/lost,BIN=$BIN \
        labs/slurm/lab3.sbatch --max-restarts 1 2> "$tmp/lost.err")
  R=$tmp/lost.array-4/task-3 ck=$tmp/lost.array-4/task-3/checkpoints
  for _ in $(seq 600); do ls "$ck"/*/checkpoint.txt > /dev/null 2>&1 && break; sleep 0.2; done
  pid=$(rank_pid "$job" 1)
  check $(all '[ -n "$pid" ] && [ "$(tr "\0" "\n" < /proc/$pid/environ 2>/dev/null | sed -n "s/^SLURMD_NODENAME=//p")" = h1 ]') \
    "rank 1 of the 2-node job $job runs on h1 (pid ${pid:-?}) once its first checkpoint exists" \
    "$(tail -2 "$tmp/lost.out" "$tmp/lost.err" 2>/dev/null)"
  [ -n "$pid" ] && kill -KILL "$pid"
  state=$(wait_job "$job" "${H0[@]}")
  check $(all '[ "$state" = COMPLETED ] && [ "$("${H0[@]}" scontrol show job "$job" | sed -n "s/.*Restarts=\([0-9]*\).*/\1/p")" = 0 ] && grep -q "restart 1 of 1 (--max-restarts) inside Slurm job $job" "$tmp/lost.out" && grep -qx "# restarts: 1" "$R/restarts.txt"') \
    "the job that lost rank 1 on h1 restarts inside its 2-node allocation and ends COMPLETED without a requeue" \
    "job $job: $state: $(grep -E "restart|exited|error" "$tmp/lost.out" | head -4)"
  a=$(long_losses "$L") b=$(long_losses "$R/task2b")
  check $(all '[ "$(col "$L-iters.csv" loss 2>/dev/null | wc -l)" -ge 3 ] && [ "$a" = "$b" ]') \
    "its losses and test loss are bit for bit those of the run never disturbed" "never '$a', restarted '$b'"
}

NET_UP=1
S=/run/ddlab-net/$NET_TAG
labs/net/cluster.sh up "$NET_TAG" 2 1000000000 50 --owner $$ --bin "$BIN" > /dev/null 2> "$tmp/net.err" &&
  labs/slurm/cluster.sh up "$S/slurm" --net "$S" > /dev/null 2>> "$tmp/net.err"
st=$?
check $(all '[ "$st" = 0 ]') "2 emulated hosts (1 Gbit/s), one slurmd in each, come up" "status $st: $(tail -2 "$tmp/net.err")"
if [ "$st" = 0 ]; then
  # From host 0, where the controller listens; the batch script runs there.
  H0=(nsenter --net="/run/netns/$NET_TAG-h0" env SLURM_CONF="$S/slurm/slurm.conf")
  job=$("${H0[@]}" sbatch --parsable --nodes=2 --ntasks-per-node=1 -o "$tmp/nodes.out" \
        --export=ALL,SLURM_CONF=$S/slurm/slurm.conf,LAB3_SMOKE=1,LAB_ARRAY_TASK=4,LAB_ARRAY_ID=3,RESULTS=$tmp/nodes,BIN=$BIN \
        labs/slurm/lab3.sbatch 2> "$tmp/nodes.err")
  state=$(wait_job "$job" "${H0[@]}")
  N=$(out nodes 3)
  places=$(meta "$N/task3-summary.csv" rank_places 2>/dev/null)
  check $(all '[ "$state" = COMPLETED ] && [ "$places" = "0 h0, 1 h1" ] && [ "$(meta "$N/task3-summary.csv" slurm_nodes)" = "h[0-1]" ]') \
    "sbatch --nodes=2 lab3.sbatch: one rank on each node, as its outputs record" \
    "job '$job' $state, rank_places '$places': $(tail -2 "$tmp/nodes.out" "$tmp/nodes.err" 2>/dev/null)"
  check $(all 'meta "$N/task3-summary.csv" mpi_transport | grep -q "btl tcp"') "its ranks talk over TCP, across the emulated link" \
    "$(meta "$N/task3-summary.csv" mpi_transport)"
  a=$(losses "$C") b=$(losses "$N")
  ta=$(col "$C/task3-summary.csv" test_loss 2>/dev/null) tb=$(col "$N/task3-summary.csv" test_loss 2>/dev/null)
  check $(all '[ -n "$a" ] && [ "$a" = "$b" ] && [ -n "$ta" ] && [ "$ta" = "$tb" ]') \
    "its losses and test loss are those of the single-node run" "one node: $a/$ta; two: $b/$tb"
  lost_rank
fi
labs/slurm/cluster.sh down "$S/slurm" --quiet
labs/net/cluster.sh down "$NET_TAG" --quiet 2>/dev/null
NET_UP=0
left=$( { ip netns list 2>/dev/null | grep "^$NET_TAG-"; [ -e "$S" ] && echo "$S"; } | tr '\n' ' ')
check $(all '[ -z "$left" ]') "nothing is left: slurmd, slurmctld, munged, namespaces, state" "$left"
exit $fail
