# lab1.gp - lab1 curves. Called by labs/lab1/figures.sh with
#   dir (results folder), runs (space-separated run names), what (loss |
#   accuracy | time), out (PNG path).
# Runs differ in dataset, so the provenance line drops the dataset field of
# the CSV summary, and each key entry says whether its data was real.
load 'figures/common.gp'
set output out
first = word(runs, 1)
prov = system("grep -m1 '^# summary:' ".dir."/".first."-iters.csv | cut -c12- | cut -d, -f2- | sed 's/^ //'")
data(r) = system("grep -m1 '^# data:' ".dir."/".r."-summary.csv | cut -c9-")
label(r) = r." (".data(r).")"
set datafile separator ','
set key outside right top
if (what eq 'loss') {
  set title "lab1: training loss (exponential moving average, 0.95)\n{/*0.8 ".prov."}"
  set xlabel 'epoch'
  set ylabel 'cross-entropy loss'
  set logscale y
  plot for [r in runs] dir.'/'.r.'-iters.csv' \
       using 'epoch_frac':(ema = column(0) == 0 ? column('loss') : 0.95 * ema + 0.05 * column('loss')) \
       with lines title label(r)
}
if (what eq 'accuracy') {
  set title "lab1: test accuracy after each epoch\n{/*0.8 ".prov."}"
  set xlabel 'epoch'
  set ylabel 'test accuracy (%)'
  set yrange [0:100]
  set xtics 1
  plot for [r in runs] dir.'/'.r.'-epochs.csv' using 'epoch':(100 * column('test_accuracy')) \
       with linespoints title label(r)
}
if (what eq 'time') {
  set title "lab1: time per iteration (forward + backward + SGD)\n{/*0.8 ".prov."}"
  set xlabel 'iteration'
  set ylabel 'ms'
  set logscale y
  plot for [r in runs] dir.'/'.r.'-iters.csv' using 'iter':'ms' with lines title label(r)
}
