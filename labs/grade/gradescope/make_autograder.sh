#!/usr/bin/env bash
# make_autograder.sh OUT.zip [GRADE-ARGS...] - the zip to upload as a
# Gradescope autograder (labs/grade/README.md, "Gradescope"): setup.sh and
# run_autograder at its root, as Gradescope wants them, the repository's
# committed tree (HEAD) in ddlab/, and, when GRADE-ARGS are given, a file
# grade-args holding them (bin/grade's options for this assignment:
# --labs lab5 --reveal-after 2027-01-15, say). Needs git 2.28 or later.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 OUT.zip [bin/grade options...]" >&2; exit 2; }
out=$(realpath -m "$1"); shift
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/setup.sh" "$here/run_autograder" "$tmp/"
extra=()
if [ $# -gt 0 ]; then
  printf '%s\n' "$*" > "$tmp/grade-args"
  extra=(--add-file="$tmp/grade-args")
fi
git -C "$repo" archive --format=zip -o "$out" --add-file="$tmp/setup.sh" --add-file="$tmp/run_autograder" \
  ${extra[@]+"${extra[@]}"} --prefix=ddlab/ HEAD
rev=$(git -C "$repo" rev-parse --short=12 HEAD)
echo "$out: setup.sh, run_autograder${extra[*]:+, grade-args ($*)} and ddlab/ ($rev)"
