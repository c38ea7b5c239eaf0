#!/usr/bin/env bash
# ddl-test-pass: optimised: labs/launch.sh and the sbatch scripts are shell; no program of ddlab runs
# e2e_launch_inputs.sh - what the launch layer reads from Slurm and from
# earlier runs, taken apart without Slurm (labs/launch.sh, labs/slurm/):
#   1. slurm_counts, the SLURM_JOB_CPUS_PER_NODE parser: "1(x50000000)"
#      (50 million nodes) is counted at once, not spelled out; sums and the
#      smallest node come out right; malformed values are refused;
#   2. every labs/slurm/labN.sbatch refuses SLURM_RESTART_COUNT=abc, and
#      with NP and SLURM_NTASKS both unset says what to do (no "unbound
#      variable"), each with exit 2 before any lab starts;
#   3. the "RESUME=1 continues them" hint after a failed run is given only
#      when this lab has checkpoints (lab3's do not count for lab2).
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "launch inputs"

# --- 1. slurm_counts ----------------------------------------------------------------------
fn() { sed -n "/^$1() {/,/^}/p" labs/launch.sh; }
counts() { timeout 5 bash -c "$(fn slurm_counts)"'; slurm_counts "$1"' _ "$1"; }
t0=$(date +%s)
out=$(counts "1(x50000000)"); st=$?
check $(all '[ "$st" = 0 ] && [ "$out" = "50000000 1" ]') "slurm_counts '1(x50000000)' is counted (sum 50000000, smallest 1) within 5 s" \
  "status $st, '$out' after $(( $(date +%s) - t0 )) s"
out=$(counts "36(x2),8,4(x3)")
check $(is "$out" "92 4") "slurm_counts '36(x2),8,4(x3)': 92 CPUs, smallest node 4" "'$out'"
for v in "" "abc" "4(x)" "4(xabc)" "-1" "1234567890" "4(x1234567890)" "8,,"; do
  out=$(counts "$v"); st=$?
  check $(all '[ "$st" != 0 ] && [ -z "$out" ]') "slurm_counts refuses '$v'" "status $st, '$out'"
done

# --- 2. the batch scripts ---------------------------------------------------------------
for f in labs/slurm/lab[1-6].sbatch; do
  n=$(basename "$f" .sbatch)
  env -u NP -u SLURM_NTASKS SLURM_SUBMIT_DIR="$PWD" SLURM_RESTART_COUNT=abc BIN=bin timeout 20 bash "$f" \
    > "$tmp/$n.out" 2> "$tmp/$n.err"
  st=$?
  check $(all '[ "$st" = 2 ] && grep -q "SLURM_RESTART_COUNT=.abc.: Slurm sets it" "$tmp/$n.err"') \
    "$n.sbatch refuses SLURM_RESTART_COUNT=abc" "status $st: $(head -c 200 "$tmp/$n.err")"
  grep -q 'SLURM_NTASKS' "$f" || continue
  env -u NP -u SLURM_NTASKS -u SLURM_RESTART_COUNT SLURM_SUBMIT_DIR="$PWD" timeout 20 bash "$f" \
    > "$tmp/$n.out" 2> "$tmp/$n.err"
  st=$?
  check $(all '[ "$st" = 2 ] && grep -q "neither NP nor SLURM_NTASKS is set" "$tmp/$n.err" && ! grep -q "unbound variable" "$tmp/$n.err"') \
    "$n.sbatch without NP or SLURM_NTASKS says what to give" "status $st: $(head -c 200 "$tmp/$n.err")"
done

# --- 3. the resume hint -------------------------------------------------------------------
hint() { # lab root
  LAB_NAME=$1 DDL_CHECKPOINT_ROOT=$2 bash -c "$(fn launch_resume_hint)"'; launch_resume_hint'
}
mkdir -p "$tmp/ck/lab3-table1-2a/scope"
echo "batch: 3" > "$tmp/ck/lab3-table1-2a/scope/checkpoint.txt"
out=$(hint lab2 "$tmp/ck"); st=$?
check $(all '[ "$st" = 1 ] && [ -z "$out" ]') "after a failed lab2, lab3's checkpoints give no RESUME hint" "status $st: $out"
out=$(hint lab3 "$tmp/ck"); st=$?
check $(all '[ "$st" = 0 ] && grep -q "make lab3 RESUME=1 continues them" <<<"$out"') "lab3's own checkpoints give lab3 the hint" "status $st: $out"
exit $fail
