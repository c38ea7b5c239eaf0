#!/usr/bin/env bash
# e2e_cli.sh - the options every lab shares are checked before any work
# starts (core/driver): bad choices and labels, datasets a lab does not
# run on, --device/DDL_DEVICE=cuda (refused clearly until the GPU backend runs
# the labs), numbers (one checked parser: 1e3, 16abc, 2^64 and a missing
# value are refused, saying why), checkpoint options, empty or unwritable
# output directories (--checkpoint among them); and a failed PNG or
# results write ends with a non-zero status. Each case is a refusal within
# a second or a tiny run. Prints ok / not ok lines.
# Quick tier (DDL_TEST_TIER=quick, make test): every kind of refusal once,
# the per-lab repeats sampled so that each lab is still refused something:
# --profile foo for lab2 and lab5, --tag '' for lab4 and lab6, --out '' for
# lab3, --augment for lab3, DDL_DEVICE/--device cuda for lab2 bench, lab4
# under mpirun and lab5's --device. They all go through the same driver
# (core/driver); make test-full refuses each of them in every lab. The
# sanitizer pass's quick form leaves out 14 more cases (marked
# not_san_quick) whose parser or check another case runs under ASan: one
# refusal per option kind and per lab program is what reaches the C code.
# ddl-test-san-quick: the labs' option and environment checks before any work (core/driver's refusals in each lab's main, the results and PNG writers' failures) run in no unit test
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin cli
e2e_mpi
export OMP_WAIT_POLICY=PASSIVE
unset DDL_DEVICE DDL_PROFILE DDL_CHECKPOINT_ROOT DDL_RESUME
QUICK=0
if [ "${DDL_TEST_TIER:-full}" = quick ]; then
  QUICK=1
  echo "# quick tier: the per-lab repeats of --profile, --tag, --out, --augment and DEVICE=cuda$([ "${SANITIZE:-0}" = 1 ] && echo ", and in the sanitizer pass 14 more repeats of one check") left to make test-full (make test-full runs it)"
fi
# full QUICK-CASE: true for every case in make test-full, for the sampled
# one in the quick tier.
full() { [ "$QUICK" = 0 ] || [ "$1" = 1 ]; }
# Under the sanitizers (2-3x slower) the quick form samples further: a
# case marked not_san_quick repeats a parser or check another case runs.
not_san_quick() { [ "$QUICK" = 0 ] || [ "${SANITIZE:-0}" != 1 ]; }
e2e_need "$BIN"/lab{1,2,3,4,5,6}

# refused NAME TEXT CMD...: exit status 2, TEXT in the message, and no
# output directory made (nothing was written).
refused() {
  local name=$1 text=$2; shift 2
  rm -rf "$tmp/out"
  "$@" > "$tmp/log" 2>&1
  local rc=$?
  if [ $rc -eq 2 ] && grep -qi -- "$text" "$tmp/log" && [ ! -e "$tmp/out/t-summary.csv" ]; then ok "$name"
  else bad "$name (status $rc: $(grep -m2 -v '^-\|^ *$' "$tmp/log" | head -c 300))"; fi
}
out=(--out "$tmp/out" --tag t --quiet --synthetic)

# choices and labels
full 0 && refused "lab1 --augment maybe is refused" "augment 'maybe'" "$BIN/lab1" --augment maybe "${out[@]}" --iters 1
refused "lab3 --augment maybe is refused" "augment 'maybe'" "$BIN/lab3" run --augment maybe "${out[@]}" --iters 1
refused "lab3 --task 7 is refused" "task '7'" "$BIN/lab3" run --task 7 "${out[@]}" --iters 1
refused "lab3 --task 2a --sync ddp is refused (it labelled a DDP run Task 2a)" \
  "--task 2a stands for --sync gather_scatter (the seed's Task 2a), and this run is --sync ddp" \
  "$BIN/lab3" run --task 2a --sync ddp "${out[@]}" --iters 1
not_san_quick && refused "lab3 --series foo is refused" "series 'foo'" "$BIN/lab3" run --series foo "${out[@]}" --iters 1
refused "lab5 --precision fp8 is refused" "precision 'fp8'" "$BIN/lab5" run --precision fp8 "${out[@]}"
not_san_quick && refused "lab5 --shards none is refused" "shards 'none'" "$BIN/lab5" run --shards none "${out[@]}"
refused "lab4 --scheme group,foo is refused" "scheme 'foo'" "$BIN/lab4" run --scheme group,foo "${out[@]}"
refused "lab6 --style mpi is refused" "style 'mpi'" "$BIN/lab6" run --style mpi "${out[@]}"
refused "lab4 --passes ,1 is refused, as lab2's lists are (the empty entry was skipped)" \
  "--passes ',1': entry 1 is empty" "${MPIRUN[@]}" -np 2 "$BIN/lab4" run --passes ,1 "${out[@]}"
