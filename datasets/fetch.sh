#!/usr/bin/env bash
# datasets/fetch.sh - download the real datasets ddlab's loaders read, check
# their SHA-256 against datasets/SHA256SUMS, and lay them out under the data
# root. Run with --help for usage. Nothing here is needed to build or test:
# without the files the labs fall back to (clearly labelled) synthetic data.
set -u -o pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SUMS=$HERE/SHA256SUMS
MNIST_MIRRORS=(https://ossci-datasets.s3.amazonaws.com/mnist
               https://storage.googleapis.com/cvdf-datasets/mnist)
FASHION_MIRRORS=(http://fashion-mnist.s3-website.eu-central-1.amazonaws.com
                 https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion)
CIFAR_URL=https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz
IDX_FILES=(train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz
           t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz)
CIFAR_BINS=(data_batch_1.bin data_batch_2.bin data_batch_3.bin data_batch_4.bin
            data_batch_5.bin test_batch.bin)

usage() {
  cat <<USAGE
Usage: datasets/fetch.sh [--root DIR] [--keep-archive] [--sdss FILE] [NAME...]

Download and verify the datasets the ddlab loaders read. NAME is one of
mnist, fashion-mnist, cifar10, sdss, all (default: mnist fashion-mnist cifar10).

  --root DIR      data root (default: \$DDL_DATA, else this script's folder)
  --keep-archive  keep cifar-10-binary.tar.gz after unpacking
  --sdss FILE     install FILE (the SkyServer DR14 CSV) as sdss/skyserver_dr14.csv
  -h, --help      this text

Layout under the root:
  mnist/          {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz
  fashion-mnist/  same four names
  cifar-10-batches-bin/  data_batch_1..5.bin, test_batch.bin
  sdss/           skyserver_dr14.csv

Each .gz file and the CIFAR tarball is checked against datasets/SHA256SUMS;
files already present and correct are not downloaded again.

SDSS: the 10000-row SkyServer DR14 extract has no official single URL, so it
cannot be downloaded here. Get the CSV published on Kaggle as "Sloan Digital
Sky Survey DR14" (lucidlenn/sloan-digital-sky-survey; it reproduces the class
counts GALAXY 4998, STAR 4152, QSO 850) or run a query of this shape at
https://skyserver.sdss.org/dr14/en/tools/search/sql.aspx (CSV output):
  SELECT TOP 10000 p.objid, p.ra, p.dec, p.u, p.g, p.r, p.i, p.z, p.run,
    p.rerun, p.camcol, p.field, s.specobjid, s.class, s.z AS redshift,
    s.plate, s.mjd, s.fiberid
  FROM PhotoObj AS p JOIN SpecObj AS s ON s.bestobjid = p.objid
  WHERE p.u BETWEEN 0 AND 19.6 AND p.g BETWEEN 0 AND 20
(a fresh query may return other rows and other class counts), then run
  datasets/fetch.sh --sdss path/to/that.csv

Exit status: 0 when every requested dataset is in place and verified,
1 otherwise (e.g. offline), 2 on bad usage.
USAGE
}

die_usage() { echo "fetch.sh: $*" >&2; echo "Try 'datasets/fetch.sh --help'." >&2; exit 2; }

ROOT=${DDL_DATA:-$HERE}
KEEP=0 SDSS_SRC= NAMES=()
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --root) [ $# -ge 2 ] || die_usage "--root needs a directory"; ROOT=$2; shift ;;
    --keep-archive) KEEP=1 ;;
    --sdss) [ $# -ge 2 ] || die_usage "--sdss needs a file"; SDSS_SRC=$2; shift ;;
    all) NAMES+=(mnist fashion-mnist cifar10 sdss) ;;
    mnist|fashion-mnist|cifar10|sdss) NAMES+=("$1") ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
  shift
done
[ ${#NAMES[@]} -gt 0 ] || { NAMES=(mnist fashion-mnist cifar10); [ -n "$SDSS_SRC" ] && NAMES+=(sdss); }

# get URL FILE; is_network_error STATUS tells "no network" (resolve/connect/
# timeout) apart from a mirror that answered with an error.
if command -v curl >/dev/null; then
  get() { curl -fsSL --connect-timeout 15 --retry 2 -o "$2" "$1"; }
  is_network_error() { case $1 in 5|6|7|28) return 0 ;; *) return 1 ;; esac; }
elif command -v wget >/dev/null; then
  get() { wget -q --timeout=15 --tries=3 -O "$2" "$1"; }
  is_network_error() { [ "$1" = 4 ]; }
else
  get() { echo "fetch.sh: neither curl nor wget is installed" >&2; return 127; }
  is_network_error() { return 1; }
fi
if command -v sha256sum >/dev/null; then
  sha() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null; then
  sha() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
  echo "fetch.sh: need sha256sum or shasum to verify downloads" >&2; exit 1
fi

expected() { awk -v f="$1" '$2 == f { print $1 }' "$SUMS"; }

failed=() offline=0

