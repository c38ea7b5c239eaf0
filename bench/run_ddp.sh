#!/usr/bin/env bash
# bench/run_ddp.sh - lab3's performance bar (run by `make bench`, never by
# `make test`): at 2 ranks, one BLAS thread per rank, VGG-11 (width 1)
# with batch 64 per rank, the iteration time of DDP (buckets overlapped
# with backward) against the flat control (one allreduce after backward)
# and the per-parameter allreduce, and the fraction of DDP's
# communication time that ended before backward did.
#
# bin/bench/ddp_bar runs the three strategies interleaved in one pair of
# processes (blocks of BLOCK steps, ROUNDS rounds, first step of each
# block discarded) and reports each one's median step time: separate runs
# differ from each other by as much as the strategies do on this machine
# (see bench/ddp_bar.c). Goal: ddp <= flat <= per-param, hidden >= 0.5.
# ddp_bar prints its table and writes it to results/bench/ddp_bar-*.csv
# with the run's provenance; this script adds the bar's verdicts.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
ROUNDS=${ROUNDS:-10}
BLOCK=${BLOCK:-6}
source labs/common.sh
launch_begin 2
[ -x "$BIN/bench/ddp_bar" ] || { echo "bench ddp: $BIN/bench/ddp_bar not built"; exit 0; }
out=$($(launch_cmd 2) "$BIN/bench/ddp_bar" --model vgg11 --width 1 --batch 64 --rounds "$ROUNDS" --block "$BLOCK" 2>/dev/null) ||
  { echo "bench ddp: ddp_bar failed"; exit 1; }
grep -v '^ddp_bar:' <<<"$out"
line=$(grep '^ddp_bar:' <<<"$out")
num() { sed -n "s/.* $1 \([0-9.]*\).*/\1/p" <<<"$line"; }
ddp=$(num ddp) flat=$(num flat) per=$(num per-param) hidden=$(num hidden)
echo "# ${line#ddp_bar: }"
printf 'bench ddp np2: ddp %.1f ms, flat %.1f ms, per-param %.1f ms, hidden %.2f\n' "$ddp" "$flat" "$per" "$hidden"
awk -v d="$ddp" -v f="$flat" -v p="$per" -v h="$hidden" 'BEGIN {
  printf "# bar: ddp <= flat: %s; flat <= per-param: %s; hidden >= 0.5: %s\n",
    (d <= f ? "met" : "NOT met"), (f <= p ? "met" : "NOT met"), (h >= 0.5 ? "met" : "NOT met") }'
