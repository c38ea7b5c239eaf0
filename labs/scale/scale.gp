# labs/scale/scale.gp - make scale's figures, time against ranks on log
# axes; labs/scale/summary.py calls it with kind, platform, dat (blank-line
# separated blocks, one per series, in the order of `names`), ring (the
# ring's block number, or -1) and out:
#   allreduce: each algorithm's simulated time at 16 MiB, and the ring's
#              alpha-beta line 2(p-1)(alpha + n/p beta) beside it;
#   lab3:      each strategy's step time and exposed sync (left axis) and
#              hidden fraction (right axis).
load 'figures/common.gp'
set datafile separator whitespace
set logscale x 2
set logscale y
set xlabel 'ranks'
set key outside right
if (kind eq 'allreduce') {
  set title sprintf('%s: allreduce of 16 MiB, simulated (SMPI, CM02 network); dashed: the ring by alpha-beta', platform) noenhanced
  set ylabel 'time (us)'
  plot for [i=1:words(names)] dat index (i-1) using 1:2 with linespoints title word(names, i) noenhanced, \
       dat index ring using 1:3 with lines dashtype 2 lw 2 title 'ring: alpha-beta'
} else {
  set title sprintf('%s: VGG-11 x0.5 step per strategy, simulated, compute modelled', platform) noenhanced
  set ylabel 'ms (solid: step, dashed: exposed sync)'
  set y2label 'hidden fraction (points)'
  set y2range [0:1]
  set y2tics
  plot for [i=1:words(names)] dat index (i-1) using 1:2 with linespoints lt i title word(names, i) noenhanced, \
       for [i=1:words(names)] dat index (i-1) using 1:3 with lines lt i dashtype 2 notitle, \
       for [i=1:words(names)] dat index (i-1) using 1:4 axes x1y2 with points lt i pt 7 notitle
}
