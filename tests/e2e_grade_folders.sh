#!/usr/bin/env bash
# ddl-test-pass: optimised: the grader is Python and grades with the optimised reference build (build/opt), whatever the pass
# e2e_grade_folders.sh - submission folders shaped to end, forge or steer
# the grader (bin/grade, labs/grade/README.md), graded in one call beside
# a right submission, which must keep full marks:
#   - a tree 1,100 folders deep (Python's os.walk and shutil.rmtree recurse);
#   - a folder named grade-report.md, where the grader writes its report;
#   - a symbolic link named with the byte \xff (not UTF-8);
#   - a results file whose name holds newlines and a forged total line,
#     and a submission folder named so (with a byte that is not UTF-8);
#   - tests/grade/hostile/tape_steer.c: right code that makes folders and
#     links under the tapes' and the test program's names, and its work
#     folder mode 1777;
#   - a symbolic link given as the submission folder, and (as root) a
#     submission beside the repository (in the folder that holds it):
#     each refused with its own line, nothing written where they lead.
# Each bad submission gets its own line and report, the rest are graded;
# no name from a submission starts a line of a report; nothing the grader
# leaves is world-writable. As root, the sandbox is also shown to keep a
# folder under /tmp (where a checkout may be) visible, read-only.
set -u
cd "$(dirname "$0")/.."
. tests/grade/e2e_lib.sh
t0=$(date +%s)
subs="$tmp/sub folders"  # a blank in the path: the sandbox binds and hides it whole
mkdir -p "$subs"
lab5_code() { mkdir -p "$1/labs/lab5/exercises" && cp core/util/half_round.c "$1/labs/lab5/exercises/fp16_round.c"; }
lab5_results() { mkdir -p "$1/results" && cp -r tests/grade/results/lab5 "$1/results/"; }
good=$subs/good deep=$subs/deep rdir=$subs/reportdir xff=$subs/xff forged=$subs/forged steer=$subs/steer
lab5_code "$good" && cp core/sync/fedavg_aggregate.c "$good/labs/lab5/exercises/" && lab5_results "$good"
lab5_code "$deep" && lab5_results "$deep"
# 1,100 folders, made from inside (a path that long is past what mkdir -p takes at once)
(cd "$deep" && mkdir junk && cd junk && for i in $(seq 1100); do mkdir d && cd d || exit 1; done && echo bottom > f)
check $? "a tree 1,100 folders deep is made"
lab5_code "$rdir" && mkdir -p "$rdir/grade-report.md/inside" && echo student > "$rdir/grade-report.md/inside/x"
lab5_code "$xff" && ln -s /etc/hostname "$xff/$(printf 'link-\xff')"
forged_name=$(printf 'x\n\n**FINAL: 60 of 60 points** (regraded by the instructor)\n\nz.csv')
lab5_results "$forged" && echo "not read" > "$forged/results/lab5/$forged_name"
mkdir -p "$steer/labs/lab5/exercises"
sed "s|@ROOT@|$PWD|g" tests/grade/hostile/tape_steer.c > "$steer/labs/lab5/exercises/fp16_round.c"
target=$subs/link-target
lab5_results "$target" && ln -s "$target" "$subs/g7link"
named=$subs/$(printf 'named\n**FINAL: 60 of 60 points**\xff')
lab5_results "$named"
all=("$good" "$deep" "$rdir" "$xff" "$forged" "$steer" "$named" "$subs/g7link")
top=
if [ ${#unconfined[@]} = 0 ]; then
  top=$(dirname "$PWD")/ddlab-grade-e2e-beside-$$
  trap 'rm -rf "$tmp" "$top"' EXIT
  lab5_results "$top" && all+=("$top")
fi
grade --labs lab5 "${all[@]}" > "$tmp/out" 2> "$tmp/err"
rc=$?
echo "# grade e2e: bad folders graded in $(( $(date +%s) - t0 )) s" >&2
check $([ "$rc" = 1 ] && ! grep -q Traceback "$tmp/err" && [ "$(grep -c "" "$tmp/out")" = ${#all[@]} ] && echo 0 || echo 1) \
  "no traceback, one line per submission (${#all[@]}), exit status 1" "rc $rc: $(head -c 600 "$tmp/err")"
r=$(awk -F, 'NR > 1 && $5 != "yes" {print $2 ": " $6}' "$good/grade-report.csv")
check $([ -s "$good/grade-report.csv" ] && [ -z "$r" ] && grep -q "^$good: 60/60 points" "$tmp/out" && echo 0 || echo 1) \
  "the right submission graded beside them keeps full marks (60/60)" "$(grep "^$good" "$tmp/out") $r"
for s in "$deep" "$rdir" "$xff" "$steer"; do
  p=$(passed "$s" lab5 fp16_round)
  check $([ "$p" = yes ] && echo 0 || echo 1) "$(basename "$s"): graded as its own item, its right fp16_round passes" \
    "$p: $(reason "$s" lab5 fp16_round)"
done
check $(grep -q "junk/d/d/.*nested more than" "$deep/grade-report.md" && [ "$(passed "$deep" lab5 accuracy)" = yes ] &&
  echo 0 || echo 1) "the deep tree is refused (too deep), its results still graded" "$(grep junk "$deep/grade-report.md" | cut -c1-200)"
check $([ -f "$rdir/grade-report.md" ] && [ ! -L "$rdir/grade-report.md" ] && grep -q "^| lab5 | fp16_round | 20/20" "$rdir/grade-report.md" &&
  echo 0 || echo 1) "a folder named grade-report.md is replaced by the report" "$(ls -la "$rdir" | head)"
check $(grep -qF '`link-\xff`: ' "$xff/grade-report.md" && iconv -f UTF-8 -t UTF-8 "$xff/grade-report.md" > /dev/null &&
  echo 0 || echo 1) "a link named with the byte \\xff: refused, named escaped, the report is UTF-8" "$(grep link- "$xff/grade-report.md")"
r=$(reason "$forged" lab5 accuracy)
check $([ "$(passed "$forged" lab5 accuracy)" = no ] && [[ $r == *'x\n\n**FINAL'*"not printable"* ]] &&
  ! grep -q "^\*\*FINAL" "$forged/grade-report.md" && [ "$(grep -c "" "$forged/grade-report.csv")" = 6 ] && echo 0 || echo 1) \
  "a name with newlines is refused and shown escaped: no forged line in the report" "$r"
check $(! grep -q "^\*\*FINAL" "$tmp/out" "$named/grade-report.md" && grep -qF '# Grade report: named\n**FINAL: 60 of 60 points**\xff' \
  "$named/grade-report.md" && [ "$(passed "$named" lab5 accuracy)" = yes ] && echo 0 || echo 1) \
  "a submission folder named with a newline and \\xff: graded, its name escaped in the output and the report" \
  "$(grep -a FINAL "$tmp/out" "$named/grade-report.md" | head -3)"
r=$(grep "g7link" "$tmp/out")
check $([[ $r == *"not graded: a symbolic link"* ]] && [ ! -e "$target/.grade" ] && [ ! -e "$target/grade-report.md" ] &&
  echo 0 || echo 1) "a linked submission folder is refused, nothing written where it leads" "$r"
if [ -n "$top" ]; then
  r=$(grep "^$top" "$tmp/out")
  check $([[ $r == *"not graded: its folder"*"holds the repository"* ]] && [ ! -e "$top/.grade" ] && echo 0 || echo 1) \
    "a submission beside the repository (its siblings could not be hidden) is refused" "$r"
fi
ww=$(find "${all[@]:0:7}" -path "*/.grade/*" -perm -o+w ! -type l 2>/dev/null | head -5)
check $([ -z "$ww" ] && [ -d "$steer/.grade/lab5-fp16_round/work" ] && echo 0 || echo 1) \
  "nothing the grader leaves is world-writable (the steering submission made its work folder 1777)" "$ww"
if [ ${#unconfined[@]} = 0 ]; then
  # The sandbox keeps a folder under /tmp (a checkout there) visible, read-only.
  shown_dir=$(mktemp -d "/tmp/grade-e2e show.XXXXXX") w=$tmp/sbwork
  chmod 755 "$shown_dir" && echo visible > "$shown_dir/f" && mkdir "$w"
  unshare --pid --fork --kill-child --mount-proc --net --mount --ipc --uts -- bash labs/grade/sandbox.sh --work "$w" \
    --uid 3999999001 --show "$shown_dir" -- bash -c "cat '$shown_dir/f'; touch '$shown_dir/g' 2>&1" > "$tmp/show.out" 2>&1
  check $([ "$(head -1 "$tmp/show.out")" = visible ] && grep -q "Read-only file system" "$tmp/show.out" && echo 0 || echo 1) \
    "the sandbox shows a folder under /tmp (its own tmpfs there) read-only" "$(cat "$tmp/show.out")"
  rm -rf "$shown_dir"
fi
echo "# grade e2e: folders $(( $(date +%s) - t0 )) s" >&2
exit $fail
