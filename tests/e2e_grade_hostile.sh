#!/usr/bin/env bash
# ddl-test-pass: optimised: the grader is Python and grades with the optimised reference build (build/opt), whatever the pass
# e2e_grade_hostile.sh - submissions that attack the grader (bin/grade,
# labs/grade/README.md: the threat model):
#   - tests/grade/hostile/*.c: ok lines by the hundred thousand, exit 0
#     before the checks (from a constructor), a daemon left behind by right
#     code, writes outside the folder, a fork bomb, an endless loop that
#     ignores SIGTERM, a forged tape;
#   - made up here: a symbolic link to a host file (a right answer), a
#     FIFO, a hard link, a linked results folder (right results), links in
#     place of the grader's own outputs;
# each scores 0 on the item it attacks (the daemon's right code keeps its
# marks, without a timeout), leaves no process running and writes nothing
# outside its folder; and a grader that is not root runs no submission
# code unless told to (--unconfined).
# Quick tier (make test): every attack, with ring graded at 1 rank only
# (tests/grade/e2e_lib.sh) and the endless loop under a 3 s cap
# instead of 8 s (its call grades nothing else, so no right code can run
# into the shorter cap); make test-full keeps the 8 s.
set -u
cd "$(dirname "$0")/.."
quick_ring=1  # the forged tape's count (tests/grade/e2e_lib.sh)
. tests/grade/e2e_lib.sh
t0=$(date +%s)
cap=8
if [ $quick = 1 ]; then
  cap=3
  echo "# quick tier: ring graded at every rank count, the endless loop under the 8 s cap (here 3 s) (make test-full runs it)"
fi
# ---- hostile submissions ---------------------------------------------------------
# tests/grade/hostile/*.c ("grade-hostile: lab/item zero|full" in the first
# line: the points the attacked item must end with; "(capped)": graded with
# an 8 s cap per run, for the endless loop). @MARK@ (a name unique to this
# run: every process and file the submissions make carries it), @OUTSIDE@
# (a world-writable folder outside them), @ROOT@ and @SUB@ are filled in.
# They live outside /tmp (the sandbox has a private one), so the sandbox
# must hide their folder (their neighbours) and keep the world-writable
# folder read-only; and outside the repository (the grader refuses a
# submission inside it).
mark=ddlab-hostile-$$-$RANDOM
hroot=$(mktemp -d /var/tmp/ddlab-grade-e2e.XXXXXX) outside=$(mktemp -d "$PWD/build/grade-e2e-outside.XXXXXX")
trap 'rm -rf "$tmp" "$hroot" "$outside"' EXIT
chmod 1777 "$outside"
hsubs=() hcapped=()
for h in tests/grade/hostile/*.c; do
  key= expect=
  read -r key expect < <(sed -n '1s#^/\* grade-hostile: \([a-z0-9]*/[a-z0-9_]*\) \(zero\|full\).*#\1 \2#p' "$h")
  lab=${key%/*} item=${key#*/}
  file=$(awk -v i="$item" '$1 == i {print $4}' "labs/$lab/exercises/rubric.txt" 2>/dev/null)
  [ -n "$file" ] && [ -n "${expect:-}" ] || { check 1 "$h names a rubric item and zero|full" "'$key' '${expect:-}'"; continue; }
  s=$hroot/hostile-$(basename "$h" .c)
  mkdir -p "$s/labs/$lab/exercises"
  sed -e "s|@MARK@|$mark|g" -e "s|@OUTSIDE@|$outside|g" -e "s|@ROOT@|$PWD|g" -e "s|@SUB@|$s|g" "$h" \
    > "$s/labs/$lab/exercises/$file"
  echo "$lab $item $expect" > "$s.key"
  if head -1 "$h" | grep -q "(capped)"; then hcapped+=("$s"); else hsubs+=("$s"); fi
