# lab4-traffic.gp - the seed's Figure 3: at 5 workers, the averaging
# traffic of the all-reduce and of pairwise averaging (k = 1) at the
# all-reduce's iteration count and at 1.5 times it (the seed: 12 and 18),
# with the test accuracy printed on each bar. csv = results/lab4/fig3.csv.
load 'figures/common.gp'
w = system("awk -F, '!/^#/ && $1 != \"workers\" {print $1; exit}' '".csv."'")
set title sprintf("lab4: the seed's Figure 3 at %s workers: traffic of the averaging, test accuracy on each bar\n{/*0.85 bytes counted exactly by ddlab; the seed measured docker network I/O (terabytes, mostly unrelated)}", w)
set ylabel "traffic (MB, sent + received, all workers)"
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set xrange [-0.6:2.6]
set boxwidth 0.6
set style fill solid 0.85 border -1
set xtics noenhanced
set grid noxtics
unset key
plot csv using 0:'traffic_mb':($0 + 1):xtic(2) with boxes lc variable, \
     '' using 0:'traffic_mb':(sprintf("%.1f%%", 100 * column('accuracy'))) with labels offset 0, 1 font ",13"
