#!/usr/bin/env bash
# bench/run.sh - `make bench`: ddlab against reference implementations, as
# ratios measured side by side in one run. Never part of `make test`.
#
# Training step (forward + backward + SGD, batch 64, random inputs of each
# model's home shape: 3x32x32 for vgg11 and resnet18, 1x28x28 for
# mobilenetv2 and cnn3, as the labs train them) on the CPU, ddlab
# (bin/bench/train_step) against PyTorch (bench/torch_step.py, Debian's
# python3-torch under /usr/bin/python3) with the same model, width, batch
# and thread count. Configurations: vgg11 at widths 1, 0.5 (lab3's quick
# profile) and 0.25 (lab1's), resnet18 at 1 and 0.25 (lab1's and lab5's),
# mobilenetv2 and cnn3 at width 1.
#
# Each configuration runs in rounds, the two sides interleaved: ddlab,
# pytorch, ddlab, pytorch, ... Each round is a fresh process per side that
# takes a few warm-up steps and reports the median of its timed steps; a
# side's time is the median of its rounds' medians, and the ratio is
# ddlab / pytorch of those (below 1: ddlab is faster). Both sides print
# their parameter count and layout (a hash of the parameter tensors' names
# and sizes) and input shape; a mismatch is reported instead of a ratio and
# makes the script fail. The GFLOP/s are ddlab's (3x the forward FLOPs per
# step over ddlab's time), and the share of OpenBLAS's SGEMM rate at 2048^3
# on the same threads (bin/bench/gemm_peak, measured before the steps and
# printed after them).
#
# Every bench program (train_step, allreduce, ddp_bar) prints its result
# as one table in nccl-tests' layout and writes it, with the provenance
# block the labs write, to results/bench/<program>-<run>.csv and .json
# (core/results/text.c; tests/e2e_bench_output.sh); here train_step's
# last round of each configuration is the one kept there.
#
# Prints two lines per configuration:
#   bench <model> w<width> b<batch>: ddlab X ms, pytorch Y ms, ratio R (G GFLOP/s achieved, P% of SGEMM peak)[; 1 thread T ms, scaling S at N threads]
#   #   paths, the same in all N rounds: <the # conv: summary>; per layer <hash>
# (the second says "paths differ between rounds" and fails the script when
# two processes chose another path for any layer: the choice is rules,
# conv/pick.c, and must not move from one process to the next)
# ("pytorch n/a" when torch is not importable: make bench-deps), then the
# SGEMM peak, then each executable bench/run_*.sh (MPI_Allreduce, DDP, ...).
# When a side's round medians are more than 15% apart (other jobs, or a
# noisy VM host: on the 2-core dev VM ddlab's steps ran 1.3-1.4x slower for
# stretches of seconds to minutes with nothing else running), a '# note' on
# stderr says so.
#
# Environment:
#   BENCH_MODELS   configurations to run, space-separated: a model name runs
#                  all of its widths, model:width one of them (default: all;
#                  e.g. BENCH_MODELS="cnn3 resnet18:0.25")
#   BENCH_ROUNDS   interleaved rounds per configuration (default 3)
#   BENCH_THREADS  threads for both sides (default: the cores);
#                  OMP_NUM_THREADS/OPENBLAS_NUM_THREADS for ddlab,
#                  torch.set_num_threads for PyTorch
#   BENCH_VERBOSE  1: also print every round's output as '# ' lines
#   BENCH_SCALING  1 (default): each round also times ddlab's step on one
#                  thread, and the line adds "1 thread T ms, scaling S at
#                  N threads" (S: the 1-thread median over the N-thread
#                  one); 0: not (half the ddlab time)
#   BENCH_PROFILE  1 (default): after each configuration, where its step
#                  goes: each layer kind's milliseconds, ddlab's
#                  (train_step --profile-layers) beside PyTorch's (its
#                  profiler, torch_step.py --profile-kinds); 0: not
#   BENCH_PYTHON   the Python that runs bench/torch_step.py (default
#                  /usr/bin/python3, where Debian's python3-torch lives)
# The whole training-step part takes about 3-4 minutes on an idle 2-core VM
# with BENCH_SCALING=0 BENCH_PROFILE=0, and about twice that with both.
set -uo pipefail
cd "$(dirname "$0")/.."
PROFILE=quick source labs/common.sh
THREADS=${BENCH_THREADS:-$CORES}
ROUNDS=${BENCH_ROUNDS:-3}
VERBOSE=${BENCH_VERBOSE:-0}
SCALING=${BENCH_SCALING:-1}
PROFILE_KINDS=${BENCH_PROFILE:-1}
BATCH=64
PY=${BENCH_PYTHON:-/usr/bin/python3}
errf=$(mktemp)
trap 'rm -f "$errf"' EXIT
export OPENBLAS_NUM_THREADS=$THREADS OMP_NUM_THREADS=$THREADS
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
case "$ROUNDS" in ''|*[!0-9]*|0*) echo "error: BENCH_ROUNDS must be a positive integer (got '$ROUNDS')" >&2; exit 2 ;; esac
case "$THREADS" in ''|*[!0-9]*|0*) echo "error: BENCH_THREADS must be a positive integer (got '$THREADS')" >&2; exit 2 ;; esac

