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
# outputs must name the emulated GPU. lab4's weight averaging and lab6's
# Horovod fusion and parameter server, and lab5's cloud and users (C-SGD,
# D-SGD, FedAvg, FP16) and lab2's training run there too. With --alg nccl
# (the emulator's NCCL, over MPI) lab3's ddp and allreduce keep their
# gradients in device memory and must still train as the CPU does with
# MPI_Allreduce, and lab6's Horovod too; lab2's microbenchmark times every
# algorithm, nccl included, on device buffers.
# Quick tier (DDL_TEST_TIER=quick, make test): one run of each distinct
# path (lab3 per-layer staging with accumulation, staging after backward,
# emulated NCCL; BN broadcast; Horovod over nccl; the parameter server;
# lab5 fedavg FP16; lab2 train and bench; the refusal) and none of the
# repeats (other lab3 strategies, lab4, lab6 Horovod through the host,
# lab5 csgd and dsgd). The sanitizer pass's quick form runs the C code
# only this script reaches under the sanitizers: lab3 ddp's device staging,
# lab5's cloud and users with FP16 on the device, lab2's bench on device
# buffers (emulated NCCL). Cases and reasons: the table below.
# ddl-test-san-quick: a lab's model in emulated device memory (core/sync/device_stage.c's host views, the emulated NCCL under lab2's bench, lab5's FP16 device GEMMs); the unit tests run the emulator's kernels alone
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin ""
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader -np 2)
tiny=(--model cnn3 --dataset mnist --synthetic --width 0.25 --batch 16 --iters 6 --limit 512 --test-limit 64 --quiet)
# Which cases run: the optimised pass of make test-full runs them all; the
# sanitizer pass (SANITIZE=1, 2-3x slower) one case of each staging path:
# per-layer (ddp), after backward (allreduce), in device memory (ddp over
# nccl), the parameter server, the cloud and its users (fedavg FP16).
# The quick tier (make test) keeps one run of each distinct path and drops
# the repetitions of one path (see the table below).
LAB3_SPECS=("ddp" "allreduce" "allreduce_flat" "gather_scatter" "ddp --accumulate 2" "ddp --alg nccl"
  "allreduce --alg nccl")
LAB5_SPECS=("csgd fp32 1" "dsgd fp16 3" "fedavg fp16 3")
# The other cases, by block: lab3 --bn broadcast; lab4's averaging and
# lab6's Horovod fusion through host staging; lab6's Horovod over nccl;
# lab6's parameter server; lab2's training; lab2's bench on device buffers;
# the refusal of nccl on the cpu.
BN=1 HOST_FUSION=1 HOROVOD_NCCL=1 PS=1 L2_TRAIN=1 L2_BENCH=1 L2_REFUSAL=1
# lab5's data: ResNet-18 on the emulated GPU is the slowest run here.
LAB5_DATA=(--epochs 2 --limit 256 --test-limit 64)
TIER=${DDL_TEST_TIER:-full}
case "${SANITIZE:-0}/$TIER" in
  0/full) ;;
  1/full)
    LAB3_SPECS=("ddp" "allreduce" "ddp --alg nccl") LAB5_SPECS=("fedavg fp16 3") HOST_FUSION=0 HOROVOD_NCCL=0
    echo "# sanitizer pass: lab3 ddp and allreduce, lab6 ps and lab5 fedavg only (the optimised pass runs every case)" ;;
  0/quick)
    # ddp --accumulate 2 stages per layer through the host on its
    # synchronising steps and accumulates on the device between them (so
    # it covers plain ddp); allreduce stages after backward (as
    # allreduce_flat and gather_scatter do, whose host algorithms the MPI
    # tests check); ddp --alg nccl reduces in device memory (allreduce
    # --alg nccl calls the same emulated NCCL on one buffer). lab6's
    # Horovod fusion runs over nccl, checked against the cpu's run; lab4's
    # averaging stages weights as lab3's allreduce stages gradients. lab5's
    # fedavg FP16 runs the cloud, its users and the FP16 device GEMMs
    # (dsgd and csgd reach the same device code), one round on half the
    # data (the second round repeats the first's code).
    LAB3_SPECS=("ddp --accumulate 2" "allreduce" "ddp --alg nccl") LAB5_SPECS=("fedavg fp16 3") HOST_FUSION=0
    LAB5_DATA=(--epochs 1 --limit 128 --test-limit 32)
    echo "# quick tier: lab3 ddp, allreduce_flat, gather_scatter and allreduce over nccl, lab4, lab6 horovod through the host, lab5 csgd and dsgd, lab5's second round left to make test-full (make test-full runs it)" ;;
  1/quick)
    # The C code only this script runs under the sanitizers: the device
    # staging of a lab's model (per layer, ddp), the emulated NCCL under a
    # lab (lab2's bench, every algorithm on device buffers), lab5's cloud
    # and users with FP16 device GEMMs. The optimised pass runs the rest.
    # lab5 on a quarter of the data: one step of each user, under ASan.
    LAB3_SPECS=("ddp") LAB5_SPECS=("fedavg fp16 3") BN=0 HOST_FUSION=0 HOROVOD_NCCL=0 PS=0 L2_TRAIN=0 L2_REFUSAL=0
    LAB5_DATA=(--epochs 1 --limit 64 --test-limit 16)
    echo "# quick tier: sanitizer pass: lab3 ddp, lab5 fedavg fp16 (one round) and lab2's bench on device buffers; the rest runs in the optimised pass (make test-full runs it)" ;;
