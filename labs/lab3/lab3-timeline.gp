# lab3-timeline.gp - one training step on every rank: forward, each
# layer's backward, optimizer (compute rows) and each bucket or parameter
# allreduce in flight (communication rows). csv = <tag>-trace.csv
# (rank,track,name,start_ms,end_ms,bytes); `run` names the run.
load 'figures/common.gp'
set title sprintf("lab3: timeline of one step, %s", run) noenhanced
set xlabel "ms since the step began"
stats csv using "rank" nooutput
ranks = int(STATS_max) + 1
row(r, t) = 2 * (ranks - 1 - r) + (t eq "comm" ? 0 : 1)
set yrange [-0.7:2 * ranks - 0.3]
set ytics ()
do for [r=0:ranks-1] {
    set ytics add (sprintf("rank %d compute", r) row(r, "compute"), sprintf("rank %d comm", r) row(r, "comm"))
}
set xrange [0:*]
set grid noytics
set key top center horizontal outside
set style fill solid 0.9 border lc rgb "#ffffff"
# colours: forward, backward layers (alternating shades), optimizer,
# gradient communication, the broadcast of rank 0's BN buffers
col(t, n, i) = n eq "BN buffers" ? 0x999999 : t eq "comm" ? 0xD55E00 : (n eq "forward" ? 0x56B4E9 : (n eq "optimizer" ? 0x009E73 : (int(i) % 2 ? 0x0072B2 : 0x3B8FCF)))
plot csv using (0.5 * (column("start_ms") + column("end_ms"))):(row(column("rank"), strcol("track"))): \
          (0.5 * (column("end_ms") - column("start_ms"))):(0.38):(col(strcol("track"), strcol("name"), $0)) \
          with boxxyerror lc rgb variable notitle, \
     NaN with boxes lc rgb "#56B4E9" title "forward", \
     NaN with boxes lc rgb "#0072B2" title "backward (one box per layer)", \
     NaN with boxes lc rgb "#009E73" title "optimizer", \
     NaN with boxes lc rgb "#D55E00" title "gradient allreduce in flight", \
     NaN with boxes lc rgb "#999999" title "BN buffers from rank 0"
