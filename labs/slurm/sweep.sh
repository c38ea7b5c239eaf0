#!/usr/bin/env bash
# labs/slurm/sweep.sh - a lab's runs as a Slurm array: one array task per
# MPI job of the lab (each rank count of lab3's sweep, each bucket cap,
# each of lab5's schemes, ...), then one job that starts when every task
# has ended well (--dependency=afterok), merges their outputs into
# results/labN and draws the figures and the table.
#
#   labs/slurm/sweep.sh labN [sbatch options...]
#   labs/slurm/sweep.sh --rerun-failed ID [sbatch options...]
#
# The tasks run labs/slurm/labN.sbatch with LAB_ARRAY_TASK=K (the K-th job
# of the lab, in the order `make labN DRY_RUN=1` lists them), each logging
# to ddlab-labN-<array id>_<K>.out (%x-%A_%a); the merge job runs the same
# script with LAB_ARRAY_MERGE=<array id> on one task. A failed task ends
# the merge job at once (--kill-on-invalid-dep=yes), and a merge run by
# hand refuses, naming every task that did not finish; the array's folder
# results/labN.array-<id> stays. --rerun-failed ID submits an array of
# just those tasks (into the same folder), then the merge again. Every
# task asks for the script's tasks (the lab's largest job). Options given
# here (e.g. --partition=..., --export=ALL,PROFILE=paper
# --time=12:00:00) go to both sbatch calls. Prints the two job ids.
set -euo pipefail
cd "$(dirname "$0")/../.."
die() { echo "sweep: error: $*" >&2; exit 2; }
usage="usage: labs/slurm/sweep.sh labN [sbatch options...] | --rerun-failed ID [sbatch options...]"
[ $# -ge 1 ] || die "$usage"
case "$1" in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
command -v sbatch > /dev/null 2>&1 ||
  die "Slurm's sbatch is not here: submit from a cluster's login node (load its Slurm module), or start one on this machine (labs/slurm/README.md); without Slurm, make labN runs the whole lab"
# An array task's outputs are finished when this file is in its folder
# (labs/common.sh, LAB_ARRAY_DONE).
done_mark=.ddlab-task-done
rerun=
if [ "$1" = --rerun-failed ]; then
  [ $# -ge 2 ] || die "$usage"
  rerun=$2; shift 2
  case "$rerun" in ''|*[!0-9]*) die "--rerun-failed '$rerun': the first array's Slurm job id (results/labN.array-<id>)" ;; esac
  dirs=(results/lab[1-6].array-"$rerun")
  [ -d "${dirs[0]}" ] || die "--rerun-failed $rerun: no results/labN.array-$rerun here (run from the folder the sweep was submitted from)"
  lab=${dirs[0]#results/}; lab=${lab%%.*}
else
  lab=$1; shift
fi
script=labs/slurm/$lab.sbatch
[ -f "$script" ] && [ -x "labs/$lab/run.sh" ] || die "$lab: no $script (lab1 .. lab6)"
sb() { sed -n "s/^#SBATCH --$1=\([0-9]*\).*/\1/p" "$script" | head -1; }
tasks=$(sb ntasks-per-node) cpt=$(sb cpus-per-task)
# The job list may follow the CPUs (lab2 and lab3 sweep up to them): count
# it with the CPUs each task gets, and have the tasks count the same.
cores=${LAB_CORES:-$(( ${tasks:-1} * ${cpt:-1} ))}
vars=(LAB_CORES="$cores")
# lab2 .. lab5 take NP from the job's tasks; lab1 and lab6 have none.
if grep -q 'NP=${NP:-$SLURM_NTASKS}' "$script"; then vars+=(NP="${NP:-$tasks}"); fi
list=$(env -u SLURM_JOB_ID "${vars[@]}" LAUNCH=slurm DRY_RUN=1 "labs/$lab/run.sh" 2> /dev/null) ||
  die "labs/$lab/run.sh DRY_RUN=1 failed: run it by hand to see why"
n=$(grep -c . <<<"$list")
[ "$n" -ge 1 ] || die "$lab lists no job"
indices="1-$n" arr_id=
if [ -n "$rerun" ]; then
  # The tasks without a finished run: failed, cancelled or never started.
  dir=results/$lab.array-$rerun indices=
  for (( k = 1; k <= n; k++ )); do
    [ -f "$dir/task-$k/$done_mark" ] && continue
    # A task whose lock is held still runs (seen where the file system
    # shares locks between nodes): not submitted twice.
    if [ -f "$dir/task-$k.lock" ] && ! flock -n "$dir/task-$k.lock" true 2> /dev/null; then
      die "--rerun-failed $rerun: task $k still runs (its lock $dir/task-$k.lock is held): wait until the array has ended"
    fi
    indices+=${indices:+,}$k
  done
  [ -n "$indices" ] || die "--rerun-failed $rerun: all $n task(s) of $lab finished; merge: sbatch --export=ALL,LAB_ARRAY_MERGE=$rerun $script"
  vars+=(LAB_ARRAY_INTO="$rerun")
  arr_id=$rerun
fi
export_vars=$(IFS=,; echo "${vars[*]}")
# The tasks' logs by array and task (a failed one is found by its number).
arr=$(sbatch --parsable --array="$indices" --output=%x-%A_%a.out --export="ALL,$export_vars" "$@" "$script")
arr=${arr%%;*}
arr_id=${arr_id:-$arr}
merge=$(sbatch --parsable --dependency="afterok:$arr" --kill-on-invalid-dep=yes --ntasks-per-node=1 --cpus-per-task=1 \
          -J "ddlab-$lab-merge" --export="ALL,$export_vars,LAB_ARRAY_MERGE=$arr_id" "$@" "$script")
merge=${merge%%;*}
if [ -n "$rerun" ]; then
  echo "sweep: $lab: array job $arr reruns task(s) $indices of $rerun into results/$lab.array-$rerun, then job $merge merges and draws" >&2
else
  echo "sweep: $lab: array job $arr ($n tasks, one per job of the lab), then job $merge merges and draws" >&2
fi
echo "$arr $merge"
