#!/usr/bin/env bash
# e2e_lab5.sh - smoke run of lab5 on tiny settings (synthetic CIFAR-shaped
# data, ResNet-18 at width 0.125, 128 training / 64 test images, 2 epochs):
# the seed's four schemes in FP32 and FP16 with the cloud + 2 users (3
# ranks), then the table and the figures. Checks what the lab promises:
# every output is written, counted payload bytes equal the closed form
# (recomputed here from rounds and parameters) and FP16 halves them, the
# outputs say synthetic data, oversubscription and FP16 emulation, and
# impossible settings are refused with a message. Prints ok / not ok / skip.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "lab5 e2e"
e2e_mpi
export OMP_WAIT_POLICY=PASSIVE
e2e_need "$BIN/lab5"
tiny=(--synthetic --width 0.125 --limit 128 --test-limit 64 --epochs 2 --eval-batch 64 --scale-window 2 --quiet
      --out "$tmp/r")
ok=0
for prec in fp32 fp16; do
  "${MPIRUN[@]}" -np 1 "$BIN/lab5" run "${tiny[@]}" --scheme csgd --batch 64 --precision $prec 2>> "$tmp/run.err" || ok=1
  "${MPIRUN[@]}" -np 3 "$BIN/lab5" run "${tiny[@]}" --scheme dsgd --batch 32 --precision $prec 2>> "$tmp/run.err" || ok=1
  "${MPIRUN[@]}" -np 3 "$BIN/lab5" run "${tiny[@]}" --scheme dsgd --batch 128 --precision $prec 2>> "$tmp/run.err" || ok=1
  "${MPIRUN[@]}" -np 3 "$BIN/lab5" run "${tiny[@]}" --scheme fedavg --batch 32 --precision $prec 2>> "$tmp/run.err" || ok=1
done
check $ok "8 runs (C_SGD, D_SGD x2, FL; FP32 and FP16) at 1 and 3 ranks" "$(tail -3 "$tmp/run.err")"
n=$(ls "$tmp"/r/summary-*.csv "$tmp"/r/epochs-*.csv 2>/dev/null | wc -l)
check "$(is "$n" 16)" "a summary and an epochs CSV per run" "$n files"
n=$(ls "$tmp"/r/lossscale-*_FP16.csv 2>/dev/null | wc -l)
check "$(is "$n" 4)" "a loss-scale trace per FP16 run" "$n files"
check "$(is "$(for f in "$tmp"/r/summary-*.csv; do col "$f" bytes_match; done | sort -u)" yes)" \
  "every run: counted payload == closed form (program's own check)"
