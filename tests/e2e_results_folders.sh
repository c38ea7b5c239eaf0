#!/usr/bin/env bash
# ddl-test-pass: optimised: labs/common.sh and labs/platforms/sim.sh are shell; the one real run is lab2's smoke, whose C code the lab tests check under the sanitizers
# e2e_results_folders.sh - no variable makes a lab delete what ddlab did
# not make (labs/common.sh, "results folders"):
#   1. RESULTS naming a folder with a user's file in it, a plain file, a
#      link, or a folder beside it named <RESULTS>.tmp / .partial that is
#      not ddlab's, or a <RESULTS>.lock that is not a lock file: refused
#      with exit 2 before anything starts, and every byte is still there;
#   2. PLATFORM naming a path (../platforms/cluster4) rather than a
#      platform of labs/platforms is refused, nothing made;
#   3. a new folder, and an empty one, are taken; the folder a run made
#      holds the mark and the next run replaces it; a user's file put into
#      it since does not make it a user's folder (the mark is there);
#   4. lab_rm_ours (what the commit and clean-up call) removes a marked
#      folder and keeps an unmarked one, saying so.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "results folders"
e2e_need "$BIN/lab2"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset NET HOSTS PLATFORM LAUNCH NODES NP SLURM_JOB_ID DRY_RUN LAB_ARRAY_TASK LAB_ARRAY_MERGE

# --- 1. refused, and nothing touched ------------------------------------------------
user_tree() { # folder: a user's work, and its digest
  mkdir -p "$1/sub" && echo "chapter one" > "$1/thesis.tex" && echo "data" > "$1/sub/d.csv"
}
digest() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum) 2>/dev/null; }
refused_kept() { # name folder-to-keep pattern env...
  local name=$1 keep=$2 pat=$3 before st; shift 3
  before=$(digest "$keep")
  env "$@" LAB2_SMOKE=1 NP=2 labs/lab2/run.sh > "$tmp/out" 2> "$tmp/err"
  st=$?
  check $(all '[ "$st" = 2 ] && grep -q -- "$pat" "$tmp/err" && [ "$(digest "$keep")" = "$before" ] && [ -n "$before" ]') \
    "$name" "status $st, $(head -c 300 "$tmp/err")"
}
user_tree "$tmp/thesis"
refused_kept "RESULTS=<a user's folder> is refused and the folder kept" "$tmp/thesis" "not made by ddlab" \
  RESULTS="$tmp/thesis"
refused_kept "the same with DRY_RUN=1" "$tmp/thesis" "not made by ddlab" RESULTS="$tmp/thesis" DRY_RUN=1
mkdir -p "$tmp/a" && user_tree "$tmp/a/out.tmp"
refused_kept "a user's <RESULTS>.tmp beside a new RESULTS is refused and kept" "$tmp/a/out.tmp" "out.tmp exists" \
  RESULTS="$tmp/a/out"
mkdir -p "$tmp/b" && user_tree "$tmp/b/out.partial"
refused_kept "a user's <RESULTS>.partial is refused and kept" "$tmp/b/out.partial" "out.partial exists" \
  RESULTS="$tmp/b/out"
mkdir -p "$tmp/c" && echo "my notes" > "$tmp/c/out.lock"
refused_kept "a <RESULTS>.lock that is a user's file is refused and kept" "$tmp/c" "not a lock file" \
  RESULTS="$tmp/c/out"
mkdir -p "$tmp/d" && echo "a file" > "$tmp/d/f"
refused_kept "RESULTS naming a plain file is refused and the file kept" "$tmp/d" "not made by ddlab" \
  RESULTS="$tmp/d/f"
mkdir -p "$tmp/e" && ln -s "$tmp/thesis" "$tmp/e/link"
refused_kept "RESULTS naming a link to a user's folder is refused, the folder kept" "$tmp/thesis" "not made by ddlab" \
  RESULTS="$tmp/e/link"

# --- 2. PLATFORM is a name from the list -----------------------------------------------
env PLATFORM=../platforms/cluster4 labs/lab2/run.sh > /dev/null 2> "$tmp/err"
st=$?
check $(all '[ "$st" = 2 ] && grep -q "not a platform of labs/platforms; available: .*cluster4" "$tmp/err" && [ ! -e "results/lab2/sim-../platforms" ]') \
  "PLATFORM=../platforms/cluster4 is refused, naming the platforms" "status $st, $(head -c 300 "$tmp/err")"

# --- 3. new, empty and ddlab's own folders are taken --------------------------------
mkdir "$tmp/empty"
env RESULTS="$tmp/empty" DRY_RUN=1 LAB2_SMOKE=1 NP=2 labs/lab2/run.sh > /dev/null 2> "$tmp/err"
check $? "an empty folder is taken (DRY_RUN=1)" "$(head -c 300 "$tmp/err")"
run2() { env RESULTS="$tmp/new" FIGURES="$tmp/fig" TABLES="$tmp/tab" LAB2_SMOKE=1 NP=2 labs/lab2/run.sh > "$tmp/run.log" 2>&1; }
run2; st=$?
check $(all '[ "$st" = 0 ] && [ -f "$tmp/new/.ddlab-results" ] && [ -f "$tmp/new/bench-np2.csv" ]') \
  "a new folder is made, with the mark and the results" "status $st: $(tail -n 3 "$tmp/run.log")"
echo "stale" > "$tmp/new/stale.txt"
run2; st=$?
check $(all '[ "$st" = 0 ] && [ ! -e "$tmp/new/stale.txt" ] && [ -f "$tmp/new/.ddlab-results" ]') \
  "the next run replaces the folder it made" "status $st: $(tail -n 3 "$tmp/run.log")"

# --- 4. lab_rm_ours ---------------------------------------------------------------------
mkdir -p "$tmp/m1" "$tmp/m2" && echo x > "$tmp/m1/f" && echo x > "$tmp/m2/f"
bash -c 'LAB_NAME=lab2; source <(sed -n "/^# --- results folders/,/^# --- one run/p" labs/common.sh)
  lab_mark_dir "$0"; lab_rm_ours "$0"; a=$?; lab_rm_ours "$1"; echo "$a $?"' "$tmp/m1" "$tmp/m2" > "$tmp/rm.out" 2> "$tmp/rm.err"
check $(all '[ "$(cat "$tmp/rm.out")" = "0 1" ] && [ ! -e "$tmp/m1" ] && [ -f "$tmp/m2/f" ] && grep -q "kept, not removed" "$tmp/rm.err"') \
  "lab_rm_ours removes a marked folder and keeps an unmarked one, saying so" "$(cat "$tmp/rm.out" "$tmp/rm.err")"
exit $fail
