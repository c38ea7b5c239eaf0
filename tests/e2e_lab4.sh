#!/usr/bin/env bash
# e2e_lab4.sh - smoke run of lab4 on tiny settings (synthetic MNIST-shaped
# data, cnn3 at width 0.25, 2-4 iterations) at 2 and 3 ranks, both
# readings of the seed (group and lga), then the table and the figures.
# Checks what the lab promises: bytes equal the closed form (here recomputed
# from rounds, group sizes and the parameter count), k = P-1 behaves as the
# all-reduce, partial groups leave the workers apart, impossible flags are
# refused, every output is written and says synthetic/oversubscribed.
# Prints ok / not ok / skip lines.
# ddl-test-san-quick: lab4's main program, its group and pairwise averaging over a trained model and its table job (no other e2e script of the quick sanitizer pass runs lab4)
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "lab4 e2e"
e2e_mpi
e2e_need "$BIN/lab4"
tiny=(--synthetic --limit 96 --test-limit 60 --batch 8 --width 0.25 --iters-base 2 --iters-step 1 --quiet
      --out "$tmp/r")

"${MPIRUN[@]}" -np 2 "$BIN/lab4" run "${tiny[@]}" 2> "$tmp/np2.err"
check $? "run at 2 ranks" "$(tail -3 "$tmp/np2.err")"
"${MPIRUN[@]}" -np 3 "$BIN/lab4" run "${tiny[@]}" --scheme group,lga 2> "$tmp/np3.err"
check $? "run at 3 ranks, both schemes" "$(tail -3 "$tmp/np3.err")"

runs=$tmp/r/runs-np3.csv
check "$(is "$(col "$runs" label | tr '\n' ' ')" "all-reduce k=2 k=1 lga-k=3 lga-k=2 lga-k=1 ")" \
  "3 ranks: the seed's rows (all-reduce, k = 2, 1) and lga k = 3, 2, 1" "$(col "$runs" label | tr '\n' ' ')"
check "$(is "$(col "$runs" iterations | tr '\n' ' ')" "2 3 4 2 3 4 ")" "iterations grow as passes shrink (2 + (P - k))"
check "$(is "$(for f in "$tmp"/r/runs-np*.csv; do col "$f" bytes_match; done | sort -u)" yes)" \
  "every rank's bytes == its closed form, every configuration"
