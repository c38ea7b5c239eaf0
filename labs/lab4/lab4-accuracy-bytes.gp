# lab4-accuracy-bytes.gp - test accuracy against the cumulative traffic of
# the averaging, one point per iteration, one line per configuration and
# one panel per worker count: the trade-off the seed's Table 2 samples at
# one point per row. csv = results/lab4/iters.csv.
load 'figures/common.gp'
load 'labs/lab4/lab4-common.gp'
set multiplot layout prows, pcols title (family eq "lga" ? \
    "lab4 (lga: Horovod's backward passes): accuracy vs cumulative traffic, one point per iteration" : \
    "lab4: accuracy vs cumulative averaging traffic, one point per iteration (k passes: groups of k+1)") noenhanced
set xlabel "traffic so far (MB, sent + received, all workers)"
set ylabel "test accuracy (%)"
set yrange [0:100]
set xrange [0:*]
set key bottom right nobox noenhanced font ",9"
do for [w in workers] {
    set title sprintf("%s workers", w)
    ls = labels(w)
    plot for [i=1:words(ls)] rows(w, word(ls, i)) using 'traffic_mb':(100 * column('accuracy')) \
         with linespoints lt ltof(word(ls, i)) ps 0.6 title word(ls, i)
    unset label 99
}
unset multiplot
