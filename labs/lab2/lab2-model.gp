# lab2-model.gp - the alpha-beta-gamma model (lines) over the measurement
# (points) for each algorithm with a formula (those with model_us values:
# not the baselines, MPI_Allreduce and NCCL).
# csv = results/lab2/bench-npN.csv (its "# alpha_us:" etc. lines give the fit).
load 'figures/common.gp'
load 'labs/lab2/lab2-common.gp'
getmeta(k) = system("grep -m1 '^# ".k.":' '".csv."' | cut -d' ' -f3-")
# Simulated runs fit on the simulated platform, not on this machine.
where = strlen(getmeta("simulated")) > 0 ? "fitted in the simulation" : "fitted on this machine"
set title sprintf("lab2: measured (points) vs alpha-beta-gamma model (lines)\n{/*0.8 alpha %s us, beta %s ns/B, gamma %s ns/B, %s}", getmeta("alpha_us"), getmeta("beta_ns_per_byte"), getmeta("gamma_ns_per_byte"), where)
set xlabel "message size"
set ylabel "time (µs)"
set logscale xy 2
set logscale y 10
set format y "%g"
set key top left
# A run without a model (--no-calibrate, or the baselines alone) still
# draws its measurements, and the title says there is no model line.
if (words(malgs) == 0) {
  set title "lab2: measured (points); no alpha-beta-gamma model in this run (--no-calibrate, or baselines only)"
  plot for [i=1:nalgs] rows(alg(i)) using 'bytes':'median_us' with points lt alg_lt(alg(i)) title alg(i)
} else {
  plot for [i=1:words(malgs)] rows(malg(i)) using 'bytes':'median_us' with points lt alg_lt(malg(i)) title malg(i), \
       for [i=1:words(malgs)] rows(malg(i)) using 'bytes':'model_us' with lines lt alg_lt(malg(i)) dt 1 notitle
}
