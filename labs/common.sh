# labs/common.sh - shared settings for every labs/labN/run.sh (sourced).
#
# - NP, DEVICE, PROFILE, SEED, DDL_DATA, LAUNCH, NET, HOSTS, PLATFORM,
#   RESUME come from `make labN VAR=...` (or the environment). Each is
#   checked here, before anything starts.
# - NP: the lab's ranks. Unset, the lab's own default (LAB_NP_DEFAULT, 4
#   unless the lab says). A lab whose experiment fixes its rank counts sets
#   LAB_NP_FIXED to the reason, and a given NP is refused with it.
# - OpenBLAS: Debian's 0.3.21 picks its Haswell kernels on some AVX-512
#   CPUs; OPENBLAS_CORETYPE=SkylakeX measured ~1.9x faster sgemm here
#   (480 vs 250 GFLOP/s at 2 threads). We set it only when the CPU really
#   has the AVX-512 subsets those kernels use.
# - Jobs start through labs/launch.sh (mpirun, srun, smpirun, the emulated
#   network's agent): a run.sh calls lab_begin MAXNP, then lab_mpi /
#   lab_single for each job, then lab_commit.
# - Results: a run writes into $OUT.tmp, which replaces $OUT only when every
#   job succeeded (a failed run never leaves a mix of old and new results);
#   variants kept inside $OUT (net-*, sim-*) survive the swap. One run of a
#   lab at a time per checkout: a second is refused, naming the first (its
#   pid, or under Slurm its job and node).
# - At exit, whatever the run made (its temporary results, an emulated
#   cluster, a Slurm allocation or cluster) is removed, on success, failure,
#   Ctrl-C, SIGTERM or SIGHUP alike (lab_on_exit registers a clean-up).

LAB_NAME=$(basename "$(dirname "$0")")
# What a run is labelled with (emulated network, simulated platform) is
# set by the launcher that runs it (labs/net/net.sh, labs/platforms/sim.sh),
# never taken from the caller's shell: a DDL_NET left there would label a
# shared-memory run "emulated" (the programs check it too).
unset DDL_NET DDL_NET_SETUP DDL_NET_HOST DDL_NET_HOSTS \
  DDL_SIM_PLATFORM DDL_SIM_NETWORK DDL_SIM_HOST_SPEED DDL_SIM_PLATFORM_SPEED DDL_SIM_COLL_SELECTOR DDL_SIM_COMPUTE
note() { echo "[$LAB_NAME] $*" >&2; }
# A setting this lab cannot run with: one line, exit status 2, nothing made.
refuse() { echo "error: $*" >&2; exit 2; }

# --- clean-up at exit, and signals ---------------------------------------------
LAB_EXIT_HOOKS=()
lab_on_exit() { LAB_EXIT_HOOKS+=("$1"); }
lab_exit_hooks() {
  local i
  for (( i = ${#LAB_EXIT_HOOKS[@]} - 1; i >= 0; i-- )); do "${LAB_EXIT_HOOKS[i]}" || true; done
  LAB_EXIT_HOOKS=()
}
lab_signal() { # name status
  trap '' INT TERM HUP # a second signal must not stop the clean-up half-way
  if [ "${LAUNCH_REQUEUED:-0}" = 1 ]; then note "stopped by SIG$1 for the requeue"
  else note "stopped by SIG$1$(launch_slurm_state)"; fi
  launch_stop_child
  exit "$2"
}
trap lab_exit_hooks EXIT
trap 'lab_signal INT 130' INT
trap 'lab_signal TERM 143' TERM
trap 'lab_signal HUP 129' HUP
trap launch_usr1 USR1

# --- the make variables --------------------------------------------------------
NP_GIVEN=${NP:+1}
NP=${NP:-${LAB_NP_DEFAULT:-4}}
case "$NP" in
  [1-9]|[1-9][0-9]|[1-9][0-9][0-9]) ;;
  *) refuse "NP='$NP': a number of MPI ranks, 1 .. 999, without a leading zero" ;;
esac
if [ -n "$NP_GIVEN" ] && [ -n "${LAB_NP_FIXED:-}" ]; then
  refuse "NP=$NP: $LAB_NP_FIXED, so NP does not apply to $LAB_NAME"
fi
DEVICE=${DEVICE:-cpu}
PROFILE=${PROFILE:-quick}
SEED=${SEED:-1}
export DDL_DATA=${DDL_DATA:-datasets}
export DEVICE PROFILE SEED
# The programs read their defaults as DDL_DEVICE and DDL_PROFILE (core/driver/environment.c).
export DDL_DEVICE=$DEVICE DDL_PROFILE=$PROFILE
case "$PROFILE" in
  quick|paper) ;;
  *) refuse "PROFILE must be quick or paper (got '$PROFILE')" ;;
