# figures/common.gp - the one style every ddlab figure uses.
#
# Convention for a lab's gnuplot script (labs/labN/<name>.gp):
#   run from the repository root as
#     gnuplot -e "csv='results/labN/<name>.csv'; out='figures/labN-<name>.png'" labs/labN/<name>.gp
#   and start with
#     load 'figures/common.gp'
#   This file then
#     - sets the PNG terminal (pngcairo 900x600, DejaVu Sans 11),
#     - sets the output to `out` when it is defined,
#     - reads the CSV as comma-separated, skipping the "# key: value"
#       metadata lines ('#' is gnuplot's comment character) and taking the
#       header row as column names: plot csv using "iter":"loss" title "loss",
#     - puts the CSV's "# summary:" provenance line (real/synthetic data,
#       ranks, cores, device, profile, seed) at the bottom of the figure
#       when `csv` is defined. ddl_summary(file) returns that line for other
#       files (multi-CSV figures, titles).
#   Series use line types 1..8 (lt/ls N, or the default cycle): the
#   Okabe-Ito palette, distinguishable with colour-blindness and in grey.
#   Strings taken from files are shown `noenhanced` so that '_' and '^' in
#   names are not read as sub/superscripts.
# Paths must not contain single quotes (they are quoted with ' for the shell).

set terminal pngcairo size 900,600 enhanced font "DejaVu Sans,11"
if (exists("out")) set output out
set encoding utf8

# Data: tidy CSV from core/results.
set datafile separator comma
set datafile commentschars "#"
set datafile missing ""
# The first non-comment row is the header, always (never plotted as data;
# note: this also applies to inline $DATA blocks).
set datafile columnheaders
# Give every series a title: `title "ring"`, or `title columnhead` for the
# y column's name (gnuplot 5.4 leaves the automatic title blank when both
# columns are given by name, as in using "iter":"loss").
set key autotitle columnhead noenhanced
set key top right box opaque

# Light grid behind the data, axes on the left/bottom only.
set grid back lt 1 lc rgb "#d0d0d0" lw 1 dt 1
set border 3 lc rgb "#404040"
set tics nomirror out
set xtics textcolor rgb "#404040"
set ytics textcolor rgb "#404040"

# Okabe-Ito palette; yellow last (weak on white).
set linetype 1 lc rgb "#0072B2" lw 2 pt 7  ps 1.0 dt 1
set linetype 2 lc rgb "#D55E00" lw 2 pt 5  ps 1.0 dt 1
set linetype 3 lc rgb "#009E73" lw 2 pt 9  ps 1.2 dt 1
set linetype 4 lc rgb "#CC79A7" lw 2 pt 13 ps 1.2 dt 1
set linetype 5 lc rgb "#E69F00" lw 2 pt 11 ps 1.2 dt 1
set linetype 6 lc rgb "#56B4E9" lw 2 pt 15 ps 1.0 dt 1
set linetype 7 lc rgb "#000000" lw 2 pt 6  ps 1.0 dt 2
set linetype 8 lc rgb "#F0E442" lw 2 pt 4  ps 1.0 dt 1
set linetype cycle 8
do for [i=1:8] { set style line i lt i }
set style fill solid 0.85 border -1
set style histogram clustered gap 1
set boxwidth 0.8 relative

# Provenance: the CSV's "# summary:" line ("# summary: " is 11 characters).
ddl_summary(file) = system("grep -m1 '^# summary:' '".file."' 2>/dev/null | cut -c12-")
if (exists("csv")) {
    summary = ddl_summary(csv)
    if (strlen(summary) > 0) {
        set label 99 summary at screen 0.5, screen 0.02 center front noenhanced font ",9" tc rgb "#505050"
        set bmargin 5
    }
} else {
    summary = ""
}
