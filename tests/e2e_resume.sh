#!/usr/bin/env bash
# e2e_resume.sh - checkpoint and resume (core/driver/resume.c): a run cut
# short and continued ends bit-identical to one that was not.
#
#   lab1   cnn3, 60 iterations, against 40 with --checkpoint and then
#          --resume to 60; and against one killed (SIGKILL) after a
#          checkpoint and continued the way `make lab1 RESUME=1` does
#          ($DDL_CHECKPOINT_ROOT, $DDL_RESUME=1)
#   lab3   2 ranks, DDP: 12 steps against 8 + resume to 12
#   lab5   FedAvg, a cloud and 2 users: 2 rounds against 1 + resume to 2
#   lab4   its configurations one after another, killed between two
#   lab6   a parameter server and 2 workers: 20 steps against 12 + 8
# "Identical" compares every number a run computes (losses, accuracies,
# the model's) and leaves out what a clock measures. Then the refusals: a
# corrupt, truncated, other-version or other-settings checkpoint, other
# rank counts, a checkpoint past --iters, files that are not files
# (/dev/zero, a FIFO), swapped rank files, other data (synthetic against
# real, one changed byte), a directory another run holds; and a checkpoint
# that fails mid-run, which keeps the results. Prints ok / not ok lines.
# Quick tier (DDL_TEST_TIER=quick, make test): every lab's resume and every
# kind of refusal once; make test-full adds the repeats of one reader or
# comparison path: the truncated and the no-checkpoint file (the corrupt
# one and the other version take the same header and CRC checks), another
# model and an empty --resume (the --lr refusal and the CLI's own checks),
# another lab3 strategy (the settings comparison again), /dev/zero as a
# rank file and as checkpoint.txt (the FIFO takes the same not-a-file
# path; test_checkpoint_read checks each kind). The sanitizer
# pass's quick form also leaves lab4 and lab5 to make test-full: lab1, lab3
# and lab6 run the driver's checkpoint code, and lab5's ResNet-18 is the
# slowest run here under ASan.
# ddl-test-san-quick: the checkpoint and resume code (core/driver/resume.c, core/results/checkpoint.c's writers, the labs' saved state) runs in no unit or MPI test
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin resume
e2e_mpi
export OMP_WAIT_POLICY=PASSIVE
unset DDL_CHECKPOINT_ROOT DDL_RESUME
FULL=1 LAB45=1
if [ "${DDL_TEST_TIER:-full}" = quick ]; then
  FULL=0
  [ "${SANITIZE:-0}" = 1 ] && LAB45=0
  echo "# quick tier: the truncated, no-checkpoint, other-model, empty --resume, other-strategy and /dev/zero refusals$([ $LAB45 = 0 ] && echo ", lab4 and lab5") left to make test-full (make test-full runs it)"
fi
# cols FILE COL...: those columns of a results CSV, comma-joined rows.
cols() {
  local f=$1; shift
  awk -F, -v want="$*" '/^#/ {next}
    !h {n = split(want, w, " "); for (j = 1; j <= n; j++) for (i = 1; i <= NF; i++) if ($i == w[j]) k[j] = i; h = 1; next}
    {s = ""; for (j = 1; j <= n; j++) s = s (j > 1 ? "," : "") (k[j] ? $(k[j]) : "?"); print s}' "$f" 2>/dev/null
}
# same NAME A B COL...: the columns agree (and exist, with rows).
same() {
  local name=$1 a=$2 b=$3; shift 3
  local x y
  x=$(cols "$a" "$@"); y=$(cols "$b" "$@")
  check "$([ -n "$x" ] && [ "$x" = "$y" ] && ! grep -q '?' <<< "$x"; echo $?)" "$name" \
    "$(diff <(echo "$x") <(echo "$y") | head -4 | tr '\n' ' ')"
}
for p in lab1 lab3 lab4 lab5 lab6; do
  if [ ! -x "$BIN/$p" ]; then bad "$BIN/$p is not built"; exit 1; fi
done