esac
case "$DEVICE" in
  cpu|cuda|cuda-emu) ;;
  *) refuse "DEVICE must be cpu, cuda or cuda-emu (got '$DEVICE')" ;;
esac
case "${DRY_RUN:-0}" in
  0|1) ;;
  *) refuse "DRY_RUN must be 0 or 1 (got '$DRY_RUN')" ;;
esac
case "$SEED" in
  ''|*[!0-9]*) refuse "SEED='$SEED': a non-negative integer" ;;
esac

# The CPUs this run may use: its affinity mask (taskset, a Slurm step),
# not nproc's answer, which follows OMP_NUM_THREADS.
CORES=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || echo 1)
# OpenMP idle threads: spinning (ACTIVE) is fastest when every thread has
# its own core (VGG-11 step 189 vs 200 ms here); labs/launch.sh decides per
# job when ranks x threads exceed the cores (PASSIVE). A value the user set
# is kept.
USER_OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-ACTIVE}

# OpenBLAS's kernels on AVX-512 CPUs it mistakes for older ones (labs/coretype.sh).
source labs/coretype.sh

# --- launchers and platforms -----------------------------------------------------
source labs/launch.sh

# make labN IMPL=student sets DDL_STUDENT_BIN=bin/student: the programs
# linked with the student's labs/labN/exercises/*.c (Makefile, IMPL).
LAB_BIN=${DDL_STUDENT_BIN:-bin}
if [ "$LAB_BIN" != bin ]; then note "IMPL=student: running $LAB_BIN's programs (your exercise files)"; fi

# Simulated clusters: PLATFORM=<name> (make labN PLATFORM=wits80) runs the
# lab's programs from bin/sim under SimGrid's smpirun on
# labs/platforms/<name>.xml; LAB_BIN is then bin/sim. A lab adopts it by
# setting LAB_SIMULATES=1 before sourcing this file and calling
# "$LAB_BIN/labN" (labs/platforms/README.md); a lab that has not is
# refused, rather than running its native binary under smpirun.
SIM_TAG=
if [ -n "${PLATFORM:-}" ]; then
  if [ "${LAB_SIMULATES:-0}" != 1 ]; then
    refuse "PLATFORM=$PLATFORM: $LAB_NAME does not run simulated yet (labs/platforms/README.md)"
  fi
  source labs/platforms/sim.sh
fi

# Emulated clusters: NET=RATE[,LATENCY] (make labN NET=1gbit HOSTS=2) runs
# the lab's MPI jobs on HOSTS (default NP) network namespaces of this
# machine, linked through a bridge at that rate and latency, launched as a
# multi-host job (labs/net/README.md); NET_TAG is "net-<NET>" and NET_LABEL
# what every output says. A lab adopts it by setting LAB_NETWORKS=1 before
# sourcing this file; one that has not (lab1 trains one process: nothing to
# send) is refused. The cluster is made by lab_begin and removed at exit.
NET_TAG=
if [ -n "${NET:-}" ]; then
  if [ "${LAB_NETWORKS:-0}" != 1 ]; then
    refuse "NET=$NET: $LAB_NAME runs one process, with no network to emulate (NET= is for lab2 .. lab6)"
  fi
  source labs/net/net.sh
