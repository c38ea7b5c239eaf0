#!/usr/bin/env bash
# labs/lab1/figures.sh - render lab1's figures and table from results/lab1.
#   figures/lab1-loss.png      training loss vs iteration, every run
#   figures/lab1-accuracy.png  test accuracy vs epoch, every run
#   figures/lab1-time.png      time per iteration vs iteration (first one shows warm-up)
#   figures/lab1-samples-*.png, lab1-filters-*.png
#                              the sample grids and first-layer filters bin/lab1
#                              drew beside its CSVs, copied here
#   report/tables/lab1.tex     one row per run
#   results/lab1/index.csv     the figures and the table above (the report's list)
# Like the other labs': RESULTS (or $1), FIGURES, TABLES and BIN override
# the folders (tests/e2e_lab1.sh renders into a temporary one).
set -euo pipefail
cd "$(dirname "$0")/../.."
RESULTS=${1:-${RESULTS:-results/lab1}}
source figures/lab_paths.sh lab1 '*-iters.csv'
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
index_figure lab1-loss lab1-accuracy lab1-time
# bin/lab1's own pictures (libpng) lie beside its CSVs unless a run was
# given --figures: the ones of these runs join the others.
for png in "$IN"/lab1-samples-*.png "$IN"/lab1-filters-*.png; do
  [ -f "$png" ] || continue
  name=$(basename "$png")
  if [ "$(cd "$(dirname "$png")" && pwd)" != "$(cd "$FIG" && pwd)" ]; then
    cp -f "$png" "$FIG/.$name.$$" && mv -f "$FIG/.$name.$$" "$FIG/$name"
  fi
  index_figure "$name"
done
"$BIN/lab1" --table --out "$IN" --tex "$TAB/lab1.tex"
index_table "$TAB/lab1.tex"
index_write
echo "lab1: $FIG/lab1-{loss,accuracy,time}.png and the runs' pictures, $TAB/lab1.tex, $IN/index.csv"
