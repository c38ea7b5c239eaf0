#!/usr/bin/env bash
# bench/peer/link.sh LINK - ddlab's DDP step against PyTorch DDP's (gloo) on
# one kind of link, one line per model (bench/run_peer.sh runs it per link;
# see there for the settings and the line's fields).
#
#   LINK = local   one machine: ddlab's ranks over Open MPI shared memory,
#                  PyTorch's over gloo's TCP on loopback (the transports
#                  differ; the line says so)
#   LINK = RATE    2 emulated hosts (labs/net/, e.g. 1gbit, 10gbit): rank r
#                  of both sides in host r's network namespace, all their
#                  traffic over the shaped link (ddlab: Open MPI TCP;
#                  PyTorch: gloo TCP on eth0)
# Each round runs a fresh pair of processes per side, ddlab then PyTorch,
# and each side's time is the median of its rounds' medians. A side that
# fails (a rank that dies: the pair is ended within 30 s, nothing left)
# makes that model's line say so, exit status 1, and the next model runs.
set -uo pipefail
cd "$(dirname "$0")/../.."
LINK=${1:?usage: bench/peer/link.sh local|RATE (e.g. 1gbit)}
BIN=${BIN:-bin}
BATCH=${PEER_BATCH:-128} WIDTH=${PEER_WIDTH:-1} ROUNDS=${PEER_ROUNDS:-3}
STEPS=${PEER_STEPS:-5} WARMUP=${PEER_WARMUP:-2} CAP=${PEER_CAP_MB:-25}
MODELS=${PEER_MODELS:-vgg11 resnet18}
for v in BATCH ROUNDS STEPS; do
  case "${!v}" in ''|*[!0-9]*|0*) echo "error: PEER_$v must be a positive integer (got '${!v}')" >&2; exit 2 ;; esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ "$LINK" != local ]; then
  NET=$LINK HOSTS=2 LAB_NETWORKS=1 NET_DELAY_BIN=$BIN
  export NET HOSTS
fi
NP=2 LAB_NP_DEFAULT=2
source labs/common.sh
source bench/peer/pair.sh
export LAUNCH_THREADS=1   # one BLAS/OpenMP thread per rank, as PyTorch's set_num_threads(1)
launch_begin 2
where=${NET_NAME:-}   # the emulated cluster (namespaces <where>-h0, -h1), or none
res=${PEER_OUT:-results/bench}
mkdir -p "$res"
tmp=$(mktemp -d)
lab_on_exit peer_link_cleanup
lab_on_exit peer_pair_stop # registered last, runs first: the pair ends before the cluster goes
peer_link_cleanup() { rm -rf "$tmp"; }
status=0
transport="ddlab Open MPI TCP, PyTorch gloo TCP, both on the emulated link"
[ "$LINK" = local ] && transport="transports differ: ddlab Open MPI shared memory (vader), PyTorch gloo TCP on loopback"

# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { sed -n "s/.*[:(, ]$1 \\([^,) ]*\\).*/\\1/p" <<<"$2" | head -n 1; }

ddlab_round() { # model -> prints peer_ddp's line, or fails
  local out
  out=$(timeout 900 $(launch_cmd 2) "$BIN/bench/peer_ddp" --model "$1" --width "$WIDTH" --batch "$BATCH" \
        --warmup "$WARMUP" --steps "$STEPS" --cap-mb "$CAP" --out "$tmp/ddlab" --tag "$1-$LINK" 2>"$tmp/ddlab.err") || return 1
  grep '^peer_ddp ' <<<"$out"
  cp "$tmp/ddlab/peer_ddp-$1-$LINK.csv" "$tmp/ddlab-last.csv" 2>/dev/null
  return 0
}
torch_round() { # model round -> prints torch_ddp's line, or fails
  local port=$(( 29500 + ($$ + $2) % 400 )) die=()
  [ "${PEER_FAULT:-}" = "$1" ] && die=(--die-after 1)
  peer_pair 900 "$tmp/torch.out" "$where" -- step --model "$1" --width "$WIDTH" --batch "$BATCH" --warmup "$WARMUP" \
    --steps "$STEPS" --cap-mb "$CAP" --world 2 --port "$port" --timeout 20 "${die[@]}" 2>/dev/null || return 1
  grep '^torch_ddp ' "$tmp/torch.out"
}

