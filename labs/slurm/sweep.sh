#!/usr/bin/env bash
# labs/slurm/sweep.sh - a lab's runs as a Slurm array: one array task per
# MPI job of the lab (each rank count of lab3's sweep, each bucket cap,
# each of lab5's schemes, ...), then one job that starts when every task
# has ended well (--dependency=afterok), merges their outputs into
# results/labN and draws the figures and the table.
#
#   labs/slurm/sweep.sh labN [sbatch options...]
#
# The tasks run labs/slurm/labN.sbatch with LAB_ARRAY_TASK=K (the K-th job
# of the lab, in the order `make labN DRY_RUN=1` lists them), the merge job
# the same script with LAB_ARRAY_MERGE=<array id> on one task. Every task
# asks for the script's tasks (the lab's largest job). Options given here
# (e.g. --partition=..., --export=ALL,PROFILE=paper --time=12:00:00) go to
# both sbatch calls. Prints the two job ids.
set -euo pipefail
cd "$(dirname "$0")/../.."
die() { echo "sweep: error: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: labs/slurm/sweep.sh labN [sbatch options...]"
case "$1" in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
lab=$1; shift
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
export_vars=$(IFS=,; echo "${vars[*]}")
arr=$(sbatch --parsable --array="1-$n" --export="ALL,$export_vars" "$@" "$script")
arr=${arr%%;*}
merge=$(sbatch --parsable --dependency="afterok:$arr" --ntasks-per-node=1 --cpus-per-task=1 -J "ddlab-$lab-merge" \
          --export="ALL,$export_vars,LAB_ARRAY_MERGE=$arr" "$@" "$script")
merge=${merge%%;*}
echo "sweep: $lab: array job $arr ($n tasks, one per job of the lab), then job $merge merges and draws" >&2
echo "$arr $merge"
