#!/usr/bin/env bash
# e2e_docs.sh - the documentation a newcomer reads stays a guide, not a log:
#   - no tracked file refers to numbered development rounds, to issue
#     numbers, or to the way a GPU machine was lent (a reader of the project
#     has none of them: say what was measured, where, when, at which commit);
#   - no tracked file points outside the repository (the shared folder
#     beside the checkout), but .ci/run's optional data;
#   - core's root holds no loose module, and every core folder has a README;
#   - the top README stays under 220 lines (the detail lives in the folders'
#     READMEs);
#   - each lab's handout, labs/labN/README.md, stays under 250 lines (the
#     seed's question, how to run, how to read the outputs, one reference
#     table per platform, the exercises; the lab's mechanics and its longer
#     results live in its DESIGN.md and RESULTS.md), and reaches its
#     exercises before line 100, right after how to run it;
#   - the handouts (README.md, labs/*/README.md) name no date and no
#     commit in their prose: a measurement's date and commit go to the
#     nearest RESULTS.md, which the handout links (code, such as a rubric's
#     hidden=2027-01-15, is not prose);
#   - every relative link in a tracked markdown file names a tracked file
#     (or folder), and every #anchor into a markdown file names a heading.
# Reads the git index and the files only: under 3 s on 2 busy cores. Needs
# git and python3 (make deps); without a git checkout it skips.
set -u
cd "$(dirname "$0")/.."
if [ "${SANITIZE:-0}" = 1 ]; then
  echo "skip - docs: checked in the optimised phase only (no build involved)"
  exit 0
fi
if ! git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  echo "skip - docs: not a git checkout"
  exit 0
fi
source tests/e2e_lib.sh
e2e_begin "docs"

# none_of HITS OK NOT_OK: "ok - docs: OK" when HITS (git grep lines) is
# empty, else "not ok - docs: N line(s) NOT_OK:" and the first 20.
none_of() {
  local hits=$1
  check $(all '[ -z "$hits" ]') "$2" "$(printf '%s\n' "$hits" | wc -l) line(s) $3"
  [ -z "$hits" ] || printf '%s\n' "$hits" | head -20 | cut -c1-200 | sed 's/^/#   /'
}

