#!/usr/bin/env bash
# ddl-test-pass: optimised: checks where tests/run.sh sends Open MPI's session folders; no ddlab program runs
# e2e_ompi_session.sh - the suite's MPI jobs keep Open MPI's session
# folders (ompi.<host>.<uid>, pid.N) in a TMPDIR of this test's own inside
# the suite's folder, which tests/run.sh removes, not in the machine's
# /tmp, where they outlived the suite (a killed mpirun's pid.N folders too).
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "ompi session"
e2e_mpi
own=${TMPDIR:-}
check $(all '[ -n "$own" ] && [ -d "$own" ] && case "$(basename "$(dirname "$own")")" in ddlab-test.*) true ;; *) false ;; esac') \
  "the suite gives this test a TMPDIR of its own, in the suite's folder" "TMPDIR='$own'"
[ -d "$own" ] || exit $fail
check $(all '[ -z "${OMPI_MCA_orte_tmpdir_base:-}" ]') \
  "no orte_tmpdir_base in the environment (it would override the emulated hosts' own session folders)" \
  "OMPI_MCA_orte_tmpdir_base=${OMPI_MCA_orte_tmpdir_base:-}"
# While a job runs, its session folder is in this test's TMPDIR; a job
# killed with SIGKILL leaves its pid.N folder there, and not in /tmp.
# The ranks sleep 5 s at most, so nothing of the job outlives the test
# long, whatever SIGKILL leaves of it.
setsid "${MPIRUN[@]}" -np 2 sh -c 'sleep 5' &
pid=$!
seen=
for _ in $(seq 1 100); do
  seen=$(ls -d "$own"/ompi.*/pid.* 2>/dev/null | head -1)
  [ -n "$seen" ] && break
  sleep 0.1
done
# mpirun's ranks run in process groups of their own: they are found as
# its children (and theirs) by process id, and killed with it.
ranks=$(ps -o pid= --ppid "$pid" 2>/dev/null | tr -d ' ')
kids=$(for r in $ranks; do ps -o pid= --ppid "$r" 2>/dev/null; done | tr -d ' ')
kill -KILL -- "-$pid" $ranks $kids 2>/dev/null
wait "$pid" 2>/dev/null
check $(all '[ -n "$seen" ]') "a running mpirun's session folder is under this test's TMPDIR" "none seen in $own"
check $(all '[ -z "$seen" ] || [ ! -e "/tmp/ompi.$(hostname -s).$(id -u)/$(basename "$seen")" ]') \
  "the job's pid folder is not in the machine's /tmp" "$seen"
exit $fail
