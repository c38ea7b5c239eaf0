#!/usr/bin/env bash
# e2e_lab1.sh - lab1 end to end on tiny settings: every output is written,
# bad input is refused clearly, and a run is deterministic for its seed.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin ""
LAB1=$BIN/lab1

tiny=(--model cnn3 --dataset mnist --synthetic --iters 6 --batch 16 --width 0.25 --limit 512 --test-limit 256 --quiet)
"$LAB1" "${tiny[@]}" --out "$tmp/a" --figures "$tmp/fig" --tag t >"$tmp/log" 2>&1
expect "lab1 tiny run exits 0" [ $? -eq 0 ]
for f in t-iters.csv t-iters.json t-epochs.csv t-epochs.json t-summary.csv t-summary.json; do
  expect "lab1 writes $f" [ -s "$tmp/a/$f" ]
done
expect "lab1 writes a sample grid PNG" [ -s "$tmp/fig/lab1-samples-mnist-synthetic.png" ]
expect "lab1 writes a first-layer filter PNG" [ -s "$tmp/fig/lab1-filters-t.png" ]
expect "lab1 CSV says the data was synthetic" grep -q '^# data: synthetic' "$tmp/a/t-summary.csv"
expect "lab1 CSV records ranks and cores" grep -q '^# ranks: 1' "$tmp/a/t-summary.csv"
expect "lab1 iteration CSV has 6 rows" [ "$(grep -v '^#' "$tmp/a/t-iters.csv" | tail -n +2 | wc -l)" -eq 6 ]
"$LAB1" --table --out "$tmp/a" --tex "$tmp/t.tex" >/dev/null 2>&1
expect "lab1 --table writes a booktabs table" grep -q 'toprule' "$tmp/t.tex"
if command -v gnuplot >/dev/null 2>&1; then
  RESULTS=$tmp/a FIGURES=$tmp/fig TABLES=$tmp/tab BIN=$BIN labs/lab1/figures.sh >"$tmp/fig.log" 2>&1
  expect "lab1 figures.sh renders loss, accuracy and time figures and the table" \
    test -s "$tmp/fig/lab1-loss.png" -a -s "$tmp/fig/lab1-accuracy.png" -a -s "$tmp/fig/lab1-time.png" -a -s "$tmp/tab/lab1.tex"
  source tests/share_outputs.sh
  share_outputs lab1 "$tmp/tab" "$tmp/fig" "$tmp/a"
else
  echo "skip - lab1 figures.sh: gnuplot not installed (make deps)"
fi

# The outputs' conv line: resnet18 at its fast paths by default, and
# under --conv reference every convolution by im2col + GEMM, no activation
# fused (tests/test_conv_reference.c counts the kernels that ran).
r18=(--model resnet18 --dataset cifar10 --synthetic --iters 1 --batch 4 --width 0.0625 --limit 64 --test-limit 16 --quiet)
"$LAB1" "${r18[@]}" --out "$tmp/conv" --tag auto >/dev/null 2>&1
"$LAB1" "${r18[@]}" --out "$tmp/conv" --tag ref --conv reference >/dev/null 2>&1
expect "lab1 --conv reference: the conv line says every convolution ran by im2col + GEMM with no fused activation" \
  grep -qx '# conv: 20 convolutions: all 20 im2col + GEMM; no fused activation (--conv reference)' "$tmp/conv/ref-summary.csv"
expect "lab1 without --conv: the conv line names the fast paths and fused activations" \
  grep -Eq '^# conv: 20 convolutions: .*(Winograd|direct|pointwise).*activations fused.*\(--conv auto\)$' "$tmp/conv/auto-summary.csv"

# Same seed -> identical numbers (timings excluded).
"$LAB1" "${tiny[@]}" --out "$tmp/b" --figures "$tmp/fig" --tag t >/dev/null 2>&1
strip() { grep -v '^#' "$1" | cut -d, -f1-4; }
expect "lab1 is deterministic for a seed (loss and accuracy bit-identical)" \
  cmp -s <(strip "$tmp/a/t-iters.csv") <(strip "$tmp/b/t-iters.csv")
"$LAB1" "${tiny[@]}" --seed 2 --out "$tmp/c" --figures "$tmp/fig" --tag t >/dev/null 2>&1
expect "lab1 with another seed gives other numbers" \
  bash -c "! cmp -s <(grep -v '^#' $tmp/a/t-iters.csv | cut -d, -f3) <(grep -v '^#' $tmp/c/t-iters.csv | cut -d, -f3)"

# A picture that cannot be written fails the run (the sample grid's path
# is taken by a directory, so libpng's file cannot be renamed into place).
mkdir -p "$tmp/figbad/lab1-samples-mnist-synthetic.png"
"$LAB1" "${tiny[@]}" --out "$tmp/pngfail" --figures "$tmp/figbad" --tag t >"$tmp/png.log" 2>&1
rc=$?
expect "lab1 exits non-zero when a PNG cannot be written, naming it" \
  bash -c "[ $rc -ne 0 ] && grep -q 'cannot write .*lab1-samples-mnist-synthetic.png' '$tmp/png.log'"

# Bad input: clear message, non-zero status, nothing half-written.
expect_fail() { # name, expected-text, args...
  local name=$1 text=$2; shift 2
  "$LAB1" "$@" >"$tmp/out" 2>&1; local rc=$?
  if [ $rc -ne 0 ] && grep -qi -- "$text" "$tmp/out"; then ok "$name"; else bad "$name (rc $rc: $(head -c 300 "$tmp/out"))"; fi
}
expect_fail "lab1 rejects an unknown flag" "unknown option" --bogus 1
expect_fail "lab1 rejects an unknown --conv, listing the values" "unknown --conv 'fast': auto, reference" --conv fast
# cuDNN runs only on a GPU, in a build with it: refused elsewhere before any work, naming the values that run
expect_fail "lab1 refuses --conv cudnn on the CPU, naming the values that run" \
  "--conv cudnn: cuDNN runs on a GPU .*not on the CPU; the values that run here: auto, reference, im2col, winograd, winograd4, winofused, direct, pointwise$" \
  --conv cudnn --device cpu --synthetic --iters 1 --out "$tmp/cudnn"
