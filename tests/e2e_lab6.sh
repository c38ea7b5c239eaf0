#!/usr/bin/env bash
# e2e_lab6.sh - `make lab6`'s whole flow (labs/lab6/run.sh) on tiny
# settings (LAB6_SMOKE=1: 3 steps of batch 16 per run on synthetic data, the
# quick widths), then checks what the lab promises: the 12 grid cells
# (3 workloads x horovod/ps x 1/2 workers) with training time, test
# accuracy, iterations/s and bytes per rank; bytes equal to the closed
# forms for the SDSS DNN (no batch-norm buffers); the seed's Table I in
# lab6.tex; both figures; the real/synthetic, profile and oversubscription
# labels; and clear refusals (unknown style, ps on one rank, DEVICE=cuda
# without usable CUDA kernels). Prints ok / not ok lines.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "lab6 e2e"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cell() { # csv style workers workload column
  awk -F, -v s="$2" -v w="$3" -v l="$4" -v c="$5" '/^#/ {next}
    !h {for (i = 1; i <= NF; i++) ix[$i] = i; h = 1; next}
    $ix["style"] == s && $ix["workers"] == w && $ix["workload"] == l {print $ix[c]}' "$1"
}
e2e_need "$BIN/lab6"
if ! command -v gnuplot >/dev/null 2>&1; then echo "skip - lab6 e2e: gnuplot not installed (make deps)"; exit 0; fi

