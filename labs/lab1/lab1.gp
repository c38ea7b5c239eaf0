# lab1.gp - lab1 curves. Called by labs/lab1/figures.sh with
#   dir (results folder), runs (space-separated run names), what (loss |
#   accuracy | time), out (PNG path).
load 'figures/common.gp'
set output out
first = word(runs, 1)
summary = system("grep -m1 '^# summary:' ".dir."/".first."-iters.csv | cut -c12-")
set datafile separator ','
set key outside right top
if (what eq 'loss') {
  set title "lab1: training loss (mean of the batch)\n{/*0.8 ".summary."}"
  set xlabel 'iteration'
  set ylabel 'cross-entropy loss'
  set logscale y
  plot for [r in runs] dir.'/'.r.'-iters.csv' using 'iter':'loss' with lines title r
}
if (what eq 'accuracy') {
  set title "lab1: test accuracy after each epoch\n{/*0.8 ".summary."}"
  set xlabel 'epoch'
  set ylabel 'test accuracy (%)'
  set yrange [0:100]
  plot for [r in runs] dir.'/'.r.'-epochs.csv' using 'epoch':(100*column('test_accuracy')) with linespoints title r
}
if (what eq 'time') {
  set title "lab1: time per iteration (forward + backward + SGD)\n{/*0.8 ".summary."}"
  set xlabel 'iteration'
  set ylabel 'ms'
  set logscale y
  plot for [r in runs] dir.'/'.r.'-iters.csv' using 'iter':'ms' with lines title r
}
