#!/usr/bin/env bash
# labs/lab6/figures.sh - lab6's table and figures from results/lab6:
#   report/tables/lab6.tex       the seed's Table I layout (+ results/lab6/lab6.csv)
#   figures/lab6-iters.png       iterations/s per workload, style and workers
#   figures/lab6-breakdown.png   a step's time: compute vs communication
set -euo pipefail
cd "$(dirname "$0")/../.."
source figures/lab_paths.sh lab6 '*-summary.csv'
"$BIN/lab6" table --out "$IN" --tex "$TAB/lab6.tex" --quiet
figures/make_figures.sh --plot labs/lab6/lab6-iters.gp "$IN/iters.csv" "$FIG/lab6-iters.png"
workloads=()
for w in resnet50-mnist mobilenetv2-fashion sdss_dnn-sdss; do
  [ -f "$IN/breakdown-$w.csv" ] && workloads+=("$w")
done
gnuplot -e "dir='$IN'; csv='$IN/breakdown-${workloads[0]}.csv'; workloads='${workloads[*]}'; out='$FIG/lab6-breakdown.png.tmp'" \
  labs/lab6/lab6-breakdown.gp
mv "$FIG/lab6-breakdown.png.tmp" "$FIG/lab6-breakdown.png"
index_figure lab6-breakdown lab6-iters; index_table "$TAB/lab6.tex"; index_write
echo "lab6: wrote lab6-iters.png lab6-breakdown.png in $FIG, $TAB/lab6.tex, $IN/lab6.csv and $IN/index.csv"
