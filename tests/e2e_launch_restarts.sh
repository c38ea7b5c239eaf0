#!/usr/bin/env bash
# ddl-test-pass: optimised: shell logic with a stand-in lab and stand-in Slurm commands; no C runs
# e2e_launch_restarts.sh - restarts inside the allocation (labs/launch.sh,
# DDL_MAX_RESTARTS; the sbatch scripts' --max-restarts N), without Slurm:
# a stand-in lab under LAUNCH=slurm "inside" Slurm job 555 (SLURM_JOB_ID),
# with stand-in srun (runs the program), scontrol (a controller that
# answers, the job RUNNING) and salloc/squeue on PATH. Its one job fails
# the first F times.
#   1. DDL_MAX_RESTARTS=2, F=1: the job starts again once, with
#      DDL_RESUME=1; the lab ends well; its log and results/restarts.txt
#      ("# restarts: 1") say so;
#   2. no DDL_MAX_RESTARTS: the first failure ends the lab (as before);
#   3. DDL_MAX_RESTARTS=2, F=5: 3 tries, then the lab fails;
#   4. the job's allocation ending (scontrol: COMPLETING, TimeLimit): no
#      restart;
#   5. lab3.sbatch --max-restarts abc / --bogus: refused, exit 2.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "launch restarts"
w=$tmp/w
mkdir -p "$w/sb"
stand_in_lab "$w" 'one job that fails its first $FAILS tries ($TRIES counts them) and records DDL_RESUME on each.' <<'LAB'
lab_mpi 1 sh -c 'echo "resume=${DDL_RESUME:-}" >> "$TRIES"; [ "$(wc -l < "$TRIES")" -gt "$FAILS" ] && echo done > "$0/out.csv"' "$OUT.tmp"
lab_commit
LAB
cat > "$w/sb/srun" <<'SB'
#!/bin/sh
# A stand-in srun: its options skipped, the program run.
while [ $# -gt 0 ]; do
  case $1 in -J|-n|-c|-N) shift 2 ;; -*) shift ;; *) break ;; esac
done
exec "$@"
SB
cat > "$w/sb/scontrol" <<'SB'
#!/bin/sh
# A stand-in scontrol: a controller that answers; the job in $JOB_STATE.
case "$1 $2" in
  "ping ") echo "Slurmctld(primary) at stand-in is UP" ;;
  "show config") echo "TaskPlugin = task/none" ;;
  "show job") echo "   JobState=${JOB_STATE:-RUNNING} Reason=${JOB_REASON:-None} Dependency=(null)" ;;
esac
SB
printf '#!/bin/sh\nexit 0\n' > "$w/sb/salloc"; cp "$w/sb/salloc" "$w/sb/squeue"
chmod +x "$w/sb/"*
unset LAB_ARRAY_TASK LAB_ARRAY_ID LAB_ARRAY_MERGE RESULTS NP DRY_RUN DDL_MAX_RESTARTS DDL_RESUME RESUME
lab() { # max-restarts fails [env...]: the lab's status; its log in $tmp/lab.log
  local max=$1 fails=$2; shift 2
  rm -f "$tmp/tries"; rm -rf "$w/results"
  (cd "$w" && env PATH="$w/sb:$PATH" LAUNCH=slurm SLURM_JOB_ID=555 SLURM_NTASKS=2 SLURM_JOB_CPUS_PER_NODE=2 \
     ${max:+DDL_MAX_RESTARTS=$max} TRIES="$tmp/tries" FAILS="$fails" "$@" labs/lab1/run.sh) > "$tmp/lab.log" 2>&1
}
tries() { tr '\n' ' ' < "$tmp/tries" 2>/dev/null; }

lab 2 1; st=$?
check $(all '[ "$st" = 0 ] && [ "$(tries)" = "resume=0 resume=1 " ] && [ -s "$w/results/lab1/out.csv" ]') \
  "DDL_MAX_RESTARTS=2, a job that fails once: it starts again from its checkpoint (DDL_RESUME=1) and the lab ends well" \
  "status $st, tries '$(tries)': $(tail -3 "$tmp/lab.log")"
check $(all 'grep -q "restart 1 of 2 (--max-restarts) inside Slurm job 555: the job that exited with status 1" "$tmp/lab.log" && grep -qx "# restarts: 1" "$w/results/lab1/restarts.txt" && [ "$(grep -c "^restart " "$w/results/lab1/restarts.txt")" = 1 ]') \
  "the restart is a line in the lab's log and in results/lab1/restarts.txt (# restarts: 1)" \
  "$(grep restart "$tmp/lab.log"; cat "$w/results/lab1/restarts.txt" 2>&1)"

lab "" 1; st=$?
check $(all '[ "$st" != 0 ] && [ "$(tries)" = "resume=0 " ] && ! grep -q "restart 1" "$tmp/lab.log"') \
  "without DDL_MAX_RESTARTS a failed job ends the lab" "status $st, tries '$(tries)'"

lab 2 5; st=$?
check $(all '[ "$st" != 0 ] && [ "$(tries)" = "resume=0 resume=1 resume=1 " ] && grep -q "restart 2 of 2" "$tmp/lab.log"') \
  "DDL_MAX_RESTARTS=2, a job that always fails: 3 tries, then the lab fails" "status $st, tries '$(tries)': $(tail -2 "$tmp/lab.log")"

lab 2 1 JOB_STATE=COMPLETING JOB_REASON=TimeLimit; st=$?
check $(all '[ "$st" != 0 ] && [ "$(tries)" = "resume=0 " ]') \
  "no restart once the allocation is ending (COMPLETING, TimeLimit)" "status $st, tries '$(tries)': $(tail -2 "$tmp/lab.log")"

for a in "--max-restarts abc" "--bogus"; do
  # shellcheck disable=SC2086
  out=$(env -u SLURM_RESTART_COUNT SLURM_SUBMIT_DIR="$PWD" NP=2 timeout 20 bash labs/slurm/lab3.sbatch $a 2>&1); st=$?
  check $(all '[ "$st" = 2 ] && grep -q "max-restarts\|MAX_RESTARTS" <<<"$out"') "lab3.sbatch $a: refused, exit 2" "status $st: $out"
done
exit $fail
