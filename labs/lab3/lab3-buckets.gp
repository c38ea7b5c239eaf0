# lab3-buckets.gp - DDP bucket cap sweep: time per iteration and the
# exposed synchronisation (the wait after backward) per cap, the flat
# control first. csv = results/lab3/buckets.csv.
load 'figures/common.gp'
set title "lab3: DDP iteration time vs bucket cap (first bucket 1 MiB)"
set xlabel "bucket cap (flat: one allreduce after backward, no overlap)"
set ylabel "ms per iteration"
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set key top right
plot csv using "ms_mean":xticlabels(1) title "time per iteration" lt 1, \
     "" using "sync_ms" title "exposed sync (after backward)" lt 2, \
     "" using "comm_ms" title "communication in flight" lt 3
