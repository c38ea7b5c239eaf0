# lab2-train-time.gp - training time vs the second hidden width H (solid)
# and the part spent in the allreduce (dashed), per algorithm.
# csv = results/lab2/train-npN.csv.
load 'figures/common.gp'
load 'labs/lab2/lab2-common.gp'
set title "lab2: training time vs second hidden width H (solid: total, dotted: inside the allreduce)"
set xlabel "H (second hidden layer width; sets the message size)"
set ylabel "seconds"
set logscale x 2
set xtics auto
set format x "%g"
set yrange [0:*]
set key top left
plot for [i=1:nalgs] rows(alg(i)) using 'hidden':'elapsed_s' with linespoints lt alg_lt(alg(i)) dt 1 title alg(i), \
     for [i=1:nalgs] rows(alg(i)) using 'hidden':'comm_s' with lines lt alg_lt(alg(i)) dt 3 notitle