esac
losses() { grep -v '^#' "$1" | awk -F, 'NR > 1 && $2 == 0 { printf "%s ", $NF }'; }
testloss() { grep -v '^#' "$1" | tail -n 1 | awk -F, '{ print $35 }'; }

for spec in "${LAB3_SPECS[@]}"; do
  name=${spec// /}
  for d in cpu cuda-emu; do
    # NCCL is the GPU's: the CPU's run of the same spec uses MPI_Allreduce.
    run=$spec
    [ "$d" = cpu ] && run=${spec/--alg nccl/--alg mpi}
    # shellcheck disable=SC2086
    timeout 600 "${MPIRUN[@]}" "$BIN/lab3" run --sync $run "${tiny[@]}" --device "$d" --out "$tmp/$name-$d" \
      --tag t >"$tmp/$name-$d.log" 2>&1 || { bad "lab3 --sync $spec --device $d runs: $(tail -c 300 "$tmp/$name-$d.log")"; continue 2; }
  done
  a=$(losses "$tmp/$name-cpu/t-iters.csv") b=$(losses "$tmp/$name-cuda-emu/t-iters.csv")
  ta=$(testloss "$tmp/$name-cpu/t-summary.csv") tb=$(testloss "$tmp/$name-cuda-emu/t-summary.csv")
  if [ -n "$a" ] && awk -v a="$a $ta" -v b="$b $tb" 'BEGIN { n = split(a, x, " "); m = split(b, y, " "); if (n != m || n < 7) exit 1;
      for (i = 1; i <= n; i++) { d = x[i] - y[i]; if (d < 0) d = -d; if (d > 1e-4 * (x[i] < 0 ? -x[i] : x[i])) exit 1 } }'; then
    ok "lab3 --sync $spec, 2 ranks on cuda-emu trains as on the cpu (losses $b, test loss $tb)"
  else
    bad "lab3 --sync $spec, 2 ranks on cuda-emu trains as on the cpu (cpu: $a/$ta; cuda-emu: $b/$tb)"
  fi
  if [[ "$spec" == *"--alg nccl"* ]]; then
    where=$(sed -n 's/^# gradients: //p' "$tmp/$name-cuda-emu/t-summary.csv")
    [[ "$where" == "reduced in device memory by emulated NCCL"* ]] &&
      ok "lab3 --sync $spec keeps the gradients in device memory ($where)" ||
      bad "lab3 --sync $spec keeps the gradients in device memory (gradients: '$where')"
  fi
  detail=$(sed -n 's/^# device_detail: //p' "$tmp/$name-cuda-emu/t-summary.csv")
  [[ "$detail" == *"emulated GPU"* ]] && ok "lab3 --sync $spec on cuda-emu names the emulated GPU" ||
    bad "lab3 --sync $spec on cuda-emu names the emulated GPU (device_detail: '$detail')"