# ---- lab1: 60 against 40 + 20 -------------------------------------------
lab1=(--model cnn3 --dataset mnist --synthetic --batch 16 --width 0.25 --limit 512 --test-limit 128 --quiet
      --figures "$tmp/fig")
"$BIN/lab1" "${lab1[@]}" --iters 60 --out "$tmp/l1/full" --tag t 2> "$tmp/l1.err"
check $? "lab1: 60 iterations uninterrupted" "$(tail -2 "$tmp/l1.err")"
"$BIN/lab1" "${lab1[@]}" --iters 40 --checkpoint "$tmp/l1/ck" --out "$tmp/l1/cut" --tag t 2>> "$tmp/l1.err"
check $? "lab1: 40 iterations with --checkpoint" "$(tail -2 "$tmp/l1.err")"
check "$([ -s "$tmp/l1/ck/checkpoint.txt" ] && [ -s "$tmp/l1/ck/rank0-b40.ckpt" ]; echo $?)" \
  "lab1: the checkpoint holds rank 0's file of batch 40, named by checkpoint.txt" "$(ls "$tmp/l1/ck" | tr '\n' ' ')"
check "$([ "$(ls "$tmp/l1/ck" | grep -c ckpt)" = 1 ]; echo $?)" "lab1: older generations are removed" \
  "$(ls "$tmp/l1/ck" | tr '\n' ' ')"
"$BIN/lab1" "${lab1[@]}" --iters 60 --resume "$tmp/l1/ck" --out "$tmp/l1/res" --tag t 2>> "$tmp/l1.err"
check $? "lab1: --resume to 60" "$(tail -2 "$tmp/l1.err")"
F=$tmp/l1/full R=$tmp/l1/res
same "lab1: resumed summary equals the uninterrupted one" "$F/t-summary.csv" "$R/t-summary.csv" \
  iterations final_loss test_loss test_accuracy params
same "lab1: every iteration's loss and accuracy equal" "$F/t-iters.csv" "$R/t-iters.csv" iter epoch loss batch_accuracy
same "lab1: every epoch row equal" "$F/t-epochs.csv" "$R/t-epochs.csv" epoch iter train_loss train_accuracy \
  test_loss test_accuracy

# killed (SIGKILL, at a known point: DDL_FAULT_KILL_AFTER) after the
# checkpoint at batch 30, continued as make lab1 RESUME=1 does
root=$tmp/l1/root
# (an inner shell reports the kill, to /dev/null)
DDL_FAULT_KILL_AFTER=30 DDL_CHECKPOINT_ROOT=$root bash -c '"$@" 2>> "$0"' "$tmp/l1.err" "$BIN/lab1" "${lab1[@]}" \
  --iters 100 --checkpoint-every 10 --out "$tmp/l1/killed" --tag t 2> /dev/null
st=$?
b=$(sed -n 's/^batch: //p' "$root/lab1-t/checkpoint.txt" 2>/dev/null)
check "$([ $st = 137 ] && [ "$b" = 30 ] && [ ! -e "$tmp/l1/killed/t-summary.csv" ]; echo $?)" \
  "lab1: killed (SIGKILL) mid-run, right after its checkpoint at batch 30" "status $st, checkpoint at '$b'"
"$BIN/lab1" "${lab1[@]}" --iters 100 --out "$tmp/l1/full100" --tag t 2>> "$tmp/l1.err"
DDL_CHECKPOINT_ROOT=$root DDL_RESUME=1 "$BIN/lab1" "${lab1[@]}" --iters 100 --checkpoint-every 10 \
  --out "$tmp/l1/killed" --tag t 2> "$tmp/l1k.err"
check $? "lab1: DDL_RESUME=1 continues the killed run" "$(tail -2 "$tmp/l1k.err")"
grep -q "resumed from $root/lab1-t at batch $b" "$tmp/l1k.err"
check $? "lab1: it says where it continued from" "$(head -2 "$tmp/l1k.err")"
same "lab1: the killed-and-resumed run ends equal to an uninterrupted one" "$tmp/l1/full100/t-summary.csv" \
  "$tmp/l1/killed/t-summary.csv" iterations final_loss test_loss test_accuracy
