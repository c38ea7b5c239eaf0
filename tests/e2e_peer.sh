#!/usr/bin/env bash
# e2e_peer.sh - ddlab's DDP and PyTorch DDP train the same model (about
# 2 minutes on 2 busy cores; no timing asserted). bin/bench/peer_ddp runs 5 DDP steps of
# CNN-3 at 2 ranks under mpirun on synthetic FP32 batches (batch 16 per
# rank) and writes its initial parameters (rank 0's, as DDP broadcast
# them), every rank's batches, the losses and the final parameters;
# bench/peer/torch_ddp.py replay starts PyTorch DDP (gloo, 2 processes on
# 127.0.0.1) from those parameters on those batches and checks: the same
# parameter layout, losses within 1e-3 relative at every rank and step,
# every tensor's change p5 - p0 within 1e-3 of its size (the tolerance and
# why: bench/peer/torch_ddp.py's docstring), and PyTorch's ranks equal.
# The same for VGG-11 at width 1/8 (batch norm in train mode, the BN
# buffers broadcast by both sides). Then: a PyTorch rank killed mid-run
# ends the pair within 30 s with no process left (bench/peer/pair.sh).
# Then make lab3 PEER=pytorch (smoke size): its curve, figure and table row,
# and its refusal under PLATFORM=. Without torch (or without gloo) every
# check is skipped, naming `make deps` (which installs it). Prints ok / not ok / skip.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin peer
PY=${BENCH_PYTHON:-/usr/bin/python3}
e2e_mpi
export OMP_WAIT_POLICY=PASSIVE
unset DDL_DEVICE DDL_PROFILE
e2e_need "$BIN/bench/peer_ddp"
if ! why=$(timeout 120 "$PY" bench/peer/torch_ddp.py probe 2>&1); then
  echo "skip - peer: ddlab's DDP against PyTorch DDP: ${why:-$PY cannot import torch: install python3-torch: make deps}"
  exit 0
fi
echo "# peer: $why"

# same MODEL WIDTH: ddlab's run, then PyTorch's replay and its checks
same() {
  local model=$1 width=$2 d=$tmp/$1
  mkdir -p "$d"
  if ! timeout 300 "${MPIRUN[@]}" -np 2 "$BIN/bench/peer_ddp" --model "$model" --width "$width" --batch 16 --steps 5 \
       --dump "$d/ddlab.ckpt" --out "$d/res" > "$d/ddlab.out" 2>&1; then
    bad "$model: bin/bench/peer_ddp --dump failed: $(tail -n 3 "$d/ddlab.out")"; fail=1; return
  fi
  timeout 300 "$PY" bench/peer/torch_ddp.py replay "$d/ddlab.ckpt" --work "$d" > "$d/torch.out" 2> "$d/torch.err"
  local rc=$?
  sed "s/^\(not \)\{0,1\}ok - peer: /&$model w$width: /" "$d/torch.out" | grep -E '^(ok|not ok) - '
  grep -q '^not ok' "$d/torch.out" && fail=1
  if [ $rc != 0 ] && ! grep -q '^not ok' "$d/torch.out"; then
    bad "$model: PyTorch's replay exited $rc: $(tail -n 3 "$d/torch.err")"; fail=1
  fi
  [ "$(grep -c '^ok' "$d/torch.out")" = 4 ] || { bad "$model: expected 4 ok lines from the replay"; fail=1; }
}
same cnn3 1
same vgg11 0.125

# make lab3 PEER=pytorch: the reference curve, table rows and figure (the
# lab's smoke settings: VGG-11 at width 1/8, 3 timed steps), and its
# refusal under a simulated platform.
if command -v gnuplot >/dev/null 2>&1 && [ -x "$BIN/lab3" ]; then
  L=$tmp/lab3
  NP=2 LAB3_SMOKE=1 PEER=pytorch BIN=$BIN RESULTS=$L/r FIGURES=$L/fig TABLES=$L/tab timeout 600 labs/lab3/run.sh \
    > "$tmp/lab3.log" 2>&1
  rc=$?
  row=$(grep -v '^#' "$L/r/peer.csv" 2>/dev/null | tail -n +2)
  if [ $rc = 0 ] && awk -F, '$1 == 2 && $3 > 0 && $4 > 0 && $5 > 0 { ok = 1 } END { exit !ok }' <<<"$row" &&
     [ -s "$L/fig/lab3-scaling-pytorch_ddp.png" ] && grep -q 'tab:lab3-peer' "$L/tab/lab3.tex" &&
     grep -q '^# program: bench/peer/torch_ddp.py' "$L/r/scaling-pytorch_ddp.csv" &&
     [ "$(grep -c '^[0-9]' "$L/r/table1.csv")" = 4 ]; then
    ok "make lab3 PEER=pytorch adds PyTorch DDP's curve, figure and table row beside DDP ($row); Table 1 keeps its 4 tasks"
  else
    bad "make lab3 PEER=pytorch: exit $rc, peer.csv row '$row': $(tail -n 3 "$tmp/lab3.log")"; fail=1
  fi
  if out=$(PEER=pytorch PLATFORM=cluster4 NP=2 DRY_RUN=1 labs/lab3/run.sh 2>&1); then
    bad "make lab3 PEER=pytorch PLATFORM=cluster4 was not refused"; fail=1
  elif grep -q 'SimGrid cannot simulate' <<<"$out"; then
    ok "make lab3 PEER=pytorch under a simulated platform is refused with the reason"
  else
    bad "PEER=pytorch PLATFORM=cluster4 refused without the reason: $out"; fail=1
  fi
else
  echo "skip - peer: make lab3 PEER=pytorch needs gnuplot (make deps) and $BIN/lab3"
fi

# A PyTorch rank that dies: the pair ends within 30 s, nothing left.
source bench/peer/pair.sh
start=$SECONDS
port=$(( 29000 + $$ % 1000 ))
peer_pair 60 "$tmp/dead.out" "" -- step --model cnn3 --batch 8 --warmup 0 --steps 200 --port "$port" --die-after 2 \
  --timeout 20 2>/dev/null
rc=$? took=$(( SECONDS - start ))
# what is left of the sessions the pair started (each rank setsid: its pid
# is its session id), never a match on a name another process may share
left=$(ps -eo sid= | awk -v s=" ${PEER_PAIR_STARTED[*]} " 'index(s, " " $1 " ") { n++ } END { print n + 0 }')
if [ $rc != 0 ] && [ $took -le 30 ] && [ "$left" = 0 ]; then
  ok "a killed PyTorch rank ends the pair (exit $rc) in ${took} s, no process left"
else
  bad "a killed PyTorch rank: pair exit $rc after ${took} s, $left processes left: $(tail -n 2 "$tmp/dead.out.rank0")"
  fail=1
fi
exit $fail