# Independent of the program: payload per direction = rounds x users x params x (4 or 2).
bad=0
for f in "$tmp"/r/summary-*.csv; do
  paste -d, <(col "$f" precision) <(col "$f" users) <(col "$f" rounds) <(col "$f" params) \
            <(col "$f" payload_up_bytes) <(col "$f" payload_down_bytes) <(col "$f" scheme) > "$tmp/b.csv"
  bad=$((bad + $(awk -F, '{ s = ($1 == "fp16") ? 2 : 4; want = $3 * $2 * $4 * s
      if ($7 == "csgd") want = 0
      if ($5 != want || $6 != want) { print > "/dev/stderr"; bad++ } } END {print bad + 0}' "$tmp/b.csv")))
done
check "$bad" "payload bytes == rounds x users x params x 4 (FP32) or x 2 (FP16)" "$bad runs differ"
b32=$(col "$tmp/r/summary-D_SGD_BS32_FP32.csv" bytes_per_round)
b16=$(col "$tmp/r/summary-D_SGD_BS32_FP16.csv" bytes_per_round)
check "$([ -n "$b32" ] && [ "$b32" = $((2 * b16)) ] && echo 0 || echo 1)" "FP16 halves the bytes per round" "$b32 vs $b16"
r=$(col "$tmp/r/summary-D_SGD_BS32_FP32.csv" rounds)
check "$(is "$r" 8)" "D-SGD global batch 32 over 2 users: 128/32 = 4 rounds per epoch, 8 in 2 epochs" "$r"
r=$(col "$tmp/r/summary-FL_BS32_FP32.csv" rounds)
check "$(is "$r" 2)" "FedAvg E=1: one round per epoch" "$r"
rows=$(col "$tmp/r/epochs-FL_BS32_FP16.csv" epoch | tr '\n' ' ')
check "$(is "$rows" "0 1 2 ")" "an accuracy row per epoch (and epoch 0)" "$rows"
f=$tmp/r/summary-D_SGD_BS32_FP16.csv
cores=$(getconf _NPROCESSORS_ONLN)
want=no; [ 3 -gt "$cores" ] && want=yes
grep -q "^# summary: synthetic CIFAR-10, 3 ranks on $cores cores.*FP16 emulated by rounding on CPU" "$f" &&
  grep -q "^# oversubscribed: $want" "$f" && grep -q '^# roles: rank 0 the cloud' "$f"
check $? "outputs say synthetic data, ranks, oversubscription, the cloud's role and FP16 emulation"
ls "$tmp"/r/{summary,epochs}-C_SGD_BS64_FP16.json > /dev/null 2>&1
check $? "JSON twins written"

"$BIN/lab5" table --out "$tmp/r" --tex "$tmp/lab5.tex" --target 0.2 --quiet 2> "$tmp/table.err"
check $? "table job runs" "$(tail -3 "$tmp/table.err")"
grep -q 'tab:lab5-comm' "$tmp/lab5.tex" && grep -q 'tab:lab5-accuracy' "$tmp/lab5.tex" && grep -q 'synthetic CIFAR-10' "$tmp/lab5.tex"
check $? "lab5.tex: the Section 3.2 table and the accuracy table, with provenance"
check "$(is "$(col "$tmp/r/comm.csv" label | tr '\n' ' ')" \
  "C_SGD_BS64_FP32 D_SGD_BS32_FP32 D_SGD_BS128_FP32 FL_BS32_FP32 C_SGD_BS64_FP16 D_SGD_BS32_FP16 D_SGD_BS128_FP16 FL_BS32_FP16 ")" \
  "comm.csv: the seed's order, FP32 then FP16" "$(col "$tmp/r/comm.csv" label | tr '\n' ' ')"
check "$(is "$(col "$tmp/r/accuracy.csv" label | wc -l)" 8)" "accuracy.csv: one row per run"
check "$(is "$(col "$tmp/r/epochs.csv" label | wc -l)" 24)" "epochs.csv: 8 runs x 3 rows"

# The exercises' knobs: non-IID users and E local epochs per round.
"${MPIRUN[@]}" -np 3 "$BIN/lab5" run "${tiny[@]}" --out "$tmp/x" --scheme fedavg --batch 32 --local-epochs 2 \
  --shards dirichlet --alpha 0.1 2> "$tmp/x.err"
rc=$?
f=$tmp/x/epochs-FL_BS32_FP32.csv
check "$([ $rc = 0 ] && [ "$(col "$f" epoch | tr '\n' ' ')" = "0 2 " ] && [ "$(col "$f" rounds | tr '\n' ' ')" = "0 1 " ] &&
        grep -q '^# roles: .*dirichlet shards' "$f" && grep -q '^# alpha: 0.1' "$f" && echo 0 || echo 1)" \
  "fedavg E=2 on Dirichlet(0.1) shards: one round per two epochs, outputs say so" "rc $rc $(tail -2 "$tmp/x.err")"
"${MPIRUN[@]}" -np 3 "$BIN/lab5" run "${tiny[@]}" --out "$tmp/x" --scheme dsgd --batch 32 --shards sorted 2> "$tmp/y.err"
check $? "dsgd on label-sorted shards runs" "$(tail -2 "$tmp/y.err")"

"${MPIRUN[@]}" -np 2 "$BIN/lab5" run "${tiny[@]}" --scheme csgd 2> "$tmp/bad1.err" > /dev/null
rc=$?
check $([ $rc = 2 ] && grep -q "csgd is one process" "$tmp/bad1.err" && echo 0 || echo 1) \
  "csgd on 2 ranks refused with a clear message" "rc $rc: $(head -2 "$tmp/bad1.err")"
"$BIN/lab5" run "${tiny[@]}" --scheme fedavg 2> "$tmp/bad2.err" > /dev/null
rc=$?
check $([ $rc = 2 ] && grep -q "needs a cloud and users" "$tmp/bad2.err" && echo 0 || echo 1) \
  "fedavg on 1 rank refused with a clear message" "rc $rc: $(head -2 "$tmp/bad2.err")"
"${MPIRUN[@]}" -np 3 "$BIN/lab5" run "${tiny[@]}" --scheme dsgd --batch 33 2> "$tmp/bad3.err" > /dev/null
rc=$?
check $([ $rc = 2 ] && grep -q "not a multiple of the 2 users" "$tmp/bad3.err" && echo 0 || echo 1) \
  "dsgd global batch not divisible by the users refused" "rc $rc: $(head -2 "$tmp/bad3.err")"

if command -v gnuplot >/dev/null 2>&1; then
  BIN=$BIN RESULTS=$tmp/r FIGURES=$tmp/fig TABLES=$tmp/tab labs/lab5/figures.sh > "$tmp/fig.log" 2>&1
  check $? "figures.sh renders" "$(tail -3 "$tmp/fig.log")"
  n=$(ls "$tmp"/fig/lab5-fig5-fp32.png "$tmp"/fig/lab5-fig6-fp16.png "$tmp"/fig/lab5-lossscale.png 2>/dev/null | wc -l)
  check "$(is "$n" 3)" "Figure 5 (FP32), Figure 6 (FP16) and the loss-scale figure written" "$n PNG files"
  [ -s "$tmp/tab/lab5.tex" ]
  check $? "figures.sh writes report/tables/lab5.tex"
else
  echo "skip - lab5 e2e: figures: gnuplot not installed"
fi
# A run's epochs beside another run's summary (core/results/run.c): the
# table job refuses the mix, naming both files.
mkdir -p "$tmp/mix" && cp "$tmp"/r/summary-*.csv "$tmp"/r/epochs-*.csv "$tmp/mix/"
one=$(ls "$tmp"/mix/epochs-*.csv | head -1)
sed -i 's/^# run_id: .*/# run_id: another-run/' "$one"
"$BIN/lab5" table --out "$tmp/mix" --tex "$tmp/mix.tex" > /dev/null 2> "$tmp/mix.err"
rc=$?
check $([ $rc != 0 ] && grep -q "come from different runs" "$tmp/mix.err" && grep -q "$(basename "$one" .csv)" "$tmp/mix.err" &&
  echo 0 || echo 1) "the table job refuses a summary and epochs of different runs" "rc $rc: $(head -2 "$tmp/mix.err")"
source tests/share_outputs.sh
share_outputs lab5 "$tmp/tab" "$tmp/fig" "$tmp/r"
exit $fail
