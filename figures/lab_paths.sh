# figures/lab_paths.sh - sourced by labs/labN/figures.sh (from the
# repository root): where that lab's results are read and its figures and
# tables written, from the caller's environment or the defaults
#   IN  = $RESULTS, else results/labN     FIG = $FIGURES, else figures
#   TAB = $TABLES, else report/tables     BIN = $BIN, else bin
# and a clear stop when a result file the lab needs is missing.
#   source figures/lab_paths.sh labN 'pattern of a result file'...
LAB=$1
shift
# Drawing runs on this machine, not on a run's emulated hosts: the label of
# what ran is in the results' own metadata (a program here would refuse a
# DDL_NET that the run exported, and say so).
unset DDL_NET DDL_NET_SETUP DDL_NET_HOST
IN=${RESULTS:-results/$LAB}
FIG=${FIGURES:-figures}
TAB=${TABLES:-report/tables}
BIN=${BIN:-bin}
for pattern in "$@"; do
  compgen -G "$IN/$pattern" >/dev/null || { echo "$LAB: no results in $IN (run make $LAB)" >&2; exit 1; }
done
mkdir -p "$FIG" "$TAB"

# The results index, $IN/index.csv: the figures and tables this rendering
# produced, by path (relative to the repository root, or absolute). The
# report (report/build.py) shows what the index names and nothing else
# that happens to lie in figures/. A figures.sh calls index_figure and
# index_table for each output, then index_write, which replaces the index
# atomically: a failed rendering leaves the previous index.
INDEX_ROWS=()
index_cell() { # a CSV cell, quoted when it holds a comma or a quote
  case $1 in *[,\"]*) printf '"%s"' "${1//\"/\"\"}" ;; *) printf '%s' "$1" ;; esac
}
index_figure() { # NAME...: $FIG/NAME.png
  local n
  for n in "$@"; do
    n=${n%.png}
    INDEX_ROWS+=("figure,$(index_cell "$n"),$(index_cell "$FIG/$n.png")")
  done
}
index_table() { # PATH...
  local t
  for t in "$@"; do INDEX_ROWS+=("table,$(index_cell "$(basename "$t" .tex)"),$(index_cell "$t")"); done
}
index_write() {
  local tmp=$IN/.index.csv.tmp.$$
  {
    echo "# program: $LAB/figures.sh"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# what: the figures and tables of the run in this folder; make report shows these"
    echo "kind,name,path"
    printf '%s\n' "${INDEX_ROWS[@]}"
  } > "$tmp" && mv -f "$tmp" "$IN/index.csv"
}
