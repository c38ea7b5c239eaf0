#!/usr/bin/env bash
# make lab2 PLATFORM=X - lab2 simulated by SimGrid SMPI on
# labs/platforms/X.xml (labs/platforms/README.md); results/lab2/sim-X/.
#
#   1. bin/sim/lab2 bench at NP ranks (default 4: the rank count of the
#      native `make lab2`, for the side-by-side figure) and on the whole
#      platform (hosts x cores: 80 on wits80), 4 B .. 64 MiB, every
#      algorithm, network model CM02 without cross-traffic, which is the
#      alpha-beta model's (the model columns are checked against it);
#      3 timed calls per point (simulated networks do not jitter); the
#      network alone is simulated (LAUNCH_SIM_COMPUTE=0: the host's
#      computation between MPI calls costs nothing, so the times do not
#      depend on how busy this machine is);
#      above 16 ranks, sizes from 1 MiB run on SMPI shared buffers (data
#      unchecked there: the smaller sizes and the native runs check it);
#      on platforms of more than 16 ranks both sweeps stop at 16 MiB
#      (SIM_MAX_BYTES; 16x the seed's largest message), because SMPI's own
#      MPI_Allreduce takes a private full-size buffer on every rank: 5 GiB
#      at 80 ranks x 64 MiB;
#   2. time vs ranks at 1 MiB on 2, 4, 8, .. up to the whole platform (CM02);
#   3. bin/sim/lab2 train on the whole platform with SMPI's default network
#      model (the realistic one: times meant to look like a cluster's);
#      quick: 1 epoch, H in {16,64,256,1024}; paper: 20 epochs, H = 16..1024;
#      LAB2_FAULTS=all (or a comma list): once more per fault of the
#      seed's, the rings with it beside MPI_Allreduce, into faults/
#      (labs/lab2/faults.sh);
#   4. figures/lab2-sim-X-*.png, report/tables/lab2-sim-X.tex, and
#      figures/lab2-sim-X-vs-native.png when results/lab2 has a native
#      bench at NP ranks.
# Every output says "simulated (SMPI, platform X)" and which network model.
set -euo pipefail
cd "$(dirname "$0")/../.."
LAB_SIMULATES=1
source labs/common.sh
source labs/lab2/faults.sh
lab2_faults_parse
[ -n "$SIM_TAG" ] || { echo "error: run-sim.sh needs PLATFORM (make lab2 PLATFORM=...)" >&2; exit 2; }
[ -x "$LAB_BIN/lab2" ] || { echo "error: $LAB_BIN/lab2 missing: run make SIM=1" >&2; exit 1; }
OUT=results/lab2/$SIM_TAG
common=(--seed "$SEED" --profile "$PROFILE" --out "$OUT.tmp")
FULL=$PLATFORM_RANKS
# Above 16 ranks the 1 MiB .. 64 MiB payloads would need ranks x 128 MiB.
shared_for() { [ "$1" -gt 16 ] && echo --sim-shared-bytes 1048576; true; }
max_bytes=67108864
[ "$FULL" -gt 16 ] && max_bytes=${SIM_MAX_BYTES:-16777216}
[ -n "${LAB2_MAX_BYTES:-}" ] && max_bytes=$LAB2_MAX_BYTES # run.sh's: the sweep's last size
common+=(--max-bytes "$max_bytes")
# What make figures asks of the seed's cluster (figures/platforms.sh): the
# sweep's first size (LAB2_MIN_BYTES), its algorithms (LAB2_ALGS), its
# calls a size (LAB2_REPS: a network-only simulation is deterministic, so
# one call is the measurement) and its rank counts (LAB2_RANKS, e.g. 16,80;
# default the whole platform).
sweep_opts=(--reps "${LAB2_REPS:-3}")
# LAB2_WARMUPS=0: no untimed calls either (make figures: nothing warms up
# in a simulated network)
[ -n "${LAB2_WARMUPS:-}" ] && sweep_opts+=(--warmups "$LAB2_WARMUPS")
[ -n "${LAB2_MIN_BYTES:-}" ] && sweep_opts+=(--min-bytes "$LAB2_MIN_BYTES")
[ -n "${LAB2_ALGS:-}" ] && sweep_opts+=(--algs "$LAB2_ALGS")
for v in LAB2_REPS LAB2_MIN_BYTES LAB2_WARMUPS; do
  case "${!v:-1}" in ''|*[!0-9]*) refuse "$v='${!v}': a number" ;; esac
done
case "${LAB2_ALGS:-all}" in *[!a-z_,]*) refuse "LAB2_ALGS='$LAB2_ALGS': a comma list of algorithms (bin/lab2 bench --help)" ;; esac
t_start=$(date +%s)
lab_begin $(( FULL > NP ? FULL : NP ))

sweep=$NP
[ "$FULL" != "$NP" ] && sweep="$NP $FULL"
[ "${LAB2_ONLY:-}" = bench ] && sweep=$FULL # run.sh's: the sweep alone, at the most ranks
if [ -n "${LAB2_RANKS:-}" ]; then
  LAB2_RANKS=${LAB2_RANKS//,/ }
  for np in $LAB2_RANKS; do
    case "$np" in [1-9]|[1-9][0-9]|[1-9][0-9][0-9]) ;; *) refuse "LAB2_RANKS='$LAB2_RANKS': rank counts, e.g. '16 80'" ;; esac
  done
  sweep=$LAB2_RANKS
fi
for np in $sweep; do
  note "$SIM_LABEL: bench at $np ranks (CM02) > $OUT/bench-np$np.txt"
  # shellcheck disable=SC2046
  LAUNCH_SIM_NETWORK=theory LAUNCH_SIM_COMPUTE=0 lab_mpi "$np" "$LAB_BIN/lab2" bench "${common[@]}" "${sweep_opts[@]}" $(shared_for "$np") --quiet \
    > "$OUT.tmp/bench-np$np.txt"
done

if [ "${LAB2_ONLY:-}" = bench ]; then
  lab_commit
  note "$SIM_LABEL: LAB2_ONLY=bench: the sweep alone took $(( $(date +%s) - t_start )) s of wall time"
  RESULTS=$OUT NAME=lab2-$SIM_TAG NATIVE_RESULTS=results/lab2 labs/lab2/figures.sh
  exit 0
fi
note "$SIM_LABEL: time vs ranks at 1 MiB"
np=2
while :; do
  LAUNCH_SIM_NETWORK=theory LAUNCH_SIM_COMPUTE=0 lab_mpi "$np" "$LAB_BIN/lab2" bench --sizes 1048576 --reps 3 --tag "ranks-np$np" --quiet \
    "${common[@]}" > /dev/null
  [ "$np" -ge "$FULL" ] && break
  np=$(( np * 2 > FULL ? FULL : np * 2 ))
done

if [ "$PROFILE" = paper ]; then
  train=(--epochs 20 --hidden 16,32,64,128,256,512,1024)
else
  train=(--epochs 1 --hidden 16,64,256,1024)
fi
note "$SIM_LABEL: train at $FULL ranks (SMPI network model) ${train[*]}"
LAUNCH_SIM_NETWORK=realistic lab_mpi "$FULL" "$LAB_BIN/lab2" train "${common[@]}" "${train[@]}"
LAUNCH_SIM_NETWORK=realistic lab2_faults_run "$FULL" "${common[@]}" "${train[@]}"

lab_commit
note "$SIM_LABEL: simulations took $(( $(date +%s) - t_start )) s of wall time"
RESULTS=$OUT NAME=lab2-$SIM_TAG NATIVE_RESULTS=results/lab2 labs/lab2/figures.sh