if [ -x "$BIN/tests/test_cuda_kernels_emu" ]; then
  expect_fail "lab1 refuses --conv cudnn on the emulated GPU, saying why" \
    "--conv cudnn: the emulated GPU (--device cuda-emu) runs ddlab's own CUDA kernels, not cuDNN's" \
    --conv cudnn --device cuda-emu --synthetic --iters 1 --out "$tmp/cudnn"
fi
expect "lab1 --help lists --conv cudnn and says whether this build has cuDNN" \
  bash -c "'$LAB1' --help 2>&1 | tr -s ' \n' ' ' | grep -Eq 'cudnn \(cuDNN.s own algorithms, only on --device cuda in a build with cuDNN: this build has (cuDNN [0-9]|none)'"
expect "lab1 --conv cudnn wrote nothing" test ! -e "$tmp/cudnn"
expect_fail "lab1 rejects a non-numeric batch" "expects an integer" --batch lots
expect_fail "lab1 rejects batch 0" "outside the allowed range" --batch 0
expect_fail "lab1 rejects an unknown model" "unknown model" --model alexnet --synthetic --iters 1
expect_fail "lab1 rejects an unknown dataset" "dataset" --dataset imagenet --iters 1
if command -v mpirun >/dev/null; then
  mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader -np 2 "$LAB1" --iters 1 >"$tmp/out" 2>&1; rc=$?
  if [ $rc -ne 0 ] && grep -q "one process" "$tmp/out"; then ok "lab1 refuses to run on several ranks"; else bad "lab1 refuses to run on several ranks (rc $rc)"; fi
fi

# The batch it reports is the batch it ran: one larger than the training
# set is refused (as lab3 does), and images/s counts the images the timed
# iterations held: 40 examples in batches of 16 are steps of 16, 16, 8.
expect_fail "lab1 refuses --batch 64 over 8 training examples" "batch 64 is more than the 8 training examples" \
  --synthetic --batch 64 --limit 8 --iters 2 --quiet --out "$tmp/big" --figures "$tmp/fig"
"$LAB1" --model cnn3 --dataset mnist --synthetic --width 0.25 --limit 40 --test-limit 16 --batch 16 --iters 6 --quiet \
  --out "$tmp/part" --figures "$tmp/fig" --tag t >"$tmp/part.log" 2>&1
# iterations 1..5 (the first is left out of the mean) held 16+8+16+16+8 = 64 images
expect "lab1 images/s counts the images the timed iterations held (64 in 5 steps, not 5 x 16)" \
  awk -F, '/^#/ {next} FILENAME ~ /iters/ { if (h1++ && $1 >= 1) ms += $5; next }
           { if (h2++) ips = $12 } END { n = ips * ms / 1000; exit !(n > 63.4 && n < 64.6) }' \
  "$tmp/part/t-iters.csv" "$tmp/part/t-summary.csv"

# A training split and a test split of other shapes (28x28 and 14x14 MNIST
# images) are refused naming both files: evaluating the model on the
# second read past its end (heap-buffer-overflow under ASan).
mkdir -p "$tmp/mis/mnist"
mnist_idx "$tmp/mis/mnist" train 64 28 /dev/zero
mnist_idx "$tmp/mis/mnist" t10k 16 14 /dev/zero
DDL_DATA=$tmp/mis "$LAB1" --model cnn3 --width 0.25 --batch 16 --iters 2 --quiet --out "$tmp/mis/o" --figures "$tmp/fig" \
  >"$tmp/out" 2>&1
rc=$?
expect "lab1 refuses 28x28 training images with 14x14 test images, naming both files" \
  bash -c "[ $rc -ne 0 ] && grep -q 'training data 1x28x28.*train-images-idx3-ubyte.*test data 1x14x14.*t10k-images-idx3-ubyte' '$tmp/out' && ! grep -q 'ERROR: AddressSanitizer' '$tmp/out' && [ ! -e '$tmp/mis/o/t-summary.csv' ]"

# lab1 --table over a folder with an unreadable summary and one whose
# numbers are "nan": the table says how many runs it holds, the status is
# 1, and "nan" params are no "nank".
mkdir -p "$tmp/tbl/c-summary.csv"
cp "$tmp/a/t-summary.csv" "$tmp/tbl/a-summary.csv"
awk -F, -v OFS=, '/^#/ {print; next} !h {for (i = 1; i <= NF; i++) if ($i == "params") p = i; h = 1; print; next}
                  {$p = "nan"; print}' "$tmp/a/t-summary.csv" > "$tmp/tbl/b-summary.csv"
"$LAB1" --table --out "$tmp/tbl" --tex "$tmp/tbl.tex" >"$tmp/out" 2>&1
rc=$?
expect "lab1 --table with an unreadable summary exits 1 and counts the runs it holds (2, 1 left out)" \
  bash -c "[ $rc -eq 1 ] && grep -q '(2 runs; 1 unreadable summary left out)' '$tmp/out' && grep -q 'c-summary.csv' '$tmp/out'"
expect "lab1 --table renders a nan parameter count as --, never nank" \
  bash -c "grep -q toprule '$tmp/tbl.tex' && ! grep -qi 'nank' '$tmp/tbl.tex' && grep -q -- '& --' '$tmp/tbl.tex'"
exit $fail