refused "lab6 with too few examples for one step says so (not 'give 2 step(s) ... needs 2 or more')" \
  "8 training examples over 1 worker(s) do not fill one step of 16 x 1 examples" \
  "$BIN/lab6" run --limit 8 --batch 16 --iters 2 "${out[@]}"
not_san_quick && refused "lab6 with one step says it needs 2" "this run has 1 step(s) (4 per epoch): lab6 needs 2 or more" \
  "$BIN/lab6" run --limit 64 --batch 16 --iters 1 "${out[@]}"
modes=("" train run run run run)
for l in 1 2 3 4 5 6; do
  m=${modes[$((l - 1))]}
  full "$( [[ " 2 5 " == *" $l "* ]] && echo 1)" &&
    refused "lab$l --profile foo is refused" "profile 'foo'" "$BIN/lab$l" $m --profile foo --out "$tmp/out" --quiet
  full "$( [[ " 4 6 " == *" $l "* ]] && echo 1)" &&
    refused "lab$l --tag '' is refused" "tag ''" "$BIN/lab$l" $m --tag "" --out "$tmp/out" --quiet
done
refused "lab2 DDL_PROFILE=foo is refused" "profile 'foo'" env DDL_PROFILE=foo "$BIN/lab2" train --out "$tmp/out" --quiet
not_san_quick && refused "lab3 --tag a/b is refused" "tag 'a/b'" "$BIN/lab3" run --tag a/b --out "$tmp/out" --quiet
refused "lab1 --tag .. is refused" "tag '..'" "$BIN/lab1" "${out[@]}" --tag ..
not_san_quick && refused "lab5 --label with a space is refused" "tag 'a b'" "$BIN/lab5" run --label "a b" --out "$tmp/out"
for l in 1 3 6; do
  m=${modes[$((l - 1))]}
  full "$( [ "$l" = 3 ] && echo 1)" &&
  refused "lab$l --out '' is refused" "out is empty" "$BIN/lab$l" $m --out "" --quiet
done

# numbers: one checked parser (core/util/cli.c), every refusal says why
refused "lab1 --lr 1e-50 is refused (a float holds 0: the run said lr 0)" "1e-50 is too small for a float" \
  "$BIN/lab1" --lr 1e-50 "${out[@]}" --iters 1
refused "lab2 --hidden 1e3 is refused (it trained H=1)" "'1e3' is not a whole number" \
  "$BIN/lab2" train --hidden 1e3 "${out[@]}"
not_san_quick && refused "lab2 --hidden 4294967312 is refused (it trained H=16)" "4294967312 is outside 1..65536" \
  "$BIN/lab2" train --hidden 4294967312 "${out[@]}"
not_san_quick && refused "lab2 --hidden 16abc is refused (it trained H=16)" "'16abc' is not a whole number" \
  "$BIN/lab2" train --hidden 16abc "${out[@]}"
refused "lab2 --hidden , is refused with a message" "hidden ',': an entry is empty" "$BIN/lab2" train --hidden , "${out[@]}"
refused "lab2 bench --algs , is refused with a message" "algs ',' names no algorithm" "$BIN/lab2" bench --algs , "${out[@]}"
not_san_quick && refused "lab2 bench --reps 5000 is refused (its help says 1..1000)" "5000 is outside the allowed range 0..1000" \
  "$BIN/lab2" bench --reps 5000 "${out[@]}"
refused "lab1 --seed 2^64 is refused" "18446744073709551616 is outside 0..18446744073709551615" \
  "$BIN/lab1" --seed 18446744073709551616 "${out[@]}"
(lab1_abs=$(cd "$BIN" && pwd)/lab1; cd "$tmp" && "$lab1_abs" --out --synthetic --tag t --quiet --iters 1 > "$tmp/log" 2>&1; echo $? > "$tmp/rc")
if [ "$(cat "$tmp/rc")" = 2 ] && grep -q "option --out needs a value, but the next argument is the option '--synthetic'" \
   "$tmp/log" && [ ! -e "$tmp/--synthetic" ]; then ok "lab1 --out --synthetic: the missing value is refused, no folder --synthetic"
else bad "lab1 --out --synthetic: the missing value is refused, no folder --synthetic (status $(cat "$tmp/rc"): $(head -c 300 "$tmp/log"))"; fi
rm -rf -- "$tmp/--synthetic"

