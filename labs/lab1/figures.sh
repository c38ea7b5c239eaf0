#!/usr/bin/env bash
# labs/lab1/figures.sh - render lab1's figures and table from results/lab1.
#   figures/lab1-loss.png      training loss vs iteration, every run
#   figures/lab1-accuracy.png  test accuracy vs epoch, every run
#   figures/lab1-time.png      time per iteration vs iteration (first one shows warm-up)
#   report/tables/lab1.tex     one row per run
# (sample grids and first-layer filters are written by bin/lab1 itself)
# Like the other labs': RESULTS (or $1), FIGURES, TABLES and BIN override
# the folders (tests/e2e_lab1.sh renders into a temporary one).
set -euo pipefail
cd "$(dirname "$0")/../.."
IN=${1:-${RESULTS:-results/lab1}}
FIG=${FIGURES:-figures}
TAB=${TABLES:-report/tables}
BIN=${BIN:-bin}
ls "$IN"/*-iters.csv >/dev/null 2>&1 || { echo "lab1: no results in $IN (run make lab1)" >&2; exit 1; }
mkdir -p "$FIG" "$TAB"
runs=$(ls "$IN"/*-iters.csv | sed 's|.*/||; s|-iters.csv$||' | tr '\n' ' ')
# Render to a temporary file and rename: a failed plot never leaves a
# truncated PNG behind for the report to choke on.
for what in loss accuracy time; do
  tmp="$FIG/.lab1-$what.$$.png"
  if gnuplot -e "dir='$IN'; runs='$runs'; what='$what'; out='$tmp'" labs/lab1/lab1.gp; then
    mv -f "$tmp" "$FIG/lab1-$what.png"
  else
    rm -f "$tmp"; echo "lab1: rendering $FIG/lab1-$what.png failed" >&2; exit 1
  fi
done
"$BIN/lab1" --table --out "$IN" --tex "$TAB/lab1.tex"
echo "lab1: $FIG/lab1-{loss,accuracy,time}.png, $TAB/lab1.tex"
