#!/usr/bin/env bash
# ddl-test-pass: optimised: the grader is Python and grades with the optimised reference build (build/opt), whatever the pass
# e2e_grade_formats.sh - the grader's reports for Gradescope and CI
# (bin/grade --format, labs/grade/gradescope/; labs/grade/README.md,
# "Reports for Gradescope and CI"), on lab5 (two code items without MPI,
# three results items: a few seconds a grading):
#   - a right submission (the reference files, tests/grade/results/lab5)
#     and a wrong one (fp16_round truncating, tests/grade/broken/
#     fp16_truncate.sed, and a tampered byte count) graded in the three
#     formats: Gradescope's results.json has one test per rubric item, each
#     once, max_score = the rubric's points, score = the CSV's, the total =
#     their sum, full marks for the right one and less for the wrong; the
#     JUnit XML parses (xml.etree), one testcase per item, its
#     tests/failures counts right, a <failure message="reason"> on each
#     failed item; the Markdown and CSV reports are as they were;
#   - hidden items (a rubric given by --rubric lab5=FILE, marked `hidden`
#     and `hidden=2099-01-01`): "after_due_date" in Gradescope's JSON,
#     "hidden until ..." in the Markdown and JUnit, their reason nowhere
#     but the CSV; --reveal-after in the past shows them;
#   - bad --format values and hidden dates are refused (exit 2, the choices
#     named);
#   - run_autograder, copied where Gradescope puts it under a temporary
#     root (DDL_AUTOGRADER_ROOT) with source/ddlab, source/grade-args and
#     submission/ (flat files, as uploaded), writes results/results.json:
#     full marks for the right one, less for the wrong, a score of 0 and
#     the reason when its grade-args are wrong; setup.sh installs only
#     packages of the Makefile's DEB_PKGS (and util-linux, git).
set -u
cd "$(dirname "$0")/.."
. tests/grade/e2e_lib.sh
E2E_AS="grade formats: "
t0=$(date +%s)
rubric=labs/lab5/exercises/rubric.txt
# The Python checks print ok / not ok lines; a not ok fails the script.
pycheck() { local out; out=$(python3 - "$@" 2>&1); echo "$out"
  if ! grep -q '^ok - ' <<< "$out" || grep -qv '^ok - ' <<< "$out"; then fail=1; fi; }

# ---- submissions ---------------------------------------------------------------
right=$tmp/subs/right wrong=$tmp/subs/wrong
for s in "$right" "$wrong"; do
  mkdir -p "$s/labs/lab5/exercises" "$s/results"
  cp core/sync/fedavg_aggregate.c "$s/labs/lab5/exercises/"
  cp -r tests/grade/results/lab5 "$s/results/"
done
cp core/util/half_round.c "$right/labs/lab5/exercises/fp16_round.c"
sed -f tests/grade/broken/fp16_truncate.sed core/util/half_round.c > "$wrong/labs/lab5/exercises/fp16_round.c"
sed -i 's/,705608,705608,2822432,/,705608,705600,2822432,/' "$wrong/results/lab5/summary-D_SGD_BS32_FP32.csv"

grade --labs lab5 --format markdown,gradescope,junit "$right" "$wrong" > "$tmp/both.out" 2>&1
rc=$?
check "$(is "$rc" 0)" "right and wrong graded in three formats (exit status 0)" "rc $rc: $(tail -3 "$tmp/both.out")"
for s in "$right" "$wrong"; do
  for f in grade-report.md grade-report.csv grade-results.json grade-junit.xml; do
    [ -s "$s/$f" ] || check 1 "$(basename "$s"): $f written" "missing"
  done
