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
# Simulated runs (make lab2 PLATFORM=X) live in results/lab2/sim-X/ and
# render the same way as figures/lab2-sim-X-*.png and
# report/tables/lab2-sim-X.tex (NAME=lab2-sim-X), plus
# figures/lab2-sim-X-vs-native.png when a native bench at the same rank
# count exists; rendering results/lab2 renders them too.
set -euo pipefail
cd "$(dirname "$0")/../.."
# A sweep alone (LAB2_ONLY=bench, run.sh) has no training: its figures are left out.
source figures/lab_paths.sh lab2 'bench-np*.csv'
NAME=${NAME:-lab2}
# The table job also joins the fixed-size runs into $IN/ranks.csv.
bin/lab2 table --out "$IN" --tex "$TAB/$NAME.tex"
plot() { figures/make_figures.sh --plot "labs/lab2/lab2-$1.gp" "$2" "$FIG/$NAME-$3.png"; }
made=()
for csv in "$IN"/bench-np*.csv; do
  np=$(basename "$csv" .csv); np=${np#bench-}
  for what in latency busbw model; do plot "$what" "$csv" "$what-$np"; made+=("$NAME-$what-$np.png"); done
done
if [ -f "$IN/ranks.csv" ]; then plot ranks "$IN/ranks.csv" ranks; made+=("$NAME-ranks.png"); fi
train=$(ls "$IN"/train-np*.csv 2>/dev/null | sed 's/.*train-np\([0-9]*\).csv/\1 &/' | sort -n | tail -1 | cut -d' ' -f2 || true)
if [ -n "$train" ]; then
  plot train-time "$train" train-time; plot accuracy "$train" accuracy
  made+=("$NAME-train-time.png" "$NAME-accuracy.png")
fi
# Simulated next to native: the same rank count run both ways.
native=${NATIVE_RESULTS:-}
if [ -n "$native" ]; then
  for csv in "$IN"/bench-np*.csv; do
    np=$(basename "$csv" .csv); np=${np#bench-np}
    [ -f "$native/bench-np$np.csv" ] || continue
    full=$(ls "$IN"/bench-np*.csv | sed 's/.*bench-np\([0-9]*\).csv/\1/' | sort -n | tail -1)
    out="$FIG/$NAME-vs-native.png"; tmp="${out%.png}.tmp.$$.png"
    if gnuplot -e "native='$native/bench-np$np.csv'; sim='$csv'; simfull='$IN/bench-np$full.csv'; out='$tmp'" \
         labs/lab2/lab2-sim-compare.gp && [ -s "$tmp" ]; then
      mv -f "$tmp" "$out"; made+=("$NAME-vs-native.png")
    else
      rm -f "$tmp"; echo "lab2: $out not rendered" >&2; exit 1
    fi
    break
  done
fi
index_figure "${made[@]}"; index_table "$TAB/$NAME.tex"; index_write
echo "lab2: wrote ${made[*]} in $FIG, $TAB/$NAME.tex and $IN/index.csv"
# Rendering the native results renders the simulated ones beside them.
if [ "$NAME" = lab2 ]; then
  for dir in "$IN"/sim-*/; do
    [ -d "$dir" ] || continue
    RESULTS=${dir%/} NAME=lab2-$(basename "$dir") NATIVE_RESULTS=$IN FIGURES=$FIG TABLES=$TAB bash "$0"
  done
fi