done

# lab3 --bn broadcast: rank 0's batch-norm statistics go to every rank
# before the evaluation too, and a device model's must go through host
# staging (an MPI_Bcast of device memory crashed: the arenas are out of the
# host's reach). resnet18 has BN layers (cnn3 above has none).
bn=(--model resnet18 --dataset cifar10 --width 0.1 --limit 48 --test-limit 8 --global-batch 4 --iters 2 --timed 2
  --synthetic --sync allreduce --bn broadcast --quiet --tag t)
for d in cpu cuda-emu; do
  [ "$BN" = 1 ] || break
  timeout 600 "${MPIRUN[@]}" "$BIN/lab3" run "${bn[@]}" --device "$d" --out "$tmp/bn-$d" >"$tmp/bn-$d.log" 2>&1
  echo "$?" >"$tmp/bn-$d.rc"
done
ta=$(testloss "$tmp/bn-cpu/t-summary.csv" 2>/dev/null) tb=$(testloss "$tmp/bn-cuda-emu/t-summary.csv" 2>/dev/null)
if [ "$BN" != 1 ]; then :
elif [ "$(cat "$tmp/bn-cuda-emu.rc")" = 0 ] && [ -n "$ta" ] &&
    awk -v a="$ta" -v b="$tb" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b != "" && d <= 1e-3 * (a < 0 ? -a : a)) }'; then
  ok "lab3 --bn broadcast, resnet18, 2 ranks on cuda-emu: BN statistics staged to the broadcast before evaluation (test loss $tb, cpu $ta)"
else
  bad "lab3 --bn broadcast, resnet18, 2 ranks on cuda-emu evaluates as the cpu (exit $(cat "$tmp/bn-cuda-emu.rc"); test loss cpu '$ta', cuda-emu '$tb'): $(tail -c 300 "$tmp/bn-cuda-emu.log")"
fi

# lab4: weight averaging (all together, and in pairs) after local steps;
# lab6: Horovod-style fusion, 3 ranks. Their result rows must agree.
MPIRUN3=("${MPIRUN[@]:0:${#MPIRUN[@]}-1}" 3)
same_rows() { # label, cpu csv, emu csv, columns to compare (awk field list)
  local a b
  a=$(grep -v '^#' "$2" | awk -F, -v c="$4" 'NR > 1 { n = split(c, k, " "); for (i = 1; i <= n; i++) printf "%s ", $k[i] }')
  b=$(grep -v '^#' "$3" | awk -F, -v c="$4" 'NR > 1 { n = split(c, k, " "); for (i = 1; i <= n; i++) printf "%s ", $k[i] }')
  if [ -n "$a" ] && awk -v a="$a" -v b="$b" 'BEGIN { n = split(a, x, " "); m = split(b, y, " "); if (n != m) exit 1;
      for (i = 1; i <= n; i++) { d = x[i] - y[i]; if (d < 0) d = -d; if (d > 1e-3 * (x[i] < 0 ? -x[i] : x[i]) + 1e-6) exit 1 } }'; then
    ok "$1 on cuda-emu agrees with the cpu ($b)"
  else
    bad "$1 on cuda-emu agrees with the cpu (cpu: $a; cuda-emu: $b)"
  fi
}
for d in cpu cuda-emu; do
  # The cpu's Horovod run is the nccl one's reference too.
  [ "$HOST_FUSION" = 1 ] || [ "$HOROVOD_NCCL$d" = 1cpu ] || continue
  if [ "$HOST_FUSION" = 1 ]; then
    timeout 600 "${MPIRUN3[@]}" "$BIN/lab4" run --scheme group --passes ar,1 --iters 2 --limit 300 --synthetic --width 0.25 \
      --device "$d" --out "$tmp/l4-$d" --quiet >"$tmp/l4-$d.log" 2>&1 || bad "lab4 --device $d runs: $(tail -c 300 "$tmp/l4-$d.log")"
  fi
  timeout 600 "${MPIRUN3[@]}" "$BIN/lab6" run --workload sdss_dnn-sdss --style horovod --iters 5 --synthetic \
    --device "$d" --out "$tmp/l6-$d" --tag t --quiet >"$tmp/l6-$d.log" 2>&1 || bad "lab6 --device $d runs: $(tail -c 300 "$tmp/l6-$d.log")"
