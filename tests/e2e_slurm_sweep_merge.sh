#!/usr/bin/env bash
# ddl-test-pass: optimised: shell logic with a stand-in lab and a stand-in sbatch; no C runs
# e2e_slurm_sweep_merge.sh - labs/slurm/sweep.sh and the array merge
# (labs/common.sh), without Slurm, in a temporary tree: a stand-in lab1
# (four one-line jobs through the real labs/common.sh and labs/launch.sh)
# and a stand-in sbatch on PATH that records its arguments.
#   1. sweep.sh where there is no sbatch: one clear line, exit 2 (not
#      "sbatch: command not found");
#   2. the array's logs are %x-%A_%a, the merge job has
#      --kill-on-invalid-dep=yes and afterok on the array;
#   3. the merge with task 2 failed, task 3 never run and a stray
#      task-3.lock/ folder: refused (exit 1), naming tasks 2 and 3 and no
#      other, no merged results, the array's folder kept;
#   4. sweep.sh --rerun-failed 77: an array of tasks 2,3 only, into
#      array 77's folder, and a merge after it; those tasks rerun, the
#      merge takes all four jobs' outputs and removes the array's folder.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "sweep merge"
repo=$PWD
w=$tmp/w
mkdir -p "$w/sb"
stand_in_sweep_lab "$w" 4
cat > "$w/sb/sbatch" <<'SB'
#!/bin/sh
# A stand-in sbatch: one line of arguments a call, a job id from 100.
n=$(wc -l < "$SB_LOG")
echo "$*" >> "$SB_LOG"
echo $(( 100 + n ))
SB
chmod +x "$w/sb/sbatch"
export SB_LOG=$tmp/sbatch.log
: > "$SB_LOG"
unset LAB_ARRAY_TASK LAB_ARRAY_ID LAB_ARRAY_MERGE LAB_ARRAY_INTO RESULTS SLURM_JOB_ID NP
export DRY_RUN=0

# --- 1. no Slurm ------------------------------------------------------------------
# A PATH of this machine's tools without Slurm's.
mkdir -p "$tmp/noslurm"
for d in /usr/local/bin /usr/bin /bin; do
  for f in "$d"/*; do
    b=${f##*/}
    case $b in sbatch|srun|salloc|squeue|scontrol|scancel|sinfo|sacct) continue ;; esac
    [ -e "$tmp/noslurm/$b" ] || ln -s "$f" "$tmp/noslurm/$b"
  done
done
out=$(cd "$w" && PATH=$tmp/noslurm labs/slurm/sweep.sh lab1 2>&1); st=$?
check $(all '[ "$st" = 2 ] && grep -q "sbatch is not here" <<<"$out" && ! grep -q "command not found" <<<"$out"') \
  "sweep.sh without Slurm: one clear line, exit 2" "status $st: $out"

# --- 2. the two sbatch calls --------------------------------------------------------
out=$(cd "$w" && PATH=$w/sb:$PATH labs/slurm/sweep.sh lab1 2>&1); st=$?
arr=$(sed -n 1p "$SB_LOG") merge=$(sed -n 2p "$SB_LOG")
check $(all '[ "$st" = 0 ] && grep -q -- "--array=1-4 " <<<"$arr" && grep -q -- "--output=%x-%A_%a.out" <<<"$arr"') \
  "sweep.sh: an array of the lab's 4 jobs, logs named %x-%A_%a" "status $st: $out; sbatch: $arr"
check $(all 'grep -q -- "--kill-on-invalid-dep=yes" <<<"$merge" && grep -q -- "--dependency=afterok:100 " <<<"$merge" && grep -q "LAB_ARRAY_MERGE=100" <<<"$merge"') \
  "sweep.sh: the merge job waits for the array and ends when a task fails (--kill-on-invalid-dep=yes)" "sbatch: $merge"