elif [ -n "${HOSTS:-}" ]; then
  refuse "HOSTS=$HOSTS needs NET=RATE[,LATENCY] (e.g. make lab3 NET=1gbit HOSTS=2): hosts are emulated"
fi
# Where a non-native run's results, figures and tables go, beside the
# native ones: "sim-<platform>", "net-<NET>" or nothing.
VARIANT=${SIM_TAG:-$NET_TAG}

# Array jobs (labs/slurm/sweep.sh): one Slurm array task per MPI job of the
# lab, then one dependent job that merges and draws.
#   LAB_ARRAY_TASK=K LAB_ARRAY_ID=ID  run only the lab's K-th job (from 1,
#       in the order DRY_RUN=1 lists them) into
#       results/labN.array-ID/task-K; no table, no figures
#   LAB_ARRAY_MERGE=ID  run no job: the tasks' outputs become results/labN,
#       then the figures and table, as `make labN` draws them
# LAB_CORES=N stands for this machine's CPUs (CORES), so that the listing
# and every task count the same jobs (a lab's sweep may follow CORES).
case "${LAB_CORES:-1}" in ''|*[!0-9]*|0*) refuse "LAB_CORES='$LAB_CORES': a number of CPUs" ;; esac
[ -n "${LAB_CORES:-}" ] && CORES=$LAB_CORES
LAB_ARRAY_DIR=
if [ -n "${LAB_ARRAY_TASK:-}${LAB_ARRAY_MERGE:-}" ]; then
  [ -z "$VARIANT" ] || refuse "array jobs run the native lab, not NET= or PLATFORM="
  id=${LAB_ARRAY_MERGE:-${LAB_ARRAY_ID:-}}
  case "$id" in ''|*[!0-9_]*) refuse "LAB_ARRAY_ID/LAB_ARRAY_MERGE='$id': the array's Slurm job id" ;; esac
  LAB_ARRAY_DIR=${RESULTS:-results/$LAB_NAME}.array-$id
  if [ -n "${LAB_ARRAY_TASK:-}" ]; then
    case "$LAB_ARRAY_TASK" in [1-9]|[1-9][0-9]|[1-9][0-9][0-9]) ;; *)
      refuse "LAB_ARRAY_TASK='$LAB_ARRAY_TASK': a job number from 1" ;; esac
    export RESULTS=$LAB_ARRAY_DIR/task-$LAB_ARRAY_TASK
  fi
fi
# An array task that ends well leaves this file in its folder: a folder
# without it (a task that failed, or still runs) is no task's outputs.
LAB_ARRAY_DONE=.ddlab-task-done
# lab_array_state K: done, running (its lock is held), failed (its folder
# is there without a finished run) or missing (no folder: it never ran).
lab_array_state() {
  local t=$LAB_ARRAY_DIR/task-$1 fd
  if [ -d "$t" ] && [ ! -L "$t" ] && [ -f "$t/$LAB_ARRAY_DONE" ]; then echo done; return 0; fi
  if [ -f "$t.lock" ] && exec {fd}< "$t.lock"; then
    if ! flock -n "$fd"; then exec {fd}<&-; echo running; return 0; fi
    exec {fd}<&-
  fi
  if [ -d "$t" ]; then echo failed; else echo missing; fi
}
# An array task that did not finish says which it was, and how to rerun it.
lab_array_task_end() {
  [ -f "$LAB_ARRAY_DIR/task-$LAB_ARRAY_TASK/$LAB_ARRAY_DONE" ] && return 0
  note "array ${LAB_ARRAY_ID:-?}: task $LAB_ARRAY_TASK did not finish; the merge will not run (sweep.sh's merge job ends," \
    "--kill-on-invalid-dep=yes); once the array has ended, labs/slurm/sweep.sh --rerun-failed ${LAB_ARRAY_ID:-ID} reruns the tasks that did not finish, then merges"
}
# lab_array_check N: every task 1 .. N finished, or one line per task
# that did not and status 1.
lab_array_check() {
  local k st rc=0
  for (( k = 1; k <= $1; k++ )); do
    st=$(lab_array_state "$k")
    case $st in
      done) ;;
      running) echo "  task $k: still running (its lock $LAB_ARRAY_DIR/task-$k.lock is held)"; rc=1 ;;
      failed) echo "  task $k: failed (task-$k holds no finished run; its log: ddlab-$LAB_NAME-${LAB_ARRAY_MERGE}_$k.out, or a rerun's)"; rc=1 ;;
      missing) echo "  task $k: missing (no task-$k: it never ran, or was cancelled before it began)"; rc=1 ;;
    esac
  done
  return $rc
}
# launch.sh asks before each job: does this run start it? (array tasks)
LAB_JOB_COUNT=0
lab_job_selected() {
  LAB_JOB_COUNT=$((LAB_JOB_COUNT + 1))
  [ -n "${LAB_ARRAY_MERGE:-}" ] && return 1
  [ -z "${LAB_ARRAY_TASK:-}" ] || [ "$LAB_JOB_COUNT" = "$LAB_ARRAY_TASK" ]
}

