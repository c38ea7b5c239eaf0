#!/usr/bin/env bash
# e2e_rank_agreement.sh - ranks that were started differently stop before
# any work, every one of them, and rank 0 names the first difference with
# both values (core/driver/agree.c). Each part of an MPMD launch
# ("mpirun -np 1 A : -np 1 B") parses its own command line and loads its
# own data, as a cluster node whose files differ does; before the check,
# lab3 with another --model on each rank died in free(), lab2 bench with
# other --sizes freed twice, lab4 with --iters 2 against 3 hung, and a rank
# on synthetic data beside one on real data finished, calling the run
# synthetic. Checked here:
#   1. another --model (lab3), --sizes (lab2 bench), --iters (lab4): status
#      2, the option and both values named, no result written;
#   2. another program on one rank, and a command line refused on one rank
#      only (its value is named, though only rank 0 prints);
#   3. real data on rank 0 and synthetic on rank 1 (DDL_DATA differs):
#      refused naming both (status 1, as for splits that do not match); the same real files under two paths (the same
#      content) run;
#   4. the same settings given as two MPMD parts run (no false alarm).
# Each run is a refusal within seconds or a tiny run, bounded by timeout.
# ddl-test-san-quick: the ranks' agreement check (core/driver/agree.c) runs its comparison of differing ranks in no other test
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "rank agreement"
e2e_mpi
export OMP_WAIT_POLICY=PASSIVE
unset DDL_DEVICE DDL_PROFILE DDL_CHECKPOINT_ROOT DDL_RESUME DDL_DATA
MPIRUN=(timeout 120 "${MPIRUN[@]}")

# stopped NAME PATTERN MPMD-ARGS...: status $want (2, a refused
# configuration; 1 for data, as for splits that do not match), PATTERN in
# rank 0's error, and no summary written.
want=2
stopped() {
  local name=$1 pat=$2; shift 2
  rm -rf "$tmp/out"
  "${MPIRUN[@]}" "$@" > "$tmp/log" 2>&1
  local st=$?
  check $(all '[ "$st" = "$want" ] && grep -q -- "$pat" "$tmp/log" && [ -z "$(ls "$tmp/out" 2>/dev/null | grep summary)" ]') \
    "$name" "status $st: $(grep -m2 'error' "$tmp/log" | cut -c1-300)"
}
pre="error: the ranks were started with different settings:"

# --- 1. another option on one rank ------------------------------------------------
l3=(run --sync ddp --iters 2 --no-eval --synthetic --batch 8 --width 0.125 --limit 32 --quiet --out "$tmp/out" --tag t)
stopped "lab3 with --model vgg11 on rank 0 and resnet18 on rank 1 stops both, naming --model" \
  "$pre --model is 'vgg11' on rank 0 and 'resnet18' on rank 1" \
  -np 1 "$BIN/lab3" "${l3[@]}" --model vgg11 : -np 1 "$BIN/lab3" "${l3[@]}" --model resnet18
b2=(bench --algs mpi --reps 3 --no-calibrate --quiet --out "$tmp/out")
stopped "lab2 bench with other --sizes on each rank stops both, naming --sizes" \
  "$pre --sizes is '64k,1M' on rank 0 and '64k' on rank 1" \
  -np 1 "$BIN/lab2" "${b2[@]}" --sizes 64k,1M : -np 1 "$BIN/lab2" "${b2[@]}" --sizes 64k
l4=(run --synthetic --limit 32 --test-limit 16 --batch 8 --width 0.25 --passes ar,1 --quiet --out "$tmp/out")
stopped "lab4 with --iters 2 on rank 0 and 3 on rank 1 stops both (it hung), naming --iters" \
  "$pre --iters is '2' on rank 0 and '3' on rank 1" \
  -np 1 "$BIN/lab4" "${l4[@]}" --iters 2 : -np 1 "$BIN/lab4" "${l4[@]}" --iters 3

# --- 2. another program; a refusal on one rank only --------------------------------
stopped "lab3 run beside lab3 table stops both, naming the program" \
  "$pre the program is 'lab3 run' on rank 0 and 'lab3 table' on rank 1" \
  -np 1 "$BIN/lab3" "${l3[@]}" : -np 1 "$BIN/lab3" table --out "$tmp/out" --tex "$tmp/out/x.tex"
stopped "a value refused on rank 1 alone is named by rank 0" \
  "$pre --model is 'vgg11' on rank 0 and 'nosuchmodel' on rank 1" \
  -np 1 "$BIN/lab3" "${l3[@]}" --model vgg11 : -np 1 "$BIN/lab3" "${l3[@]}" --model nosuchmodel

# --- 3. the data ------------------------------------------------------------------
mkdir -p "$tmp/real/mnist" "$tmp/none"
mnist_idx "$tmp/real/mnist" train 32
mnist_idx "$tmp/real/mnist" t10k 16
cp -r "$tmp/real" "$tmp/copy"
want=1
d3=(run --model cnn3 --dataset mnist --sync ddp --iters 2 --batch 8 --width 0.25 --quiet --out "$tmp/out" --tag t)
stopped "real data on rank 0 and synthetic on rank 1 (no files under its DDL_DATA) stops both, naming both" \
  "error: the ranks loaded different training data: rank 0 has real mnist, 32 examples .*; rank 1 has synthetic mnist" \
  -np 1 env DDL_DATA="$tmp/real" "$BIN/lab3" "${d3[@]}" : -np 1 env DDL_DATA="$tmp/none" "$BIN/lab3" "${d3[@]}"
rm -rf "$tmp/out"
"${MPIRUN[@]}" -np 1 env DDL_DATA="$tmp/real" "$BIN/lab3" "${d3[@]}" : -np 1 env DDL_DATA="$tmp/copy" "$BIN/lab3" "${d3[@]}" \
  > "$tmp/log" 2>&1
st=$?
check $(all '[ "$st" = 0 ] && grep -q "^# data: real" "$tmp/out/t-summary.csv"') \
  "the same files under another path on each rank run (the data is compared by content)" \
  "status $st: $(grep -m2 error "$tmp/log" | cut -c1-300)"

# --- 4. no false alarm ------------------------------------------------------------
rm -rf "$tmp/out"
"${MPIRUN[@]}" -np 1 "$BIN/lab3" "${l3[@]}" : -np 1 "$BIN/lab3" "${l3[@]}" > "$tmp/log" 2>&1
st=$?
check $(all '[ "$st" = 0 ] && [ -s "$tmp/out/t-summary.csv" ]') "the same settings in two MPMD parts run" \
  "status $st: $(grep -m2 error "$tmp/log" | cut -c1-300)"
exit $fail
