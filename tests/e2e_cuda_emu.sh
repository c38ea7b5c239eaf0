#!/usr/bin/env bash
# e2e_cuda_emu.sh - data-parallel training on the emulated GPU, end to end:
# lab3 with 2 ranks on --device cuda-emu against the same run on the CPU,
# for the strategies that overlap buckets with backward (ddp, per layer as
# each layer's gradients are staged), reduce after backward (allreduce,
# allreduce_flat, gather_scatter) and accumulate (ddp --accumulate 2).
# The model's arenas live in emulated device memory, out of the host's
# reach; the rows get host views (core/sync/device_stage.c). Every
# iteration's loss on rank 0 and the test loss must agree with the CPU's to
# 1e-4 relative (reductions may sum in another order on a GPU), and the
# outputs must name the emulated GPU. Programs whose rows run the optimizer
# on the host (lab6's parameter server) must refuse the device clearly.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader -np 2)
tiny=(--model cnn3 --dataset mnist --synthetic --width 0.25 --batch 16 --iters 6 --limit 512 --test-limit 64 --quiet)
losses() { grep -v '^#' "$1" | awk -F, 'NR > 1 && $2 == 0 { printf "%s ", $NF }'; }
testloss() { grep -v '^#' "$1" | tail -n 1 | awk -F, '{ print $35 }'; }

for spec in "ddp" "allreduce" "allreduce_flat" "gather_scatter" "ddp --accumulate 2"; do
  name=${spec// /}
  for d in cpu cuda-emu; do
    # shellcheck disable=SC2086
    timeout 600 "${MPIRUN[@]}" "$BIN/lab3" run --sync $spec "${tiny[@]}" --device "$d" --out "$tmp/$name-$d" \
      --tag t >"$tmp/$name-$d.log" 2>&1 || { echo "not ok - lab3 --sync $spec --device $d runs: $(tail -c 300 "$tmp/$name-$d.log")"; continue 2; }
  done
  a=$(losses "$tmp/$name-cpu/t-iters.csv") b=$(losses "$tmp/$name-cuda-emu/t-iters.csv")
  ta=$(testloss "$tmp/$name-cpu/t-summary.csv") tb=$(testloss "$tmp/$name-cuda-emu/t-summary.csv")
  if [ -n "$a" ] && awk -v a="$a $ta" -v b="$b $tb" 'BEGIN { n = split(a, x, " "); m = split(b, y, " "); if (n != m || n < 7) exit 1;
      for (i = 1; i <= n; i++) { d = x[i] - y[i]; if (d < 0) d = -d; if (d > 1e-4 * (x[i] < 0 ? -x[i] : x[i])) exit 1 } }'; then
    echo "ok - lab3 --sync $spec, 2 ranks on cuda-emu trains as on the cpu (losses $b, test loss $tb)"
  else
    echo "not ok - lab3 --sync $spec, 2 ranks on cuda-emu trains as on the cpu (cpu: $a/$ta; cuda-emu: $b/$tb)"
  fi
  detail=$(sed -n 's/^# device_detail: //p' "$tmp/$name-cuda-emu/t-summary.csv")
  [[ "$detail" == *"emulated GPU"* ]] && echo "ok - lab3 --sync $spec on cuda-emu names the emulated GPU" ||
    echo "not ok - lab3 --sync $spec on cuda-emu names the emulated GPU (device_detail: '$detail')"
done

timeout 300 "${MPIRUN[@]}" "$BIN/lab6" run --device cuda-emu --out "$tmp/l6" >"$tmp/l6.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "DEVICE=cuda-emu: found" "$tmp/l6.log"; then
  echo "ok - lab6 on cuda-emu refuses (rc $rc) and says why: $(grep -o 'does not train on the GPU yet' "$tmp/l6.log" | head -1)"
else
  echo "not ok - lab6 on cuda-emu refuses with a reason (rc $rc): $(tail -c 300 "$tmp/l6.log")"
fi
