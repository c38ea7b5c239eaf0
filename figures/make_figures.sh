#!/usr/bin/env bash
# figures/make_figures.sh - render every lab's figures and tables
# (`make figures`), running the labs whose results are missing first.
#
# For each lab N in 1..6 that exists (labs/labN/run.sh):
#   1. results/labN/ has no *.csv (or RERUN=1): run `make labN`, passing
#      NP, DEVICE, PROFILE, SEED and DDL_DATA when they are set;
#   2. render:
#      - labs/labN/figures.sh exists: run it (bash, from the repository
#        root). It renders its own figures from results/labN/ into
#        figures/labN-*.png and tables into report/tables/labN*.tex. It gets
#          LAB=labN RESULTS=results/labN FIGURES=figures TABLES=report/tables
#          DDL_ROOT=<absolute repository root>
#        in its environment, and may call
#          figures/make_figures.sh --plot <script.gp> <data.csv> <out.png> [settings]
#        to render one gnuplot script atomically (see below);
#      - otherwise every labs/labN/<name>.gp is rendered with
#          gnuplot -e "csv='results/labN/<name>.csv'; out='figures/labN-<name>.png'" labs/labN/<name>.gp
#        (the script starts with `load 'figures/common.gp'`, see there).
#   A lab's own program may also write figures/labN-*.png (libpng pictures)
#   and report/tables/labN*.tex while it runs; they are counted too.
#   3. labs 2, 3, 4 and 6 (whose findings need a network that costs
#      something, the seed's scale, or links to count) run once more, small,
#      on the platform this machine has (figures/platforms.sh: an emulated
#      network as root, else SimGrid, else none; lab2 on the simulated
#      wits80 wherever SimGrid is, lab4 on emulated links only), into
#      results/labN/<net-...|sim-...>/ beside the native
#      results; results/labN/platform.txt records what happened (ran,
#      failed, not available: the report's "not shown here" and the command
#      that would show it). A failed platform run fails nothing: the native
#      results stay, and the record says why. Each is stopped after
#      FIGURES_PLATFORM_TIMEOUT seconds (default 900; status 124).
# Progress: one line per run (lab and platform, which of how many, about
# how long is left). On a terminal the line is updated in place each
# second and the run's own output goes to results/logs/<lab>-<platform>.log
# (its last lines are shown when it fails); otherwise (a pipe, a file,
# FIGURES_PROGRESS=plain) plain lines, and the runs' output as it comes.
# The estimates are the last measured wall time of each run
# (results/logs/times.txt), else a default per lab.
# Finally a summary says, per lab, what ran, what was rendered and what is
# missing, with each lab's wall time (its run and its rendering) and the
# total. Exit status 1 if any lab run or render failed (not an extra
# platform run); the other labs are still done first.
#
#   figures/make_figures.sh --plot SCRIPT CSV OUT [SETTINGS]
# renders one script into OUT via a temporary file (a failed render never
# leaves a half-written PNG); exit status of gnuplot. SETTINGS are gnuplot
# statements run before the script (e.g. "family = 'lga'" for a script that
# draws one of several families).
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD

plot_one() { # script csv out [settings]
  local script=$1 csv=$2 out=$3 settings=${4:-}
  if ! command -v gnuplot >/dev/null 2>&1; then
    echo "make_figures: gnuplot not found: install it with 'sudo apt-get install gnuplot-nox' (or 'make deps')" >&2
    return 127
  fi
  if [ ! -f "$csv" ]; then
    echo "make_figures: $script: data file $csv is missing" >&2
    return 1
  fi
  case "$csv$out" in *"'"*) echo "make_figures: paths must not contain single quotes: $csv $out" >&2; return 1 ;; esac
  mkdir -p "$(dirname "$out")" || return 1
  local tmp="${out%.png}.tmp.$$.png"
  if gnuplot -e "${settings:+$settings; }csv='$csv'; out='$tmp'" "$script" && [ -s "$tmp" ]; then
    mv -f "$tmp" "$out"
  else
    rm -f "$tmp"
    echo "make_figures: $script failed to render $out" >&2
    return 1
  fi
}

case "${1:-}" in
  -h|--help) sed -n '2,/^set -u$/p' "$ROOT/figures/make_figures.sh" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  ""|--plot) ;;
  *) echo "usage: $0 [--plot SCRIPT CSV OUT [SETTINGS] | --help]" >&2; exit 2 ;;
esac
if [ "${1:-}" = "--plot" ]; then
  [ $# -eq 4 ] || [ $# -eq 5 ] || { echo "usage: $0 --plot SCRIPT CSV OUT [SETTINGS]" >&2; exit 2; }
  plot_one "$2" "$3" "$4" "${5:-}"
  exit $?
fi

count() { # glob... -> number of existing files
  local n=0 f
  for f in "$@"; do [ -e "$f" ] && n=$((n + 1)); done
  echo "$n"
}

# Only the variables the user set are passed, so `make` keeps its defaults.
# NP goes to labs 2-5 alone: lab1 runs one process and lab6 its fixed
# worker grid, and both refuse a rank count.
MAKE_VARS=()
for v in DEVICE PROFILE SEED DDL_DATA; do
  [ -n "${!v:-}" ] && MAKE_VARS+=("$v=${!v}")
done

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
source figures/progress.sh
source figures/platforms.sh
platform_probe || exit 2
failed=0
summary=()
t_all=$(now)
mkdir -p figures report/tables

native_needed() { [ "${RERUN:-0}" = 1 ] || [ "$(count "results/lab$1"/*.csv)" -eq 0 ]; }
# The runs ahead, for the progress lines: "N native" and "N <tag>".
for n in 1 2 3 4 5 6; do
  [ -f "labs/lab$n/run.sh" ] || continue
  native_needed "$n" && progress_plan "lab$n" native
  platform_needed "$n" && progress_plan "lab$n" "$PLATFORM_TAG"
done
case $PLATFORM_KIND in
  net) echo "make_figures: labs $PLATFORM_LABS also run on an emulated network (root, namespaces and tc work here)" ;;
  sim) echo "make_figures: labs $PLATFORM_LABS also run simulated (SimGrid SMPI); $PLATFORM_WHY" ;;
  *)   echo "make_figures: labs $PLATFORM_LABS run natively only; their findings are 'not shown here': $PLATFORM_WHY" ;;
