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
# e2e_lab2_bench CSV WHAT: the CSV of `lab2 bench --max-bytes 4096` has
#   every algorithm (7) at every size (11), and no row with a wrong element.

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
e2e_lab2_bench() {
  local rows bad
  rows=$(col "$1" alg | wc -l)
  check $([ "$rows" = $((7 * 11)) ] && echo 0 || echo 1) "$2 CSV has 7 algorithms x 11 sizes" "$rows rows"
  bad=$(col "$1" wrong | awk '$1 != 0' | wc -l)
  check $([ "$bad" = 0 ] && [ "$rows" -gt 0 ] && echo 0 || echo 1) \
    "$2: every algorithm at every size: 0 wrong elements" "$bad rows with wrong elements"
}
