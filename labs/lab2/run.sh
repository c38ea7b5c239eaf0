#!/usr/bin/env bash
# make lab2 - allreduce algorithms (seed 002), then figures and the table.
#
#   1. bin/lab2 bench, 4 B .. 64 MiB (x2), every algorithm, at 2 and 4
#      ranks, plus the core count and NP when larger (runs with more ranks
#      than cores are oversubscribed, and every output says so);
#      the OSU-style text goes to results/lab2/bench-npN.txt;
#   2. time vs ranks at 1 MiB: bench --sizes 1048576 at 1 .. max(4, cores);
#   3. bin/lab2 train at NP ranks: the seed's MLP, weights averaged after
#      every step by each algorithm. quick: 1 epoch, H in {16,64,256,1024};
#      paper: the seed's 20 epochs, H = 16, 32, .., 1024;
#   4. labs/lab2/figures.sh: figures/lab2-*.png, report/tables/lab2.tex.
# A few minutes on 2 cores in the quick profile.
# LAB2_ONLY=bench runs step 1 alone, at the most ranks only;
# LAB2_MAX_BYTES=N ends its sweep at N bytes; LAB2_REPS=N times N calls per
# size: the large-message scaling that `make figures` runs on an emulated
# network or a simulated cluster (figures/platforms.sh; run-sim.sh reads
# the first two too). The report then judges the accuracy claim on the
# native run's training. LAB2_FAULTS=all (or a comma list) trains once
# more per fault of the seed's (labs/lab2/faults.sh) into faults/.
set -euo pipefail
cd "$(dirname "$0")/../.."
# make lab2 PLATFORM=X: simulated on a SimGrid platform instead.
if [ -n "${PLATFORM:-}" ]; then exec labs/lab2/run-sim.sh; fi
LAB_NETWORKS=1    # make lab2 NET=1gbit NP=2: the same runs on an emulated cluster (labs/net/)
source labs/common.sh
source labs/lab2/faults.sh
lab2_faults_parse
lab_setup 2 "$LAB_BIN"
common=(--seed "$SEED" --profile "$PROFILE" --out "$OUT.tmp")
if [ "$PROFILE" = paper ]; then
  train=(--epochs 20 --hidden 16,32,64,128,256,512,1024)
else
  train=(--epochs 1 --hidden 16,64,256,1024)
fi
sweep_opts=() point_opts=()
case "${LAB2_ONLY:-}" in
  ''|bench) ;;
  *) echo "error: LAB2_ONLY='$LAB2_ONLY': bench (the sweep alone) or unset" >&2; exit 2 ;;
esac
[ -n "${LAB2_MAX_BYTES:-}" ] && sweep_opts+=(--max-bytes "$LAB2_MAX_BYTES")
[ -n "${LAB2_REPS:-}" ] && sweep_opts+=(--reps "$LAB2_REPS") # timed calls per size (default: ~0.2 s of them)
if [ "${LAB2_SMOKE:-0}" = 1 ]; then # tests/e2e_slurm.sh: the same flow in seconds
  sweep_opts=(--max-bytes 4096 --reps 2 --no-calibrate)
  point_opts=(--reps 2 --no-calibrate)
  train=(--synthetic --epochs 1 --limit 600 --test-limit 200 --hidden 8,16)
fi

sweep="2 4"
for extra in "$CORES" "$NP"; do
  case " $sweep " in *" $extra "*) ;; *) [ "$extra" -gt 4 ] && sweep="$sweep $extra" ;; esac
done
most=$(( CORES > 4 ? CORES : 4 ))
# On an emulated cluster: 2 ranks (one link each way: the alpha-beta fit
# and busbw against the link rate) and one rank per host.
if [ -n "$NET_TAG" ]; then
  sweep=2; [ "$NET_HOSTS" -gt 2 ] && sweep="2 $NET_HOSTS"
  most=$NET_HOSTS
fi
# Quick, natively, without NP=: the sweep at the rank counts whose ranks
# each have a core (2 at least). More ranks than cores time the scheduler,
# not the algorithms, and the large-message order is judged on 4 emulated
# or simulated hosts instead (figures/platforms.sh); dropping the 4-rank
# sweep on 2 cores keeps make figures within 15 minutes.
if [ "$PROFILE" != paper ] && [ -z "$NET_TAG" ] && [ -z "$NP_GIVEN" ] && [ -z "${LAB2_ONLY:-}" ]; then
  keep=""
  for np in $sweep; do { [ "$np" -le "$CORES" ] || [ "$np" = 2 ]; } && keep+=" $np"; done
  [ "$keep" = " $sweep" ] || note "quick: the sweep at ${keep# } rank(s), this machine's $CORES cores (NP=4 or PROFILE=paper sweeps 4 too)"
  sweep=${keep# }
fi
# The smoke settings (tests) sweep 2 ranks only: they fit an allocation of 2.
if [ "${LAB2_SMOKE:-0}" = 1 ]; then sweep=2; most=2; fi
[ "${LAB2_ONLY:-}" = bench ] && sweep=$most
maxnp=$most
for np in $sweep $NP; do [ "$np" -gt "$maxnp" ] && maxnp=$np; done
lab_begin "$maxnp"
for np in $sweep; do
  note "bench at $np ranks > $OUT/bench-np$np.txt"
  lab_mpi "$np" "$LAB_BIN/lab2" bench "${common[@]}" "${sweep_opts[@]}" --quiet > "$OUT.tmp/bench-np$np.txt"
done

[ "${LAB2_ONLY:-}" = bench ] && lab_stop_early 2 "LAB2_ONLY=bench: no time-vs-ranks or training runs"
note "time vs ranks at 1 MiB: 1 .. $most ranks"
for np in $(seq 1 "$most"); do
  lab_mpi "$np" "$LAB_BIN/lab2" bench --sizes 1048576 --tag "ranks-np$np" --quiet "${common[@]}" "${point_opts[@]}" \
    > /dev/null
done

lab_mpi "$NP" "$LAB_BIN/lab2" train "${common[@]}" "${train[@]}"
lab2_faults_run "$NP" "${common[@]}" "${train[@]}"

lab_commit
RESULTS=$OUT labs/lab2/figures.sh
