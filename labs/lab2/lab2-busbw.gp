# lab2-busbw.gp - bus bandwidth vs message size (nccl-tests definition:
# bytes/time x 2(p-1)/p). csv = results/lab2/bench-npN.csv.
load 'figures/common.gp'
load 'labs/lab2/lab2-common.gp'
set title "lab2: allreduce bus bandwidth (busbw = algbw x 2(p-1)/p)"
set xlabel "message size"
set ylabel "busbw (GB/s)"
set logscale x 2
set yrange [0:*]
set key top left
plot for [i=1:nalgs] rows(alg(i)) using 'bytes':'busbw_GBs' with linespoints lt alg_lt(alg(i)) dt 1 title alg(i)