# model width warmup reps: warm-up and timed steps per round and side, sized
# so that a round of both sides takes 3-20 s on 2 cores (resnet18 at width 1
# is ~1.5 s per step, cnn3 ~25 ms).
CONFIGS=(
  "vgg11 1 2 8"
  "vgg11 0.5 2 10"
  "vgg11 0.25 3 15"
  "resnet18 1 1 5"
  "resnet18 0.25 2 10"
  "mobilenetv2 1 2 6"
  "cnn3 1 3 20"
)

# BENCH_MODELS: keep the configurations it names.
if [ -n "${BENCH_MODELS:-}" ]; then
  picked=()
  for want in $BENCH_MODELS; do
    found=0
    for spec in "${CONFIGS[@]}"; do
      set -- $spec
      if [ "$want" = "$1" ] || [ "$want" = "$1:$2" ]; then picked+=("$spec"); found=1; fi
    done
    if [ $found = 0 ]; then
      names=$(for spec in "${CONFIGS[@]}"; do set -- $spec; printf ' %s:%s' "$1" "$2"; done)
      echo "error: BENCH_MODELS: no configuration '$want' (have:$names; a model name picks all its widths)" >&2
      exit 2
    fi
  done
  CONFIGS=("${picked[@]}")
fi

# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# field NAME LINE: the value after "NAME " in a train_step/torch_step line
field() { sed -n "s/.*[(, ]$1 \\([^,) ]*\\).*/\\1/p" <<<"$2"; }
verbose() { [ "$VERBOSE" = 1 ] && echo "# $*"; return 0; }

torch_version=$($PY -c 'import torch; print(torch.__version__)' 2>/dev/null) && has_torch=1 || { has_torch=0; torch_version="not installed"; }
echo "# bench: $(date -u +%FT%TZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $CORES cores,"
echo "#        $THREADS threads, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-auto}, commit $(git rev-parse --short HEAD 2>/dev/null || echo ?),"
echo "#        pytorch $torch_version, $ROUNDS rounds (ddlab, pytorch interleaved), batch $BATCH"
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
if awk -v l="$load" 'BEGIN { exit !(l >= 1) }'; then
  echo "# note: load average $load before the bench: other jobs on this machine inflate the times"
fi

# BLAS peak on this machine, measured first: each configuration's rate is
# set against it (printed after the training steps, as before)
peak_out=$(bin/bench/gemm_peak 2>/dev/null)
peak=$(sed -n 's/^bench sgemm 2048.3: \([0-9.]*\) GFLOP.*/\1/p' <<<"$peak_out")

# where_time MODEL WIDTH REPS: each layer kind's time per step, ddlab's
# (train_step --profile-layers: forward + backward, sums of the layers'
# medians) beside PyTorch's (its profiler's self time per kind,
# torch_step.py --profile-kinds), as '#' lines
where_time() {
  local d t
  d=$(bin/bench/train_step --model "$1" --width "$2" --batch "$BATCH" --warmup 1 --reps "$3" --profile-layers \
      | awk '/^kind \(sum of medians\)/ { on = 1; next } /^all layers/ { on = 0 } on { printf "%s %.1f\n", $1, $2 + $3 }')
  t=""
  [ "$has_torch" = 1 ] && t=$($PY bench/torch_step.py --model "$1" --width "$2" --batch "$BATCH" --threads "$THREADS" \
      --warmup 1 --reps "$3" --profile-kinds 2>/dev/null | awk '/^torch_kind / { printf "%s %.1f\n", $2, $3 }')
  echo "#   where a step goes (ms; ddlab: each layer kind's forward + backward; pytorch: its profiler's self time):"
  awk 'NR == FNR { d[$1] = $2; order[++n] = $1; next } { t[$1] = $2; if (!($1 in d)) order[++n] = $1 }
       END { for (i = 1; i <= n; i++) { k = order[i]
               printf "#     %-15s ddlab %8s  pytorch %8s\n", k, (k in d) ? d[k] : "-", (k in t) ? t[k] : "-" } }' \
    <(echo "$d") <(echo "${t:-none 0}" | grep -v '^none')
}