same "lab1: ... and so does every iteration" "$tmp/l1/full100/t-iters.csv" "$tmp/l1/killed/t-iters.csv" iter loss
# the same run name with other settings under DDL_RESUME=1 is another run: it starts afresh
DDL_CHECKPOINT_ROOT=$root DDL_RESUME=1 "$BIN/lab1" "${lab1[@]}" --lr 0.02 --iters 20 --out "$tmp/l1/other" \
  --tag t 2> "$tmp/l1o.err"
check "$([ $? = 0 ] && grep -q "starting afresh" "$tmp/l1o.err" && [ -s "$tmp/l1/other/t-summary.csv" ]; echo $?)" \
  "lab1: DDL_RESUME=1 with other settings starts afresh (--resume refuses them)" "$(head -2 "$tmp/l1o.err")"

# ---- lab3: 2 ranks, DDP --------------------------------------------------
lab3=(run --model cnn3 --dataset mnist --synthetic --batch 16 --width 0.25 --limit 512 --test-limit 128
      --timed 12 --quiet --tag t)
"${MPIRUN[@]}" -np 2 "$BIN/lab3" "${lab3[@]}" --sync ddp --iters 12 --out "$tmp/l3/full" 2> "$tmp/l3.err"
check $? "lab3: 2-rank DDP, 12 steps" "$(tail -2 "$tmp/l3.err")"
"${MPIRUN[@]}" -np 2 "$BIN/lab3" "${lab3[@]}" --sync ddp --iters 8 --checkpoint "$tmp/l3/ck" --out "$tmp/l3/cut" 2>> "$tmp/l3.err"
check "$([ $? = 0 ] && [ -s "$tmp/l3/ck/rank1-b8.ckpt" ]; echo $?)" "lab3: 8 steps, a checkpoint file per rank" \
  "$(ls "$tmp/l3/ck" 2>&1 | tr '\n' ' ')"
"${MPIRUN[@]}" -np 2 "$BIN/lab3" "${lab3[@]}" --sync ddp --iters 12 --resume "$tmp/l3/ck" --out "$tmp/l3/res" 2>> "$tmp/l3.err"
check $? "lab3: --resume to 12" "$(tail -2 "$tmp/l3.err")"
same "lab3: every step's loss on every rank equals the uninterrupted run's" "$tmp/l3/full/t-iters.csv" \
  "$tmp/l3/res/t-iters.csv" iter rank loss
same "lab3: the summary's accuracy and traffic equal" "$tmp/l3/full/t-summary.csv" "$tmp/l3/res/t-summary.csv" \
  iters timed test_loss test_accuracy test_loss_min test_loss_max test_acc_min grad_bytes bytes_sent_per_step
"${MPIRUN[@]}" -np 3 "$BIN/lab3" "${lab3[@]}" --sync ddp --iters 12 --resume "$tmp/l3/ck" --out "$tmp/l3/x" 2> "$tmp/l3r.err"
check "$([ $? = 2 ] && grep -q "ranks 2.*ranks 3" "$tmp/l3r.err"; echo $?)" \
  "lab3: a checkpoint of 2 ranks is refused at 3, naming both" "$(head -3 "$tmp/l3r.err")"
if [ "$FULL" = 1 ]; then
  "${MPIRUN[@]}" -np 2 "$BIN/lab3" "${lab3[@]}" --sync allreduce_flat --iters 12 --resume "$tmp/l3/ck" \
    --out "$tmp/l3/x" 2> "$tmp/l3s.err"
  check "$([ $? = 2 ] && grep -q "sync ddp" "$tmp/l3s.err"; echo $?)" "lab3: another strategy is refused" \
    "$(head -3 "$tmp/l3s.err")"
fi

