#!/usr/bin/env bash
# e2e_lab1_devices.sh - lab1 on every device it offers (the names its
# --help lists for --device): each one either trains and agrees with the
# CPU, or - a GPU device on a machine or build without one - stops with a
# message that says which (no GPU / no driver, or no CUDA in this build)
# and a non-zero exit, never a quiet CPU run. An emulated GPU must always
# run. Limits against the CPU run: test loss within 1e-3 relative, test
# accuracy within 0.04 (a near-tie may flip an example); the device's
# outputs name it ("emulated GPU", or the GPU's name).
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin ""
LAB1=$BIN/lab1

devices=$("$LAB1" --help | sed -n 's/^ *--device S *\([^(]*\)(.*/\1/p' | tr -d ' ' | tr '|' ' ')
if [ -z "$devices" ]; then bad "lab1 --help lists its devices"; exit 1; fi
tiny=(--model cnn3 --dataset mnist --synthetic --iters 4 --batch 16 --width 0.25 --limit 256 --test-limit 64 --quiet)
col() { grep -v '^#' "$1" | tail -n 1 | cut -d, -f"$2"; } # last epoch row, column

"$LAB1" "${tiny[@]}" --device cpu --out "$tmp/cpu" --figures "$tmp/fig-cpu" --tag t >"$tmp/cpu.log" 2>&1 ||
  { bad "lab1 --device cpu runs ($(tail -c 300 "$tmp/cpu.log"))"; exit 1; }
for d in $devices; do
  [ "$d" = cpu ] && continue
  "$LAB1" "${tiny[@]}" --device "$d" --out "$tmp/$d" --figures "$tmp/fig-$d" --tag t >"$tmp/$d.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    case "$d" in
      *emu*) bad "lab1 --device $d runs (an emulated GPU is always there): rc $rc: $(tail -c 300 "$tmp/$d.log")" ;;
      *)
        if grep -qE "DEVICE=$d: (no usable GPU|this build has no CUDA support)" "$tmp/$d.log"; then
          ok "lab1 --device $d without a usable GPU stops (rc $rc) and says why: $(grep -oE 'DEVICE=[^:]*: [^(:]*' "$tmp/$d.log" | head -1)"
        else
          bad "lab1 --device $d failed without naming the reason (rc $rc): $(tail -c 300 "$tmp/$d.log")"
        fi ;;
    esac
    continue
  fi
  summary=$tmp/$d/t-summary.csv
  detail=$(sed -n 's/^# device_detail: //p' "$summary")
  case "$d" in
    *emu*) want="emulated GPU" ;;
    *) want="$d (" ;;
  esac
  if [ -s "$tmp/$d/t-iters.csv" ] && grep -q "^# device: $d$" "$summary" && [[ "$detail" == *"$want"* ]]; then
    ok "lab1 --device $d writes its results and names the device ($detail)"
  else
    bad "lab1 --device $d results name the device (device_detail: '$detail', want '$want')"
  fi
  [ -s "$tmp/fig-$d/lab1-filters-t.png" ] && ok "lab1 --device $d draws the first-layer filters (read back from the device)" ||
    bad "lab1 --device $d draws the first-layer filters"
  lc=$(col "$tmp/cpu/t-epochs.csv" 5) ld=$(col "$tmp/$d/t-epochs.csv" 5)
  ac=$(col "$tmp/cpu/t-epochs.csv" 6) ad=$(col "$tmp/$d/t-epochs.csv" 6)
  if awk -v a="$ld" -v b="$lc" -v x="$ad" -v y="$ac" \
      'BEGIN { d = a - b; if (d < 0) d = -d; e = x - y; if (e < 0) e = -e; m = b < 0 ? -b : b; exit !(d <= 1e-3 * m && e <= 0.04) }'; then
    ok "lab1 --device $d trains like the cpu (test loss $ld vs $lc, accuracy $ad vs $ac)"
  else
    bad "lab1 --device $d trains like the cpu (test loss $ld vs $lc, accuracy $ad vs $ac)"
  fi
done
exit $fail
