#!/usr/bin/env bash
# labs/lab4/figures.sh - lab4's figures and table from results/lab4:
#   report/tables/lab4.tex          the seed's Table 2 (minimum-traffic rows in
#                                   bold), and the lga table when lga was run
#   figures/lab4-traffic.png        the seed's Figure 3 (5 workers: all-reduce,
#                                   pairwise at 12 and 18 iterations)
#   figures/lab4-accuracy-bytes.png accuracy vs cumulative traffic, per worker count
#   figures/lab4-consensus.png      consensus distance vs iteration, per worker count
#   figures/lab4-lga-*.png          the same two for --scheme lga runs, when any
# The table job also writes table2.csv, fig3.csv and iters.csv next to the runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
source figures/lab_paths.sh lab4 'runs-np*.csv'
"$BIN/lab4" table --out "$IN" --tex "$TAB/lab4.tex"
plot() { figures/make_figures.sh --plot "labs/lab4/lab4-$1.gp" "$2" "$FIG/lab4-$3.png"; }
has_rows() { [ -f "$1" ] && [ "$(grep -v '^#' "$1" | wc -l)" -gt 1 ]; }
made=()
if has_rows "$IN/fig3.csv"; then plot traffic "$IN/fig3.csv" traffic; made+=(lab4-traffic.png); fi
if has_rows "$IN/table2.csv"; then
  plot accuracy-bytes "$IN/iters.csv" accuracy-bytes
  plot consensus "$IN/iters.csv" consensus
  made+=(lab4-accuracy-bytes.png lab4-consensus.png)
fi
if has_rows "$IN/lga.csv"; then
  # Same scripts, lga rows only: the family is set first.
  for what in accuracy-bytes consensus; do
    figures/make_figures.sh --plot "labs/lab4/lab4-$what.gp" "$IN/iters.csv" "$FIG/lab4-lga-$what.png" "family = 'lga'"
    made+=("lab4-lga-$what.png")
  done
fi
index_figure "${made[@]}"; index_table "$TAB/lab4.tex"; index_write
echo "lab4: wrote ${made[*]} in $FIG, $TAB/lab4.tex and $IN/index.csv"