# ---- lab5: FedAvg, a cloud and 2 users -----------------------------------
if [ "$LAB45" = 1 ]; then
  lab5=(run --scheme fedavg --synthetic --width 0.125 --limit 128 --test-limit 64 --batch 32 --eval-batch 64 --quiet
        --tag t)
  "${MPIRUN[@]}" -np 3 "$BIN/lab5" "${lab5[@]}" --epochs 2 --out "$tmp/l5/full" 2> "$tmp/l5.err"
  check $? "lab5: FedAvg, 2 rounds" "$(tail -2 "$tmp/l5.err")"
  "${MPIRUN[@]}" -np 3 "$BIN/lab5" "${lab5[@]}" --epochs 1 --checkpoint "$tmp/l5/ck" --out "$tmp/l5/cut" 2>> "$tmp/l5.err"
  check $? "lab5: 1 round with --checkpoint" "$(tail -2 "$tmp/l5.err")"
  "${MPIRUN[@]}" -np 3 "$BIN/lab5" "${lab5[@]}" --epochs 2 --resume "$tmp/l5/ck" --out "$tmp/l5/res" 2>> "$tmp/l5.err"
  check $? "lab5: --resume to 2 rounds" "$(tail -2 "$tmp/l5.err")"
  same "lab5: every round's accuracy, losses and payload equal" "$tmp/l5/full/epochs-t.csv" "$tmp/l5/res/epochs-t.csv" \
    epoch rounds payload_up_bytes payload_down_bytes val_accuracy val_loss train_loss train_accuracy loss_scale
  same "lab5: the summary equals" "$tmp/l5/full/summary-t.csv" "$tmp/l5/res/summary-t.csv" rounds payload_up_bytes \
    payload_down_bytes state_bytes control_bytes bytes_match final_accuracy best_accuracy final_train_loss

  # ---- lab4: several configurations, killed between two of them -----------
  lab4=(run --synthetic --limit 96 --test-limit 60 --batch 8 --width 0.25 --iters-base 3 --iters-step 1 --quiet)
  "${MPIRUN[@]}" -np 3 "$BIN/lab4" "${lab4[@]}" --out "$tmp/l4/full" --checkpoint "$tmp/l4/ck" --checkpoint-every 2 \
    2> "$tmp/l4.err"
  check "$([ $? = 0 ] && [ -s "$tmp/l4/ck/k=1/checkpoint.txt" ] && [ -s "$tmp/l4/ck/k=2/checkpoint.txt" ]; echo $?)" \
    "lab4: each configuration checkpoints into its own folder" "$(ls "$tmp/l4/ck" 2>&1 | tr '\n' ' ')"
  rm -rf "$tmp/l4/ck/k=2" # its order: all-reduce, k=2, k=1: as if killed before k=2's first checkpoint
  "${MPIRUN[@]}" -np 3 "$BIN/lab4" "${lab4[@]}" --out "$tmp/l4/res" --resume "$tmp/l4/ck" 2>> "$tmp/l4.err"
  check $? "lab4: --resume continues from the last configuration checkpointed" "$(tail -2 "$tmp/l4.err")"
  same "lab4: every configuration's row equals (bytes, accuracy, consensus)" "$tmp/l4/full/runs-np3.csv" \
    "$tmp/l4/res/runs-np3.csv" scheme passes iterations rounds bytes_sent bytes_match accuracy test_loss \
    accuracy_avg_model consensus train_loss
  same "lab4: every iteration row equals" "$tmp/l4/full/iters-np3.csv" "$tmp/l4/res/iters-np3.csv" label iteration \
    rounds bytes_sent accuracy test_loss train_loss consensus
fi

# ---- lab6: a parameter server and 2 workers ------------------------------
lab6=(run --workload sdss_dnn-sdss --style ps --synthetic --limit 2000 --test-limit 500 --quiet --tag t)
"${MPIRUN[@]}" -np 3 "$BIN/lab6" "${lab6[@]}" --iters 20 --out "$tmp/l6/full" 2> "$tmp/l6.err"
"${MPIRUN[@]}" -np 3 "$BIN/lab6" "${lab6[@]}" --iters 12 --out "$tmp/l6/cut" --checkpoint "$tmp/l6/ck" 2>> "$tmp/l6.err"
"${MPIRUN[@]}" -np 3 "$BIN/lab6" "${lab6[@]}" --iters 20 --out "$tmp/l6/res" --resume "$tmp/l6/ck" 2>> "$tmp/l6.err"
check $? "lab6: ps, 12 steps + resume to 20" "$(tail -2 "$tmp/l6.err")"
same "lab6: accuracy, loss and traffic equal the uninterrupted run's" "$tmp/l6/full/t-summary.csv" \
  "$tmp/l6/res/t-summary.csv" iters test_accuracy_pct test_loss bytes_per_rank bytes_max_rank

