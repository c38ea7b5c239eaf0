# lab3-overlap.gp - the fraction of communication time hidden behind
# backward (ended before backward did), per bucket cap.
# csv = results/lab3/buckets.csv.
load 'figures/common.gp'
set title "lab3: communication hidden behind backward, per bucket cap"
set xlabel "bucket cap (flat: one allreduce after backward)"
set ylabel "hidden fraction of communication time"
set yrange [0:1.1]
set style data histograms
set key off
plot csv using (column("hidden_frac") > 0 ? column("hidden_frac") : 0):xticlabels(1) lt 3, \
     "" using 0:(column("hidden_frac") > 0 ? column("hidden_frac") : 0):(sprintf("%.2f", column("hidden_frac") > 0 ? column("hidden_frac") : 0)) with labels offset 0,1 notitle
