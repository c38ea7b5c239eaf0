#!/usr/bin/env bash
# setup.sh - Gradescope's image setup for a ddlab autograder
# (labs/grade/README.md, "Gradescope"). Gradescope runs it once, as root,
# when it builds the autograder's image, from the zip's contents in
# /autograder/source: this file, run_autograder, grade-args (optional) and
# the repository in ddlab/ (labs/grade/gradescope/make_autograder.sh makes
# that zip). It installs the Debian/Ubuntu packages of `make deps` that
# grading needs (the compiler and MPI the reference build and the
# submissions are built with, OpenBLAS, libpng, zlib; Python for the
# grader; util-linux and iproute2 for its sandbox; git for the revision
# the reports name), builds the reference, and opens the repository to
# other users: the sandbox's uid must read the build.
# DDL_REPO: the repository (default: ddlab/ beside this file, else the
# repository this file is in). DDL_SETUP_NO_APT=1: do not install.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=${DDL_REPO:-$here/ddlab}
[ -f "$repo/Makefile" ] || repo=$(cd "$here/../../.." && pwd)
if [ ! -f "$repo/Makefile" ] || [ ! -f "$repo/labs/grade/grade.py" ]; then
  echo "setup.sh: no ddlab repository at $repo (expected ddlab/ beside this file)" >&2; exit 1
fi
# The grading part of the Makefile's DEB_PKGS (make deps), with util-linux
# and git, which Gradescope's Ubuntu image may lack.
PKGS="build-essential openmpi-bin libopenmpi-dev libopenblas-dev libopenblas0-openmp libpng-dev zlib1g-dev
      python3 iproute2 util-linux git"
if [ "${DDL_SETUP_NO_APT:-0}" != 1 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  # shellcheck disable=SC2086
  apt-get install -y --no-install-recommends $PKGS
fi
make -C "$repo" -j"$(nproc)" all
# The sandbox runs submission code as an unprivileged uid, which must read
# the build: every folder from / down to the repository, and its files.
d=$repo
while [ "$d" != / ]; do chmod o+rx "$d"; d=$(dirname "$d"); done
chmod -R o+rX "$repo"
echo "setup.sh: ddlab built in $repo"
