#!/usr/bin/env bash
# labs/lab5/figures.sh - lab5's table and figures from results/lab5:
#   report/tables/lab5.tex        Section 3.2 (closed form beside counted bytes)
#                                 and accuracies / rounds to the target
#   figures/lab5-fig5-fp32.png    the seed's Figure 5: accuracy per epoch, FP32
#   figures/lab5-fig6-fp16.png    the seed's Figure 6: the same in FP16
#   figures/lab5-lossscale.png    the FP16 runs' loss scale
# The table job also writes comm.csv, accuracy.csv, epochs.csv and
# lossscale.csv next to the runs. LAB5_TARGET sets the target accuracy.
set -euo pipefail
cd "$(dirname "$0")/../.."
source figures/lab_paths.sh lab5 'summary-*.csv'
target=${LAB5_TARGET:-$([ "${PROFILE:-quick}" = paper ] && echo 0.8 || echo 0.25)}
"$BIN/lab5" table --out "$IN" --tex "$TAB/lab5.tex" --target "$target"
has_rows() { [ -f "$1" ] && [ "$(grep -v '^#' "$1" | wc -l)" -gt 1 ]; }
made=()
for p in fp32 fp16; do
  n=$([ $p = fp32 ] && echo 5 || echo 6)
  grep -v '^#' "$IN/epochs.csv" | awk -F, -v p=$p '$3 == p {f = 1} END {exit !f}' || continue
  figures/make_figures.sh --plot labs/lab5/lab5-accuracy.gp "$IN/epochs.csv" "$FIG/lab5-fig$n-$p.png" "prec = '$p'"
  made+=("lab5-fig$n-$p.png")
done
if has_rows "$IN/lossscale.csv"; then
  figures/make_figures.sh --plot labs/lab5/lab5-lossscale.gp "$IN/lossscale.csv" "$FIG/lab5-lossscale.png"
  made+=(lab5-lossscale.png)
fi
index_figure "${made[@]}"; index_table "$TAB/lab5.tex"; index_write
echo "lab5: wrote ${made[*]} in $FIG, $TAB/lab5.tex and $IN/index.csv"
