#!/usr/bin/env bash
# e2e_emu_check.sh - make test's share of make emu-check: every planted bug
# of strict mode (bin/tests/emu_planted, each in its own process) must be
# reported by its detector and the clean case must run without a report
# (tests/emu_check.sh planted); bad DDL_EMU_* values stop with a message
# naming what exists. The CUDA tests themselves run in strict mode in the
# whole suite (tests/run.sh sets DDL_EMU_STRICT=1 and prints the seed).
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin ""
if [ ! -x "$BIN/tests/emu_planted" ]; then
  echo "skip - emu-check: $BIN/tests/emu_planted not built (EMU=0 or a SimGrid build)"
  exit 0
fi
BIN=$BIN tests/emu_check.sh planted | while IFS= read -r line; do
  case $line in
    *": missed"* | *": FAILED"*) bad "$line" ;;
    *) ok "$line" ;;
  esac
done > "$tmp/planted"
cat "$tmp/planted"
grep -q "^not ok" "$tmp/planted" && fail=1
bad_value() { # variable, value, words the message must hold
  local out rc want=$3
  out=$(env "$1=$2" DDL_EMU_STRICT="${4:-1}" "$BIN/tests/emu_planted" clean 2>&1)
  rc=$?
  check $(all '[ "$rc" -ne 0 ] && grep -q "$want" <<<"$out"') "$1=$2 stops (exit $rc) naming what exists" "$out"
}
bad_value DDL_EMU_ORDER sideways "knows forward, reverse, shuffled and seeded"
bad_value DDL_EMU_SEED -3 "a non-negative integer"
bad_value DDL_EMU_STRICT yes "use 1" yes
exit $fail
