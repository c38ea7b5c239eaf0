#!/usr/bin/env bash
# e2e_learning.sh - the network learns: cnn3 on real MNIST reaches >= 97%
# test accuracy within the 1 epoch of lab1's quick profile (when DDL_DATA
# has MNIST), and on synthetic MNIST-shaped data it clearly beats chance.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin ""
acc() { grep -v '^#' "$1" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "test_accuracy") c = i; next } { print $c }'; }

if [ "${SANITIZE:-0}" = 1 ]; then
  echo "skip - learning checks: too slow under ASan (the optimised build runs them)"
  exit 0
fi
"$BIN/lab1" --model cnn3 --dataset mnist --synthetic --epochs 1 --limit 6000 --test-limit 2000 --batch 64 --lr 0.05 \
  --quiet --out "$tmp/s" --figures "$tmp/f" --tag s >"$tmp/log" 2>&1
a=$(acc "$tmp/s/s-summary.csv")
awk -v a="${a:-0}" 'BEGIN { exit !(a >= 0.5) }'
check $? "cnn3 on synthetic MNIST beats chance clearly (accuracy ${a:-none}, want >= 0.5; chance 0.1)" "$(tail -5 "$tmp/log")"

if [ -d "${DDL_DATA:-datasets}/mnist" ]; then
  "$BIN/lab1" --model cnn3 --dataset mnist --no-synthetic --epochs 1 --batch 64 --lr 0.05 --quiet \
    --out "$tmp/r" --figures "$tmp/f" --tag r >"$tmp/log" 2>&1
  a=$(acc "$tmp/r/r-summary.csv")
  awk -v a="${a:-0}" 'BEGIN { exit !(a >= 0.97) }'
  check $? "cnn3 on real MNIST reaches >= 97% in 1 epoch (accuracy ${a:-none})" "$(tail -5 "$tmp/log")"
else
  echo "skip - cnn3 on real MNIST: no MNIST under DDL_DATA=${DDL_DATA:-datasets}"
fi
exit $fail
