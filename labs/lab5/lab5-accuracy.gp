# lab5-accuracy.gp - the seed's Figure 5 (prec = 'fp32') or Figure 6
# (prec = 'fp16'): validation accuracy of the global model after every
# epoch, one line per scheme. csv = results/lab5/epochs.csv (columns:
# label, scheme, precision, epoch, rounds, ..., val_accuracy, ...).
load 'figures/common.gp'
if (!exists("prec")) prec = 'fp32'
fig = prec eq 'fp16' ? "Figure 6, FP16 mixed precision (emulated by rounding on CPU)" : "Figure 5, FP32"
set title sprintf("lab5: validation accuracy per epoch, the seed's %s", fig) noenhanced
set xlabel "epoch"
set ylabel "validation accuracy (%)"
set yrange [0:*]
set xrange [0:*]
set key bottom right noenhanced
labels = system(sprintf("awk -F, '!/^#/ && $3 == \"%s\" {print $1}' '%s' | awk '!seen[$0]++' | tr '\\n' ' '", prec, csv))
rows(l) = sprintf("< awk -F, '/^#/ || $1 == \"label\" || $1 == \"%s\"' '%s'", l, csv)
plot for [i=1:words(labels)] rows(word(labels, i)) using 'epoch':(100 * column('val_accuracy')) \
     with linespoints lt i title word(labels, i)
