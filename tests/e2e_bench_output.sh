#!/usr/bin/env bash
# e2e_bench_output.sh - the benchmarks share one output (tiny runs, about
# 5 s, no timing asserted): bench/allreduce, bench/ddp_bar,
# bench/train_step and bench/gemm_peak each print the nccl-tests-style table of
# core/results/text.c (a '# ddlab <program>: commit ...' line, the summary,
# a '#' row of heads, a '#' row of units, one aligned line per row) and
# write the same rows as CSV with the provenance block every lab writes
# (program, git, date, host, summary), whose numbers are the ones printed.
# The one-line results bench/*.sh read follow the table. bench/conv_algo
# keeps its line per shape and writes the same CSV. Prints ok / not ok.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "bench output"
e2e_mpi
export OMP_WAIT_POLICY=PASSIVE
unset DDL_DEVICE DDL_PROFILE
e2e_need "$BIN"/bench/{allreduce,ddp_bar,train_step,gemm_peak,conv_algo} "$BIN/lab2" # lab2: e2e_host_algs

# check PROGRAM STDOUT CSV HEADS COLUMNS ROWS: the text table and the CSV.
check_program() {
  local prog=$1 out=$2 csv=$3 heads=$4 columns=$5 rows=$6
  local text_rows csv_rows
  if grep -q "^# ddlab $prog: commit [^,]" "$out" && [ "$(grep -c '^#' "$out")" -ge 4 ]; then
    ok "$prog prints its provenance line (program, commit)"
  else bad "$prog: no '# ddlab $prog: commit' line: $(head -n 2 "$out")"; fi
  if grep -qE "^#\s+$heads\s*$" "$out" && grep -qE '^#\s+.*\([A-Za-z/]+\)' "$out"; then
    ok "$prog prints the table's heads and units"
  else bad "$prog: no heads line '$heads' with a units line: $(grep '^#' "$out" | head -n 5)"; fi
  text_rows=$(grep -c '^ ' "$out") # the table's rows; every other line starts with '#' or a word
  [ "$text_rows" -eq "$rows" ] && ok "$prog prints $rows rows" || bad "$prog printed $text_rows table rows, expected $rows"
  check_csv "$prog" "$csv" "$columns" "$rows"
}

# check_csv PROGRAM CSV COLUMNS ROWS: the CSV, its provenance, columns and rows.
check_csv() {
  local prog=$1 csv=$2 columns=$3 rows=$4 csv_rows
  if [ -f "$csv" ]; then
    local meta=0 k
    for k in program git date host ranks cores oversubscribed device summary; do grep -q "^# $k: ." "$csv" && meta=$((meta + 1)); done
    csv_rows=$(grep -v '^#' "$csv" | tail -n +2 | wc -l)
    if [ $meta -eq 9 ] && grep -q "^# program: $prog$" "$csv" && [ "$(grep -v '^#' "$csv" | head -n 1)" = "$columns" ] &&
       [ "$csv_rows" -eq "$rows" ]; then
      ok "$prog writes $(basename "$csv") with provenance, its columns and $rows rows"
    else bad "$prog: $csv: $meta of 9 provenance lines, header '$(grep -v '^#' "$csv" | head -n 1)', $csv_rows rows"; fi
  else bad "$prog wrote no $csv"; fi
}

# same_numbers OUT CSV HEAD COLUMN: the text's column under HEAD holds the CSV's COLUMN.
same_numbers() {
  local text csvcol
  text=$(awk -v h="$3" '/^#/ && !i { for (f = 2; f <= NF; f++) if ($f == h) i = f - 1 } /^ / && i { print $i }' "$1")
  csvcol=$(grep -v '^#' "$2" | awk -F, -v c="$4" 'NR == 1 { for (f = 1; f <= NF; f++) if ($f == c) i = f; next } { print $i }')
  if [ -n "$text" ] && [ "$text" = "$csvcol" ]; then ok "$(basename "$2"): the printed $3 column is the CSV's $4"
  else bad "$(basename "$2"): printed $3 '$(tr '\n' ' ' <<<"$text")' vs CSV $4 '$(tr '\n' ' ' <<<"$csvcol")'"; fi
}

# runs PROG TAG COMMAND...: COMMAND's output in $tmp/TAG.out and
# $tmp/TAG.err; a failure names its status and last lines.
runs() {
  local prog=$1 tag=$2 st
  shift 2
  "$@" > "$tmp/$tag.out" 2> "$tmp/$tag.err"
  st=$?
  [ $st -eq 0 ] || bad "$prog: status $st: $(tail -n 2 "$tmp/$tag.err")"
}

# --- allreduce: every host algorithm at --bytes (e2e_host_algs: the build's
# table), then mpi and recdoubling at 8 B
runs allreduce ar "${MPIRUN[@]}" -np 2 "$BIN/bench/allreduce" --bytes 64k --rounds 2 --out "$tmp/ar"
check_program allreduce "$tmp/ar.out" "$tmp/ar/allreduce-np2.csv" \
  'size\s+count\s+type\s+redop\s+alg\s+time\s+algbw\s+busbw\s+#wrong\s+busbw/mpi\s+time/mpi' \
  alg,bytes,count,type,redop,ranks,time_us,algbw_GBs,busbw_GBs,wrong,busbw_over_mpi,time_over_mpi \
  $(( $(e2e_host_algs) + 2 ))
