# lab2-latency.gp - allreduce latency vs message size, one line per
# algorithm, log-log. csv = results/lab2/bench-npN.csv.
load 'figures/common.gp'
load 'labs/lab2/lab2-common.gp'
set title "lab2: allreduce latency (median of the slowest rank's time)"
set xlabel "message size"
set ylabel "latency (µs)"
set logscale xy 2
set logscale y 10
set format y "%g"
set key top left
plot for [i=1:nalgs] rows(alg(i)) using 'bytes':'median_us' with linespoints lt alg_lt(alg(i)) dt 1 title alg(i)
