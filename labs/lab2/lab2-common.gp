# lab2-common.gp - shared by the lab2-*.gp scripts (loaded after
# figures/common.gp): the algorithms of `csv` in the table's order, each
# in its colour, and a filter that keeps one algorithm's rows of a tidy
# CSV (its metadata and header too, so that columns can still be named).
#
# The order is core/comm/algs.def's, which lab2 writes into every CSV
# ("# alg_order:"; a CSV from before it: the order of the rows). An
# algorithm's line type is its place in that order, so it keeps its colour
# in every figure, whichever algorithms a run chose; algs holds those the
# CSV has rows of. Nothing here names an algorithm.
csvcol(name) = "awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == \"".name."\") k = i; h = 1; next} k {print $k}' '".csv."'"
order = system("awk '/^# alg_order: / {sub(/^# alg_order: /, \"\"); print; exit}' '".csv."'")
if (strlen(order) == 0) order = system(csvcol("alg")." | awk '!seen[$1]++' | tr '\\n' ' '")
present = " ".system(csvcol("alg")." | sort -u | tr '\\n' ' '")." "
algs = ""
do for [k = 1:words(order)] { if (strstrt(present, " ".word(order, k)." ") > 0) { algs = algs.word(order, k)." " } }
nalgs = words(algs)
alg(i) = word(algs, i)
# Those of them with a model (model_us values: not the baselines, MPI and
# NCCL, and none after --no-calibrate), in the same order.
modelled = " ".system("awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) {if ($i == \"alg\") a = i; if ($i == \"model_us\") m = i}; h = 1; next} m && $m != \"\" {print $a}' '".csv."' | sort -u | tr '\\n' ' '")." "
malgs = ""
do for [i = 1:nalgs] { if (strstrt(modelled, " ".alg(i)." ") > 0) { malgs = malgs.alg(i)." " } }
malg(i) = word(malgs, i)
# Algorithm a's line type: its place in the table's order.
alg_lt(a) = sum [k = 1:words(order)] (word(order, k) eq a ? k : 0)
# The rows of algorithm a (first column) of `csv`, as a data source. (A
# filter in `using` would leave undefined points that break the lines when
# an algorithm's rows are not contiguous.)
rows(a) = "< awk -F, '/^#/ || $1 == \"alg\" || $1 == \"".a."\"' '".csv."'"
# Byte counts on a log-2 axis, labelled 4 B .. 64 MiB.
set xtics ("4 B" 4, "64 B" 64, "1 KiB" 1024, "16 KiB" 16384, "256 KiB" 262144, \
           "4 MiB" 4194304, "64 MiB" 67108864)
