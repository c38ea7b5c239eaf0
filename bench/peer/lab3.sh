# bench/peer/lab3.sh - `make lab3 PEER=pytorch`: PyTorch DDP (gloo) as
# lab3's reference line (sourced by labs/lab3/run.sh).
#
#   peer_lab3_check     before anything runs: PEER is empty or "pytorch";
#                       refused under PLATFORM= (SimGrid simulates MPI
#                       programs: a Python process with gloo's own TCP has no
#                       simulated network to run on) and where torch or its
#                       gloo backend is missing (saying which and how to
#                       install it)
#   peer_lab3_run NP..  after ddlab's runs: PyTorch DDP at each rank count,
#                       total batch 256, on the same platform as the other
#                       strategies (this machine, or the emulated hosts of
#                       NET=, rank r on host r mod HOSTS as mpirun places
#                       them); the same model, width and input shape as
#                       ddlab's runs (random inputs: a timing, no accuracy),
#                       timed as lab3 times (40 steps, the first discarded,
#                       mean per rank then over ranks). Each point goes to
#                       $OUT.tmp/scale-pytorch_ddp-np<N>-peer.csv with the
#                       provenance block of ddlab's DDP run at that rank
#                       count; `bin/lab3 table` draws the curve and the table
#                       rows from them (labs/lab3/table.c).
PEER=${PEER:-}
PEER_PY=${PEER_PY:-${BENCH_PYTHON:-/usr/bin/python3}}

peer_lab3_check() {
  case "$PEER" in
    '') return 0 ;;
    pytorch) ;;
    *) echo "error: PEER='$PEER': the reference line lab3 can add is PEER=pytorch (PyTorch DDP, gloo)" >&2; exit 2 ;;
  esac
  if [ -n "${PLATFORM:-}" ]; then
    echo "error: PEER=pytorch and PLATFORM=$PLATFORM: PyTorch DDP talks over gloo's own TCP sockets, which SimGrid cannot simulate (it runs MPI programs under smpirun); run it natively or on an emulated network (NET=1gbit NP=2)" >&2
    exit 2
  fi
  local why
  if ! why=$(timeout 120 "$PEER_PY" bench/peer/torch_ddp.py probe 2>&1); then
    echo "error: PEER=pytorch: ${why:-$PEER_PY cannot import torch: install python3-torch (make bench-deps)}" >&2
    exit 2
  fi
  echo "[lab3] PEER=pytorch: $why, as the reference DDP curve" >&2
}

# peer_lab3_point NP MODEL WIDTH: one PyTorch run, its CSV
peer_lab3_point() {
  local np=$1 model=$2 width=$3 batch=$(( 256 / $1 )) out=$OUT.tmp/scale-pytorch_ddp-np$1-peer.csv
  local log=$OUT.tmp/.peer-np$np.log line steps=39
  [ "${LAB3_SMOKE:-0}" = 1 ] && steps=3
  [ "${DRY_RUN:-0}" = 1 ] && { echo "PyTorch DDP (gloo): $np ranks, $model w$width, batch $batch per rank" >&"${LAUNCH_DRY_FD:-1}"; return 0; }
  PEER_HOSTS=${NET_HOSTS:-$np} peer_pair 1800 "$log" "${NET_NAME:-}" -- step --plain --model "$model" --width "$width" \
    --batch "$batch" --cap-mb "${PEER_CAP_MB:-25}" --warmup 1 --steps "$steps" --world "$np" --port $(( 30000 + $$ % 2000 + np )) --timeout 60 2>/dev/null ||
    { note "PyTorch DDP at $np ranks failed: $(tail -n 1 "$log.rank0" 2>/dev/null)"; return 1; }
  line=$(grep '^torch_ddp_lab3 ' "$log")
  f() { sed -n "s/.*[:(, ]$1 \\([^,) ]*\\).*/\\1/p" <<<"$line" | head -n 1; }
  local ref=$OUT.tmp/scale-ddp-np$np-summary.csv
  [ -f "$ref" ] || ref=$OUT.tmp/task3-summary.csv
  {
    grep '^#' "$ref" | sed -e 's/^# program: .*/# program: bench\/peer\/torch_ddp.py step --plain (PyTorch DDP, gloo)/' \
      -e '/^# \(run\|task\|sync\|sync_detail\|alg\|buckets\|bn_stats\|augment\|data_source\|data\|dataset\|train_examples\|test_examples\|iterations\|optimizer\|timing\|batch_per_rank\|ranks\|threads\|blas_core\|blas_threads\|mpi\|mpi_transport\|launcher\|conv\|params\):/d' \
      -e 's/^# summary: \(.*\)/# summary: \1; PyTorch DDP (gloo) on random inputs of that shape/'
    echo "# run: scale-pytorch_ddp-np$np"
    echo "# sync: pytorch_ddp (torch.nn.parallel.DistributedDataParallel, gloo, bucket_cap_mb ${PEER_CAP_MB:-25}, broadcast_buffers)"
    echo "# peer: torch $("$PEER_PY" -c 'import torch; print(torch.__version__)' 2>/dev/null), 1 intra-op thread per rank; random inputs of the model's input shape (a timing: no accuracy)"
    echo "# ranks: $np"
    echo "# timing: first $((steps + 1)) steps timed (forward to optimizer), the first discarded; mean per rank, then over ranks"
    echo "sync,np,batch_per_rank,model,width,params,layout,timed,ms_mean,s_per_iter,ms_rank_min,ms_rank_max"
    awk -v np="$np" -v b="$batch" -v m="$model" -v w="$width" -v p="$(f params)" -v l="$(f layout)" -v t="$(f timed)" \
        -v ms="$(f ms_mean)" -v lo="$(f ms_rank_min)" -v hi="$(f ms_rank_max)" \
        'BEGIN { printf "pytorch_ddp,%d,%d,%s,%s,%s,%s,%s,%.3f,%.4f,%.3f,%.3f\n", np, b, m, w, p, l, t, ms, ms / 1e3, lo, hi }'
  } > "$out"
  rm -f "$log" "$log".rank*
}

peer_lab3_run() { # model width np...
  [ "$PEER" = pytorch ] || return 0
  local model=$1 width=$2 np; shift 2
  source bench/peer/pair.sh
  lab_on_exit peer_pair_stop
  note "PyTorch DDP (gloo) at $* ranks, total batch 256 ($model width $width)"
  for np in "$@"; do peer_lab3_point "$np" "$model" "$width" || return 1; done
}
