# lab2-ranks.gp - allreduce time vs number of ranks at one message size
# (points: measured; dashed: model). csv = results/lab2/ranks.csv.
load 'figures/common.gp'
load 'labs/lab2/lab2-common.gp'
bytes = system("awk -F, 'NR>1 && !/^#/ && $4 != \"bytes\" {print $4; exit}' '".csv."'")
set title sprintf("lab2: allreduce time vs ranks at %s bytes (solid: measured, dotted: model)", bytes)
set xlabel "ranks (runs beyond the core count are oversubscribed)"
set ylabel "time (µs)"
set logscale y 10
set xtics 1
set key top left
plot for [i=1:nalgs] rows(alg(i)) using 'ranks':'median_us' with linespoints lt alg_lt(alg(i)) dt 1 title alg(i), \
     for [i=1:words(malgs)] rows(malg(i)) using 'ranks':'model_us' with lines lt alg_lt(malg(i)) dt 3 notitle
