# lab4-consensus.gp - consensus distance (mean over workers of
# ||w_i - w_avg||, relative to ||w_avg||) after each iteration, log scale,
# one panel per worker count. Full averages (all-reduce, k = P-1) stay at
# exactly 0 and are not drawn. csv = results/lab4/iters.csv.
load 'figures/common.gp'
load 'labs/lab4/lab4-common.gp'
set multiplot layout prows, pcols title \
    "lab4: consensus distance after each iteration (mean ||w_i - w_avg|| / ||w_avg||; full averages are 0, not drawn)" noenhanced
set xlabel "iteration"
set ylabel "relative distance"
set logscale y
set format y "10^{%L}"
set key top right nobox noenhanced font ",9"
do for [w in workers] {
    set title sprintf("%s workers", w)
    ls = mixing(w)
    if (words(ls) == 0) {
        set label 1 "every configuration averages all workers:\ndistance 0" at graph 0.5, 0.5 center
        set yrange [1e-3:1]
        set xrange [0:12]
        plot 1/0 notitle
        unset label 1
        set yrange [*:*]
        set xrange [*:*]
    } else {
        plot for [i=1:words(ls)] rows(w, word(ls, i)) using 'iteration':'consensus_rel' \
             with linespoints lt ltof(word(ls, i)) ps 0.6 title word(ls, i)
    }
    unset label 99
}
unset multiplot