esac

# platform_step N: lab N's run on the extra platform, recorded; never fails
# make figures (the native results stand whatever happens here).
platform_step() {
  local n=$1 t0 rc
  platform_vars "$n" || return 0
  if [ "$LAB_KIND" = none ]; then
    platform_record "$n" "not available" "$PLATFORM_WHY" 0
    summary+=("lab$n: not shown here (no platform with a network: $PLATFORM_WHY); run: $PLATFORM_CMD")
    return 0
  fi
  if ! platform_needed "$n"; then
    platform_record "$n" "had results" "" 0
    return 0
  fi
  t0=$(now)
  # lab6 refuses an NP that `make figures NP=4` hands down through MAKEFLAGS.
  local np=()
  [ "$n" = 6 ] && np=(NP=)
  # Bounded: a run that hangs is stopped with SIGTERM (make passes it to the
  # lab, whose clean-up removes its emulated cluster), then SIGKILL 60 s later.
  # shellcheck disable=SC2086 # PLATFORM_ENV's words are VAR=value pairs
  progress_run "lab$n" "$PLATFORM_TAG" timeout --foreground -k 60 "${FIGURES_PLATFORM_TIMEOUT:-900}" \
    env ${PLATFORM_ENV[$n]} ${MAKE:-make} --no-print-directory "lab$n" "${MAKE_VARS[@]}" "${PLATFORM_VARS[@]}" "${np[@]}"
  rc=$?
  if [ "$rc" = 0 ]; then
    platform_record "$n" ran "" "$(secs "$t0" "$(now)")"
    summary+=("lab$n $PLATFORM_TAG: ran in $(secs "$t0" "$(now)") s ($PLATFORM_CMD)")
  else
    platform_record "$n" failed "'$PLATFORM_CMD' exited with status $rc${PROGRESS_LOG:+ (log: $PROGRESS_LOG)}; the native results stand" \
      "$(secs "$t0" "$(now)")"
    summary+=("lab$n $PLATFORM_TAG: FAILED (status $rc; native results kept${PROGRESS_LOG:+; log $PROGRESS_LOG})")
  fi
  return 0
}

for n in 1 2 3 4 5 6; do
  lab=lab$n dir=labs/lab$n
  if [ ! -f "$dir/run.sh" ]; then
    summary+=("$lab: not in this tree (no $dir/run.sh)")
    continue
  fi
  ran="had results"
  t0=$(now) run_s=0
  lab_vars=("${MAKE_VARS[@]}")
  # An explicit NP= for lab1/lab6: `make figures NP=4` hands NP=4 to every
  # sub-make through MAKEFLAGS.
  case $n in 2|3|4|5) [ -n "${NP:-}" ] && lab_vars+=("NP=$NP") ;; *) lab_vars+=("NP=") ;; esac
  if native_needed "$n"; then
    if ! progress_run "$lab" native ${MAKE:-make} --no-print-directory "$lab" "${lab_vars[@]}"; then
      summary+=("$lab: FAILED: 'make $lab' failed (${PROGRESS_LOG:+see $PROGRESS_LOG; }its output says why); nothing rendered")
      failed=1
      continue
    fi
    ran="ran now"
    run_s=$(secs "$t0" "$(now)")
  fi
  platform_step "$n"
  t1=$(now)

  problems=()
  if [ -f "$dir/figures.sh" ]; then
    echo "== $lab: rendering with $dir/figures.sh"
    if ! LAB=$lab RESULTS=results/$lab FIGURES=figures TABLES=report/tables DDL_ROOT=$ROOT \
         bash "$dir/figures.sh"; then
      problems+=("$dir/figures.sh failed")
    fi
  else
    for gp in "$dir"/*.gp; do
      [ -e "$gp" ] || continue
      name=$(basename "$gp" .gp)
      echo "== $lab: rendering $gp"
      plot_one "$gp" "results/$lab/$name.csv" "figures/$lab-$name.png" || problems+=("$gp not rendered")
    done
  fi

  nfig=$(count figures/"$lab"-*.png)
  ntab=$(count report/tables/"$lab".tex report/tables/"$lab"[-_]*.tex)
  line="$lab: $ran; $nfig figure(s), $ntab table(s); wall ${run_s} s run + $(secs "$t1" "$(now)") s render"
  if [ ${#problems[@]} -gt 0 ]; then
    failed=1
    line+="; FAILED: $(IFS=';'; echo "${problems[*]}")"
  elif [ "$nfig" -eq 0 ] && [ "$ntab" -eq 0 ]; then
    line+="; nothing to show yet (no figures.sh or .gp scripts?)"
  fi
  summary+=("$line")
done

echo
echo "Figures and tables:"
printf '  %s\n' "${summary[@]}"
echo "  total wall time $(secs "$t_all" "$(now)") s"
echo "  figures in figures/, tables in report/tables/; 'make report' builds report/report.pdf"
exit $failed
