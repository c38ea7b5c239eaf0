#!/usr/bin/env bash
# labs/lab2/figures.sh - lab2's figures and table from results/lab2:
#   figures/lab2-latency-npN.png   latency vs size, log-log, per algorithm
#   figures/lab2-busbw-npN.png     busbw vs size
#   figures/lab2-model-npN.png     alpha-beta-gamma model over the measurement
#   figures/lab2-ranks.png         time vs ranks at a fixed size
#   figures/lab2-train-time.png    training time vs hidden width H
#   figures/lab2-accuracy.png      test accuracy per algorithm
#   report/tables/lab2.tex         crossover sizes, busbw, training accuracy
# (N: every rank count benchmarked; the training figures use the run with
# the most ranks.)
set -euo pipefail
cd "$(dirname "$0")/../.."
IN=${RESULTS:-results/lab2}
FIG=${FIGURES:-figures}
TAB=${TABLES:-report/tables}
ls "$IN"/bench-np*.csv "$IN"/train-np*.csv >/dev/null 2>&1 || { echo "lab2: no results in $IN (run make lab2)" >&2; exit 1; }
mkdir -p "$FIG" "$TAB"
# The table job also joins the fixed-size runs into $IN/ranks.csv.
bin/lab2 table --out "$IN" --tex "$TAB/lab2.tex"
plot() { figures/make_figures.sh --plot "labs/lab2/lab2-$1.gp" "$2" "$FIG/lab2-$3.png"; }
made=()
for csv in "$IN"/bench-np*.csv; do
  np=$(basename "$csv" .csv); np=${np#bench-}
  for what in latency busbw model; do plot "$what" "$csv" "$what-$np"; made+=("lab2-$what-$np.png"); done
done
if [ -f "$IN/ranks.csv" ]; then plot ranks "$IN/ranks.csv" ranks; made+=(lab2-ranks.png); fi
train=$(ls "$IN"/train-np*.csv 2>/dev/null | sed 's/.*train-np\([0-9]*\).csv/\1 &/' | sort -n | tail -1 | cut -d' ' -f2)
if [ -n "$train" ]; then
  plot train-time "$train" train-time; plot accuracy "$train" accuracy
  made+=(lab2-train-time.png lab2-accuracy.png)
fi
echo "lab2: wrote ${made[*]} in $FIG, and $TAB/lab2.tex"
