#!/usr/bin/env bash
# ddl-test-pass: optimised: the grader is Python and grades with the optimised reference build (build/opt), whatever the pass
# e2e_grade_checkout.sh - where the grader will not work (bin/grade,
# labs/grade/README.md):
#   - a submission folder inside the repository (a lab's own folder, or
#     one under build/): refused, exit status 2, nothing written there;
#   - (as root) a compiler that only the grader sees, not the sandbox: a
#     wrapper in the submissions' own folder, which the sandbox hides
#     from their code (CC, through MAKEFLAGS): a grader error (every code
#     item "error", exit status 1, said once on stderr), not a "does not
#     compile" for every student; the same wrapper beside that folder
#     grades the same submission with full marks.
set -u
cd "$(dirname "$0")/.."
. tests/grade/e2e_lib.sh
t0=$(date +%s)
inside=$(mktemp -d "$PWD/build/grade-e2e-inside.XXXXXX")
base=$(mktemp -d /var/tmp/ddlab-grade-e2e.XXXXXX)
trap 'rm -rf "$tmp" "$inside" "$base"' EXIT
lab5_code() { mkdir -p "$1/labs/lab5/exercises" && cp core/util/half_round.c "$1/labs/lab5/exercises/fp16_round.c"; }

# ---- inside the repository ------------------------------------------------------
lab5_code "$inside/alice"
grade --labs lab5 "$inside/alice" > "$tmp/inside.out" 2> "$tmp/inside.err"
rc=$?
check $([ "$rc" = 2 ] && grep -q "inside the repository" "$tmp/inside.err" && [ ! -e "$inside/alice/.grade" ] &&
  [ ! -e "$inside/alice/grade-report.md" ] && echo 0 || echo 1) \
  "a submission folder inside the repository is refused (exit status 2), nothing written there" \
  "rc $rc: $(head -c 300 "$tmp/inside.err") $(ls -A "$inside/alice" | tr '\n' ' ')"
# A lab's own folder: refused before anything is read or written.
before=$(git status --porcelain --ignored labs/lab5 | md5sum)
grade --labs lab5 labs/lab5 > "$tmp/lab.out" 2> "$tmp/lab.err"
rc=$?
check $([ "$rc" = 2 ] && grep -q "labs/lab5: inside the repository" "$tmp/lab.err" &&
  [ "$(git status --porcelain --ignored labs/lab5 | md5sum)" = "$before" ] && echo 0 || echo 1) \
  "bin/grade labs/lab5: refused, exit status 2, the source tree untouched" "rc $rc: $(head -c 300 "$tmp/lab.err")"

# ---- a toolchain the sandbox does not see ------------------------------------------
if [ ${#unconfined[@]} = 0 ]; then
  chmod 755 "$base" && mkdir -m 755 "$base/subs" "$base/subs/tools" "$base/tools"
  for d in "$base/subs/tools" "$base/tools"; do
    printf '#!/bin/sh\nexec mpicc "$@"\n' > "$d/mpicc" && chmod 755 "$d/mpicc"
  done
  lab5_code "$base/subs/alice" && chmod -R a+rX "$base/subs/alice"
  MAKEFLAGS="CC=$base/subs/tools/mpicc" grade --labs lab5 "$base/subs/alice" > "$tmp/hidden.out" 2> "$tmp/hidden.err"
  rc=$?
  p=$(passed "$base/subs/alice" lab5 fp16_round) r=$(reason "$base/subs/alice" lab5 fp16_round)
  check $([ "$rc" = 1 ] && [ "$p" = error ] && [[ $r == *"cannot build a known-good item"*"grader error"* ]] &&
    grep -q "^grade: code items cannot be graded: .*CC=$base/subs/tools/mpicc" "$tmp/hidden.err" && echo 0 || echo 1) \
    "a compiler in the submissions' folder (hidden from the sandbox): a grader error, exit status 1, not 'does not compile'" \
    "rc $rc, $p: $r"
  MAKEFLAGS="CC=$base/tools/mpicc" grade --labs lab5 "$base/subs/alice" > "$tmp/beside.out" 2> "$tmp/beside.err"
  rc=$?
  p=$(passed "$base/subs/alice" lab5 fp16_round)
  check $([ "$p" = yes ] && echo 0 || echo 1) "the same compiler beside the submissions' folder grades it: full marks" \
    "rc $rc, $p: $(reason "$base/subs/alice" lab5 fp16_round)"
else
  echo "skip - grade e2e: a toolchain hidden from the sandbox: the sandbox needs root"
fi
echo "# grade e2e: checkout $(( $(date +%s) - t0 )) s" >&2
exit $fail