# Checkpoints (core/driver/resume.c): every training run of a lab keeps
# one under results/checkpoints/<program>-<run> (each epoch and at the
# end), and make labN RESUME=1 continues each run from its checkpoint:
# a killed run where it stopped, a finished one only rewrites its outputs.
# (A test that points RESULTS at its own folder keeps them there too.)
if [ -n "${RESULTS:-}" ]; then ckpt_root=$RESULTS/checkpoints; else ckpt_root=$PWD/results/checkpoints${VARIANT:+/$VARIANT}; fi
export DDL_CHECKPOINT_ROOT=${DDL_CHECKPOINT_ROOT:-$ckpt_root}
case "${RESUME:-0}" in
  0|1) export DDL_RESUME=${RESUME:-0} ;;
  *) refuse "RESUME must be 0 or 1 (got '$RESUME')" ;;
esac
if [ "$DDL_RESUME" = 1 ]; then note "RESUME=1: runs continue from $DDL_CHECKPOINT_ROOT"; fi

# --- results folders: only ddlab's own are replaced or removed ------------------
# RESULTS may name any folder, and a run replaces its results folder
# whole (rm -rf, then a rename): so a folder is replaced or removed only
# when ddlab made it. That is: it holds the mark file below (every run
# writes it into its $OUT.tmp, which becomes $OUT), or it lies inside this
# checkout's own results/ folder (git-ignored, removed whole by make clean;
# results made before the mark existed live there), or it is empty. A
# link, a plain file or any other folder is refused before anything starts.
RESULTS_MARK=.ddlab-results
lab_dir_is_ours() { # path
  local p=$1 real here
  [ -L "$p" ] && return 1
  [ -e "$p" ] || return 0
  [ -d "$p" ] || return 1
  [ -f "$p/$RESULTS_MARK" ] && [ ! -L "$p/$RESULTS_MARK" ] && return 0
  real=$(realpath -e -- "$p" 2>/dev/null) || return 1
  here=$(realpath -e -- results 2>/dev/null) &&
    case "$real/" in "$here"/?*) return 0 ;; esac
  [ -z "$(ls -A -- "$p" 2>/dev/null)" ]
}
lab_mark_dir() { # folder
  printf 'A results folder made by ddlab (labs/%s/run.sh); the next run of the lab replaces it.\n' "$LAB_NAME" \
    > "$1/$RESULTS_MARK"
}
# lab_rm_ours PATH...: removes each one that ddlab made; says so and
# fails on any other (lab_check_out refused those already: a folder put
# there since is kept).
lab_rm_ours() {
  local p rc=0
  for p; do
    if lab_dir_is_ours "$p"; then rm -rf -- "$p"
    else echo "error: $p was not made by ddlab (no $RESULTS_MARK in it): kept, not removed" >&2; rc=1; fi
  done
  return $rc
}
# lab_check_out: before any work, $OUT and the names made from it
# ($OUT.tmp, $OUT.partial) must be absent or ddlab's, and the lock, if
# there, a lock file (a pid or nothing).
lab_check_out() {
  local p lock=$1
  for p in "$OUT" "$OUT.tmp" "$OUT.partial"; do
    lab_dir_is_ours "$p" ||
      refuse "RESULTS: $p exists and was not made by ddlab (no $RESULTS_MARK file in it), so a run would replace it." \
        "Name a new folder, an empty one, or one a run of ddlab made (results/ by default)"
  done
  if [ -e "$lock" ] || [ -L "$lock" ]; then
    lab_is_lock_file "$lock" ||
      refuse "$lock exists and is not a lock file of ddlab's (a process id): remove it, or name another RESULTS"
  fi
}
lab_no_room() { # path that could not be written
  refuse "cannot write $1: its file system is full or read-only ($(df -Ph "$(dirname "$1")" 2>/dev/null |
    awk 'NR == 2 { print $4 " free on " $6 }')); free some space, or name another RESULTS"
}
lab_is_lock_file() { # path: a plain file holding nothing or one process id
  [ -f "$1" ] && [ ! -L "$1" ] && [ "$(wc -c < "$1")" -le 12 ] || return 1
  ! grep -qvx '[0-9]*' "$1"
}

