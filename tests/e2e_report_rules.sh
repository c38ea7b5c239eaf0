#!/usr/bin/env bash
# ddl-test-pass: optimised: the verdict rules are Python on written result files; no C runs
# e2e_report_rules.sh - the report's verdict rules (report/ddreport/labN.py),
# one lab at a time, on result files written for each case: the seed's
# claims all holding, some, none, and files a rule cannot read
# (tests/report_rules.py), and the "Past the machine" section's bars on
# make scale's files (tests/report_scale.py). A second or so; prints ok /
# not ok lines.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_python_tests "report rules" tests/report_rules.py tests/report_scale.py