# fetch_one REL MIRROR... : ROOT/REL from the first mirror that works,
# verified before it replaces anything.
fetch_one() {
  local rel=$1; shift
  local dest=$ROOT/$rel want part
  # Partial downloads live at the root, so a failed fetch never leaves a
  # dataset folder behind that looks like data.
  part=$ROOT/.$(basename "$rel").part
  want=$(expected "$rel")
  [ -n "$want" ] || { echo "fetch.sh: no checksum for $rel in $SUMS" >&2; return 1; }
  if [ -f "$dest" ] && [ "$(sha "$dest")" = "$want" ]; then
    echo "  ok      $rel (already present, checksum matches)"; return 0
  fi
  [ -f "$dest" ] && echo "  note    $rel exists but its checksum differs: fetching the official file"
  if [ "$offline" = 1 ]; then echo "  skip    $rel (no network)"; return 1; fi
  local base url rc=1
  for base in "$@"; do
    url=$base/$(basename "$rel")
    echo "  get     $url"
    if get "$url" "$part"; then rc=0; break; else rc=$?; fi
    rm -f "$part"
    if is_network_error "$rc"; then
      # No route to anything: further mirrors and files would fail the same way.
      echo "fetch.sh: cannot reach the network (cannot resolve or connect to $(echo "$url" | cut -d/ -f3))" >&2
      offline=1
      return 1
    fi
  done
  if [ "$rc" != 0 ]; then
    echo "fetch.sh: could not download $rel from any mirror (last exit status $rc)" >&2
    return 1
  fi
  local got
  got=$(sha "$part")
  if [ "$got" != "$want" ]; then
    rm -f "$part"
    echo "fetch.sh: $rel: SHA-256 $got, expected $want; download discarded" >&2
    return 1
  fi
  mkdir -p "$(dirname "$dest")" && mv -f "$part" "$dest" && echo "  ok      $rel (verified)"
}

fetch_idx() { # folder mirror...
  local dir=$1 f ok=0; shift
  for f in "${IDX_FILES[@]}"; do fetch_one "$dir/$f" "$@" || ok=1; done
  return $ok
}

fetch_cifar() {
  local dir=$ROOT/cifar-10-batches-bin f missing=0
  for f in "${CIFAR_BINS[@]}"; do [ -f "$dir/$f" ] || missing=1; done
  if [ "$missing" = 0 ]; then
    echo "  ok      cifar-10-batches-bin (all 6 batches present; delete the folder to re-fetch)"
    return 0
  fi
  fetch_one cifar-10-binary.tar.gz "$(dirname "$CIFAR_URL")" || return 1
  echo "  unpack  cifar-10-binary.tar.gz"
  tar -xzf "$ROOT/cifar-10-binary.tar.gz" -C "$ROOT" || {
    echo "fetch.sh: could not unpack $ROOT/cifar-10-binary.tar.gz" >&2; return 1; }
  [ "$KEEP" = 1 ] || rm -f "$ROOT/cifar-10-binary.tar.gz"
  echo "  ok      cifar-10-batches-bin"
}

fetch_sdss() {
  local dest=$ROOT/sdss/skyserver_dr14.csv
  if [ -n "$SDSS_SRC" ]; then
    [ -f "$SDSS_SRC" ] || { echo "fetch.sh: --sdss: no such file '$SDSS_SRC'" >&2; return 1; }
    head -1 "$SDSS_SRC" | grep -qi 'class' && head -1 "$SDSS_SRC" | grep -qi 'redshift' || {
      echo "fetch.sh: $SDSS_SRC: header lacks 'class'/'redshift': not the SkyServer extract" >&2
      return 1; }
    mkdir -p "$ROOT/sdss" && cp -f "$SDSS_SRC" "$dest" || return 1
    echo "  ok      sdss/skyserver_dr14.csv (installed from $SDSS_SRC)"
    return 0
  fi
  if [ -f "$dest" ]; then echo "  ok      sdss/skyserver_dr14.csv (present)"; return 0; fi
  echo "fetch.sh: sdss has no official download URL; see 'datasets/fetch.sh --help'" \
       "for where to get the CSV, then run: datasets/fetch.sh --sdss FILE" >&2
  return 1
}

mkdir -p "$ROOT" || { echo "fetch.sh: cannot create data root '$ROOT'" >&2; exit 1; }
echo "fetch.sh: data root $ROOT"
for name in "${NAMES[@]}"; do
  echo "$name:"
  case $name in
    mnist) fetch_idx mnist "${MNIST_MIRRORS[@]}" ;;
    fashion-mnist) fetch_idx fashion-mnist "${FASHION_MIRRORS[@]}" ;;
    cifar10) fetch_cifar ;;
    sdss) fetch_sdss ;;
  esac || failed+=("$name")
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fetch.sh: FAILED: ${failed[*]}" >&2
  [ "$offline" = 1 ] && echo "fetch.sh: no network access: the labs still run on synthetic data" \
    "(outputs say 'synthetic'); copy the files into $ROOT by other means, or rerun when online" >&2
  exit 1
fi
echo "fetch.sh: done; point the labs at it with DDL_DATA=$ROOT (default: datasets)"
