#!/usr/bin/env bash
# ddl-test-pass: optimised: the verdict rules are Python on result files the test writes; no C runs
# e2e_report_mutations.sh - every judged claim of the report can fail
# (tests/report_mutations.py: for each claim an edit that makes ddlab wrong
# flips it, one inside the noise does not), and numbers that cannot be true
# or folders a run left unfinished are refused (tests/report_inputs.py).
# A few seconds; prints ok / not ok lines.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_python_tests "report mutations" tests/report_mutations.py tests/report_inputs.py
