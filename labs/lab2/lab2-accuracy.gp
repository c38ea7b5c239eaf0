# lab2-accuracy.gp - final test accuracy per algorithm, one marker per
# hidden width H. Same data, seed and order for every algorithm: the
# points line up. csv = results/lab2/train-npN.csv.
load 'figures/common.gp'
load 'labs/lab2/lab2-common.gp'
set format x "%g"
hs = system("awk -F, '!/^#/ && $2 != \"hidden\" {print $2}' '".csv."' | sort -n | uniq | tr '\\n' ' '")
worst = system("awk -F, '!/^#/ && $1 != \"alg\" {d = $16 < 0 ? -$16 : $16; if (d > m) m = d} END {printf \"%.2f\", 100 * m}' '".csv."'")
set title sprintf("lab2: test accuracy per algorithm (largest difference from MPI_Allreduce: %s points;\nseed 002 reported the ring 7-10 points lower)", worst) noenhanced
set ylabel "test accuracy (%)"
set xrange [0.5:nalgs + 0.5]
set xtics () 
do for [i=1:nalgs] { set xtics add (alg(i) i) }
set xtics noenhanced
set key outside right top title "H"
plot for [h in hs] csv using (i = 0, sum [k=1:nalgs] (strcol('alg') eq alg(k) ? k : 0)):(column('hidden') == h + 0 ? 100 * column('test_accuracy') : NaN) with points ps 1.5 title h
