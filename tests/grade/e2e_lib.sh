# e2e_lib.sh - sourced by tests/e2e_grade*.sh (from the repository root,
# after `set -u`): the grader call, check, and a report's fields.
# Optimised phase only: the grader (python) builds its own trees from the
# optimised flags' twin; the C it tests is the suite's own, already run
# sanitized in that phase.
if [ "${SANITIZE:-0}" = 1 ]; then
  echo "skip - grade e2e: runs in the optimised phase only"; exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Submission code runs confined only under root; elsewhere the grader is
# told to run it as this user, and the confinement checks are skipped.
if [ "$(id -u)" = 0 ]; then unconfined=(); else unconfined=(--unconfined); fi
grade() { bin/grade --no-build --quiet ${unconfined[@]+"${unconfined[@]}"} "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # condition-status name [why]
  if [ "$1" = 0 ]; then echo "ok - grade e2e: $2"; else echo "not ok - grade e2e: $2${3:+: $3}"; fail=1; fi
}
if [ ! -x bin/grade ] || [ ! -f build/opt/libddl.a ] || [ ! -f build/opt/libgradetape.a ]; then
  echo "not ok - grade e2e: bin/grade or the reference build is missing (make)"; exit 1
fi
# field sub lab item column: a column of the report's row (csv, no commas in the first 5 fields)
field() { awk -F, -v l="$2" -v i="$3" -v c="$4" '$1 == l && $2 == i {print $c}' "$1/grade-report.csv"; }
passed() { field "$1" "$2" "$3" 5; }
reason() { grep "^$2,$3," "$1/grade-report.csv" | cut -d, -f6- | sed 's/^"//; s/"$//'; }
