#!/usr/bin/env bash
# e2e_lab2.sh - smoke run of lab2 on tiny settings: bench (every algorithm,
# 4 B .. 4 KiB, 3 ranks), train (synthetic MNIST-shaped data, 3 ranks),
# table, figures. Checks what the lab promises: no wrong element, replicas
# bit-identical, every algorithm within rounding of MPI_Allreduce after one
# step, outputs present. Prints ok / not ok / skip lines.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "lab2 e2e"
e2e_mpi
e2e_need "$BIN/lab2"

"${MPIRUN[@]}" -np 3 "$BIN/lab2" bench --max-bytes 4096 --reps 5 --quiet --out "$tmp/r" > "$tmp/bench.txt" 2> "$tmp/bench.err"
check $? "bench at 3 ranks runs" "$(tail -3 "$tmp/bench.err")"
csv=$tmp/r/bench-np3.csv
e2e_lab2_bench "$csv" "bench"
grep -q '# Size .*Avg Latency(us)' "$tmp/bench.txt"
check $? "OSU-style text on stdout"
cores=$(getconf _NPROCESSORS_ONLN)
want=no; [ 3 -gt "$cores" ] && want=yes
grep -q "^# oversubscribed: $want" "$csv"
check $? "bench CSV says whether it ran oversubscribed ($want: 3 ranks on $cores cores)"

"${MPIRUN[@]}" -np 3 "$BIN/lab2" train --synthetic --limit 600 --test-limit 200 --hidden 8,16 --quiet \
  --out "$tmp/r" 2> "$tmp/train.err"
check $? "train at 3 ranks runs" "$(tail -3 "$tmp/train.err")"
csv=$tmp/r/train-np3.csv
check $([ "$(col "$csv" replicas_identical | sort -u)" = yes ] && echo 0 || echo 1) "all replicas bit-identical for every algorithm"
big=$(col "$csv" maxdiff_first_step | awk '$1 > 1e-6 || $1 != $1' | wc -l)
check $([ "$big" = 0 ] && echo 0 || echo 1) "after one step every algorithm is within 1e-6 of MPI_Allreduce's weights" "$big rows"
far=$(col "$csv" accuracy_minus_reference | awk '$1 > 0.01 || $1 < -0.01' | wc -l)
check $([ "$far" = 0 ] && echo 0 || echo 1) "test accuracy within 1 point of MPI_Allreduce's for every algorithm" "$far rows"

"$BIN/lab2" table --out "$tmp/r" --tex "$tmp/lab2.tex" --quiet 2> "$tmp/table.err"
check $? "table job runs" "$(tail -3 "$tmp/table.err")"
grep -q 'tab:lab2-crossover' "$tmp/lab2.tex" && grep -q 'tab:lab2-busbw' "$tmp/lab2.tex" && grep -q 'tab:lab2-train' "$tmp/lab2.tex"
check $? "lab2.tex has the crossover, busbw and training tables"

if command -v gnuplot >/dev/null 2>&1; then
  RESULTS=$tmp/r FIGURES=$tmp/fig TABLES=$tmp/tab labs/lab2/figures.sh > "$tmp/fig.log" 2>&1
  check $? "figures.sh renders" "$(tail -3 "$tmp/fig.log")"
  n=$(ls "$tmp"/fig/lab2-*.png 2>/dev/null | wc -l)
  check $([ "$n" -ge 5 ] && echo 0 || echo 1) "lab2 figures written" "$n PNG files"
else
  echo "skip - lab2 e2e: figures: gnuplot not installed"
fi
# Sizes: k/M/G are x1024 (core/util/cli.c OPT_SIZE); a sweep that cannot be run
# is refused with a message, not a silent exit 2.
"$BIN/lab2" bench --sizes 64k,1M --algs mpi --reps 5 --no-calibrate --quiet --out "$tmp/sz" > /dev/null 2> "$tmp/sz.err"
got=$(col "$tmp/sz/bench-np1.csv" bytes 2>/dev/null | tr '\n' ' ')
check $([ "$got" = "65536 1048576 " ] && echo 0 || echo 1) "--sizes 64k,1M times 65536 and 1048576 bytes" "got '$got' $(tail -1 "$tmp/sz.err")"
"$BIN/lab2" bench --min-bytes 1000 --max-bytes 10 --no-calibrate --out "$tmp/sz2" > /dev/null 2> "$tmp/minmax.err"
st=$?
check $([ "$st" = 2 ] && grep -q -- '--min-bytes 1000 is larger than --max-bytes 10' "$tmp/minmax.err" && echo 0 || echo 1) \
  "--min-bytes 1000 --max-bytes 10 is refused with a message" "status $st: $(head -1 "$tmp/minmax.err")"
"$BIN/lab2" bench --max-bytes 64x --out "$tmp/sz2" > /dev/null 2> "$tmp/junk.err"
st=$?
check $([ "$st" = 2 ] && grep -q -- "--max-bytes expects a size" "$tmp/junk.err" && echo 0 || echo 1) \
  "--max-bytes 64x is refused with a message" "status $st: $(head -1 "$tmp/junk.err")"
source tests/share_outputs.sh
share_outputs lab2 "$tmp/tab" "$tmp/fig" "$tmp/r"
exit $fail