# checkpoint options: a path is refused rather than cut, an interval without a directory rather than ignored
long=$tmp/$(printf 'd%.0s' $(seq 1 820))
refused "lab1 --checkpoint over 800 characters is refused, not cut" "path has 8.. characters, more than the 800" \
  "$BIN/lab1" --checkpoint "$long" "${out[@]}" --iters 1
not_san_quick && refused "lab1 --checkpoint-every without --checkpoint is refused" "checkpoint-every 5: without --checkpoint" \
  "$BIN/lab1" --checkpoint-every 5 "${out[@]}" --iters 1

# lab3 --alg nccl on the CPU is refused before the data is read (a corrupt
# data root would be reported first otherwise)
mkdir -p "$tmp/baddata/mnist" && echo junk > "$tmp/baddata/mnist/train-images-idx3-ubyte"
refused "lab3 --alg nccl on the CPU is refused before its set-up" "alg nccl runs on GPU memory" \
  env DDL_DATA="$tmp/baddata" "$BIN/lab3" run --sync allreduce --alg nccl --dataset mnist --out "$tmp/out" --quiet

# datasets a lab does not run on
not_san_quick && refused "lab2 --dataset cifar10 is refused" "lab2 runs on mnist or fashion-mnist" \
  "$BIN/lab2" train --dataset cifar10 "${out[@]}"
not_san_quick && refused "lab4 --dataset cifar10 is refused" "lab4 runs on mnist or fashion-mnist" \
  "$BIN/lab4" run --dataset cifar10 "${out[@]}"
refused "lab5 --dataset mnist is refused" "lab5 runs on cifar10" "$BIN/lab5" run --dataset mnist "${out[@]}"
refused "lab3 --dataset sdss is refused" "dataset 'sdss'" "$BIN/lab3" run --dataset sdss "${out[@]}"

# every binary goes through the device check
refused "lab1 --device tpu is refused" "device 'tpu'" "$BIN/lab1" --device tpu "${out[@]}"
full 0 && refused "lab1 DDL_DEVICE=cuda is refused clearly" "DEVICE=cuda" env DDL_DEVICE=cuda "$BIN/lab1" "${out[@]}" --iters 1
full 0 && refused "lab2 train DDL_DEVICE=cuda is refused clearly" "DEVICE=cuda" env DDL_DEVICE=cuda "$BIN/lab2" train "${out[@]}"
not_san_quick && refused "lab2 bench DDL_DEVICE=cuda is refused clearly" "DEVICE=cuda" env DDL_DEVICE=cuda "$BIN/lab2" bench "${out[@]}"
full 0 && refused "lab3 DDL_DEVICE=cuda is refused clearly" "DEVICE=cuda" env DDL_DEVICE=cuda "$BIN/lab3" run "${out[@]}" --iters 1
refused "lab4 (2 ranks) DDL_DEVICE=cuda is refused clearly" "DEVICE=cuda" \
  "${MPIRUN[@]}" -np 2 -x DDL_DEVICE=cuda "$BIN/lab4" run "${out[@]}"
full 0 && refused "lab5 DDL_DEVICE=cuda is refused clearly" "DEVICE=cuda" env DDL_DEVICE=cuda "$BIN/lab5" run "${out[@]}"
refused "lab5 --device cuda is refused clearly" "DEVICE=cuda" "$BIN/lab5" run --device cuda "${out[@]}"
full 0 && refused "lab6 DDL_DEVICE=cuda is refused clearly" "DEVICE=cuda" env DDL_DEVICE=cuda "$BIN/lab6" run "${out[@]}"

# output directories: refused before any work (lab1 says what it trains
# when it starts: that line must not appear)
touch "$tmp/file"
refused "lab1 --out under a regular file is refused" "out '$tmp/file/x': cannot" \
  "$BIN/lab1" --out "$tmp/file/x" --synthetic --iters 100000
grep -q "^lab1: cnn3" "$tmp/log" && bad "lab1 refuses --out before training" || ok "lab1 refuses --out before training"
not_san_quick && refused "lab3 --out under a regular file is refused" "cannot create or write" \
  "$BIN/lab3" run --out "$tmp/file/x" --synthetic --iters 1
refused "lab1 --checkpoint under a regular file is refused" "checkpoint $tmp/file/ck: cannot create it" \
  "$BIN/lab1" --checkpoint "$tmp/file/ck" --synthetic --iters 100000 --out "$tmp/out"
grep -q "^lab1: cnn3" "$tmp/log" && bad "lab1 refuses --checkpoint before training" ||
  ok "lab1 refuses --checkpoint before training"