done
# lab4 runs: accuracy, test_loss, consensus (cols 20 21 23); lab6: test accuracy and loss (22 23)
if [ "$HOST_FUSION" = 1 ]; then
  same_rows "lab4 3 ranks, all-reduce and pairwise averaging (accuracy, test loss, consensus)" \
    "$tmp/l4-cpu/runs-np3.csv" "$tmp/l4-cuda-emu/runs-np3.csv" "20 21 23"
  same_rows "lab6 3 ranks, horovod fusion (test accuracy, test loss)" "$tmp/l6-cpu/t-summary.csv" \
    "$tmp/l6-cuda-emu/t-summary.csv" "22 23"
fi
if [ "$HOROVOD_NCCL" = 1 ]; then
  timeout 600 "${MPIRUN3[@]}" "$BIN/lab6" run --workload sdss_dnn-sdss --style horovod --alg nccl --iters 5 --synthetic \
    --device cuda-emu --out "$tmp/l6n" --tag t --quiet >"$tmp/l6n.log" 2>&1 || bad "lab6 --alg nccl runs: $(tail -c 300 "$tmp/l6n.log")"
  same_rows "lab6 3 ranks, horovod fusion over nccl (test accuracy, test loss; the cpu's over ddlab's ring)" \
    "$tmp/l6-cpu/t-summary.csv" "$tmp/l6n/t-summary.csv" "22 23"
fi

for d in cpu cuda-emu; do
  [ "$PS" = 1 ] || break
  timeout 600 "${MPIRUN3[@]}" "$BIN/lab6" run --workload sdss_dnn-sdss --style ps --iters 5 --synthetic \
    --device "$d" --out "$tmp/l6ps-$d" --tag t --quiet >"$tmp/l6ps-$d.log" 2>&1 || bad "lab6 ps --device $d runs: $(tail -c 300 "$tmp/l6ps-$d.log")"
done
[ "$PS" = 1 ] && same_rows "lab6 3 ranks, parameter server (test accuracy, test loss)" "$tmp/l6ps-cpu/t-summary.csv" "$tmp/l6ps-cuda-emu/t-summary.csv" "22 23"
# lab5: the cloud and its users (C-SGD one process; D-SGD and FedAvg with
# FP16 payloads and mixed precision: real FP16 GEMM operands on the device).
for spec in "${LAB5_SPECS[@]}"; do
  # shellcheck disable=SC2086
  set -- $spec
  for d in cpu cuda-emu; do
    timeout 600 mpirun --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader -np "$3" "$BIN/lab5" run \
      --scheme "$1" --precision "$2" "${LAB5_DATA[@]}" --width 0.0625 --synthetic --device "$d" \
      --out "$tmp/l5-$1-$d" --tag t --quiet >"$tmp/l5-$1-$d.log" 2>&1 ||
      bad "lab5 --scheme $1 --device $d runs: $(tail -c 300 "$tmp/l5-$1-$d.log")"
  done
  # epochs: rounds, payload bytes up and down, val accuracy, val loss (5 6 7 9 10)
  same_rows "lab5 $1 $2 on $3 rank(s) (rounds, bytes, val accuracy and loss per epoch)" \
    "$tmp/l5-$1-cpu/epochs-t.csv" "$tmp/l5-$1-cuda-emu/epochs-t.csv" "5 6 7 9 10"