# Independent of the program's own closed form: over all ranks a round moves
# 2 (P - groups) n floats (group), an allreduce 2 (P - 1) n (lga: one per k rounds).
bad=0
for f in "$tmp"/r/runs-np*.csv; do
  paste -d, <(col "$f" scheme) <(col "$f" workers) <(col "$f" passes) <(col "$f" rounds) <(col "$f" params) \
            <(col "$f" bytes_sent) <(col "$f" bytes_recv) > "$tmp/b.csv"
  bad=$((bad + $(awk -F, '{
      P = $2; k = $3; rounds = $4; n = $5
      if ($1 == "lga") want = int(rounds / k) * 2 * (P - 1) * n * 4
      else { g = ($1 == "allreduce") ? 1 : int((P + k) / (k + 1)); want = rounds * 2 * (P - g) * n * 4 }
      if ($6 != want || $7 != want) { print > "/dev/stderr"; bad++ }
    } END {print bad + 0}' "$tmp/b.csv")))
done
check "$bad" "total bytes == rounds x 2(P - groups) x params x 4 (lga: per allreduce)" "$bad rows differ"
# k = P-1 is the all-reduce: same accuracy curve, no distance between workers.
iters=$tmp/r/iters-np3.csv
a=$(awk -F, '!/^#/ && $4 == "all-reduce" && $5 <= 2 {print $9}' "$iters" | tr '\n' ' ')
b=$(awk -F, '!/^#/ && $4 == "k=2" && $5 <= 2 {print $9}' "$iters" | tr '\n' ' ')
check "$(is "$a" "$b")" "k = P-1 follows the all-reduce's accuracy iteration for iteration" "'$a' vs '$b'"
z=$(awk -F, '!/^#/ && ($4 == "all-reduce" || $4 == "k=2" || $1 == "lga") && $12 != 0' "$iters" | wc -l)
check "$(is "$z" 0)" "full averages (all-reduce, k = P-1, lga) keep every worker identical: distance 0"
p=$(awk -F, '!/^#/ && $4 == "k=1" && $5 > 0 && $12 > 0' "$iters" | wc -l)
check "$(is "$p" 4)" "pairs at 3 workers (2+1) leave the workers apart after every iteration" "$p of 4"
rows=$(col "$iters" iteration | wc -l)
check "$(is "$rows" $(( (3 + 4 + 5) * 2 )))" "one row per iteration (and iteration 0) per configuration" "$rows rows"
nrank=$(col "$tmp/r/ranks-np3.csv" rank | wc -l)
check "$(is "$nrank" 18)" "per-rank bytes for every configuration (6 x 3 rows)" "$nrank"
cores=$(getconf _NPROCESSORS_ONLN)
want=no; [ 3 -gt "$cores" ] && want=yes
grep -q "^# oversubscribed: $want" "$runs" && grep -q '^# summary: synthetic MNIST, 3 ranks' "$runs"
check $? "outputs say synthetic data, 3 ranks, oversubscribed: $want"
ls "$tmp"/r/{runs,iters,ranks}-np{2,3}.json > /dev/null 2>&1
check $? "JSON twins written"

"${MPIRUN[@]}" -np 2 "$BIN/lab4" run "${tiny[@]}" --out "$tmp/bad" --passes 2 2> "$tmp/bad.err"
rc=$?
check $([ $rc = 2 ] && grep -q "passes 2 needs at least 3 workers" "$tmp/bad.err" && echo 0 || echo 1) \
  "passes >= P refused with a clear message" "rc $rc: $(head -2 "$tmp/bad.err")"
"$BIN/lab4" run "${tiny[@]}" --out "$tmp/bad" 2> "$tmp/one.err"
rc=$?
check $([ $rc = 2 ] && grep -q "at least 2 MPI ranks" "$tmp/one.err" && echo 0 || echo 1) \
  "a single rank refused with a clear message" "rc $rc: $(head -2 "$tmp/one.err")"
"$BIN/lab4" run --batch 0 > /dev/null 2> "$tmp/flag.err"
check $([ $? = 2 ] && grep -q -- "--batch" "$tmp/flag.err" && echo 0 || echo 1) "bad flag value refused, naming the flag"

"$BIN/lab4" table --out "$tmp/r" --tex "$tmp/lab4.tex" --quiet 2> "$tmp/table.err"
check $? "table job runs" "$(tail -3 "$tmp/table.err")"
grep -q 'tab:lab4}' "$tmp/lab4.tex" && grep -q 'tab:lab4-lga' "$tmp/lab4.tex" && grep -q '\\textbf{' "$tmp/lab4.tex"
check $? "lab4.tex: Table 2 and the lga table, minimum-traffic rows in bold"
grep -q 'synthetic MNIST, 2-3 ranks on' "$tmp/lab4.tex"
check $? "lab4.tex provenance names every rank count"
check "$(is "$(col "$tmp/r/table2.csv" workers | wc -l)" 5)" "table2.csv: 2 + 3 rows"
check "$(is "$(col "$tmp/r/fig3.csv" label | tr '\n' ' ')" "all-reduce k=1 k=1 ")" "fig3.csv: all-reduce and two pairwise bars"

if command -v gnuplot >/dev/null 2>&1; then
  BIN=$BIN RESULTS=$tmp/r FIGURES=$tmp/fig TABLES=$tmp/tab labs/lab4/figures.sh > "$tmp/fig.log" 2>&1
  check $? "figures.sh renders" "$(tail -3 "$tmp/fig.log")"
  n=$(ls "$tmp"/fig/lab4-*.png 2>/dev/null | wc -l)
  check "$(is "$n" 5)" "lab4 figures written (traffic, accuracy-bytes, consensus, 2 lga)" "$n PNG files"
else
  echo "skip - lab4 e2e: figures: gnuplot not installed"
fi
source tests/share_outputs.sh
share_outputs lab4 "$tmp/tab" "$tmp/fig" "$tmp/r"
exit $fail
