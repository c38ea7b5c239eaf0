# figures/lab_paths.sh - sourced by labs/labN/figures.sh (from the
# repository root): where that lab's results are read and its figures and
# tables written, from the caller's environment or the defaults
#   IN  = $RESULTS, else results/labN     FIG = $FIGURES, else figures
#   TAB = $TABLES, else report/tables     BIN = $BIN, else bin
# and a clear stop when a result file the lab needs is missing.
#   source figures/lab_paths.sh labN 'pattern of a result file'...
LAB=$1
shift
IN=${RESULTS:-results/$LAB}
FIG=${FIGURES:-figures}
TAB=${TABLES:-report/tables}
BIN=${BIN:-bin}
for pattern in "$@"; do
  compgen -G "$IN/$pattern" >/dev/null || { echo "$LAB: no results in $IN (run make $LAB)" >&2; exit 1; }
done
mkdir -p "$FIG" "$TAB"