# --- one run of the lab ------------------------------------------------------------
# Under Slurm the lock's holder is a job, perhaps on another node, whose
# pid says nothing here: beside the lock (LOCK.slurm) it leaves its pid,
# job and node while it runs.
lab_lock_slurm() { # lock
  [ -n "${SLURM_JOB_ID:-}" ] || return 0
  local job=$SLURM_JOB_ID
  [ -n "${SLURM_ARRAY_JOB_ID:-}" ] && job="$SLURM_ARRAY_JOB_ID, array task ${SLURM_ARRAY_TASK_ID:-?}"
  LAB_LOCK_SLURM=$1.slurm
  { echo "$$ $job on ${SLURMD_NODENAME:-$(hostname)}" > "$LAB_LOCK_SLURM"; } 2>/dev/null || return 0
  lab_on_exit lab_lock_slurm_rm
}
lab_lock_slurm_rm() { rm -f "$LAB_LOCK_SLURM"; }
# Who holds the lock: "Slurm job 812 on node n3 (pid 4242 there)", or "pid 4242".
lab_lock_holder() { # lock
  local pid line
  pid=$(cat "$1" 2>/dev/null); pid=${pid:-?}
  line=$(head -1 "$1.slurm" 2>/dev/null)
  if [ -n "$line" ] && [ "${line%% *}" = "$pid" ]; then
    line=${line#* }
    echo "Slurm job ${line% on *} on node ${line##* on } (pid $pid there); squeue -j ${line%%[, ]*} shows it"
  else
    echo "pid $pid"
  fi
}
# lab_setup N BIN [WHY]: the start of labs/labN/run.sh after this file:
# BIN/labN must be built (else "run make", exit 1); with WHY, NP must be
# at least 2 (else WHY, exit 2); OUT is the results folder (RESULTS, else
# results/labN, or its VARIANT subfolder: net-1gbit, sim-cluster4, ...),
# and FIGURES and TABLES are exported the same way, so that a simulated or
# emulated-network variant's figures and tables go beside the native
# ones, never over them.
lab_setup() {
  [ -x "$2/lab$1" ] || { echo "error: $2/lab$1 missing: run make" >&2; exit 1; }
  [ -z "${3:-}" ] || [ "$NP" -ge 2 ] || { echo "error: $3: NP must be >= 2 (got $NP)" >&2; exit 2; }
  OUT=${RESULTS:-results/lab$1${VARIANT:+/$VARIANT}}
  export FIGURES=${FIGURES:-figures${VARIANT:+/$VARIANT}} TABLES=${TABLES:-report/tables${VARIANT:+/$VARIANT}}
}
# lab_stop_early N WHY: a run cut short on purpose (LABN_ONLY=...): says
# WHY, keeps what ran and draws its figures, and ends the script.
lab_stop_early() {
  note "$2"
  lab_commit
  RESULTS=$OUT "labs/lab$1/figures.sh"
  exit 0
}

# lab_begin MAXNP: refuses a second run of this lab in this checkout, then
# makes what the launcher needs for up to MAXNP ranks, then an empty
# $OUT.tmp for the results. Call it before any work.
lab_begin() {
  local lock
  if [ -n "${RESULTS:-}" ]; then lock=$OUT.lock; else lock=results/.$LAB_NAME.lock; fi
  lab_check_out "$lock"
  mkdir -p "$(dirname "$lock")" || refuse "cannot create $(dirname "$lock")"
  # An array's folder holds its tasks' folders: marked, so the merge may remove it.
  if [ -n "${LAB_ARRAY_TASK:-}" ] && [ ! -e "$LAB_ARRAY_DIR/$RESULTS_MARK" ] && lab_dir_is_ours "$LAB_ARRAY_DIR"; then
    lab_mark_dir "$LAB_ARRAY_DIR"
  fi
  [ -z "${LAB_ARRAY_TASK:-}" ] || [ "${DRY_RUN:-0}" = 1 ] || lab_on_exit lab_array_task_end
  exec {LAB_LOCK_FD}>>"$lock" || refuse "cannot open $lock"
  if ! flock -n "$LAB_LOCK_FD"; then
    refuse "$LAB_NAME is already running ($(lab_lock_holder "$lock")) in this checkout:" \
      "its results and this run's would replace each other; wait for it, or stop it"
  fi
  { echo $$ > "$lock"; } 2>/dev/null || lab_no_room "$lock"
  lab_lock_slurm "$lock"
  if [ -n "${LAB_ARRAY_MERGE:-}" ]; then
    [ -d "$LAB_ARRAY_DIR" ] || refuse "LAB_ARRAY_MERGE=$LAB_ARRAY_MERGE: no $LAB_ARRAY_DIR (the array's outputs)"
    # Finished tasks only: a task-3.lock or a failed task's folder is none.
    local k n=0
    for k in "$LAB_ARRAY_DIR"/task-*; do
      k=${k##*/task-}
      case $k in ''|*[!0-9]*) continue ;; esac
      [ "$(lab_array_state "$k")" = done ] && n=$((n + 1))
    done
    note "array $LAB_ARRAY_MERGE: $n finished task(s) in $LAB_ARRAY_DIR; merged only if every job of $LAB_NAME has one"
  else
    launch_begin "$1"
  fi
  lab_rm_ours "$OUT.tmp" || exit 2
  # $OUT is the run's from here on (checked above): marked now, since
  # training keeps its checkpoints in it (RESULTS/checkpoints) before the
  # commit replaces the rest.
  if [ "${DRY_RUN:-0}" != 1 ]; then
    mkdir -p "$OUT" && lab_mark_dir "$OUT" 2>/dev/null || lab_no_room "$OUT/$RESULTS_MARK"
  fi
  mkdir -p "$OUT.tmp" || refuse "cannot create $OUT.tmp"
  lab_mark_dir "$OUT.tmp" 2>/dev/null || lab_no_room "$OUT.tmp"
  lab_on_exit lab_discard
}
# Daemons a run starts (an emulated cluster's, Slurm's) must not inherit
# the lock: one left behind would hold it forever.
lab_no_lock() {
  if [ -n "${LAB_LOCK_FD:-}" ]; then "$@" {LAB_LOCK_FD}>&-; else "$@"; fi
}

# Each job that ends well adds a line to $OUT.tmp/.finished (launch_wait
# calls this): a file changed after the last line is a stopped job's.
lab_job_done() { [ -n "${OUT:-}" ] && [ -d "$OUT.tmp" ] && echo "$1" >> "$OUT.tmp/.finished"; return 0; }

# A run that did not finish leaves no half folder. The outputs of the jobs
# that finished go to $OUT.partial (what a stopped job half wrote is
# removed); training runs also keep their checkpoints (RESUME=1).
lab_discard() {
  [ -n "${OUT:-}" ] && [ -d "$OUT.tmp" ] || return 0
  if [ "${DRY_RUN:-0}" = 1 ]; then lab_rm_ours "$OUT.tmp"; return 0; fi
  local done=$OUT.tmp/.finished n=0 hint
  [ -f "$done" ] && n=$(wc -l < "$done")
  if [ "$n" -gt 0 ]; then
    find "$OUT.tmp" -newer "$done" -type f -delete 2>/dev/null
    rm -f "$done"
    lab_rm_ours "$OUT.partial" &&
    mv "$OUT.tmp" "$OUT.partial" &&
      note "the $n job(s) that finished left their outputs in $OUT.partial (a later run starts afresh, beside them)"
  else
    lab_rm_ours "$OUT.tmp"
    note "no job finished: no results kept"
  fi
  if hint=$(launch_resume_hint); then note "$hint"; fi
  return 0
}

# lab_commit: $OUT.tmp becomes $OUT; the variants' folders inside the old
# $OUT (net-1gbit, sim-cluster4, ...) move into the new one.
lab_commit() {
  local d
  if [ "${DRY_RUN:-0}" = 1 ]; then note "DRY_RUN=1: nothing ran"; exit 0; fi
  if [ -n "${LAB_ARRAY_TASK:-}" ]; then
    [ "$LAB_JOB_COUNT" -ge "$LAB_ARRAY_TASK" ] ||
      refuse "LAB_ARRAY_TASK=$LAB_ARRAY_TASK: $LAB_NAME has $LAB_JOB_COUNT job(s)"
    # The empty files are the skipped jobs' stdout, opened by run.sh.
    find "$OUT.tmp" -type f -empty -delete
    echo "task $LAB_ARRAY_TASK of $LAB_JOB_COUNT${SLURM_JOB_ID:+, Slurm job $SLURM_JOB_ID}" > "$OUT.tmp/$LAB_ARRAY_DONE"
  fi
  if [ -n "${LAB_ARRAY_MERGE:-}" ]; then lab_array_merge; fi
  if [ -d "$OUT" ]; then
    for d in "$OUT"/net-* "$OUT"/sim-*; do
      [ -d "$d" ] && [ ! -e "$OUT.tmp/$(basename "$d")" ] && mv "$d" "$OUT.tmp/"
    done
  fi
  lab_rm_ours "$OUT" "$OUT.partial" || exit 1
  rm -f "$OUT.tmp/.finished"
  mv "$OUT.tmp" "$OUT"
  if [ -n "${LAB_ARRAY_TASK:-}" ]; then note "array task $LAB_ARRAY_TASK: job $LAB_ARRAY_TASK of $LAB_JOB_COUNT in $OUT"; exit 0; fi
  if [ -n "${LAB_ARRAY_MERGE:-}" ]; then lab_rm_ours "$LAB_ARRAY_DIR"; fi
}

# The merge job: every task 1 .. N (N: the lab's jobs, as the tasks count
# them) must have finished, else nothing is written, each task that did
# not is named, and the array's folder is kept for a rerun
# (labs/slurm/sweep.sh --rerun-failed ID). Then every task's outputs, but
# not its checkpoints: each job's files are its own (named by its run),
# so nothing overlaps.
lab_array_merge() {
  local n=$LAB_JOB_COUNT k d why dest
  if ! why=$(lab_array_check "$n"); then
    echo "error: array $LAB_ARRAY_MERGE: not every task of $LAB_NAME's $n finished, so no merged results, figures or table:" >&2
    echo "$why" >&2
    echo "  $LAB_ARRAY_DIR is kept; labs/slurm/sweep.sh --rerun-failed $LAB_ARRAY_MERGE reruns only these, then merges" >&2
    exit 1
  fi
  dest=$(cd "$OUT.tmp" && pwd)
  for (( k = 1; k <= n; k++ )); do
    d=$LAB_ARRAY_DIR/task-$k
    (cd "$d" && find . -path ./checkpoints -prune -o -type f ! -name '*.lock' ! -name "$LAB_ARRAY_DONE" -print0 |
      xargs -0 -r cp --parents -t "$dest") ||
      { echo "error: cannot merge $d into $OUT.tmp" >&2; exit 1; }
  done
}