done
# Links: a symbolic link to a host file that is a right answer (the
# reference with a secret line), a FIFO, a linked results folder (a copy
# of the right results), links where the grader writes its own outputs;
# and a hard link to the same host file.
secret=$hroot/secret
mkdir -p "$secret"
{ echo "/* $mark-SECRET: a host file the grader must not read */"; cat core/util/half_round.c; } > "$secret/half_round.c"
cp -r tests/grade/results/lab5 "$secret/results-lab5"
links=$hroot/hostile-links hard=$hroot/hostile-hardlink
mkdir -p "$links/labs/lab5/exercises" "$links/results" "$hard/labs/lab5/exercises" "$tmp/outside-grade"
ln -s "$secret/half_round.c" "$links/labs/lab5/exercises/fp16_round.c"
mkfifo "$links/labs/lab5/exercises/fedavg_aggregate.c"
ln -s "$secret/results-lab5" "$links/results/lab5"
ln -s "$tmp/outside-grade" "$links/.grade"
echo untouched > "$tmp/outside-report" && ln -s "$tmp/outside-report" "$links/grade-report.md"
ln "$secret/half_round.c" "$hard/labs/lab5/exercises/fp16_round.c"
t1=$(date +%s)
grade "${hsubs[@]}" "$links" "$hard" > "$tmp/hostile.out" 2>&1
GRADE_TIMEOUT=$cap grade "${hcapped[@]}" > "$tmp/hostile-capped.out" 2>&1
echo "# grade e2e: hostile submissions graded in $(( $(date +%s) - t1 )) s" >&2
for s in "${hsubs[@]}" "${hcapped[@]}"; do
  read -r lab item expect < "$s.key"
  p=$(passed "$s" "$lab" "$item") pts=$(field "$s" "$lab" "$item" 3) r=$(reason "$s" "$lab" "$item")
  if [ "$expect" = zero ]; then ok=$([ "$p" = no ] && [ "$pts" = 0 ] && echo 0 || echo 1)
  else ok=$([ "$p" = yes ] && echo 0 || echo 1); fi
  check "$ok" "$(basename "$s") scores $expect on $lab/$item: $(echo "$r" | cut -c1-110)" "$p $pts: $r"
done
says "$hroot/hostile-ok_flood" lab5 fp16_round "cannot be replayed: the recording ends in call 1" \
  "200,000 ok lines and exit 0 at the first call: the replay finds no results"
says "$hroot/hostile-exit_early" lab5 fedavg_aggregate "cannot be replayed: no recording" \
  "ok lines and exit 0 before main: no recording, no points"
says "$hroot/hostile-forged_tape" lab2 ring "cannot be replayed: schedule step 0: ranges" \
  "a forged tape whose schedule leaves the vector is refused before the engine runs it"
says "$hroot/hostile-infinite_loop" lab5 fedavg_aggregate "timed out after $cap s" \
  "an endless loop that ignores SIGTERM times out"
says "$hroot/hostile-daemon" lab5 fedavg_aggregate "passed" \
  "right code that leaves a daemon keeps its marks, no timeout"
bombed=$(grep -ho "fork failed after [0-9]* children: [A-Za-z ]*" "$hroot/hostile-fork_bomb/.grade/lab5-fedavg_aggregate/log.txt" | head -1)
n=$(echo "$bombed" | awk '{print $4}')
check $([ -n "$n" ] && [ "$n" -lt 512 ] && echo 0 || echo 1) "a fork bomb stops at the process limit (512): $bombed" "$bombed"
r=$(reason "$links" lab5 fp16_round)
check $([[ $r == "refused: labs/lab5/exercises/fp16_round.c is a symbolic link"* ]] && echo 0 || echo 1) \
  "a symbolic link to a host file (a right answer) is refused" "$r"
says "$links" lab5 fedavg_aggregate "is a FIFO" "a FIFO in place of a file is refused, not read"
r=$(reason "$links" lab5 accuracy)
check $([ "$(passed "$links" lab5 accuracy)" = no ] && [[ $r == "refused: results/lab5 is a symbolic link"* ]] && echo 0 || echo 1) \
  "a linked results folder (holding right results) is refused" "$r"
says "$hard" lab5 fp16_round "2 hard links" "a hard link to a host file is refused"
leak=$(grep -l -- "$mark-SECRET" "$links"/grade-report.* "$hard"/grade-report.* 2>/dev/null)
check $([ -z "$leak" ] && grep -q "symbolic link" "$links/grade-report.md" && echo 0 || echo 1) \
  "no host file's content in the reports, which list what was refused" "$leak"