csv=$res/peer-ddp-${LINK//[^A-Za-z0-9._-]/_}.csv
rows=()
for model in $MODELS; do
  tag="bench peer $model w$WIDTH b$BATCH np2 link=$LINK"
  ours=() theirs=() d_line="" t_line="" failed=""
  for ((r = 1; r <= ROUNDS; r++)); do
    if ! d_line=$(ddlab_round "$model"); then failed="ddlab failed ($(tail -n 1 "$tmp/ddlab.err"))"; break; fi
    ours+=("$d_line")
    if ! t_line=$(torch_round "$model" "$r"); then
      failed="pytorch failed (a rank exited or was killed; the pair was ended: $(grep -h -m1 -E 'Error|error' "$tmp"/torch.out.rank* 2>/dev/null | tail -n 1 | cut -c1-160))"
      break
    fi
    theirs+=("$t_line")
  done
  if [ -n "$failed" ]; then echo "$tag: $failed"; status=1; continue; fi
  d_desc="params $(field params "$d_line"), layout $(field layout "$d_line"), input $(field input "$d_line")"
  t_desc="params $(field params "$t_line"), layout $(field layout "$t_line"), input $(field input "$t_line")"
  if [ "$d_desc" != "$t_desc" ]; then
    echo "$tag: ratio n/a: the models differ (ddlab $d_desc; pytorch $t_desc)"; status=1; continue
  fi
  col() { local k=$1; shift; local l v=(); for l in "$@"; do v+=("$(field "$k" "$l")"); done; median "${v[@]}"; }
  dm=$(col median "${ours[@]}") dc=$(col compute "${ours[@]}") de=$(col exposed "${ours[@]}") ds=$(col start "${ours[@]}")
  dh=$(col hidden "${ours[@]}")
  tm=$(col median "${theirs[@]}") tc=$(col no_sync "${theirs[@]}")
  te=$(awk -v a="$tm" -v b="$tc" 'BEGIN { printf "%.2f", a - b }')
  line=$(awk -v dm="$dm" -v dc="$dc" -v de="$de" -v ds="$ds" -v dh="$dh" -v tm="$tm" -v tc="$tc" -v te="$te" 'BEGIN {
    r = dm / tm
    printf "ddlab %.1f ms (compute %.1f, exposed comm %.1f, start %.1f, hidden %.2f of its comm), ", dm, dc, de, ds, dh
    # a DDP step faster than the no_sync step: the steps spread more than
    # the communication costs; said, and counted as 0 below
    printf "pytorch %.1f ms (no_sync %.1f, exposed comm %.1f%s), ratio %.2f", tm, tc, te,
      (te < 0 ? ": below 0, the steps vary more than it costs" : ""), r
    if (te < 0) te = 0
    if (r > 1) { # which part is slower: the larger excess
      xc = dc - tc; xe = de - te; xs = ds
      what = xc >= xe && xc >= xs ? "compute" : (xe >= xs ? "exposed communication" : "start of the step")
      printf "; ddlab slower by %.1f ms, most in %s", dm - tm, what }
  }')
  echo "$tag: $line [$ROUNDS rounds; $transport]"
  rows+=("$model,$WIDTH,$BATCH,2,$LINK,$CAP,$dm,$dc,$de,$ds,$dh,$tm,$tc,$te,$(awk -v a="$dm" -v b="$tm" 'BEGIN { printf "%.3f", a / b }'),$ROUNDS,$STEPS")
done

# The CSV: ddlab's provenance block (core/results, from peer_ddp's last
# run), this comparison's own lines, then one row per model.
if [ ${#rows[@]} -gt 0 ]; then
  {
    grep '^#' "$tmp/ddlab-last.csv" 2>/dev/null | sed -e 's/^# program: .*/# program: bench\/peer\/link.sh (ddlab peer_ddp vs PyTorch DDP gloo)/' \
      -e '/^# timing: /d' -e '/^# summary: /d'
    echo "# summary: ddlab DDP vs PyTorch DDP ($("${PEER_PY}" -c 'import torch; print("torch", torch.__version__)' 2>/dev/null), gloo), link $LINK: $transport"
    echo "# timing: rounds alternate ddlab then PyTorch, a fresh pair of processes per side and round; each round the median of $STEPS steps after $WARMUP warm-up; a side's time is the median of its rounds; PyTorch exposed = DDP step - no_sync() step (the same processes, alternating steps)"
    echo "model,width,batch,ranks,link,cap_mib,ddlab_ms,ddlab_compute_ms,ddlab_exposed_ms,ddlab_start_ms,ddlab_hidden_frac,torch_ms,torch_no_sync_ms,torch_exposed_ms,ratio,rounds,steps"
    printf '%s\n' "${rows[@]}"
  } > "$csv.tmp" && mv "$csv.tmp" "$csv"
  echo "# wrote $csv"
fi
exit $status
