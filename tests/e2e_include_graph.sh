#!/usr/bin/env bash
# ddl-test-pass: optimised: reads the sources' #include lines; no C runs
# e2e_include_graph.sh - core's folders include each other one way only
# (no circle, by a plain reading of every quoted #include, not by a tool),
# and no folder of core is under 100 lines without saying why
# (tests/include_graph.py). A second; prints ok / not ok lines.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "include graph"
command -v python3 >/dev/null 2>&1 || { echo "skip - include graph: python3 not installed (make deps)"; exit 0; }
python3 tests/include_graph.py