check $([ -z "$(ls -A "$tmp/outside-grade")" ] && [ "$(cat "$tmp/outside-report")" = untouched ] &&
  [ ! -L "$links/grade-report.md" ] && [ ! -L "$links/.grade" ] && echo 0 || echo 1) \
  "links in place of .grade and grade-report.md are replaced, not written through" "$(ls -A "$tmp/outside-grade")"
if [ ${#unconfined[@]} = 0 ]; then
  # By name (the daemon, the bomb's children carry the mark), and by the
  # sandbox uids the reports name (every process they started).
  uids=$(cat "$hroot"/*/grade-report.md | grep -o "ran confined: uid [0-9]*" | awk '{print $4}' | sort -u)
  left=$( (pgrep -f -- "$mark"; for u in $uids; do pgrep -U "$u"; done) | sort -u | tr '\n' ' ')
  check $([ -n "$uids" ] && [ -z "$left" ] && echo 0 || echo 1) \
    "no process of a hostile submission is left running (none named for them, none of uids $(echo $uids))" "pids $left"
  for pid in $left; do kill -9 "$pid" 2>/dev/null; done
  wrote=$(find /tmp /var/tmp /dev/shm "$PWD" "$outside" -maxdepth 4 -name "*$mark*" 2>/dev/null | tr '\n' ' ')
  # (what write_outside.c writes; another grader may update these files meanwhile)
  grep -qs "written by a submission" build/opt/grade-expected.json && wrote+=" build/opt/grade-expected.json"
  grep -qs "written by a submission" build/opt/grade/lab5-fedavg_aggregate/test_fedavg_aggregate &&
    wrote+=" the replay program"
  check $([ -z "$wrote" ] && echo 0 || echo 1) "no file written outside the submissions' folders" "$wrote"
  for f in $wrote; do [[ $f == *"$mark"* ]] && rm -f "$f"; done
  # Its own log: what it could write (its folder, and its private /tmp
  # and /dev/shm, gone with it: the host's were searched above).
  wlog=$hroot/hostile-write_outside/.grade/lab5-fedavg_aggregate/log.txt
  w=$(grep "^write .*: WRITTEN" "$wlog" | grep -v -e "^write written-in-work-folder:" -e "^write /tmp/" -e "^write /dev/shm/")
  check $([ -z "$w" ] && grep -q "^write written-in-work-folder: WRITTEN" "$wlog" && echo 0 || echo 1) \
    "a submission writes only in its work folder and private /tmp, /dev/shm ($(grep -c "^write .*: Read-only" "$wlog") writes refused)" "$w"
  check $(grep -q "^write $outside/.*: Read-only file system" "$wlog" &&
    [ "$(grep -c "^write $hroot/.*: No such file" "$wlog")" = 2 ] && echo 0 || echo 1) \
    "a world-writable folder is read-only in the sandbox, and the submissions' folder is hidden" "$(grep "^write" "$wlog")"
else
  echo "skip - grade e2e: confinement (processes, writes): the grader is not root here"
fi
# Not root: no submission code runs unless --unconfined says so.
nonroot=$tmp/nonroot
mkdir -p "$nonroot/labs/lab5/exercises" && cp core/sync/fedavg_aggregate.c "$nonroot/labs/lab5/exercises/"
if [ "$(id -u)" = 0 ]; then
  # (its temporary folder, where it keeps its locks, is the test's)
  chmod 755 "$tmp" && mkdir "$tmp/nonroot-tmp" && chown -R 65534:65534 "$nonroot" "$tmp/nonroot-tmp"
  setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$nonroot" TMPDIR="$tmp/nonroot-tmp" \
    bin/grade --no-build --quiet "$nonroot" \
    > "$tmp/nonroot.out" 2>&1
else
  bin/grade --no-build --quiet "$nonroot" > "$tmp/nonroot.out" 2>&1
fi
r=$(reason "$nonroot" lab5 fedavg_aggregate)
check $([ "$(passed "$nonroot" lab5 fedavg_aggregate)" = error ] && [[ $r == *"needs root"*"--unconfined"* ]] && echo 0 || echo 1) \
  "not root: code items are not graded, and the report says why" "$r"
echo "# grade e2e: hostile $(( $(date +%s) - t0 )) s" >&2
exit $fail
