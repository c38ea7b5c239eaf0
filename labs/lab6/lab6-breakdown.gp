# lab6-breakdown.gp - where a training step's wall time goes, per workload
# and style/workers: compute (forward, backward, optimizer), exposed
# communication (the wait for the gradient allreduce, or the parameter
# server's push + update + pull) and the rest (data loading, waiting for
# the other rank). A second worker halves the steps of an epoch but adds
# communication to every step: when compute per step is small (the SDSS
# DNN) the communication dominates and the run gets slower, as the seed
# saw. dir = results/lab6 (breakdown-<workload>.csv), csv = one of them
# (for the provenance line), workloads = space-separated names.
load 'figures/common.gp'
set terminal pngcairo size 1200,520 enhanced font "DejaVu Sans,10"
if (exists("out")) set output out
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set yrange [0:*]
set xtics rotate by -30
f(w) = dir."/breakdown-".w.".csv"
set multiplot layout 1, words(workloads) title "lab6: one step's wall time (ms per step, mean over workers)"
do for [i=1:words(workloads)] {
    set title word(workloads, i) noenhanced
    if (i == 1) { set ylabel "ms per step"; set key top left } else { unset ylabel; unset key }
    plot f(word(workloads, i)) using "compute_ms":xticlabels(1) title "compute" lt 1, \
         "" using "sync_ms" title "exposed communication" lt 2, \
         "" using "other_ms" title "other (data, waiting)" lt 3
}
unset multiplot
