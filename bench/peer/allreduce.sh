#!/usr/bin/env bash
# bench/peer/allreduce.sh RATE - ddlab's ring allreduce and MPI_Allreduce
# (bin/lab2 bench) beside torch.distributed.all_reduce (gloo; bench/peer/
# torch_ddp.py allreduce) on 2 emulated hosts at RATE (labs/net/), one rank
# per host, FP32 SUM in place, at PEER_AR_SIZES (default 4 B .. 64 MiB,
# x16 steps). Each side prints lab2's OSU-style table (latency and busbw
# per size; a call's time is the slowest rank's, the median of the calls
# reported), then one line per size side by side:
#   bench allreduce-peer np2 net=RATE <bytes>: ring <us> us <GB/s>, mpi ...,
#     gloo ..., ring/gloo busbw R
# and results/bench/allreduce-peer-net-RATE.csv (lab2's columns, the
# three algorithms' rows, lab2's provenance block). Run by bench/run_peer.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
RATE=${1:?usage: bench/peer/allreduce.sh RATE (e.g. 1gbit)}
BIN=${BIN:-bin}
SIZES=${PEER_AR_SIZES:-4,64,1024,16384,262144,1048576,4194304,16777216,67108864}
REPS=${PEER_AR_REPS:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if ! why=$(labs/net/cluster.sh check); then echo "bench allreduce-peer net=$RATE: skipped ($why)"; exit 0; fi
[ -x "$BIN/lab2" ] || { echo "bench allreduce-peer: $BIN/lab2 not built"; exit 0; }
NET=$RATE HOSTS=2 NP=2 LAB_NETWORKS=1 NET_DELAY_BIN=$BIN
export NET HOSTS NP LAB_NETWORKS NET_DELAY_BIN LAUNCH_THREADS=1
source labs/common.sh
source bench/peer/pair.sh
launch_begin 2 2> >(grep -v -E '^\[peer\]' >&2)
tmp=$(mktemp -d)
peer_ar_cleanup() { rm -rf "$tmp"; }
lab_on_exit peer_ar_cleanup
lab_on_exit peer_pair_stop
status=0
if ! $(launch_cmd 2) "$BIN/lab2" bench --sizes "$SIZES" --algs ring,mpi --reps "$REPS" --no-calibrate --out "$tmp" \
     > "$tmp/lab2.out" 2> "$tmp/lab2.err"; then
  echo "bench allreduce-peer net=$RATE: lab2 bench failed: $(tail -n 1 "$tmp/lab2.err")"; exit 1
fi
grep -E '^(#|[0-9])' "$tmp/lab2.out"
if ! peer_pair 600 "$tmp/gloo.out" "$NET_NAME" -- allreduce --sizes "$SIZES" --reps "$REPS" --world 2 --port 29400 \
     --csv "$tmp/gloo.csv" --timeout 60 2>/dev/null; then
  echo "bench allreduce-peer net=$RATE: gloo failed: $(tail -n 1 "$tmp/gloo.out.rank0" 2>/dev/null)"; exit 1
fi
cat "$tmp/gloo.out"
csv=$(ls "$tmp"/bench-np2.csv 2>/dev/null)
[ -n "$csv" ] || { echo "bench allreduce-peer net=$RATE: lab2 wrote no bench-np2.csv"; exit 1; }
# side by side: size -> median us and busbw per algorithm
awk -F, -v net="$RATE" '
  FNR == 1 { h = 0 }
  /^#/ { next }
  !h { for (i = 1; i <= NF; i++) k[$i] = i; h = 1; next }
  { a = $(k["alg"]); b = $(k["bytes"]); med[a, b] = $(k["median_us"]); bw[a, b] = $(k["busbw_GBs"]); if (!(b in seen)) { seen[b] = 1; order[++n] = b } }
  END { for (i = 1; i <= n; i++) { b = order[i]; line = sprintf("bench allreduce-peer np2 net=%s %d B:", net, b)
          split("ring mpi gloo", algs, " ")
          for (j = 1; j <= 3; j++) { x = algs[j]; if ((x, b) in med) line = line sprintf(" %s %.1f us %.3f GB/s,", x, med[x, b], bw[x, b]) }
          if ((("gloo", b) in bw) && bw["gloo", b] > 0) line = line sprintf(" ring/gloo busbw %.2f", bw["ring", b] / bw["gloo", b])
          print line } }' "$csv" "$tmp/gloo.csv"
res=${PEER_OUT:-results/bench}
mkdir -p "$res"
out=$res/allreduce-peer-net-${RATE//[^A-Za-z0-9._-]/_}.csv
{ grep '^#' "$csv" | sed 's/^# program: .*/# program: bench\/peer\/allreduce.sh (lab2 bench ring, mpi; torch.distributed gloo)/'
  echo "# gloo: $(grep '^# program' "$tmp/gloo.csv" | sed 's/^# program: //'), the same hosts and link; slowest rank per call"
  cols=$(grep -v '^#' "$csv" | head -n 1)
  echo "$cols"
  grep -v '^#' "$csv" | tail -n +2
  # gloo's rows in lab2's columns (those it has; the others empty)
  awk -F, -v cols="$cols" 'NR == 1 || /^#/ { if (!/^#/) for (i = 1; i <= NF; i++) k[$i] = i; next }
    { n = split(cols, c, ","); line = ""; for (i = 1; i <= n; i++) line = line (i > 1 ? "," : "") (c[i] in k ? $(k[c[i]]) : ""); print line }' \
    <(grep -v '^#' "$tmp/gloo.csv")
} > "$out.tmp" && mv "$out.tmp" "$out"
echo "# wrote $out"
exit $status
