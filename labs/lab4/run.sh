#!/usr/bin/env bash
# make lab4 - group / pairwise averaging vs full allreduce (seed 000), then
# the table and the figures.
#
#   1. bin/lab4 run at P = 2, 3, 4, 5, 6 workers (the seed's; a given NP is
#      the most: NP=4 runs 2, 3, 4; NP=8 runs 2 .. 6 and 8): per P, the seed's Table 2 rows, all-reduce at 12
#      iterations, then passes k = P-1 .. 1 at 15, 18, .. iterations, every
#      configuration from the same initial weights and data order. Runs
#      with more ranks than cores are oversubscribed, and every output says so;
#   2. labs/lab4/figures.sh: report/tables/lab4.tex, figures/lab4-*.png.
#
# quick (default, about two minutes on 2 cores): cnn3 at width 0.5 (33k
#   parameters, near Horovod's 22k-parameter MNIST example net) on the first
#   1200 MNIST training images (an iteration = one pass over a worker's
#   1200/P), test accuracy on the first 500 test images, batch 32 per worker.
# paper: the seed's settings as far as its report gives them (cnn3, MNIST
#   subset, workers, passes, iterations) and Horovod's MNIST example for
#   the rest: cnn3 at width 1 on the first 6000 training images (the seed
#   does not say how large its subset was: 10% is our choice), the whole
#   test set, batch 64 per worker. About 40-60 minutes on 2 cores (the
#   2-worker part alone took 3 minutes; evaluating 10 000 test images after
#   every iteration is a good part of it).
# Both: SGD lr 0.01 x workers, momentum 0.5 (Horovod's example).
#
# LAB4_SCHEMES=group,lga also runs the other reading of the seed (Horovod's
# backward_passes_per_step; see labs/lab4/DESIGN.md). LAB4_MONITOR=1 runs
# with Open MPI's monitoring PML so its byte counts are put next to
# ddlab's (where this Open MPI exposes them; 4.1.x does not).
set -euo pipefail
cd "$(dirname "$0")/../.."
LAB_SIMULATES=1   # make lab4 PLATFORM=X: the same runs under SimGrid SMPI
LAB_NETWORKS=1    # make lab4 NET=1gbit: the same runs on an emulated cluster (labs/net/)
source labs/common.sh
BIN=${BIN:-$LAB_BIN}
lab_setup 4 "$BIN" "lab4 averages between workers"
common=(--seed "$SEED" --device "$DEVICE" --profile "$PROFILE" --out "$OUT.tmp" --scheme "${LAB4_SCHEMES:-group}")
if [ "$PROFILE" = paper ]; then
  settings=(--width 1 --limit 6000 --test-limit 0 --batch 64 --lr 0.01 --momentum 0.5)
else
  settings=(--width 0.5 --limit 1200 --test-limit 500 --batch 32 --lr 0.01 --momentum 0.5)
fi

workers="2 3 4 5 6"
if [ -n "$NP_GIVEN" ]; then
  workers=$(seq -s ' ' 2 $(( NP < 6 ? NP : 6 )))
  [ "$NP" -gt 6 ] && workers="$workers $NP"
fi
maxnp=${workers##* }
lab_begin "$maxnp"
pml=ob1 mca=
# The monitoring PML must be free to interpose: no pml ob1.
[ "${LAB4_MONITOR:-0}" = 1 ] && { pml=; mca="pml_monitoring_enable 1"; }
# On an emulated network, every byte on the hosts' links is counted once
# a second beside ddlab's own count of the averaging (labs/net/wire.sh):
# what the seed's docker stats counted, to see whether headers, MPI's
# control traffic or the counting explain its totals (the report says).
[ -n "$NET_TAG" ] && [ "${DRY_RUN:-0}" != 1 ] && source labs/net/wire.sh
for np in $workers; do
  [ -n "$NET_TAG" ] && [ "${DRY_RUN:-0}" != 1 ] && wire_start "$OUT.tmp/wire-np$np.csv"
  LAUNCH_PML=$pml LAUNCH_MCA=$mca lab_mpi "$np" "$BIN/lab4" run "${common[@]}" "${settings[@]}"
  [ -n "$NET_TAG" ] && [ "${DRY_RUN:-0}" != 1 ] && wire_stop
done

lab_commit
RESULTS=$OUT labs/lab4/figures.sh