# make labN RESUME=1: labs/common.sh hands the driver where and whether
env=$(cd "$tmp" && mkdir -p labs/x && cp "$OLDPWD/labs/common.sh" labs/ && cd labs/x &&
      RESUME=1 RESULTS=$tmp/rr bash -c 'source ../common.sh >/dev/null 2>&1; echo "$DDL_RESUME $DDL_CHECKPOINT_ROOT"')
check "$([ "$env" = "1 $tmp/rr/checkpoints" ]; echo $?)" "RESUME=1 sets DDL_RESUME and the checkpoint root" "$env"
RESUME=maybe bash -c 'source labs/common.sh' > /dev/null 2> "$tmp/rm.err"
check "$([ $? = 2 ] && grep -q "RESUME must be 0 or 1" "$tmp/rm.err"; echo $?)" "RESUME=maybe is refused"

# ---- refusals --------------------------------------------------------------
ck=$tmp/l1/ck/rank0-b40.ckpt
refused() { # name pattern file-to-use [extra args...]
  local name=$1 pat=$2 dir=$3; shift 3
  "$BIN/lab1" "${lab1[@]}" --iters 60 --resume "$dir" --out "$tmp/l1/x" --tag t "$@" > /dev/null 2> "$tmp/ref.err"
  local st=$?
  check "$([ $st = 2 ] && grep -qi -- "$pat" "$tmp/ref.err"; echo $?)" "refused: $name" "status $st: $(head -2 "$tmp/ref.err")"
}
copy() { rm -rf "$tmp/bad"; cp -r "$tmp/l1/ck" "$tmp/bad"; }
copy; printf '\xff' | dd of="$tmp/bad/rank0-b40.ckpt" bs=1 seek=5000 conv=notrunc 2>/dev/null
refused "a checkpoint with one byte changed (corrupt)" "corrupt" "$tmp/bad"
if [ "$FULL" = 1 ]; then
  copy; truncate -s -100 "$tmp/bad/rank0-b40.ckpt"
  refused "a truncated checkpoint" "corrupt or truncated" "$tmp/bad"
fi
copy; printf '\x07' | dd of="$tmp/bad/rank0-b40.ckpt" bs=1 seek=8 conv=notrunc 2>/dev/null
refused "another format version" "format version 7" "$tmp/bad"
if [ "$FULL" = 1 ]; then
  copy; printf 'not a checkpoint' > "$tmp/bad/rank0-b40.ckpt"
  refused "a file that is no checkpoint" "not a ddlab checkpoint" "$tmp/bad"
fi
refused "other settings (--lr), naming the option" "written with '--lr 0.05', this run has '--lr 0.02'" "$tmp/l1/ck" \
  --lr 0.02
if [ "$FULL" = 1 ]; then
  "$BIN/lab1" "${lab1[@]}" --model mlp --iters 60 --resume "$tmp/l1/ck" --out "$tmp/l1/x" > /dev/null 2> "$tmp/ref.err"
  check "$([ $? = 2 ] && grep -q -- "--model cnn3" "$tmp/ref.err"; echo $?)" "refused: another model" "$(head -2 "$tmp/ref.err")"
fi
"$BIN/lab1" "${lab1[@]}" --iters 30 --resume "$tmp/l1/ck" --out "$tmp/l1/x" --tag t > /dev/null 2> "$tmp/ref.err"
check "$([ $? = 2 ] && grep -q "past this run's 30" "$tmp/ref.err"; echo $?)" "refused: a checkpoint past --iters" \
  "$(head -2 "$tmp/ref.err")"
