#!/usr/bin/env bash
# ddl-test-pass: optimised: checks where tests/run.sh sends Open MPI's session folders; no ddlab program runs
# e2e_ompi_session.sh - the suite's MPI jobs keep Open MPI's session
# folders (ompi.<host>.<uid>, pid.N) in a folder of the suite's own, which
# tests/run.sh removes at the end, not in the machine's /tmp, where they
# outlived the suite (a crashed mpirun's pid.N folders too).
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "ompi session"
e2e_mpi
base=${OMPI_MCA_orte_tmpdir_base:-}
check $(all '[ -n "$base" ] && [ -d "$base" ] && case "$base" in */ddlab-test-ompi.*/p.*) true ;; *) false ;; esac') \
  "the suite gives this test a session folder of its own for Open MPI, in the suite's (OMPI_MCA_orte_tmpdir_base)" "'$base'"
[ -d "$base" ] || exit $fail
# While a job runs, its session folder is in the suite's folder.
"${MPIRUN[@]}" -np 2 sh -c 'sleep 2' &
pid=$!
seen=
for _ in $(seq 1 40); do
  seen=$(ls -d "$base"/ompi.* 2>/dev/null | head -1)
  [ -n "$seen" ] && break
  sleep 0.1
done
wait $pid
check $(all '[ -n "$seen" ]') "a running mpirun's session folder is under $(basename "$base")" "none seen"
exit $fail
