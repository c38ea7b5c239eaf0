# tests/e2e_lib.sh - sourced by the end-to-end scripts (from the
# repository root, after `set -u`): what each of them starts with. Not
# executable, so tests/run.sh, which runs the executable tests/e2e_*.sh,
# does not take it for a test.
#
# e2e_begin NAME: BIN (default bin); tmp, a scratch folder removed when
#   the script exits; fail=0 (the script ends with `exit $fail`); and
#     check STATUS WHAT [WHY]  prints "ok - NAME: WHAT" when STATUS is 0,
#                              else "not ok - NAME: WHAT: WHY" and sets fail;
#     ok WHAT, bad WHAT        the same without a status
#     expect WHAT COMMAND...   the same, passing when COMMAND succeeds
#   (NAME "": the lines name WHAT alone).
# e2e_need FILE...: each FILE must be an executable ("not ok" and exit 1).
# e2e_mpi: local runs of mpirun, as root too and more ranks than cores,
#   one BLAS and OpenMP thread a rank; MPIRUN over shared memory, unbound.
# col FILE NAME: that column of a results CSV's data rows (its metadata
#   and header skipped).
# all 'CONDITIONS': 0 when the shell conditions hold, else 1 (one string:
#   "$(all '[ a ] && [ b ]')"; in "$(f [ a ] && [ b ])" the && would run
#   after f has printed).
# is A B: 0 when A equals B, else 1.
# e2e_host_algs: how many host algorithms the build has (the "host" lines
#   of `$BIN/lab2 algs`, core/comm/algs.def's table; 0 when it cannot say):
#   `--algs all` runs each of them.
# e2e_lab2_bench CSV WHAT: the CSV of `lab2 bench --max-bytes 4096` has
#   every host algorithm at every size (11), and no row with a wrong element.

