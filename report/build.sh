#!/usr/bin/env bash
# report/build.sh - `make report`: report/build.py with Debian's python3
# (standard library only). Arguments go to it: report/build.sh --help.
cd "$(dirname "$0")/.." || exit 1
if ! command -v python3 >/dev/null 2>&1; then
  echo "report: python3 not found: install it with: sudo apt-get install -y python3 (or 'make deps')" >&2
  exit 1
fi
exec python3 report/build.py "$@"