same_numbers "$tmp/ar.out" "$tmp/ar/allreduce-np2.csv" time time_us
wrong=$(grep -v '^#' "$tmp/ar/allreduce-np2.csv" 2>/dev/null | awk -F, 'NR > 1 { s += $10 } END { print s + 0 }')
[ "$wrong" = 0 ] && ok "allreduce: every algorithm's result checked right (#wrong 0)" || bad "allreduce: $wrong wrong elements"
if grep -qE '^bench allreduce ring 65536 np2: busbw [0-9.]+ GB/s, mpi [0-9.]+ GB/s, ratio [0-9.]+$' "$tmp/ar.out" &&
   grep -q '^bench allreduce bar np2: ' "$tmp/ar.out"; then ok "allreduce still prints the lines bench/run_allreduce.sh reads"
else bad "allreduce: no 'bench allreduce ring' / bar line"; fi

# --- train_step: one row
runs train_step ts "$BIN/bench/train_step" --model cnn3 --width 0.25 --batch 4 --reps 2 --warmup 0 --out "$tmp/ts"
check_program train_step "$tmp/ts.out" "$tmp/ts/train_step-cnn3-w0.25-b4.csv" \
  'model\s+width\s+batch\s+dtype\s+step\s+fastest\s+work\s+rate\s+device' \
  model,width,batch,precision,median_ms,min_ms,gflop_per_step,gflops,params,layout,input,device 1
same_numbers "$tmp/ts.out" "$tmp/ts/train_step-cnn3-w0.25-b4.csv" step median_ms
if grep -qE '^train_step cnn3 w0.25 b4: median [0-9.]+ ms, .*params [0-9]+, layout [0-9a-f]{8}, input 1x28x28' "$tmp/ts.out"; then
  ok "train_step still prints the line bench/run.sh and gpu_check.sh read"
else bad "train_step: no 'train_step cnn3 w0.25 b4: median' line"; fi

# --- ddp_bar: three strategies
runs ddp_bar db env DDL_DATA=/nonexistent "${MPIRUN[@]}" -np 2 "$BIN/bench/ddp_bar" --width 0.0625 --batch 16 \
  --rounds 1 --block 2 --limit 64 --out "$tmp/db"
check_program ddp_bar "$tmp/db.out" "$tmp/db/ddp_bar-vgg11-w0.0625-b16-np2.csv" \
  'strategy\s+step\s+forward\s+backward\s+exposed sync\s+optimizer\s+comm\s+hidden\s+<= next' \
  strategy,median_ms,forward_ms,backward_ms,exposed_sync_ms,optimizer_ms,comm_ms,hidden_ms,ordered_rounds,rounds,kept_steps 3
same_numbers "$tmp/db.out" "$tmp/db/ddp_bar-vgg11-w0.0625-b16-np2.csv" step median_ms
if grep -q '^# data: synthetic' "$tmp/db/ddp_bar-vgg11-w0.0625-b16-np2.csv" 2>/dev/null; then
  ok "ddp_bar's CSV says its data was synthetic"
else bad "ddp_bar's CSV does not say 'data: synthetic'"; fi
# --- gemm_peak: one row per size (the emulated GPU: 512^3 only, a dry run)
runs gemm_peak gp "$BIN/bench/gemm_peak" --device cuda-emu --out "$tmp/gp"
n=$(grep -cE '^bench [sh]gemm 512\^3: [0-9.]+ GFLOP/s \(' "$tmp/gp.out")
[ "$n" -ge 1 ] && ok "gemm_peak still prints the lines labs/platforms/sim.sh and gpu_check.sh read" ||
  bad "gemm_peak: no 'bench sgemm 512^3' line: $(tail -n 2 "$tmp/gp.out")"
check_program gemm_peak "$tmp/gp.out" "$tmp/gp/gemm_peak-cuda-emu.csv" 'op\s+size\s+rate\s+library' op,n,gflops,library "$n"
same_numbers "$tmp/gp.out" "$tmp/gp/gemm_peak-cuda-emu.csv" rate gflops

# --- conv_algo: one row per path of one tiny 3x3 shape
runs conv_algo ca "$BIN/bench/conv_algo" --batch 1 --reps 1 --out "$tmp/ca" 8 8 8
grep -q '^conv_algo 3x3 C8 ' "$tmp/ca.out" && ok "conv_algo still prints its line per shape" ||
  bad "conv_algo: no 'conv_algo 3x3 C8' line: $(tail -n 2 "$tmp/ca.out")"
check_csv conv_algo "$tmp/ca/conv_algo-3x3.csv" kernel,stride,C,K,hw,batch,alg,fwd_ms,bwd_ms,step_over_im2col 5
exit $fail
