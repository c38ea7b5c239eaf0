#!/usr/bin/env bash
# tests/fuzz/replay.sh - replay one harness over its committed inputs.
#
# usage: replay.sh BIN TARGET
#
# Runs BIN/fuzz/replay_TARGET (replay_main.c linked with tests/fuzz/
# TARGET.c by the project's compiler) over tests/fuzz/corpus/TARGET/ and
# tests/fuzz/crashes/TARGET/, printing one check line for tests/run.sh
# (make fuzz-replay runs it for every target). A harness that is not built
# fails (its name is missing from FUZZ_TARGETS); one without committed
# inputs yet is skipped, not passed: there is nothing to replay.
set -u
[ $# -eq 2 ] || { echo "usage: $0 BIN TARGET" >&2; exit 2; }
cd "$(dirname "$0")/../.."
bin=$1/fuzz/replay_$2
if [ ! -x "$bin" ]; then
  echo "not ok - fuzz replay $2: $bin is not built (is $2 in the Makefile's FUZZ_TARGETS? then make all)"
  exit 1
fi
dirs=()
for d in "tests/fuzz/corpus/$2" "tests/fuzz/crashes/$2"; do
  [ -n "$(ls -A "$d" 2>/dev/null)" ] && dirs+=("$d")
done
if [ "${#dirs[@]}" -eq 0 ]; then
  echo "skip - fuzz replay $2: no committed inputs in tests/fuzz/corpus/$2/ (tests/fuzz/README.md)"
  exit 0
fi
exec "$bin" "${dirs[@]}"