refused "lab1 --figures '' is refused" "figures is empty" "$BIN/lab1" --figures "" "${out[@]}"
not_san_quick && refused "lab1 --figures under a regular file is refused" "figures '$tmp/file/f'" \
  "$BIN/lab1" --figures "$tmp/file/f" "${out[@]}"
not_san_quick && refused "lab1 --table --tex '' is refused" "tex is empty" "$BIN/lab1" --table --tex "" --out "$tmp/out"
refused "lab4 table --tex under a regular file is refused" "cannot create or write" \
  "$BIN/lab4" table --tex "$tmp/file/t.tex" --out "$tmp/out"

# a run that cannot fit in memory is refused before it allocates, with the
# number: an MLP of 4.3 billion weights (lab2 keeps 15 copies of them: the
# OOM killer ended such a run after 86 s), and, under an address-space
# limit, one of 74 million (ASan needs the address space: optimised only)
refused "lab2 train --hidden 65536 --h1 65536 is refused before it allocates, with the memory it needs" \
  "mlp at batch 256 needs at least [0-9.]* GiB on rank 0 (4347133962 parameters.*but a rank here has [0-9.]* GiB" \
  "$BIN/lab2" train --hidden 65536 --h1 65536 --synthetic --epochs 1 --out "$tmp/out"
[ "${SANITIZE:-0}" = 1 ] || refused "lab2 train past ulimit -v is refused, naming the limit" \
  "needs at least 5.3 GiB on rank 0 (73629706 parameters.*the address-space limit (ulimit -v 3.8 GiB" \
  bash -c 'ulimit -v 4000000 && exec "$@"' - "$BIN/lab2" train --hidden 8192 --h1 8192 --synthetic --epochs 1 --out "$tmp/out"

# what a run adjusts, it says: a global batch that the ranks do not divide,
# a step to trace past the run's end
"${MPIRUN[@]}" -np 2 "$BIN/lab3" run --synthetic --limit 64 --width 0.125 --no-eval --global-batch 3 --iters 3 \
  --trace-iter 999 --out "$tmp/adj" --tag t --quiet > "$tmp/log" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "warning: --global-batch 3 is not a multiple of 2 rank(s) x 1 micro-batch(es): this run's global batch is 2" "$tmp/log" &&
   grep -q "warning: --trace-iter 999: this run has 3 iteration(s); the timeline is of its last, iteration 2" "$tmp/log" &&
   grep -q "^# global_batch: 2$" "$tmp/adj/t-summary.csv"; then
  ok "lab3 says when it runs another global batch than --global-batch, or traces another step than --trace-iter"
else bad "lab3 says when it runs another global batch than --global-batch, or traces another step than --trace-iter (status $rc: $(grep -m3 'warn\|error' "$tmp/log"))"; fi

# a failed write is a failed run: a PNG (its path taken by a directory)
# and a results file (likewise)
tiny=(--synthetic --model cnn3 --width 0.25 --limit 64 --test-limit 32 --batch 16 --iters 2 --quiet --tag t)
mkdir -p "$tmp/fig/lab1-filters-t.png"
"$BIN/lab1" "${tiny[@]}" --out "$tmp/o1" --figures "$tmp/fig" > "$tmp/log" 2>&1
rc=$?
[ $rc -ne 0 ] && ok "lab1 exits non-zero when a PNG cannot be written" || bad "lab1 exits non-zero when a PNG cannot be written (status $rc)"
mkdir -p "$tmp/o2/t-summary.csv"
"$BIN/lab1" "${tiny[@]}" --out "$tmp/o2" --figures "$tmp/fig2" > "$tmp/log" 2>&1
rc=$?
[ $rc -ne 0 ] && ok "lab1 exits non-zero when a results file cannot be written" || bad "lab1 exits non-zero when a results file cannot be written (status $rc)"
"$BIN/lab1" "${tiny[@]}" --out "$tmp/o3" --figures "$tmp/fig3" --seed 18446744073709551615 > "$tmp/log" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -s "$tmp/o3/t-summary.csv" ] && [ -s "$tmp/fig3/lab1-filters-t.png" ] && ok "the same run with good paths succeeds" ||
  bad "the same run with good paths succeeds (status $rc: $(tail -2 "$tmp/log"))"
grep -q "^# seed: 18446744073709551615$" "$tmp/o3/t-summary.csv" && ok "--seed 2^64-1 (above 2^63-1) is accepted" ||
  bad "--seed 2^64-1 (above 2^63-1) is accepted: $(grep '^# seed' "$tmp/o3/t-summary.csv")"
exit $fail