R=$tmp/r
# LAB6_SEEDS=3: the quick profile's seed repeats (side by side on 2 cores)
LAB6_SMOKE=1 LAB6_SEEDS=3 DEVICE=cpu BIN=$BIN RESULTS=$R FIGURES=$tmp/fig TABLES=$tmp/tab labs/lab6/run.sh > "$tmp/run.log" 2>&1
check $? "labs/lab6/run.sh runs the whole grid" "$(tail -3 "$tmp/run.log")"
n=$(ls "$R"/seed-2/*-horovod-w1-seed2-summary.csv "$R"/seed-3/*-horovod-w1-seed3-summary.csv 2>/dev/null | wc -l)
check $(yes_no [ "$n" = 4 ]) "LAB6_SEEDS=3: both CNNs' 1-worker runs again with seeds 2 and 3, in seed-N folders" "$n of 4 summaries"
srcs=$(grep -h "^# data_source:" "$R"/seed-[23]/*-summary.csv "$R"/*-horovod-w1-summary.csv 2>/dev/null | sort -u | wc -l)
seeds=$(grep -h "^# data_seed:" "$R"/seed-[23]/*-summary.csv 2>/dev/null | sort -u)
check $(all '[ "$seeds" = "# data_seed: 1" ] && [ "$srcs" -ge 1 ] && [ "$srcs" -le 3 ]') \
  "the seed repeats keep the data of seed 1 (one data_source per workload)" "$seeds; $srcs sources"

g=$R/lab6.csv
rows=$(col "$g" style | wc -l)
check $(yes_no [ "$rows" = 12 ]) "lab6.csv has the 12 grid cells" "$rows rows"
cells=$(awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) ix[$i] = i; h = 1; next}
  {print $ix["workload"] "/" $ix["style"] "/" $ix["workers"]}' "$g" | sort | tr '\n' ' ')
want=""
for w in mobilenetv2-fashion resnet50-mnist sdss_dnn-sdss; do for s in horovod ps; do for n in 1 2; do want+="$w/$s/$n "; done; done; done
check $(yes_no [ "$cells" = "$want" ]) "every workload x style x workers cell is there once" "$cells"
bad=$(awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) ix[$i] = i; h = 1; next}
  !($ix["train_s"] > 0 && $ix["iters_per_s"] > 0 && $ix["test_accuracy_pct"] >= 0 && $ix["test_accuracy_pct"] <= 100 &&
    $ix["bytes_per_rank"] != "") {n++} END {print n + 0}' "$g")
check $(yes_no [ "$bad" = 0 ]) "every cell has training time, it/s, test accuracy and bytes per rank" "$bad bad rows"

# closed forms, SDSS DNN (N parameters, no buffers): horovod 1 worker sends
# nothing; 2 workers' ring: 2(p-1)/p x 4N = 4N per rank; ps 1 worker:
# worker and server send 4N each; ps 2 workers: 4N per worker, 2 x 4N from
# the server, mean 16N/3
N=$(cell "$g" horovod 1 sdss_dnn-sdss params)
for spec in "horovod 1 0" "horovod 2 4" "ps 1 4" "ps 2 16/3"; do
  set -- $spec
  got=$(cell "$g" "$1" "$2" sdss_dnn-sdss bytes_per_rank)
  want=$(awk -v n="$N" -v f="$3" 'BEGIN { split(f, a, "/"); k = a[1] / (a[2] ? a[2] : 1); printf "%.0f", k * n }')
  check $(yes_no [ "$got" = "$want" ]) "sdss_dnn $1 $2 worker(s): bytes per rank per step = $3 N (N = $N)" "got $got, want $want"
done

t=$tmp/tab/lab6.tex
grep -q 'label{tab:lab6}' "$t" && grep -q 'ResNet50+MNIST & MobileNetV2+FMNIST & DNN+SDSS' "$t" &&
  [ "$(grep -c 'Training time (s)' "$t")" = 4 ] && [ "$(grep -c 'Iterations per second' "$t")" = 4 ] &&
  [ "$(grep -c 'Testing accuracy' "$t")" = 4 ]
check $? "lab6.tex: the seed's Table I (3 workload columns, 4 style/worker groups of metrics)"
grep -q 'synthetic data' "$t" && grep -q 'smoke profile' "$t" && grep -q 'cpu' "$t"
check $? "lab6.tex says synthetic data, the profile and the device"

cores=$(getconf _NPROCESSORS_ONLN)
for spec in "horovod-w1 1" "ps-w2 3"; do
  set -- $spec
  want=no; [ "$2" -gt "$cores" ] && want=yes
  s=$R/sdss_dnn-sdss-$1-summary.csv
  grep -q "^# oversubscribed: $want" "$s" && grep -q "^# ranks: $2" "$s" && grep -q '^# data: synthetic' "$s" &&
    grep -q '^# profile: smoke' "$s" && grep -q '^# device: cpu' "$s"
  check $? "$1 ($2 ranks): outputs say ranks, oversubscribed: $want ($cores cores), synthetic, profile, device"
done
check $( { [ -s "$tmp/fig/lab6-iters.png" ] && [ -s "$tmp/fig/lab6-breakdown.png" ]; } && echo 0 || echo 1) "figures rendered (iterations/s, breakdown)"
check $( { [ "$(col "$R/iters.csv" workload | wc -l)" = 3 ] && [ -f "$R/breakdown-sdss_dnn-sdss.csv" ]; } && echo 0 || echo 1) \
  "figure data: iters.csv per workload, breakdown per workload"

"$BIN/lab6" run --style nonsense --out "$tmp/x" > /dev/null 2> "$tmp/bad.err"
st=$?
check $( { [ "$st" = 2 ] && grep -q "unknown --style 'nonsense'" "$tmp/bad.err"; } && echo 0 || echo 1) "an unknown style is refused clearly" "status $st"
"$BIN/lab6" run --style ps --out "$tmp/x" > /dev/null 2> "$tmp/bad2.err"
st=$?
check $( { [ "$st" = 2 ] && grep -q "server and workers" "$tmp/bad2.err"; } && echo 0 || echo 1) "ps on one rank is refused clearly" "status $st"
"$BIN/lab6" run --device cuda --synthetic --out "$tmp/x" > /dev/null 2> "$tmp/bad3.err"
st=$?
check $( { [ "$st" != 0 ] && grep -qi "cuda" "$tmp/bad3.err"; } && echo 0 || echo 1) "DEVICE=cuda fails clearly where CUDA cannot train" \
  "status $st: $(head -1 "$tmp/bad3.err")"
# --lr-scale linear (Horovod's recipe): at 2 workers with no warm-up it is
# --lr 0.1 from the first step, bit for bit; a warm-up changes the steps.
lr_run() { # tag options...
  local tag=$1; shift
  mpirun -np 2 --oversubscribe --mca pml ob1 --mca btl self,vader "$BIN/lab6" run --workload sdss_dnn-sdss \
    --synthetic --limit 512 --test-limit 128 --iters 6 --out "$tmp/lr" --tag "$tag" --quiet "$@" > "$tmp/lr-$tag.log" 2>&1
}
lr_run scaled --lr 0.05 --lr-scale linear --warmup 0 && lr_run doubled --lr 0.1 --lr-scale none &&
  lr_run ramped --lr 0.05 --lr-scale linear --warmup 4
check $? "lab6 trains with --lr-scale linear and none" "$(tail -n 2 "$tmp"/lr-*.log)"
loss() { col "$tmp/lr/$1-summary.csv" test_loss; }
same=1
[ -n "$(loss scaled)" ] && [ "$(loss scaled)" = "$(loss doubled)" ] && [ "$(loss ramped)" != "$(loss scaled)" ] && same=0
check $same "--lr-scale linear at 2 workers = --lr x 2 (no warm-up; a warm-up differs)" \
  "test loss scaled $(loss scaled), doubled $(loss doubled), ramped $(loss ramped)"
grep -q '^# optimizer: SGD lr 0.05 x 2 (workers x accumulate) = 0.1 (linear scaling, ramped up from 0.05 over the first 4 steps)' \
  "$tmp/lr/ramped-summary.csv"
check $? "the outputs say how the learning rate was scaled" "$(grep '^# optimizer' "$tmp/lr/ramped-summary.csv")"
source tests/share_outputs.sh
share_outputs lab6 "$tmp/tab" "$tmp/fig" "$R"
exit $fail