status=0
t_start=$(date +%s)
for spec in "${CONFIGS[@]}"; do
  set -- $spec
  model=$1 width=$2 warmup=$3 reps=$4
  tag="bench $model w$width b$BATCH"
  ours=() ours1=() paths=() theirs=() ddlab_desc="" torch_desc="" torch_state=$([ $has_torch = 1 ] && echo ok || echo missing)
  failed=0
  for ((r = 1; r <= ROUNDS; r++)); do
    step=(bin/bench/train_step --model "$model" --width "$width" --batch "$BATCH" --warmup "$warmup" --reps "$reps")
    if ! out=$("${step[@]}"); then
      echo "$tag: ddlab failed (bin/bench/train_step --model $model --width $width --batch $BATCH)"
      failed=1; status=1; break
    fi
    verbose "round $r: $out"
    ours+=("$(field median "$out")")
    paths+=("$(sed -n 's/^train_step paths: //p' <<<"$out")")
    # the same step on one thread, in the same round: the threads' scaling
    if [ "$SCALING" = 1 ] && out1=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "${step[@]}"); then
      verbose "round $r, 1 thread: $out1"
      ours1+=("$(field median "$out1")")
    fi
    out=$(grep '^train_step ' <<<"$out" | head -n1)
    gflop=$(sed -n 's/.*(\([0-9.]*\) GFLOP\/step.*/\1/p' <<<"$out")
    ddlab_desc="params $(field params "$out"), layout $(field layout "$out"), input $(field input "$out")"
    [ "$torch_state" = ok ] || continue
    out=$($PY bench/torch_step.py --model "$model" --width "$width" --batch "$BATCH" --threads "$THREADS" \
      --warmup "$warmup" --reps "$reps" 2>"$errf")
    rc=$?
    if [ $rc -ne 0 ] || [ -z "$(field median "$out")" ]; then
      torch_state=failed
      verbose "round $r: pytorch exit $rc: $(tail -n1 "$errf")"
      continue
    fi
    verbose "round $r: $out"
    theirs+=("$(field median "$out")")
    torch_desc="params $(field params "$out"), layout $(field layout "$out"), input $(field input "$out")"
    if [ "$torch_desc" != "$ddlab_desc" ]; then torch_state=mismatch; fi
  done
  [ $failed = 1 ] && continue
  # rounds far apart: something else ran; say so on stderr (stdout keeps one line per configuration)
  if awk -v a="${ours[*]} | ${theirs[*]:-}" 'BEGIN { n = split(a, f, " "); lo = hi = ""
        for (i = 1; i <= n; i++) { if (f[i] == "|") { if (lo != "" && hi > 1.15 * lo) bad = 1; lo = hi = ""; continue }
          v = f[i] + 0; if (lo == "" || v < lo) lo = v; if (hi == "" || v > hi) hi = v }
        if (lo != "" && hi > 1.15 * lo) bad = 1; exit !bad }'; then
    echo "# note: $model w$width: round medians more than 15% apart (ddlab ${ours[*]} ms; pytorch ${theirs[*]:-n/a} ms): other load? rerun, or BENCH_ROUNDS=5" >&2
  fi
  ms_raw=$(median "${ours[@]}")
  ms=$(awk -v v="$ms_raw" 'BEGIN { printf "%.1f", v }')
  achieved=$(awk -v g="$gflop" -v m="$ms_raw" -v p="${peak:-0}" \
    'BEGIN { printf "%.1f GFLOP/s achieved", g / (m * 1e-3); if (p > 0) printf ", %.0f%% of SGEMM peak", 100 * g / (m * 1e-3) / p }')
  scaling=""
  if [ ${#ours1[@]} -gt 0 ]; then
    scaling=$(awk -v a="$(median "${ours1[@]}")" -v b="$ms_raw" -v t="$THREADS" \
      'BEGIN { printf "; 1 thread %.1f ms, scaling %.2f at %d threads", a, a / b, t }')
  fi
  case "$torch_state" in
    ok)
      tms=$(median "${theirs[@]}")
      ratio=$(awk -v a="$ms_raw" -v b="$tms" 'BEGIN { printf "%.2f", a / b }')
      tms=$(awk -v v="$tms" 'BEGIN { printf "%.1f", v }')
      echo "$tag: ddlab $ms ms, pytorch $tms ms, ratio $ratio ($achieved)$scaling" ;;
    missing)
      echo "$tag: ddlab $ms ms, pytorch n/a (install python3-torch: make bench-deps), ratio n/a ($achieved)" ;;
    mismatch)
      tms=$(awk -v v="$(median "${theirs[@]}")" 'BEGIN { printf "%.1f", v }')
      echo "$tag: ddlab $ms ms, pytorch $tms ms, ratio n/a: the models differ (ddlab $ddlab_desc; pytorch $torch_desc) ($achieved)"
      status=1 ;;
    failed)
      echo "$tag: ddlab $ms ms, pytorch failed (run: $PY bench/torch_step.py --model $model --width $width), ratio n/a ($achieved)"
      status=1 ;;
  esac
  # the convolution paths every round's process chose (conv/pick.c's rules)
  if [ "$(printf '%s\n' "${paths[@]}" | sort -u | wc -l)" = 1 ]; then
    echo "#   paths, the same in all ${#paths[@]} rounds: ${paths[0]}"
  else
    echo "#   paths differ between rounds: $(printf '%s | ' "${paths[@]}")"
    status=1
  fi
  [ "$PROFILE_KINDS" = 1 ] && where_time "$model" "$width" "$reps"
done
echo "# training steps: $(( $(date +%s) - t_start )) s"
# BLAS peak on this machine, for the GFLOP/s above (measured first).
echo "$peak_out"
for extra in bench/run_*.sh; do
  [ -x "$extra" ] && { "$extra" || status=1; }
done
exit $status
