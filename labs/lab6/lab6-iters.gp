# lab6-iters.gp - iterations per second per workload, Horovod-style vs
# parameter server, 1 and 2 workers (the seed's "Iterations per second"
# rows as bars). csv = results/lab6/iters.csv. Log scale: the SDSS DNN
# runs thousands of steps per second, the CNNs a few.
load 'figures/common.gp'
set title "lab6: iterations per second by workload and framework style"
set ylabel "iterations per second (log scale)"
set logscale y
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top left
plot csv using "horovod_w1":xticlabels(2) title "horovod, 1 worker" lt 1, \
     "" using "horovod_w2" title "horovod, 2 workers" lt 2, \
     "" using "ps_w1" title "ps, 1 worker (+ server)" lt 3, \
     "" using "ps_w2" title "ps, 2 workers (+ server)" lt 4