# --- 3. a merge with a task failed, one missing, a stray lock folder -----------------
task() { # K [env...]: array 77's task K, as its array task would run it
  local k=$1; shift
  (cd "$w" && env "$@" LAB_ARRAY_TASK="$k" LAB_ARRAY_ID=77 labs/lab1/run.sh) > "$tmp/task$k.out" 2>&1
}
task 1; s1=$?
task 2 FAIL_JOB=2; s2=$?
task 4; s4=$?
mkdir -p "$w/results/lab1.array-77/task-3.lock" && echo stray > "$w/results/lab1.array-77/task-3.lock/x"
check $(all '[ "$s1" = 0 ] && [ "$s2" != 0 ] && [ "$s4" = 0 ]') "tasks 1 and 4 end well, task 2 fails" "$s1 $s2 $s4: $(tail -3 "$tmp/task2.out")"
check $(all 'grep -q "array 77: task 2 did not finish.*sweep.sh --rerun-failed 77" "$tmp/task2.out" && ! grep -q "did not finish" "$tmp/task1.out"') \
  "the failed task says which it was and how to rerun it" "$(tail -2 "$tmp/task2.out")"
out=$(cd "$w" && LAB_ARRAY_MERGE=77 labs/lab1/run.sh 2>&1); st=$?
echo "$out" | sed "s/^/# /"
check $(all '[ "$st" = 1 ] && grep -q "task 2: failed" <<<"$out" && grep -q "task 3: missing" <<<"$out" && ! grep -q "task [14]:" <<<"$out"') \
  "the merge refuses, naming task 2 (failed) and task 3 (missing) and no other" "status $st: $out"
check $(all '[ ! -e "$w/results/lab1/table.txt" ] && [ ! -e "$w/results/lab1/job1.csv" ] && [ -d "$w/results/lab1.array-77/task-1" ]') \
  "no partial table is written, and the array's folder is kept" "$(ls -R "$w/results" | head -20)"

# --- 4. --rerun-failed -----------------------------------------------------------------
# A task whose lock is held still runs: refused, nothing submitted.
: > "$SB_LOG"
exec {held}>> "$w/results/lab1.array-77/task-2.lock"
flock -n "$held"
out=$(cd "$w" && PATH=$w/sb:$PATH labs/slurm/sweep.sh --rerun-failed 77 2>&1); st=$?
exec {held}>&-
check $(all '[ "$st" = 2 ] && grep -q "task 2 still runs" <<<"$out" && [ ! -s "$SB_LOG" ]') \
  "--rerun-failed while task 2 still runs (its lock held): refused, nothing submitted" "status $st: $out"
: > "$SB_LOG"
out=$(cd "$w" && PATH=$w/sb:$PATH labs/slurm/sweep.sh --rerun-failed 77 2>&1); st=$?
arr=$(sed -n 1p "$SB_LOG") merge=$(sed -n 2p "$SB_LOG")
check $(all '[ "$st" = 0 ] && grep -q -- "--array=2,3 " <<<"$arr" && grep -q "LAB_ARRAY_INTO=77" <<<"$arr" && grep -q -- "--output=%x-%A_%a.out" <<<"$arr"') \
  "--rerun-failed 77: an array of tasks 2 and 3 only, into array 77's folder" "status $st: $out; sbatch: $arr"
check $(all 'grep -q -- "--dependency=afterok:100 " <<<"$merge" && grep -q -- "--kill-on-invalid-dep=yes" <<<"$merge" && grep -q "LAB_ARRAY_MERGE=77" <<<"$merge"') \
  "--rerun-failed 77: then a merge of array 77 after the rerun" "sbatch: $merge"
# What that array runs: each sbatch script maps LAB_ARRAY_INTO to the task's array.
grep -q 'LAB_ARRAY_ID=${LAB_ARRAY_INTO:-$SLURM_ARRAY_JOB_ID}' labs/slurm/lab1.sbatch
check $? "lab1.sbatch runs a rerun's task into the first array's folder"
rm -rf "$w/results/lab1.array-77/task-3.lock"
task 2; s2=$?
task 3; s3=$?
out=$(cd "$w" && LAB_ARRAY_MERGE=77 labs/lab1/run.sh 2>&1); st=$?
got=$(cat "$w"/results/lab1/job*.csv 2>/dev/null | tr '\n' ' ')
check $(all '[ "$s2$s3$st" = 000 ] && [ "$got" = "job,1 job,2 job,3 job,4 " ] && [ -f "$w/results/lab1/table.txt" ] && [ ! -e "$w/results/lab1.array-77" ]') \
  "after the rerun the merge takes all four jobs' outputs and removes the array's folder" "$s2 $s3 $st: '$got' $out"
check $(all '[ ! -e "$w/results/lab1/.ddlab-task-done" ]') "the tasks' finish marks are not merged"
cd "$repo"
exit $fail
