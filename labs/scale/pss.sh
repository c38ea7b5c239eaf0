#!/usr/bin/env bash
# labs/scale/pss.sh OUT CMD ARGS... - run CMD, and write to OUT its wall
# time and the largest proportional set size (PSS) of its process tree,
# sampled five times a second, and its CPU time (user + system: what it cost
# this machine whatever else ran beside it).
#
# Why PSS and not max RSS (/usr/bin/time): SMPI's shared malloc maps one
# small block again and again over a large buffer, and RSS counts every
# mapping of a page (1024 ranks x 64 MiB shared "RSS" = 64 GiB on a machine
# of 23 GB), while PSS divides each page by its mappings: what the run
# really holds.
#
# Stopped (make scale's time bound: timeout's SIGTERM), it stops CMD and
# still writes OUT, with rc=124 and the CPU time spent so far, so that the
# run's record says how far it got and make scale goes on to the next.
set -uo pipefail
out=$1; shift
start=$(date +%s.%N)
/usr/bin/time -o "$out.cpu" -f 'cpu_s=%e %U %S' "$@" &
pid=$!
peak=0
# CPU seconds of a process tree still running (user + system, from /proc).
cpu_now() {
  local p t=0 ticks
  ticks=$(getconf CLK_TCK)
  for p in $(tree "$pid"); do
    t=$(( t + $(awk '{ print $14 + $15 + $16 + $17 }' /proc/"$p"/stat 2>/dev/null || echo 0) ))
  done
  awk -v t="$t" -v k="$ticks" 'BEGIN { printf "%.1f", t / k }'
}
finish() { # rc cpu
  end=$(date +%s.%N)
  rm -f "$out.cpu"
  awk -v s="$start" -v e="$end" -v p="$peak" -v rc="$1" -v cpu="${2:-nan}" \
    'BEGIN { printf "wall_s=%.1f\ncpu_s=%s\npss_max_mb=%d\nrc=%d\n", e - s, cpu, p / 1024, rc }' > "$out"
}
cpu_seen=nan
stopped() {
  local cpu=$cpu_seen # timeout signals the whole group: the last reading before it
  for p in $(tree "$pid"); do kill -TERM "$p" 2>/dev/null; done
  wait "$pid" 2>/dev/null
  finish 124 "$cpu"
  exit 124
}
trap stopped TERM INT
tree() { # pid: it and its descendants
  local p=$1 c
  echo "$p"
  for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do tree "$c"; done
}
while kill -0 "$pid" 2>/dev/null; do
  sum=0
  for p in $(tree "$pid"); do
    kb=$(awk '/^Pss:/ { print $2; exit }' /proc/"$p"/smaps_rollup 2>/dev/null)
    sum=$(( sum + ${kb:-0} ))
  done
  [ "$sum" -gt "$peak" ] && peak=$sum
  c=$(cpu_now) && [ -n "$c" ] && cpu_seen=$c # a reading cut by the signal keeps the last
  sleep 0.2
done
wait "$pid"; rc=$?
cpu=$(awk '/^cpu_s=/ { split($0, a, "="); split(a[2], b, " "); printf "%.1f", b[2] + b[3] }' "$out.cpu" 2>/dev/null)
finish "$rc" "$cpu"
exit "$rc"
