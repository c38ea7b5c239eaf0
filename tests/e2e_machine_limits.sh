#!/usr/bin/env bash
# ddl-test-pass: optimised: the checks are labs/launch.sh's and labs/common.sh's shell, and one argument check at a program's start
# e2e_machine_limits.sh - a lab that this machine cannot start says why, in
# its own words, instead of Open MPI's hang or riddle (labs/launch.sh,
# launch_check_machine; labs/common.sh, lab_no_room):
#   1. an open-file limit of 32 (hard): refused, naming the limit needed;
#      a soft limit of 32 under a higher hard one is raised, and the run ends
#      well;
#   2. OMP_NUM_THREADS=100000 (libgomp crashed on it) or abc: refused by
#      name, exit 2;
#   3. a 1 MiB /dev/shm, a TMPDIR that is missing or read-only, a full
#      results disk: refused by name, exit 2, nothing left behind. These
#      mount file systems in a mount namespace of their own (unshare -m):
#      nothing outside the test sees them.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "machine limits"
e2e_need "$BIN/lab1" "$BIN/lab2"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset NET HOSTS PLATFORM LAUNCH NODES NP SLURM_JOB_ID DRY_RUN OMP_NUM_THREADS OPENBLAS_NUM_THREADS
lab2() { # name: lab2's smoke run into $tmp/name, status in $st
  RESULTS=$tmp/$1 FIGURES=$tmp/fig TABLES=$tmp/tab LAB2_SMOKE=1 NP=2 timeout 120 labs/lab2/run.sh > "$tmp/$1.log" 2>&1
}

# --- 1. the open-file limit ----------------------------------------------------------------
( ulimit -n 32; lab2 files32 ); st=$?
check $(all '[ "$st" = 2 ] && grep -q "the open-file limit is 32 (ulimit -n) and [0-9]* ranks need about [0-9]*" "$tmp/files32.log"') \
  "ulimit -n 32: refused at once, naming the limit needed" "status $st (124: hung): $(tail -n 2 "$tmp/files32.log")"
( ulimit -Hn 4096 2>/dev/null; ulimit -Sn 32; lab2 soft32 ); st=$?
check $(all '[ "$st" = 0 ] && [ -f "$tmp/soft32/bench-np2.csv" ]') \
  "a soft limit of 32 under a hard one of 4096 is raised, and the run ends well" "status $st: $(tail -n 2 "$tmp/soft32.log")"

# --- 2. thread counts ----------------------------------------------------------------------
for v in 100000 abc; do
  OMP_NUM_THREADS=$v timeout 60 "$BIN/lab1" --model mlp --dataset mnist --synthetic --epochs 1 --limit 128 \
    --test-limit 64 --batch 64 --out "$tmp/omp" > "$tmp/omp.log" 2>&1
  st=$?
  check $(all '[ "$st" = 2 ] && grep -q "error: OMP_NUM_THREADS='"$v"': a number of threads from 1 to" "$tmp/omp.log"') \
    "OMP_NUM_THREADS=$v is refused by name" "status $st (139: SIGSEGV): $(tail -n 1 "$tmp/omp.log")"
done

# --- 3. /dev/shm, TMPDIR, a full results disk ---------------------------------------------
if ! unshare -m true 2>/dev/null; then
  echo "skip - machine limits: /dev/shm, TMPDIR and a full disk: no mount namespace here (unshare -m needs root)"
  exit $fail
fi
mkdir -p "$tmp/ro" "$tmp/full"
inside() { # name, then shell lines run in a mount namespace of their own; sets st
  local name=$1; shift
  unshare -m bash -c "set -e; $1"'
    RESULTS=$0/$1 FIGURES=$0/fig TABLES=$0/tab LAB2_SMOKE=1 NP=2 timeout 120 labs/lab2/run.sh > "$0/$1.log" 2>&1' "$tmp" "$name"
  st=$?
}
inside shm "mount -t tmpfs -o size=1M tmpfs /dev/shm"
check $(all '[ "$st" = 2 ] && grep -q "/dev/shm has 1 MiB free and [0-9]* ranks on this machine need about [0-9]* MiB" "$tmp/shm.log"') \
  "a 1 MiB /dev/shm is refused by name" "status $st: $(tail -n 2 "$tmp/shm.log")"
inside tmpmissing "export TMPDIR=$tmp/no-such-folder"
check $(all '[ "$st" = 2 ] && grep -q "TMPDIR=.* cannot hold a folder" "$tmp/tmpmissing.log"') \
  "a missing TMPDIR is refused by name" "status $st: $(tail -n 2 "$tmp/tmpmissing.log")"
inside tmpro "mount --bind $tmp/ro $tmp/ro; mount -o remount,ro,bind $tmp/ro; export TMPDIR=$tmp/ro"
check $(all '[ "$st" = 2 ] && grep -q "TMPDIR=.* cannot hold a folder (missing, read-only or full)" "$tmp/tmpro.log"') \
  "a read-only TMPDIR is refused by name" "status $st: $(tail -n 2 "$tmp/tmpro.log")"
unshare -m bash -c 'set -e; mount -t tmpfs -o size=256k tmpfs "$0/full"
  dd if=/dev/zero of="$0/full/filler" bs=4k count=1000 2>/dev/null || true
  RESULTS=$0/full/r FIGURES=$0/fig TABLES=$0/tab LAB2_SMOKE=1 NP=2 timeout 120 labs/lab2/run.sh > "$0/diskfull.log" 2>&1' "$tmp"
st=$?
check $(all '[ "$st" = 2 ] && grep -q "file system is full or read-only" "$tmp/diskfull.log" && ! grep -q "write error" "$tmp/diskfull.log"') \
  "a full results disk is refused by name at the start" "status $st: $(tail -n 2 "$tmp/diskfull.log")"
exit $fail