# e2e_slurm_job_cluster NAME (after e2e_begin): a one-node Slurm cluster of
#   this test's own in $tmp/cluster (SLURM_CONF exported, stopped at exit),
#   work=$tmp/work, a tree of links to the checkout with results, figures
#   and report of its own, for batch jobs of lab3; state JOB and restarts
#   JOB read scontrol; rank_pid JOB PROCID finds a rank's process.
#   Returns 1 (NAME skipped, the reason said) where Slurm cannot run here,
#   2 when the cluster did not start.
e2e_slurm_job_cluster() {
  local f
  e2e_slurm_check "$1" || return 1
  e2e_need bin/lab3
  ROOT=$PWD
  unset NET HOSTS PLATFORM LAUNCH NODES SLURM_JOB_ID SLURM_CONF NP RESULTS FIGURES TABLES DDL_SLURM_CPUS DDL_MAX_RESTARTS
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
  work=$tmp/work
  mkdir -p "$work/figures" "$work/report/tables"
  for f in "$ROOT"/*; do case $(basename "$f") in results|figures|report) ;; *) ln -s "$f" "$work/" ;; esac; done
  e2e_slurm_up || return 2
}

# A site's cluster instead of one of the test's own: DDL_TEST_SLURM_CONF
# names its slurm.conf (a one-node cluster the project did not configure,
# as tests/README.md says), for the tests that run jobs on "a cluster"
# (e2e_slurm_preempt, e2e_slurm_restart, e2e_slurm_sweep_rerun). Jobs
# there wait for Slurm's own requeue delay (cred_expire, 120 s by
# default), so E2E_SLURM_WAIT, the tests' limit on a job's end in
# seconds, grows from 150 to 600.
# e2e_slurm_check NAME: 0 where a cluster can run (else NAME skipped, the
#   reason said, 1); e2e_slurm_up: the cluster up, SLURM_CONF exported and
#   the exit trap set to stop it and remove $tmp (2 and "not ok" when it
#   did not start).
E2E_SLURM_WAIT=150
[ -n "${DDL_TEST_SLURM_CONF:-}" ] && E2E_SLURM_WAIT=600
e2e_slurm_check() {
  local why
  [ -n "${DDL_TEST_SLURM_CONF:-}" ] && return 0
  if ! why=$(labs/slurm/cluster.sh check); then echo "skip - $1: $why"; return 1; fi
}
e2e_slurm_up() {
  if [ -n "${DDL_TEST_SLURM_CONF:-}" ]; then
    trap 'rm -rf "$tmp"' EXIT
    export SLURM_CONF=$DDL_TEST_SLURM_CONF
    sinfo -h > /dev/null 2> "$tmp/up.err" ||
      { bad "the site's cluster (DDL_TEST_SLURM_CONF=$DDL_TEST_SLURM_CONF) does not answer: $(tail -2 "$tmp/up.err")"; return 2; }
    echo "# on the site's cluster of $SLURM_CONF"
    return 0
  fi
  trap 'labs/slurm/cluster.sh down "$tmp/cluster" --quiet 2>/dev/null; rm -rf "$tmp"' EXIT
  eval "$(labs/slurm/cluster.sh up "$tmp/cluster" 2> "$tmp/up.err")" ||
    { bad "the cluster did not start: $(tail -3 "$tmp/up.err")"; return 2; }
}
# rank_pid JOB PROCID [COMM]: the pid of rank PROCID's process (default
# lab3) of Slurm job JOB, found by the job's id and rank in its environment
# (/proc), which no other job's process has; 1 when none runs.
rank_pid() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2>/dev/null)" = "${3:-lab3}" ] || continue
    { tr '\0' '\n' < "$p/environ"; } 2>/dev/null | grep -qx "SLURM_JOB_ID=$1" || continue
    { tr '\0' '\n' < "$p/environ"; } 2>/dev/null | grep -qx "SLURM_PROCID=$2" && { echo "${p#/proc/}"; return 0; }
  done
  return 1
}
state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1; }
restarts() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p' | head -1; }

e2e_begin() {
  E2E_AS=${1:+$1: }
  BIN=${BIN:-bin}
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  fail=0
}
check() {
  if [ "$1" = 0 ]; then echo "ok - $E2E_AS$2"; else echo "not ok - $E2E_AS$2${3:+: $3}"; fail=1; fi
}
# expect NAME COMMAND...: NAME passes when COMMAND succeeds.
expect() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
ok() { echo "ok - $E2E_AS$*"; }
bad() { echo "not ok - $E2E_AS$*"; fail=1; }
e2e_need() {
  local f
  for f in "$@"; do
    [ -x "$f" ] || { echo "not ok - $E2E_AS$f is not built"; exit 1; }
  done
}
e2e_mpi() {
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
  MPIRUN=(mpirun --mca pml ob1 --mca btl self,vader --bind-to none)
}
col() {
  awk -F, -v c="$2" '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == c) k = i; h = 1; next} {print $k}' "$1"
}
all() { if eval "$1"; then echo 0; else echo 1; fi; }
is() { [ "$1" = "$2" ] && echo 0 || echo 1; }
e2e_host_algs() { "$BIN/lab2" algs 2>/dev/null | awk '$2 == "host"' | wc -l; }
e2e_lab2_bench() {
  local rows bad nalgs
  nalgs=$(e2e_host_algs)
  rows=$(col "$1" alg | wc -l)
  check $([ "$nalgs" -gt 0 ] && [ "$rows" = $((nalgs * 11)) ] && echo 0 || echo 1) \
    "$2 CSV has every host algorithm of lab2 algs ($nalgs) x 11 sizes" "$rows rows"
  bad=$(col "$1" wrong | awk '$1 != 0' | wc -l)
  check $([ "$bad" = 0 ] && [ "$rows" -gt 0 ] && echo 0 || echo 1) \
    "$2: every algorithm at every size: 0 wrong elements" "$bad rows with wrong elements"
}

# be32 N: N as 4 big-endian bytes (the integers of MNIST's IDX files).
# mnist_idx DIR PREFIX COUNT [SIDE [PIXELS]]: a tiny MNIST split in DIR,
#   PREFIX-images-idx3-ubyte (COUNT images of SIDE x SIDE, default 28,
#   bytes from PIXELS, default /dev/urandom) and PREFIX-labels-idx1-ubyte
#   (all label 0), for the tests that need files where real data is read.
be32() { printf "\\$(printf %03o $(($1 >> 24 & 255)))\\$(printf %03o $(($1 >> 16 & 255)))"; printf "\\$(printf %03o $(($1 >> 8 & 255)))\\$(printf %03o $(($1 & 255)))"; }
mnist_idx() {
  local side=${4:-28}
  { printf '\0\0\10\3'; be32 "$3"; be32 "$side"; be32 "$side"; head -c $(($3 * side * side)) "${5:-/dev/urandom}"; } > "$1/$2-images-idx3-ubyte"
  { printf '\0\0\10\1'; be32 "$3"; head -c "$3" /dev/zero; } > "$1/$2-labels-idx1-ubyte"
}

# stand_in_lab DIR WHAT: DIR/labs/ with copies of labs/*.sh (common.sh and
#   what it sources), and DIR/labs/lab1/run.sh, a stand-in lab (WHAT says
#   what it does, in its comment) whose lines after `lab_begin 1` are read
#   from stdin: the launcher's tests run it where a real lab would take
#   minutes. stand_in_sweep_lab DIR N: the same with N jobs, each one line
#   of output (FAIL_JOB=K fails job K), then a table, and copies of
#   labs/slurm/sweep.sh and lab1.sbatch, for the sweep tests.
stand_in_lab() {
  mkdir -p "$1/labs/lab1"
  cp labs/*.sh "$1/labs/"
  { printf '%s\n' '#!/usr/bin/env bash' "# A stand-in lab: $2" 'set -euo pipefail' 'cd "$(dirname "$0")/../.."' \
      'source labs/common.sh' 'OUT=${RESULTS:-results/lab1}' 'lab_begin 1'
    cat; } > "$1/labs/lab1/run.sh"
  chmod +x "$1/labs/lab1/run.sh"
}
stand_in_sweep_lab() {
  mkdir -p "$1/labs/slurm"
  cp labs/slurm/sweep.sh labs/slurm/lab1.sbatch "$1/labs/slurm/"
  stand_in_lab "$1" "$2 jobs, each one line of output; FAIL_JOB=K fails job K." <<LAB
for k in \$(seq $2); do
  lab_single sh -c "[ '\${FAIL_JOB:-}' != \$k ] && echo job,\$k > '\$OUT.tmp/job\$k.csv'"
done
lab_commit
echo drawn > "\$OUT/table.txt"
LAB
}

# e2e_sim_guard NAME: for the simulated-run tests, before e2e_begin: ends
#   the script with "skip - NAME: why" in the sanitizer pass (the simulated
#   tree has no sanitizer build) or where SimGrid's SMPI is not installed.
# e2e_sim_make WHAT TARGET...: make SIM=1 TARGET..., checked as "make SIM=1
#   builds WHAT" (its log's tail on failure). One simulated build at a time
#   (flock): e2e_sim and e2e_scale build in the same tree, maybe at once,
#   and two makes writing one object break both.
e2e_sim_guard() {
  if [ "${SANITIZE:-0}" = 1 ]; then
    echo "skip - $1: simulated runs are checked in the optimised pass only"; exit 0
  fi
  if ! command -v smpicc >/dev/null 2>&1 || ! command -v smpirun >/dev/null 2>&1; then
    echo "skip - $1: SimGrid SMPI not installed (sudo apt-get install libsimgrid-dev)"; exit 0
  fi
}
e2e_sim_make() {
  local what=$1
  shift
  mkdir -p build
  flock build/.sim-make.lock make --no-print-directory -j"${JOBS:-2}" SIM=1 "$@" > "$tmp/build.log" 2>&1
  check $? "make SIM=1 builds $what" "$(tail -5 "$tmp/build.log")"
}

# e2e_lab_env VAR...: the environment of the tests that launch labs
#   through mpirun, srun or the emulated network: mpirun allowed as root,
#   one BLAS and OpenMP thread a rank, and each VAR (the launch's choices:
#   NET, HOSTS, PLATFORM, ...) unset, so the caller's shell chooses nothing.
# meta CSV KEY: the value of a results file's "# KEY: value" line.
# yes_no COMMAND...: 0 when COMMAND succeeds, else 1 (for check).
e2e_lab_env() {
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
  unset "$@"
}
meta() { sed -n "s/^# $2: //p" "$1" | head -1; }
yes_no() { if "$@"; then echo 0; else echo 1; fi; }

# e2e_python_tests NAME SCRIPT...: the end of a script whose checks are
#   Python programs printing their own ok / not ok lines: runs each
#   SCRIPT and exits 1 when any failed ("skip - NAME" where python3 is
#   missing).
e2e_python_tests() {
  local name=$1 st=0 script
  shift
  command -v python3 >/dev/null 2>&1 || { echo "skip - $name: python3 not installed (make deps)"; exit 0; }
  for script in "$@"; do python3 "$script" || st=1; done
  exit $st
}
