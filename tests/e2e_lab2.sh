#!/usr/bin/env bash
# e2e_lab2.sh - smoke run of lab2 on tiny settings: bench (every algorithm,
# 4 B .. 4 KiB, 3 ranks), train (synthetic MNIST-shaped data, 3 ranks),
# table, figures. Checks what the lab promises: no wrong element, replicas
# bit-identical, every algorithm within rounding of MPI_Allreduce after one
# step, outputs present. Prints ok / not ok / skip lines.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
MPIRUN=(mpirun --mca pml ob1 --mca btl self,vader --bind-to none)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # condition-status name [why]
  if [ "$1" = 0 ]; then echo "ok - lab2 e2e: $2"; else echo "not ok - lab2 e2e: $2${3:+: $3}"; fail=1; fi
}
col() { # csv column-name: values of that column (data rows only)
  awk -F, -v c="$2" '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == c) k = i; h = 1; next} {print $k}' "$1"
}
if [ ! -x "$BIN/lab2" ]; then
  echo "not ok - lab2 e2e: $BIN/lab2 is not built"; exit 1
fi

"${MPIRUN[@]}" -np 3 "$BIN/lab2" bench --max-bytes 4096 --reps 5 --quiet --out "$tmp/r" > "$tmp/bench.txt" 2> "$tmp/bench.err"
check $? "bench at 3 ranks runs" "$(tail -3 "$tmp/bench.err")"
csv=$tmp/r/bench-np3.csv
rows=$(col "$csv" alg | wc -l)
check $([ "$rows" = $((7 * 11)) ] && echo 0 || echo 1) "bench CSV has 7 algorithms x 11 sizes" "$rows rows"
bad=$(col "$csv" wrong | awk '$1 != 0' | wc -l)
check $([ "$bad" = 0 ] && [ "$rows" -gt 0 ] && echo 0 || echo 1) "every algorithm at every size: 0 wrong elements" "$bad rows with wrong elements"
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