# The patterns are written so that this file does not match them itself.
# Upstream references such as open-mpi/ompi#9010 are not issue numbers of
# this project and do not match.
history=(
  "a numbered development round|sto[p] [0-9]+"
  "an issue number|issu[e] [0-9]+|issues? #[0-9]+"
  "the way a GPU was lent|devic[e] tool|can_start_anothe[r]"
)
for entry in "${history[@]}"; do
  what=${entry%%|*} pattern=${entry#*|}
  none_of "$(git grep -n -I -i -E "$pattern" -- . 2>/dev/null)" "no tracked file refers to $what" "refer to $what"
done

# Nothing points outside the repository: a student who cloned ddlab has
# no shared folder beside it (seeds are cited by title, authors, year and
# venue; their numbers are in report/seeds/). Only .ci/run may use data
# placed beside the checkout. The pattern does not match this file.
far=..'/shared'
none_of "$(git grep -n -I -E '\.\./share[d]\b' -- . ':!.ci/run' 2>/dev/null)" \
  "no tracked file points outside the repository ($far), but .ci/run" "point outside the repository ($far)"

# core's root holds its README and folders only (at most an umbrella
# header); every folder of core has a README naming the file to start with.
loose=$(git ls-files -- core | grep -E '^core/[^/]+\.(c|h|cc|cu)$' | grep -v '^core/ddl\.h$')
if [ -z "$loose" ]; then ok "core's root holds no loose module"
else bad "loose modules in core's root (give each a folder): $(echo $loose)"; fail=1; fi
unguided=()
for dir in $(git ls-files -- core | sed -n 's#^core/\([^/]*\)/.*#\1#p' | sort -u); do
  [ -f "core/$dir/README.md" ] || unguided+=("core/$dir")
done
if [ ${#unguided[@]} -eq 0 ]; then ok "every folder of core has a README"
else bad "core folders without a README: ${unguided[*]}"; fail=1; fi

lines=$(wc -l < README.md)
if [ "$lines" -lt 220 ]; then
  ok "the top README has $lines lines (under 220)"
else
  bad "the top README has $lines lines (must stay under 220: move detail into the folders' READMEs)"
  fail=1
fi

handouts=$(git ls-files 'labs/lab[0-9]*/README.md')
if [ -z "$handouts" ]; then
  bad "no lab handout (labs/labN/README.md) is tracked"
  fail=1
fi
for handout in $handouts; do
  lines=$(wc -l < "$handout")
  if [ "$lines" -lt 250 ]; then
    ok "$handout has $lines lines (under 250)"
  else
    bad "$handout has $lines lines (must stay under 250: move the mechanics to its DESIGN.md, longer results to its RESULTS.md)"
    fail=1
  fi
  first=$(grep -n -m1 -E '^## (Programming exercises|Exercises)' "$handout" | cut -d: -f1)
  check $(all '[ -n "$first" ] && [ "$first" -lt 100 ]') "$handout reaches its exercises before line 100 (line ${first:-none})" \
    "the seed's question, how to run it, then the exercises: move the rest after them"
done

# Dates (2026-11-29) and commit hashes (7-12 hex digits, at least one
# letter and one digit: not a plain number) in a handout's prose; code
# spans, fenced blocks and indented blocks are left out.
dated=$(git ls-files -z README.md 'labs/*/README.md' | python3 -c '
import re, sys
stamp = re.compile(r"\b(20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]|(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,12})\b")
for f in [f for f in sys.stdin.read().split("\0") if f]:
    text = open(f, encoding="utf-8").read()
    text = re.sub(r"^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S | re.M)
    text = re.sub(r"`[^`]*`", lambda m: "\n" * m.group(0).count("\n"), text)
    prev = ""
    for no, line in enumerate(text.split("\n"), 1):
        code = line.startswith("    ") and (prev.strip() == "" or prev.startswith("    "))
        prev = line if code or line.strip() == "" else "x"
        if not code and stamp.search(line):
            print("%s:%d: %s" % (f, no, line.strip()))
')
none_of "$dated" "the handouts name no date or commit in their prose" "name a date or commit (move it to the nearest RESULTS.md)"

git ls-files -z '*.md' | python3 -c '
import os, re, subprocess, sys
files = [f for f in sys.stdin.read().split("\0") if f]
tracked = set(subprocess.run(["git", "ls-files"], capture_output=True, text=True).stdout.split("\n"))
dirs = {os.path.dirname(f) for f in tracked}
while True:
    more = {os.path.dirname(d) for d in dirs} - dirs
    if not more: break
    dirs |= more

def anchors(path):
    """GitHub heading ids: lower case, punctuation dropped, spaces to hyphens."""
    seen, out, fence = {}, set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        if fence or not re.match(r"#{1,6} ", line):
            continue
        slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else "%s-%d" % (slug, n))
    return out

bad, count = [], 0
link = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
for f in files:
    fence = False
    for no, line in enumerate(open(f, encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        for target in link.findall(line):
            if re.match(r"[a-z]+:", target):
                continue
            count += 1
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if dest not in tracked and dest not in dirs:
                bad.append("%s:%d: %s (no such tracked file)" % (f, no, target))
            elif frag and dest.endswith(".md") and dest in tracked and frag not in anchors(dest):
                bad.append("%s:%d: %s (no such heading)" % (f, no, target))
if bad:
    print("not ok - docs: %d of %d relative markdown links do not resolve:" % (len(bad), count))
    for b in bad[:30]:
        print("#   " + b)
    sys.exit(1)
print("ok - docs: all %d relative links in %d tracked markdown files resolve" % (count, len(files)))
' || fail=1
exit $fail