refused "a directory with no checkpoint" "no checkpoint there" "$tmp/nothing"
if [ "$FULL" = 1 ]; then
  "$BIN/lab1" "${lab1[@]}" --iters 60 --resume "" --out "$tmp/l1/x" > /dev/null 2> "$tmp/ref.err"
  check "$([ $? = 2 ] && grep -q -- "--resume is empty" "$tmp/ref.err"; echo $?)" "refused: an empty --resume"
fi

# ---- what a checkpoint directory may be --------------------------------------
# Only regular files are read (a rank file or checkpoint.txt linked to
# /dev/zero was read until memory ran out, or for ever; a FIFO blocked):
# each is refused within the time limit, by what it is.
what_files="rank0 manifest fifo"
[ "$FULL" = 1 ] || what_files=fifo
for what in $what_files; do
  copy
  case $what in
    rank0) ln -sf /dev/zero "$tmp/bad/rank0-b40.ckpt"; pat="rank0-b40.ckpt is a device" ;;
    manifest) ln -sf /dev/zero "$tmp/bad/checkpoint.txt"; pat="checkpoint.txt is a device" ;;
    fifo) rm "$tmp/bad/checkpoint.txt"; mkfifo "$tmp/bad/checkpoint.txt"; pat="checkpoint.txt is a FIFO" ;;
  esac
  timeout 120 "$BIN/lab1" "${lab1[@]}" --iters 60 --resume "$tmp/bad" --out "$tmp/l1/x" --tag t > /dev/null 2> "$tmp/ref.err"
  st=$?
  check "$([ $st = 2 ] && grep -q "$pat" "$tmp/ref.err"; echo $?)" "refused at once: $pat, not a file a run wrote" \
    "status $st: $(head -2 "$tmp/ref.err")"
done
# Each rank file says which rank wrote it: two swapped files are refused
# (they resumed, and the ranks diverged).
rm -rf "$tmp/sw" && cp -r "$tmp/l3/ck" "$tmp/sw"
mv "$tmp/sw/rank0-b8.ckpt" "$tmp/sw/x" && mv "$tmp/sw/rank1-b8.ckpt" "$tmp/sw/rank0-b8.ckpt" && mv "$tmp/sw/x" "$tmp/sw/rank1-b8.ckpt"
"${MPIRUN[@]}" -np 2 "$BIN/lab3" "${lab3[@]}" --sync ddp --iters 12 --resume "$tmp/sw" --out "$tmp/l3/x" 2> "$tmp/sw.err"
check "$([ $? = 2 ] && grep -q "rank0-b8.ckpt: holds the state of rank 1 of 2, but this is rank 0 of 2" "$tmp/sw.err"; echo $?)" \
  "refused: lab3's two rank files swapped" "$(grep -m2 error "$tmp/sw.err")"

# ---- the data is part of the run ---------------------------------------------
# Checkpointed on synthetic data (no files under DDL_DATA), continued after
# the data arrived: another run. --resume refuses it, naming both; make
# labN RESUME=1 (DDL_RESUME=1) says so and starts afresh on the real data.
mkdir -p "$tmp/none" "$tmp/real/mnist"
mnist_idx "$tmp/real/mnist" train 64
mnist_idx "$tmp/real/mnist" t10k 16
data=(--model cnn3 --dataset mnist --batch 16 --width 0.25 --limit 64 --test-limit 16 --quiet --figures "$tmp/fig" --tag t)
DDL_DATA=$tmp/none DDL_CHECKPOINT_ROOT=$tmp/dr "$BIN/lab1" "${data[@]}" --iters 4 --out "$tmp/d1" 2> "$tmp/d.err"
check "$([ $? = 0 ] && grep -q '^# data: synthetic' "$tmp/d1/t-summary.csv"; echo $?)" "a run on synthetic data, checkpointed" \
  "$(tail -2 "$tmp/d.err")"
DDL_DATA=$tmp/real "$BIN/lab1" "${data[@]}" --iters 8 --resume "$tmp/dr/lab1-t" --out "$tmp/d2" 2> "$tmp/d.err"
check "$([ $? = 2 ] && grep -q "written with 'data train: synthetic mnist.*this run has 'data train: real mnist" "$tmp/d.err" &&
         [ ! -e "$tmp/d2/t-summary.csv" ]; echo $?)" "refused: --resume of a synthetic-data checkpoint on real data" \
  "$(head -2 "$tmp/d.err")"