done
check $(all '[ "$(head -1 "$right/grade-report.csv" | tr -d "\r")" = "lab,item,points,max_points,passed,reason" ] &&
  grep -q "^| lab5 | fp16_round | 20/20 | yes |" "$right/grade-report.md" &&
  grep -q "^\*\*60 / 60 points\*\*$" "$right/grade-report.md"') \
  "the Markdown and CSV reports are as they were" "$(head -3 "$right/grade-report.md")"

pycheck "$rubric" "$right" "$wrong" <<'PY'
import csv, json, sys, xml.etree.ElementTree as ET
rubric, right, wrong = sys.argv[1:4]
items = {}
for line in open(rubric):
    f = line.split("#", 1)[0].split()
    if f:
        items["lab5/" + f[0]] = int(f[1])
def say(ok, what, why=""):
    print(f"ok - grade formats: {what}" if ok else f"not ok - grade formats: {what}: {why}")
VIS = {"hidden", "after_due_date", "after_published", "visible"}
for sub, name in ((right, "right"), (wrong, "wrong")):
    rows = {f"{r['lab']}/{r['item']}": r for r in csv.DictReader(open(f"{sub}/grade-report.csv"))}
    doc = json.load(open(f"{sub}/grade-results.json"))
    tests = doc.get("tests", [])
    names = [t.get("name") for t in tests]
    say(sorted(names) == sorted(items) and len(set(names)) == len(names),
        f"{name}: Gradescope JSON has one test per rubric item, each once", names)
    bad = [t for t in tests if t.get("max_score") != items.get(t.get("name")) or
           not isinstance(t.get("score"), (int, float)) or str(t["score"]) != rows[t["name"]]["points"] or
           t.get("visibility") not in VIS or not t.get("output") or
           t.get("status") != ("passed" if rows[t["name"]]["passed"] == "yes" else "failed")]
    say(not bad, f"{name}: each test's max_score is the rubric's points, its score the CSV's, "
                 f"a visibility, an output and a status", bad)
    total = sum(t["score"] for t in tests)
    say(doc.get("score") == total and doc.get("stdout_visibility") in VIS and doc.get("visibility") in VIS and
        isinstance(doc.get("execution_time"), int) and doc.get("output"),
        f"{name}: the top-level score is the tests' sum ({total}), with the schema's other fields", doc)
    most = sum(items.values())
    if name == "right":
        say(total == most, f"right: full marks in Gradescope's JSON ({total} / {most})")
    else:
        say(total < most and doc["score"] == 60 - 20 - 10, f"wrong: fewer points ({total} / {most})")
    root = ET.parse(f"{sub}/grade-junit.xml").getroot()
    cases = root.findall("testcase")
    cnames = [f"{c.get('classname')[len('ddlab.'):]}/{c.get('name')}" for c in cases]
    say(root.tag == "testsuite" and sorted(cnames) == sorted(items) and root.get("tests") == str(len(items)),
        f"{name}: the JUnit XML parses: a testsuite of one testcase per rubric item", (root.tag, cnames))
    failed = {n for n, c in zip(cnames, cases) if c.find("failure") is not None}
    want = {k for k, r in rows.items() if r["passed"] in ("no", "missing")}
    msgs = [c.find("failure").get("message") for c in cases if c.find("failure") is not None]
    say(failed == want and root.get("failures") == str(len(want)) and all(msgs) and
        all(m == rows[n]["reason"] for n, m in zip(sorted(failed), [dict(zip(cnames, cases))[n].find("failure")
                                                                      .get("message") for n in sorted(failed)])),
        f"{name}: a failure with its reason for each failed item ({len(want)}), the failures count right",
        (failed, want, root.get("failures")))
    if name == "wrong":
        say(failed == {"lab5/fp16_round", "lab5/bytes"}, "wrong: fp16_round and bytes fail in the JUnit XML", failed)
PY

# ---- hidden items ----------------------------------------------------------------
sed 's/^\(fp16_round .*\)$/\1 hidden=2099-01-01/; s/^\(bytes .*\)$/\1 hidden/' "$rubric" > "$tmp/rubric5.txt"
grade --labs lab5 --format markdown,gradescope,junit --rubric "lab5=$tmp/rubric5.txt" "$wrong" > "$tmp/hidden.out" 2>&1
check $? "a rubric with hidden items (--rubric lab5=FILE): graded" "$(tail -3 "$tmp/hidden.out")"
reason=$(reason "$wrong" lab5 fp16_round)
cat > "$tmp/hidden.py" <<'PY'
import json, sys, xml.etree.ElementTree as ET
sub, reason, mode = sys.argv[1:4]
def say(ok, what, why=""):
    print(f"ok - grade formats: {what}" if ok else f"not ok - grade formats: {what}: {why}")
doc = json.load(open(f"{sub}/grade-results.json"))
vis = {t["name"]: t["visibility"] for t in doc["tests"]}
md = open(f"{sub}/grade-report.md").read()
root = ET.parse(f"{sub}/grade-junit.xml").getroot()
cases = {c.get("name"): c for c in root.findall("testcase")}
xml_text = open(f"{sub}/grade-junit.xml").read()
if mode == "hidden":
    say(vis == {"lab5/fp16_round": "after_due_date", "lab5/bytes": "after_due_date", "lab5/fedavg_aggregate": "visible",
                "lab5/metadata": "visible", "lab5/accuracy": "visible"},
        "hidden items: visibility after_due_date in Gradescope's JSON, the others visible", vis)
    say(doc["score"] == 30, "hidden items still count in Gradescope's score (30 of 60)", doc["score"])
    say("| lab5 | fp16_round | ?/20 | hidden | hidden until 2099-01-01 |" in md and
        "| lab5 | bytes | ?/10 | hidden | hidden until the due date |" in md and reason[:40] not in md and
        "**30 / 30 points** in the items shown; 30 more in 2 item(s)" in md,
        "the Markdown report says 'hidden until 2099-01-01' and withholds the reason and points", md)
    sk = cases["fp16_round"].find("skipped")
    say(sk is not None and sk.get("message") == "hidden until 2099-01-01" and
        cases["fp16_round"].find("failure") is None
        and root.get("failures") == "0" and root.get("skipped") == "2" and reason[:40] not in xml_text,
        "JUnit: the hidden items are skipped 'hidden until ...', their failures withheld", xml_text[:600])
else:
    say(set(vis.values()) == {"visible"}, "--reveal-after in the past: every item visible in Gradescope's JSON", vis)
    say("| lab5 | fp16_round | 0/20 | no |" in md and "**30 / 60 points**" in md,
        "--reveal-after in the past: the Markdown report shows the hidden items", md)
    say(cases["fp16_round"].find("failure") is not None and root.get("skipped") == "0",
        "--reveal-after in the past: JUnit shows the hidden item's failure", xml_text[:600])
PY
pycheck "$wrong" "$reason" hidden < "$tmp/hidden.py"
check $(all 'grep -q "^lab5,fp16_round,0,20,no," "$wrong/grade-report.csv"') \
  "the CSV (the instructor's) keeps the hidden items' points and reasons" "$(cat "$wrong/grade-report.csv")"
grade --labs lab5 --format markdown,gradescope,junit --rubric "lab5=$tmp/rubric5.txt" --reveal-after 2000-01-01 \
  "$wrong" > "$tmp/reveal.out" 2>&1
pycheck "$wrong" "$reason" revealed < "$tmp/hidden.py"

# ---- refused values ----------------------------------------------------------------
bin/grade --no-build --format markdown,pdf "$right" > /dev/null 2> "$tmp/format.err"
rc=$?
check $(all '[ "$rc" = 2 ] && grep -q "markdown, gradescope, junit" "$tmp/format.err"') \
  "--format markdown,pdf is refused (exit 2) with the choices" "rc $rc: $(head -1 "$tmp/format.err")"
sed 's/^\(bytes .*\)$/\1 hidden=soon/' "$rubric" > "$tmp/rubric5-bad.txt"
bin/grade --no-build --rubric "lab5=$tmp/rubric5-bad.txt" "$right" > /dev/null 2> "$tmp/date.err"
rc=$?
check $(all '[ "$rc" = 2 ] && grep -q "hidden=soon" "$tmp/date.err"') \
  "a hidden item's date that is not one is refused (exit 2)" "rc $rc: $(head -1 "$tmp/date.err")"

# ---- run_autograder under a temporary root ------------------------------------------
# As Gradescope lays it out: the zip's contents in source/ (the repository
# in source/ddlab, here a link to this one), run_autograder copied to the
# root, the upload in submission/ (flat files).
autograde() { # name: grades $tmp/ag-name/submission, prints its results.json's score
  local ag=$tmp/ag-$1
  mkdir -p "$ag/source" "$ag/submission/results"
  ln -s "$PWD" "$ag/source/ddlab"
  cp labs/grade/gradescope/run_autograder "$ag/run_autograder"
  echo "--labs lab5" > "$ag/source/grade-args"
  (cd "$ag" && DDL_AUTOGRADER_ROOT=$ag DDL_GRADE_ARGS="${unconfined[*]}" ./run_autograder) > "$tmp/ag-$1.out" 2>&1
}
for s in right wrong; do
  mkdir -p "$tmp/ag-$s/submission/results"
  cp "$tmp/subs/$s/labs/lab5/exercises/"*.c "$tmp/ag-$s/submission/"
  cp -r "$tmp/subs/$s/results/lab5" "$tmp/ag-$s/submission/results/"
  autograde "$s"
  check $? "run_autograder ($s) exits 0" "$(tail -3 "$tmp/ag-$s.out")"
done
mkdir -p "$tmp/ag-bad/submission"
cp "$right/labs/lab5/exercises/"*.c "$tmp/ag-bad/submission/"
autograde bad
echo "--labs lab9" > "$tmp/ag-bad/source/grade-args"
(cd "$tmp/ag-bad" && DDL_AUTOGRADER_ROOT=$tmp/ag-bad ./run_autograder) > "$tmp/ag-bad.out" 2>&1
pycheck "$rubric" "$tmp" <<'PY'
import json, sys
rubric, tmp = sys.argv[1:3]
def say(ok, what, why=""):
    print(f"ok - grade formats: {what}" if ok else f"not ok - grade formats: {what}: {why}")
items = {}
for line in open(rubric):
    f = line.split("#", 1)[0].split()
    if f:
        items["lab5/" + f[0]] = int(f[1])
most = sum(items.values())
for name in ("right", "wrong"):
    try:
        doc = json.load(open(f"{tmp}/ag-{name}/results/results.json"))
    except (OSError, ValueError) as e:
        say(False, f"run_autograder ({name}) writes results/results.json under its root", e)
        continue
    tests = doc.get("tests", [])
    per = {t["name"]: t["max_score"] for t in tests}
    say(per == items and len(tests) == len(items) and doc["score"] == sum(t["score"] for t in tests),
        f"run_autograder ({name}): results.json has every rubric item once at its points, the score their sum",
        (per, doc.get("score")))
    if name == "right":
        say(doc["score"] == most, f"run_autograder (right): full marks ({doc['score']} / {most})")
    else:
        say(doc["score"] < most, f"run_autograder (wrong): fewer points ({doc['score']} / {most})")
try:
    doc = json.load(open(f"{tmp}/ag-bad/results/results.json"))
    say(doc["score"] == 0 and doc["tests"] == [] and "unknown lab 'lab9'" in doc["output"],
        "run_autograder with wrong grade-args: results.json says why, score 0", doc)
except (OSError, ValueError, KeyError) as e:
    say(False, "run_autograder with wrong grade-args: results.json says why, score 0", e)
PY
# setup.sh installs packages of the Makefile's DEB_PKGS (make deps) only, and util-linux and git.
pkgs=$(sed -n '/^PKGS="/,/"$/p' labs/grade/gradescope/setup.sh | tr -d '"' | sed 's/^PKGS=//' |
  tr -s ' \n' '\n' | grep .)
deb=$(sed -n '/^DEB_PKGS :=/,/^[^ ]/p' Makefile | sed 's/DEB_PKGS :=//; s/\\//' | tr -s ' \n' '\n' | grep .)
stray=$(for p in $pkgs; do grep -qx "$p" <<< "$deb" || [ "$p" = util-linux ] || [ "$p" = git ] || echo "$p"; done)
check $(all '[ -n "$pkgs" ] && [ -z "$stray" ] && bash -n labs/grade/gradescope/setup.sh') \
  "setup.sh installs packages of make deps only ($(echo $pkgs | wc -w))" "not in DEB_PKGS: $stray"
echo "# grade formats e2e: $(( $(date +%s) - t0 )) s" >&2
exit $fail
