#!/usr/bin/env bash
# e2e_report_rules.sh - the report's verdict rules (report/ddreport/labN.py),
# one lab at a time, on result files written for each case: the seed's
# claims all holding, some, none, and files a rule cannot read
# (tests/report_rules.py). A second or so; prints ok / not ok lines.
set -u
cd "$(dirname "$0")/.."
# Once, in the optimised pass: the verdict rules are Python on written result files; no C runs.
if [ "${SANITIZE:-0}" = 1 ]; then echo "# sanitizer pass: e2e_report_rules runs in the optimised pass only"; exit 0; fi
command -v python3 >/dev/null 2>&1 || { echo "skip - report rules: python3 not installed (make deps)"; exit 0; }
exec python3 tests/report_rules.py