DDL_DATA=$tmp/real DDL_CHECKPOINT_ROOT=$tmp/dr DDL_RESUME=1 "$BIN/lab1" "${data[@]}" --iters 8 --out "$tmp/d3" 2> "$tmp/d.err"
check "$([ $? = 0 ] && grep -q "data train: synthetic mnist.*starting afresh" "$tmp/d.err" && ! grep -q "resumed from" "$tmp/d.err" &&
         grep -q '^# data: real' "$tmp/d3/t-summary.csv"; echo $?)" \
  "DDL_RESUME=1 on other data is another run: it says so and starts afresh" "$(head -2 "$tmp/d.err")"
# The images are random: write the byte at offset 100 plus one, so it always
# changes (a fixed value left it as it was once in 256 runs).
old=$(od -An -tu1 -j100 -N1 "$tmp/real/mnist/t10k-images-idx3-ubyte" | tr -d ' ')
printf "\\$(printf %03o $(((old + 1) % 256)))" | dd of="$tmp/real/mnist/t10k-images-idx3-ubyte" bs=1 seek=100 conv=notrunc 2>/dev/null
DDL_DATA=$tmp/real "$BIN/lab1" "${data[@]}" --iters 12 --resume "$tmp/dr/lab1-t" --out "$tmp/d4" 2> "$tmp/d.err"
check "$([ $? = 2 ] && grep -q "written with .data test: \.\.\..*t10k-images-idx3-ubyte 12560 bytes crc32" "$tmp/d.err"; echo $?)" \
  "refused: one byte of a data file changed since the checkpoint" "$(head -2 "$tmp/d.err")"

# ---- one run per checkpoint directory ----------------------------------------
# A second run into a directory in use is refused, naming the first's pid
# (two runs there removed each other's files); temp files a killed writer
# left are removed by the next run that holds the directory.
mkdir -p "$tmp/lk" && : > "$tmp/lk/checkpoint.txt.tmp.999999" && : > "$tmp/lk/rank0-b32.ckpt.tmp.999999"
"$BIN/lab1" "${lab1[@]}" --iters 1000000 --checkpoint "$tmp/lk" --out "$tmp/lk1" --tag t 2> "$tmp/lk1.err" &
holder=$!
for _ in $(seq 1 600); do grep -q "^pid $holder " "$tmp/lk/checkpoint.lock" 2>/dev/null && break; sleep 0.1; done
"$BIN/lab1" "${lab1[@]}" --lr 0.02 --iters 10 --checkpoint "$tmp/lk" --out "$tmp/lk2" --tag t > /dev/null 2> "$tmp/lk2.err"
st=$?
check "$([ $st = 2 ] && grep -q "checkpoint $tmp/lk is in use by another run (pid $holder on " "$tmp/lk2.err" &&
         [ ! -e "$tmp/lk2/t-summary.csv" ]; echo $?)" "a second run into a checkpoint directory in use is refused, naming the pid" \
  "status $st: $(head -2 "$tmp/lk2.err")"
