#!/usr/bin/env bash
# labs/lab3/figures.sh - lab3's figures and table from results/lab3:
#   figures/lab3-scaling-<sync>.png  time/iter vs ranks per strategy (seed Figs 2-4)
#   figures/lab3-scaling.png         every strategy on one plot
#   figures/lab3-buckets.png         iteration time vs DDP bucket cap, flat control
#   figures/lab3-overlap.png         fraction of communication hidden behind backward
#   figures/lab3-timeline-<run>.png  one step on every rank (Task 3 and the cap sweep)
#   report/tables/lab3.tex           the seed's Table 1 and the bucket sweep
# The timelines are also Chrome traces: results/lab3/<run>-trace.json
# (open in https://ui.perfetto.dev or chrome://tracing).
set -euo pipefail
cd "$(dirname "$0")/../.."
source figures/lab_paths.sh lab3 '*-summary.csv'
bin/lab3 table --out "$IN" --tex "$TAB/lab3.tex"
plot() { figures/make_figures.sh --plot "labs/lab3/lab3-$1.gp" "$2" "$FIG/lab3-$3.png"; }
made=()
syncs=()
# every strategy lab3 offers that synchronises ranks, in core/sync's
# table order; pytorch_ddp: make lab3 PEER=pytorch
lab_syncs=$(bin/lab3 --list-syncs)
for sync in $lab_syncs pytorch_ddp; do
  csv=$IN/scaling-$sync.csv
  [ -f "$csv" ] || continue
  syncs+=("$sync")
  gnuplot -e "csv='$csv'; sync='$sync'; out='$FIG/lab3-scaling-$sync.png'" labs/lab3/lab3-scaling.gp
  made+=("lab3-scaling-$sync.png")
done
if [ ${#syncs[@]} -gt 0 ]; then
  gnuplot -e "csv='$IN/scaling-${syncs[0]}.csv'; dir='$IN'; syncs='${syncs[*]}'; out='$FIG/lab3-scaling.png'" labs/lab3/lab3-scaling.gp
  made+=(lab3-scaling.png)
fi
if [ -f "$IN/buckets.csv" ]; then
  plot buckets "$IN/buckets.csv" buckets; plot overlap "$IN/buckets.csv" overlap
  made+=(lab3-buckets.png lab3-overlap.png)
fi
for trace in "$IN"/task3-trace.csv "$IN"/cap*-trace.csv "$IN"/scale-*-np*-trace.csv; do
  [ -f "$trace" ] || continue
  run=$(basename "$trace" -trace.csv)
  case $run in scale-*) grep -q '^# series: .*buckets' "$trace" || continue ;; esac
  gnuplot -e "csv='$trace'; run='$run'; out='$FIG/lab3-timeline-$run.png'" labs/lab3/lab3-timeline.gp
  made+=("lab3-timeline-$run.png")
done
index_figure "${made[@]}"; index_table "$TAB/lab3.tex"; index_write
echo "lab3: wrote ${made[*]} in $FIG, $TAB/lab3.tex and $IN/index.csv"