done
if grep -q "^# precision: fp16 mixed precision (FP16 GEMM operands with FP32 accumulation on the emulated GPU" \
    "$tmp/l5-fedavg-cuda-emu/summary-t.csv"; then
  ok "lab5 fp16 on cuda-emu says its FP16 GEMMs ran on the emulated GPU"
else
  bad "lab5 fp16 on cuda-emu says how FP16 ran ($(grep '^# precision' "$tmp/l5-fedavg-cuda-emu/summary-t.csv"))"
fi

# lab2: the MLP whose weights every allreduce algorithm averages; its
# microbenchmark comes after.
for d in cpu cuda-emu; do
  [ "$L2_TRAIN" = 1 ] || break
  timeout 600 "${MPIRUN[@]}" "$BIN/lab2" train --hidden 16 --epochs 1 --synthetic --limit 512 --test-limit 128 \
    --device "$d" --out "$tmp/l2-$d" --quiet >"$tmp/l2-$d.log" 2>&1 || bad "lab2 train --device $d runs: $(tail -c 300 "$tmp/l2-$d.log")"
done
# every algorithm: test accuracy, test loss (11 12)
[ "$L2_TRAIN" = 1 ] && same_rows "lab2 train, 2 ranks, weights averaged by each of the 7 algorithms (test accuracy, test loss)" \
  "$tmp/l2-cpu/train-np2.csv" "$tmp/l2-cuda-emu/train-np2.csv" "11 12"
# lab2 bench on device buffers: NCCL (the emulator's, over MPI) in place,
# the host algorithms staged through pinned memory; every result checked.
if [ "$L2_BENCH" = 1 ]; then
  timeout 300 "${MPIRUN[@]}" "$BIN/lab2" bench --device cuda-emu --algs all,nccl --sizes 4,4k,256k --no-calibrate \
    --out "$tmp/l2b" --tag t --quiet >"$tmp/l2b.log" 2>&1
  rc=$?
  rows=$(grep -v '^#' "$tmp/l2b/bench-t.csv" 2>/dev/null | awk -F, 'NR > 1 { n++; if ($12 != 0) bad++; if ($1 == "nccl") nc++ }
    END { printf "%d %d %d", n, bad, nc }')
  if [ $rc -eq 0 ] && [ "$rows" = "24 0 3" ] && grep -q "^# buffers: emulated GPU memory; nccl reduces it in place" "$tmp/l2b/bench-t.csv"; then
    ok "lab2 bench on cuda-emu times 8 algorithms on device buffers, nccl included, none wrong (rows, wrong, nccl: $rows)"
  else
    bad "lab2 bench on cuda-emu times device buffers (rc $rc; rows, wrong, nccl: $rows): $(tail -c 300 "$tmp/l2b.log")"
  fi
fi
if [ "$L2_REFUSAL" = 1 ]; then
  timeout 300 "$BIN/lab2" bench --device cpu --algs nccl --out "$tmp/l2c" >"$tmp/l2c.log" 2>&1
  rc=$?
  if [ $rc -eq 2 ] && grep -q "nccl runs on GPU memory: use DEVICE=cuda" "$tmp/l2c.log"; then
    ok "--algs nccl on the cpu stops (rc 2) and says what to use"
  else
    bad "--algs nccl on the cpu stops with a reason (rc $rc): $(tail -c 300 "$tmp/l2c.log")"
  fi
fi
exit $fail