"$BIN/lab1" "${lab1[@]}" --iters 10 --resume "$tmp/lk" --out "$tmp/lk3" --tag t > /dev/null 2> "$tmp/lk3.err"
check "$([ $? = 2 ] && grep -q "resume $tmp/lk is in use by another run (pid $holder" "$tmp/lk3.err"; echo $?)" \
  "continuing from a checkpoint directory another run writes is refused" "$(head -2 "$tmp/lk3.err")"
check "$([ ! -e "$tmp/lk/checkpoint.txt.tmp.999999" ] && [ ! -e "$tmp/lk/rank0-b32.ckpt.tmp.999999" ]; echo $?)" "a killed writer's temp file is removed by the run that holds the directory"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
"$BIN/lab1" "${lab1[@]}" --iters 4 --checkpoint "$tmp/lk" --out "$tmp/lk4" --tag t > /dev/null 2> "$tmp/lk4.err"
check "$([ $? = 0 ] && [ -s "$tmp/lk4/t-summary.csv" ]; echo $?)" "once that run has ended the directory is free again" \
  "$(head -2 "$tmp/lk4.err")"

# The lock file is written (the holder's pid): a symbolic link there had a
# run overwrite the file it names, and a FIFO hung the run. Anything but a
# regular file is refused, by what it is, and the link's target is unchanged.
for what in symlink fifo; do
  rm -rf "$tmp/lb" "$tmp/lbo" && mkdir -p "$tmp/lb" && echo "victim's own words" > "$tmp/lb.victim"
  case $what in
    symlink) ln -s "$tmp/lb.victim" "$tmp/lb/checkpoint.lock"; pat="checkpoint.lock is a symbolic link" ;;
    fifo) mkfifo "$tmp/lb/checkpoint.lock"; pat="checkpoint.lock is a FIFO" ;;
  esac
  for flag in checkpoint resume; do
    timeout 60 "$BIN/lab1" "${lab1[@]}" --iters 4 --$flag "$tmp/lb" --out "$tmp/lbo" --tag t > /dev/null 2> "$tmp/lb.err"
    st=$?
    check "$([ $st = 2 ] && grep -q -- "--$flag $tmp/lb: its $pat, not a lock file a run wrote" "$tmp/lb.err" &&
             [ "$(cat "$tmp/lb.victim")" = "victim's own words" ] && [ ! -e "$tmp/lbo/t-summary.csv" ]; echo $?)" \
      "--$flag: a $what named checkpoint.lock is refused at once, and nothing is written through it" \
      "status $st: $(head -2 "$tmp/lb.err")"
  done
done

# ---- a failed checkpoint keeps the results -----------------------------------
# The checkpoint at batch 8 cannot be written (its name is taken by a
# directory that is not empty): the run says so, goes on, writes every
# result, and ends with status 1.
mkdir -p "$tmp/cf/rank0-b8.ckpt/x"
"$BIN/lab1" "${lab1[@]}" --iters 12 --checkpoint-every 4 --checkpoint "$tmp/cf" --out "$tmp/cfo" --tag t > /dev/null \
  2> "$tmp/cf.err"
st=$?
check "$([ $st = 1 ] && grep -q "checkpoint at batch 8 was not written" "$tmp/cf.err" && [ -s "$tmp/cfo/t-summary.csv" ] &&
         [ "$(grep -vc '^#' "$tmp/cfo/t-iters.csv")" = 13 ] && grep -q '^batch: 4$' "$tmp/cf/checkpoint.txt"; echo $?)" \
  "a checkpoint that cannot be written: the run writes its results, keeps the last checkpoint, and exits 1" \
  "status $st: $(grep -m2 'error\|not written' "$tmp/cf.err")"
# A file-size limit (ulimit -f) is a full disk too: SIGXFSZ killed the run
# (status 153), leaving a temp file and no results. The checkpoint of
# width 1 (about 1.2 MB) is past a 600 KiB limit; the results and figures
# are far below it.
rm -rf "$tmp/fz" "$tmp/fzo"
( ulimit -f 600; exec "$BIN/lab1" "${lab1[@]}" --width 1 --iters 8 --checkpoint-every 4 --checkpoint "$tmp/fz" --out "$tmp/fzo" --tag t ) \
  > /dev/null 2> "$tmp/fz.err"
st=$?
check "$([ $st = 1 ] && grep -q "rank0-b4.ckpt: writing: File too large" "$tmp/fz.err" && [ -s "$tmp/fzo/t-summary.csv" ] &&
         [ -z "$(ls "$tmp/fz" | grep '\.tmp')" ]; echo $?)" \
  "past the file-size limit (ulimit -f): the run warns, writes its results, leaves no temp file, and exits 1" \
  "status $st: $(grep -m2 'error\|warning\|limit' "$tmp/fz.err"); left: $(ls "$tmp/fz" | tr '\n' ' ')"
exit $fail
