# lab3-scaling.gp - time per iteration vs ranks, total batch 256 (the
# seed's Figures 2-4). csv = results/lab3/scaling-<sync>.csv; `sync`
# names the strategy when one CSV is plotted, `syncs` (space-separated)
# plots all of them from dir `dir` on one figure.
load 'figures/common.gp'
set xlabel "ranks (total batch 256; runs with more ranks than cores are oversubscribed)"
set ylabel "average time per iteration (s)"
set xtics 1
set yrange [0:*]
set key top right
if (exists("syncs")) {
    set title "lab3: time per iteration vs ranks, every strategy"
    f(s) = dir."/scaling-".s.".csv"
    # pytorch_ddp: the reference of make lab3 PEER=pytorch, named as the table names it
    name(s) = s eq "pytorch_ddp" ? "PyTorch DDP (gloo)" : s
    plot for [i=1:words(syncs)] f(word(syncs, i)) using "np":"s_per_iter" with linespoints lt i title name(word(syncs, i)) noenhanced
} else {
    set title sprintf("lab3: time per iteration vs ranks, %s", sync) noenhanced
    plot csv using "np":"s_per_iter" with linespoints lt 1 title sync, \
         csv using "np":"s_per_iter":(sprintf("%.2f", column("s_per_iter"))) with labels offset 0,1 notitle
}
