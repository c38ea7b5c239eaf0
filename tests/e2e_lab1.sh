#!/usr/bin/env bash
# e2e_lab1.sh - lab1 end to end on tiny settings: every output is written,
# bad input is refused clearly, and a run is deterministic for its seed.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
LAB1=$BIN/lab1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }

tiny=(--model cnn3 --dataset mnist --synthetic --iters 6 --batch 16 --width 0.25 --limit 512 --test-limit 256 --quiet)
"$LAB1" "${tiny[@]}" --out "$tmp/a" --figures "$tmp/fig" --tag t >"$tmp/log" 2>&1
check "lab1 tiny run exits 0" [ $? -eq 0 ]
for f in t-iters.csv t-iters.json t-epochs.csv t-epochs.json t-summary.csv t-summary.json; do
  check "lab1 writes $f" [ -s "$tmp/a/$f" ]
done
check "lab1 writes a sample grid PNG" [ -s "$tmp/fig/lab1-samples-mnist-synthetic.png" ]
check "lab1 writes a first-layer filter PNG" [ -s "$tmp/fig/lab1-filters-t.png" ]
check "lab1 CSV says the data was synthetic" grep -q '^# data: synthetic' "$tmp/a/t-summary.csv"
check "lab1 CSV records ranks and cores" grep -q '^# ranks: 1' "$tmp/a/t-summary.csv"
check "lab1 iteration CSV has 6 rows" [ "$(grep -v '^#' "$tmp/a/t-iters.csv" | tail -n +2 | wc -l)" -eq 6 ]
"$LAB1" --table --out "$tmp/a" --tex "$tmp/t.tex" >/dev/null 2>&1
check "lab1 --table writes a booktabs table" grep -q 'toprule' "$tmp/t.tex"
if command -v gnuplot >/dev/null 2>&1; then
  RESULTS=$tmp/a FIGURES=$tmp/fig TABLES=$tmp/tab BIN=$BIN labs/lab1/figures.sh >"$tmp/fig.log" 2>&1
  check "lab1 figures.sh renders loss, accuracy and time figures and the table" \
    test -s "$tmp/fig/lab1-loss.png" -a -s "$tmp/fig/lab1-accuracy.png" -a -s "$tmp/fig/lab1-time.png" -a -s "$tmp/tab/lab1.tex"
  source tests/share_outputs.sh
  share_outputs lab1 "$tmp/tab" "$tmp/fig" "$tmp/a"
else
  echo "skip - lab1 figures.sh: gnuplot not installed (make deps)"
fi

# Same seed -> identical numbers (timings excluded).
"$LAB1" "${tiny[@]}" --out "$tmp/b" --figures "$tmp/fig" --tag t >/dev/null 2>&1
strip() { grep -v '^#' "$1" | cut -d, -f1-4; }
check "lab1 is deterministic for a seed (loss and accuracy bit-identical)" \
  cmp -s <(strip "$tmp/a/t-iters.csv") <(strip "$tmp/b/t-iters.csv")
"$LAB1" "${tiny[@]}" --seed 2 --out "$tmp/c" --figures "$tmp/fig" --tag t >/dev/null 2>&1
check "lab1 with another seed gives other numbers" \
  bash -c "! cmp -s <(grep -v '^#' $tmp/a/t-iters.csv | cut -d, -f3) <(grep -v '^#' $tmp/c/t-iters.csv | cut -d, -f3)"

# A picture that cannot be written fails the run (the sample grid's path
# is taken by a directory, so libpng's file cannot be renamed into place).
mkdir -p "$tmp/figbad/lab1-samples-mnist-synthetic.png"
"$LAB1" "${tiny[@]}" --out "$tmp/pngfail" --figures "$tmp/figbad" --tag t >"$tmp/png.log" 2>&1
rc=$?
check "lab1 exits non-zero when a PNG cannot be written, naming it" \
  bash -c "[ $rc -ne 0 ] && grep -q 'cannot write .*lab1-samples-mnist-synthetic.png' '$tmp/png.log'"

# Bad input: clear message, non-zero status, nothing half-written.
expect_fail() { # name, expected-text, args...
  local name=$1 text=$2; shift 2
  "$LAB1" "$@" >"$tmp/out" 2>&1; local rc=$?
  if [ $rc -ne 0 ] && grep -qi -- "$text" "$tmp/out"; then ok "$name"; else bad "$name (rc $rc: $(head -c 300 "$tmp/out"))"; fi
}
expect_fail "lab1 rejects an unknown flag" "unknown option" --bogus 1
expect_fail "lab1 rejects a non-numeric batch" "expects an integer" --batch lots
expect_fail "lab1 rejects batch 0" "outside the allowed range" --batch 0
expect_fail "lab1 rejects an unknown model" "unknown model" --model alexnet --synthetic --iters 1
expect_fail "lab1 rejects an unknown dataset" "dataset" --dataset imagenet --iters 1
if command -v mpirun >/dev/null; then
  mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2 "$LAB1" --iters 1 >"$tmp/out" 2>&1; rc=$?
  if [ $rc -ne 0 ] && grep -q "one process" "$tmp/out"; then ok "lab1 refuses to run on several ranks"; else bad "lab1 refuses to run on several ranks (rc $rc)"; fi
fi
