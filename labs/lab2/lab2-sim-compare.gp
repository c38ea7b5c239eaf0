# lab2-sim-compare.gp - simulated next to native: allreduce latency vs size
# for the ring, recursive doubling and MPI_Allreduce, measured natively at
# p ranks (solid), simulated at the same p (dashed) and simulated on the
# whole platform (dotted). Run by labs/lab2/figures.sh with
#   native='results/lab2/bench-npP.csv' sim='results/lab2/sim-X/bench-npP.csv'
#   simfull='results/lab2/sim-X/bench-npN.csv' out='...png'
load 'figures/common.gp'
meta(file, key) = system("grep -m1 '^# ".key.":' '".file."' 2>/dev/null | cut -d: -f2- | cut -c2-")
rows_of(file, a) = "< awk -F, '/^#/ || $1 == \"alg\" || $1 == \"".a."\"' '".file."'"
simlabel = "simulated (".meta(sim, "simulated").")"
np = meta(sim, "ranks")
npfull = meta(simfull, "ranks")
nat_over = meta(native, "oversubscribed") eq "yes" ? ", oversubscribed" : ""
set title "lab2: the same allreduce natively and ".simlabel noenhanced
set label 99 "native: ".meta(native, "host").", ".meta(native, "cores")." cores; simulated: ".meta(sim, "sim_network") \
    at screen 0.5, screen 0.02 center front noenhanced font ",8" tc rgb "#505050"
set bmargin 5
set xlabel "message size"
set ylabel "latency (µs, median of the slowest rank)"
set logscale xy 2
set logscale y 10
set format y "%g"
set xtics ("4 B" 4, "64 B" 64, "1 KiB" 1024, "16 KiB" 16384, "256 KiB" 262144, \
           "4 MiB" 4194304, "64 MiB" 67108864)
set key top left
algs = "ring recdoubling mpi"
plot for [i=1:3] rows_of(native, word(algs, i)) using 'bytes':'median_us' with linespoints lt i dt 1 \
         title sprintf("%s, native %s ranks%s", word(algs, i), np, nat_over), \
     for [i=1:3] rows_of(sim, word(algs, i)) using 'bytes':'median_us' with linespoints lt i dt 2 \
         title sprintf("%s, simulated %s ranks", word(algs, i), np), \
     for [i=1:3] rows_of(simfull, word(algs, i)) using 'bytes':'median_us' with lines lt i dt 3 \
         title sprintf("%s, simulated %s ranks", word(algs, i), npfull)
