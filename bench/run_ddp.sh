#!/usr/bin/env bash
# bench/run_ddp.sh - lab3's performance bar (run by `make bench`, never by
# `make test`): at 2 ranks, one BLAS thread per rank, VGG-11 (width 1)
# with batch 64 per rank, the iteration time of DDP (buckets overlapped
# with backward) against the flat control (one allreduce after backward)
# and the per-parameter allreduce, and the fraction of DDP's
# communication time that ended before backward did. The three are run
# in turn, ROUNDS times, and each reports the median of its rounds' means
# (20 steps each, the first discarded), so drift on a shared machine
# hits all three alike. Goal: ddp <= flat <= per-param, hidden >= 0.5.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
ROUNDS=${ROUNDS:-3}
source labs/common.sh
[ -x "$BIN/lab3" ] || { echo "bench ddp: $BIN/lab3 not built"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
col() { awk -F, -v c="$2" '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == c) k = i; h = 1; next} {print $k}' "$1"; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
args=(--model vgg11 --width 1 --batch 64 --iters 20 --timed 20 --no-eval --limit 2560 --quiet --seed 1)
for r in $(seq 1 "$ROUNDS"); do
  for s in ddp allreduce_flat allreduce; do
    $(mpirun_cmd 2) "$BIN/lab3" run --sync "$s" --tag "$s-$r" --out "$tmp" "${args[@]}" || { echo "bench ddp: $s failed"; exit 1; }
  done
done
ms() { for r in $(seq 1 "$ROUNDS"); do col "$tmp/$1-$r-summary.csv" ms_mean; done | median; }
ddp=$(ms ddp) flat=$(ms allreduce_flat) per=$(ms allreduce)
hidden=$(for r in $(seq 1 "$ROUNDS"); do col "$tmp/ddp-$r-summary.csv" hidden_frac; done | median)
data=$(grep -m1 '^# data:' "$tmp/ddp-1-summary.csv" | cut -c9-)
echo "# lab3 DDP bar: 2 ranks x 1 BLAS thread, vgg11 width 1, batch 64 per rank, $data data, median of $ROUNDS rounds"
printf 'bench ddp np2: ddp %.1f ms, flat %.1f ms, per-param %.1f ms, hidden %.2f\n' "$ddp" "$flat" "$per" "$hidden"
awk -v d="$ddp" -v f="$flat" -v p="$per" -v h="$hidden" 'BEGIN {
  printf "# bar: ddp <= flat: %s; flat <= per-param: %s; hidden >= 0.5: %s\n",
    (d <= f ? "met" : "NOT met"), (f <= p ? "met" : "NOT met"), (h >= 0.5 ? "met" : "NOT met") }'
