# lab2-common.gp - shared by the lab2-*.gp scripts (loaded after
# figures/common.gp): the algorithms in a fixed order and colour, and a
# filter that keeps one algorithm's rows of a tidy CSV (its metadata and
# header too, so that columns can still be named).
algs = "mpi linear tree recdoubling rabenseifner ring ring_async"
nalgs = words(algs)
alg(i) = word(algs, i)
# The rows of algorithm a (first column) of `csv`, as a data source. (A
# filter in `using` would leave undefined points that break the lines when
# an algorithm's rows are not contiguous.)
rows(a) = "< awk -F, '/^#/ || $1 == \"alg\" || $1 == \"".a."\"' '".csv."'"
# Byte counts on a log-2 axis, labelled 4 B .. 64 MiB.
set xtics ("4 B" 4, "64 B" 64, "1 KiB" 1024, "16 KiB" 16384, "256 KiB" 262144, \
           "4 MiB" 4194304, "64 MiB" 67108864)
