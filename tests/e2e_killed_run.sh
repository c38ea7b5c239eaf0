#!/usr/bin/env bash
# e2e_killed_run.sh - a run killed half-way leaves only its own files,
# never a mix with an earlier run of the same name (core/results/run.c).
#
# Run A: `lab2 bench --tag t` completes (calibration-t and bench-t). Run
# B, same tag, writes calibration-t first and then times for long; it is
# killed (SIGTERM) once its calibration is there. Then: A's bench-t is
# gone (B removed it when it started), every file of run t is B's (one
# run_id), and no temp file is left. Prints ok / not ok lines.
# ddl-test-san-quick: core/results/run.c's removal of an earlier run's files and its temp files when a run is killed (a few seconds)
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "killed run"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
e2e_need "$BIN/lab2"
R=$tmp/r
run_id() { sed -n 's/^# run_id: //p' "$1" 2>/dev/null; }

"$BIN/lab2" bench --tag t --sizes 4,64 --reps 5 --quiet --out "$R" > /dev/null 2> "$tmp/a.err"
check $? "run A completes" "$(tail -2 "$tmp/a.err")"
a_id=$(run_id "$R/bench-t.csv")
check "$([ -n "$a_id" ] && [ "$a_id" = "$(run_id "$R/calibration-t.csv")" ]; echo $?)" \
  "run A's files carry one run_id" "bench '$a_id', calibration '$(run_id "$R/calibration-t.csv")'"

"$BIN/lab2" bench --tag t --sizes 64M --reps 1000 --quiet --out "$R" > /dev/null 2> "$tmp/b.err" &
pid=$!
for _ in $(seq 1 600); do # up to 60 s on a loaded machine
  id=$(run_id "$R/calibration-t.csv")
  [ -n "$id" ] && [ "$id" != "$a_id" ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
b_id=$(run_id "$R/calibration-t.csv")
kill -TERM $pid 2>/dev/null
wait $pid
st=$?
check "$([ "$st" = 143 ] && [ -n "$b_id" ] && [ "$b_id" != "$a_id" ]; echo $?)" \
  "run B is killed after writing its calibration" "status $st, calibration run_id '$b_id'"
check "$([ ! -e "$R/bench-t.csv" ] && [ ! -e "$R/bench-t.json" ]; echo $?)" \
  "run A's bench-t is gone: it would sit beside run B's calibration" "$(ls "$R" | tr '\n' ' ')"
ids=$(for f in "$R"/*-t.csv; do run_id "$f"; done | sort -u | tr '\n' ' ')
check "$([ "$ids" = "$b_id " ]; echo $?)" "every file of run t is run B's" "run ids: $ids"
temps=$(ls "$R" | grep -c '\.tmp\.')
check "$([ "$temps" = 0 ]; echo $?)" "no temp file left" "$temps"
exit $fail
