#!/usr/bin/env bash
# bench/run_peer.sh - ddlab beside PyTorch DDP (gloo), run by `make bench`
# (bench/run.sh runs every bench/run_*.sh), never by `make test`.
#
# 1. The DDP step (bench/peer/link.sh per link): bin/bench/peer_ddp against
#    bench/peer/torch_ddp.py step, VGG-11 and ResNet-18 at width 1, batch
#    128 per rank, 2 ranks, one BLAS/intra-op thread per rank, a 25 MiB
#    bucket cap on both sides, the models' home input (3x32x32), one random
#    batch per rank; the parameter count and the layout hash (train_step's)
#    must agree or the line says the models differ. Links: one machine
#    (ddlab over shared memory, PyTorch over loopback TCP: the transports
#    differ, and the line says so), then 2 emulated hosts (labs/net/) at
#    1 Gbit/s and at 10 Gbit/s, with both sides' rank r in host r. Rounds
#    alternate, a fresh pair of processes per side and round; each side's
#    time is the median of its rounds. Exposed communication: ddlab's from
#    its own timeline (the wait for gradients after backward), PyTorch's
#    as its DDP step minus its step under no_sync() in the same processes.
#    One line per case:
#      bench peer <model> w1 b128 np2 link=<link>: ddlab X ms (compute C,
#        exposed comm E, start S, hidden H of its comm), pytorch Y ms
#        (no_sync C', exposed comm E'), ratio X/Y[; ddlab slower by D ms,
#        most in compute|exposed communication|start of the step]
#    and results/bench/peer-ddp-<link>.csv with ddlab's provenance block.
# 2. The allreduce (bench/peer/allreduce.sh): ddlab's ring and
#    MPI_Allreduce (lab2 bench) beside torch.distributed.all_reduce
#    (gloo), 4 B .. 64 MiB, on 2 emulated hosts at 1 Gbit/s, in lab2's
#    table format (latency and busbw per size).
#
# Environment (small values make it a quick try; the defaults are the
# full measurement: about 22 minutes on an idle 2-core VM, bench/RESULTS.md):
#   PEER_LINKS    links to run (default "local 1gbit 10gbit")
#   PEER_MODELS   (default "vgg11 resnet18"), PEER_WIDTH (1), PEER_BATCH (128)
#   PEER_ROUNDS   rounds per side (3), PEER_STEPS timed steps per round (5),
#   PEER_WARMUP   (2), PEER_CAP_MB (25)
#   PEER_ALLREDUCE_NET   the allreduce's link (default 1gbit; "" skips it)
#   PEER_FAULT=<model>   kill PyTorch's rank 1 in that model's first round
#                 (the case is reported failed, the others still run)
# Without torch, or torch without gloo: one line says which and how to
# install it, and nothing else runs. Without root or network namespaces the
# emulated links are skipped with the reason.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
PY=${BENCH_PYTHON:-/usr/bin/python3}
[ -x "$BIN/bench/peer_ddp" ] || { echo "bench peer: $BIN/bench/peer_ddp not built"; exit 0; }
if ! why=$(timeout 120 "$PY" bench/peer/torch_ddp.py probe 2>&1); then
  echo "bench peer: pytorch n/a (${why:-$PY cannot import torch; install python3-torch: make bench-deps})"
  exit 0
fi
echo "# bench peer: ddlab DDP vs PyTorch DDP ($why), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
status=0
for link in ${PEER_LINKS:-local 1gbit 10gbit}; do
  if [ "$link" != local ] && ! netwhy=$(labs/net/cluster.sh check); then
    echo "bench peer link=$link: skipped ($netwhy)"; continue
  fi
  bench/peer/link.sh "$link" 2> >(grep -v -E '^\[peer\]|^net: ' >&2) || status=1
done
if [ -n "${PEER_ALLREDUCE_NET-1gbit}" ]; then
  bench/peer/allreduce.sh "${PEER_ALLREDUCE_NET-1gbit}" || status=1
fi
exit $status
