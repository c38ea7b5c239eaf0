#!/usr/bin/env bash
# ddl-test-pass: optimised: labs/slurm/cluster.sh is shell; no program of ddlab runs
# e2e_slurm_cluster_up.sh - labs/slurm/cluster.sh up leaves nothing
# running when it fails:
#   1. up --net <a folder without a hosts file>: refused (exit 1) before
#      anything starts: no munged, no state folder;
#   2. up whose slurmctld dies at once (a stand-in on PATH): exit 1, and
#      the munged it started is stopped, the state folder removed.
# Every process it looks for is found by the test's own folder in its
# command line; one left is stopped by its pid, and the test fails.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "slurm cluster up"
if ! why=$(labs/slurm/cluster.sh check); then echo "skip - slurm cluster up: $why"; exit 0; fi
# The processes whose command line names this test's folder (munged's
# --key-file, the daemons' -f): those this test started.
ours() {
  local p
  for p in /proc/[0-9]*; do
    { tr "\\0" " " < "$p/cmdline"; } 2>/dev/null | grep -qF -- "$tmp/" && echo "${p#/proc/}"
  done
  return 0
}
leftover() { # stop what a failed up left, by pid
  local p
  for p in $(ours); do [ "$p" != $$ ] && [ "$p" != "$BASHPID" ] && kill -KILL "$p" 2>/dev/null; done
  return 0
}

mkdir -p "$tmp/nonet"
out=$(labs/slurm/cluster.sh up "$tmp/c1" --net "$tmp/nonet" 2>&1); st=$?
left=$(ours)
check $(all '[ "$st" = 1 ] && grep -q "no emulated cluster.s hosts file" <<<"$out" && [ -z "$left" ] && [ ! -e "$tmp/c1" ]') \
  "up --net without a hosts file: refused before anything starts (no munged, no state folder)" "status $st, pids left '$left': $out"
leftover

mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "stand-in slurmctld: failing" >&2\nexit 1\n' > "$tmp/bin/slurmctld"
chmod +x "$tmp/bin/slurmctld"
out=$(PATH=$tmp/bin:$PATH timeout 120 labs/slurm/cluster.sh up "$tmp/c2" 2>&1); st=$?
left=$(ours)
check $(all '[ "$st" = 1 ] && [ -z "$left" ] && [ ! -e "$tmp/c2" ]') \
  "up whose slurmctld dies: exit 1, its munged and slurmd stopped, its folder removed" "status $st, pids left '$left': $out"
leftover
exit $fail
