#!/usr/bin/env bash
# tests/fuzz/run_target.sh - run one libFuzzer binary (make fuzz calls it).
#
# usage: run_target.sh TARGET BINARY SECONDS WORKDIR
#
# Fuzzes for SECONDS (-max_total_time) starting from the committed seeds
# (tests/fuzz/corpus/TARGET/ and tests/fuzz/crashes/TARGET/, when present:
# a fixed crash is a good seed, an unfixed one fails at once) and a scratch
# corpus in WORKDIR/corpus/TARGET, the only directory libFuzzer writes new
# inputs to, so the committed corpus stays as it was. Prints exactly
#   fuzz TARGET: <execs> execs, <crashes> crashes
# where crashes counts the crash-, leak-, timeout- and oom- files this run
# left in its artifact directory; they are copied to tests/fuzz/crashes/
# TARGET/ (to commit with the fix, and replayed by make test from then on).
# Exits 1 when the run found something or libFuzzer failed.
# FUZZ_TIMEOUT (seconds per input, default 10) and FUZZ_FLAGS (more
# libFuzzer flags) are passed through.
set -u
[ $# -eq 4 ] || { echo "usage: $0 TARGET BINARY SECONDS WORKDIR" >&2; exit 2; }
t=$1 bin=$2 secs=$3 work=$4
cd "$(dirname "$0")/../.."
seeds=tests/fuzz/corpus/$t
saved=tests/fuzz/crashes/$t
scratch=$work/corpus/$t
art=$work/artifacts/$t
log=$work/logs/$t.log
mkdir -p "$scratch" "$work/logs"
rm -rf "$art" && mkdir -p "$art"   # only this run's findings are counted
dirs=("$scratch")
for d in "$seeds" "$saved"; do [ -d "$d" ] && dirs+=("$d"); done
dict=()
[ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")

# -close_fd_mask=3: the CLI parser prints usage and errors on every input;
# libFuzzer keeps its own and the sanitizers' reports on a copy of stderr.
# shellcheck disable=SC2086  # FUZZ_FLAGS is a list of flags
"$bin" -max_total_time="$secs" -print_final_stats=1 -timeout="${FUZZ_TIMEOUT:-10}" -close_fd_mask=3 \
  -artifact_prefix="$art/" "${dict[@]}" ${FUZZ_FLAGS:-} "${dirs[@]}" >"$log" 2>&1
rc=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
found=()
for f in "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-*; do
  [ -f "$f" ] && found+=("$f")
done
echo "fuzz $t: ${execs:-0} execs, ${#found[@]} crashes"

if [ "${#found[@]}" -gt 0 ]; then
  mkdir -p "$saved"
  cp "${found[@]}" "$saved/"
  {
    echo "  inputs saved in $saved/ (replay: $bin FILE); log: $log"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz check failed|.*runtime error)' "$log" | head -n 5 | sed 's/^/  /'
  } >&2
  exit 1
fi
if [ "$rc" -ne 0 ] || [ -z "$execs" ]; then
  echo "fuzz $t: libFuzzer exited with status $rc and left no input; log: $log" >&2
  tail -n 5 "$log" | sed 's/^/  /' >&2
  exit 1
fi
exit 0
