#!/usr/bin/env bash
# ddl-test-pass: optimised: labs/slurm/cluster.sh's down is shell, and the stand-in daemons are sleep and bash
# e2e_slurm_down.sh - `labs/slurm/cluster.sh down DIR` waits until every
# daemon it stops is really gone, and does not call an exited daemon
# "left" ("could not stop: <pid> slurmd-ddl0"): kill -0 succeeds on a
# process that has exited but is not reaped yet, so a fixed wait after
# SIGKILL followed by kill -0 would report a daemon that is gone). No Slurm is needed: the
# state folder holds two stand-ins this test starts, by the PID files
# `down` reads:
#   - slurmd-h0: a process that exited and stays a zombie (its parent, also
#     this test's, does not wait for it);
#   - slurmd-h1: a shell that ignores SIGTERM, so that down must SIGKILL it,
#     and whose parent (this script) reaps it only later.
# Then down must exit 0 and remove the folder; `cluster.sh pids` on a
# folder whose daemon is still running names it (down's check can fail).
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "slurm down"
holder=
cleanup() { # the stand-ins, by PID, waited for (no "Killed" notes)
  local p
  for p in $holder ${h1:-} ${live:-} ${stepd:-}; do kill -KILL "$p" 2>/dev/null; { wait "$p"; } 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
state() { sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null; }

dir=$tmp/cluster
mkdir -p "$dir" && : > "$dir/slurm.conf" && : > "$dir/.ddlab-slurm-cluster"
# A zombie: the child exits after its parent has become a sleep, which
# never waits (bash itself would reap it, were it still bash then).
bash -c 'sleep 0.5 & echo $! > "$1"; exec sleep 120' - "$dir/slurmd-h0.pid" &
holder=$!
# A daemon that ignores SIGTERM.
bash -c 'trap "" TERM; while :; do sleep 0.2; done' &
h1=$!
echo "$h1" > "$dir/slurmd-h1.pid"
# A step daemon that outlived its slurmd: no PID file, this cluster's
# slurm.conf in its environment (a copy of sleep named slurmstepd).
cp "$(command -v sleep)" "$tmp/slurmstepd"
SLURM_CONF=$dir/slurm.conf "$tmp/slurmstepd" 120 &
stepd=$!
for _ in $(seq 100); do
  [ -s "$dir/slurmd-h0.pid" ] && [ "$(state "$(cat "$dir/slurmd-h0.pid")")" = Z ] && break
  sleep 0.1
done
zombie=$(cat "$dir/slurmd-h0.pid" 2>/dev/null)
check $([ "$(state "$zombie")" = Z ] && echo 0 || echo 1) "the stand-in slurmd-h0 is a zombie (set-up)" "state '$(state "$zombie")'"

labs/slurm/cluster.sh down "$dir" > "$tmp/down.log" 2>&1
st=$?
check $([ "$st" = 0 ] && [ ! -e "$dir" ] && [ "$(state "$h1")" != S ] && [ "$(state "$h1")" != R ] && echo 0 || echo 1) \
  "down stops a daemon that ignores SIGTERM, counts an exited one not yet reaped as gone, and removes the folder" \
  "status $st, h1 state '$(state "$h1")': $(cat "$tmp/down.log")"
{ wait "$h1"; } 2>/dev/null
h1=
s=$(state "$stepd")
check $([ "$s" != S ] && [ "$s" != R ] && echo 0 || echo 1) "down stops a step daemon left by its slurmd (found by its slurm.conf)" \
  "state '$s'"

# A user's folder that merely holds a slurm.conf is not a cluster's: kept.
mkdir -p "$tmp/site" && echo "ClusterName=mine" > "$tmp/site/slurm.conf"
labs/slurm/cluster.sh down "$tmp/site" > "$tmp/site.log" 2>&1
st=$?
check $([ "$st" != 0 ] && [ -f "$tmp/site/slurm.conf" ] && grep -q "not a cluster's state folder made by cluster.sh up" "$tmp/site.log" && echo 0 || echo 1) \
  "down refuses a folder that up did not make (a site's slurm.conf), removing nothing" "status $st: $(cat "$tmp/site.log")"

# The other way round: a daemon still running is named by `pids`.
mkdir -p "$tmp/c2" && : > "$tmp/c2/slurm.conf"
sleep 120 &
live=$!
echo "$live" > "$tmp/c2/slurmd-h0.pid"
labs/slurm/cluster.sh pids "$tmp/c2" > "$tmp/pids.out" 2>&1
check $(grep -q "^$live slurmd-h0$" "$tmp/pids.out" && echo 0 || echo 1) "cluster.sh pids names a daemon still running" \
  "$(cat "$tmp/pids.out")"
exit $fail
