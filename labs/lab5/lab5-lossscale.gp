# lab5-lossscale.gp - the dynamic loss scale of every FP16 run against the
# optimizer update: halved (and the step skipped) on an FP16 overflow,
# doubled after a window of clean steps. csv = results/lab5/lossscale.csv
# (label, update, loss_scale, event); D-SGD: the cloud's scale, FedAvg:
# user 1's (each user scales its own local steps).
load 'figures/common.gp'
set title "lab5: dynamic loss scale of the FP16 runs (halve + skip on overflow, double after the window)" noenhanced
set xlabel "optimizer update"
set ylabel "loss scale"
set logscale y 2
set yrange [0.5:2**25]
set format y "2^{%L}"
set key bottom right noenhanced
labels = system(sprintf("awk -F, '!/^#/ && $1 != \"label\" {print $1}' '%s' | awk '!seen[$0]++' | tr '\\n' ' '", csv))
rows(l) = sprintf("< awk -F, '/^#/ || $1 == \"label\" || $1 == \"%s\"' '%s'", l, csv)
plot for [i=1:words(labels)] rows(word(labels, i)) using 'update':'loss_scale' with steps lt i lw 2 title word(labels, i)
