# shellcheck shell=bash
# figures/progress.sh - `make figures` says which run it is on and about how
# long is left (sourced by figures/make_figures.sh).
#
#   progress_plan LAB RUN        add a run ("lab3" "native", "lab3" "net-1gbit")
#                                to the plan, before the first starts
#   progress_run LAB RUN CMD...  run CMD as that run; its exit status
#
# One line per run: "[2/7] lab3 net-1gbit: 0:42, about 9 min left in all".
# On a terminal (stdout a TTY, FIGURES_PROGRESS unset or "tty") the line is
# redrawn in place every second and the run's output goes to
# results/logs/LAB-RUN.log (PROGRESS_LOG; its last 20 lines are printed if
# the run fails); otherwise (FIGURES_PROGRESS=plain, or not a terminal) a
# plain line when a run starts and one when it ends, and the run's output as
# it comes. "Left" sums the planned runs' estimates: the wall time each run
# took last time (results/logs/times.txt, rewritten after each run), else
# PROGRESS_DEFAULT_S's guess for its lab, minus what the current run has
# used so far (never below the time since it started: an overrun says "over
# its estimate").

PROGRESS_TIMES=results/logs/times.txt
# Guesses for a first run on 2 cores, seconds (quick profile, offline, as
# measured by the whole `make figures` at 30c9ed4 on the idle 2-core VM,
# 2026-11-29: lab3's less the 8 scaling steps cut after it; the platform
# runs took 39-47 s).
declare -A PROGRESS_DEFAULT_S=([lab1]=60 [lab2]=55 [lab3]=160 [lab4]=65 [lab5]=200 [lab6]=210 [platform]=45)
PROGRESS_PLAN=()
PROGRESS_DONE=0
PROGRESS_LOG=

# Decided once, here: inside $(...) stdout is never a terminal.
case "${FIGURES_PROGRESS:-}" in
  plain|tty) PROGRESS_MODE=$FIGURES_PROGRESS ;;
  "") if [ -t 1 ]; then PROGRESS_MODE="tty"; else PROGRESS_MODE="plain"; fi ;;
  *) echo "make_figures: FIGURES_PROGRESS='$FIGURES_PROGRESS': plain or tty (default: tty on a terminal)" >&2; exit 2 ;;
esac

progress_plan() { PROGRESS_PLAN+=("$1 $2"); }

# progress_estimate LAB RUN: seconds, from the last run's time or the guess.
progress_estimate() {
  local t=""
  [ -f "$PROGRESS_TIMES" ] && t=$(awk -v k="$1 $2" '$1 " " $2 == k { v = $3 } END { print v }' "$PROGRESS_TIMES")
  if [ -z "$t" ]; then
    if [ "$2" = native ]; then t=${PROGRESS_DEFAULT_S[$1]:-120}; else t=${PROGRESS_DEFAULT_S[platform]}; fi
  fi
  echo "$t"
}

progress_save() { # lab run seconds
  mkdir -p "$(dirname "$PROGRESS_TIMES")" || return 0
  { [ -f "$PROGRESS_TIMES" ] && awk -v k="$1 $2" '$1 " " $2 != k' "$PROGRESS_TIMES"
    echo "$1 $2 $3"; } > "$PROGRESS_TIMES.tmp" && mv -f "$PROGRESS_TIMES.tmp" "$PROGRESS_TIMES"
}

# "m:ss" and "about N min" (or "under a minute").
progress_clock() { printf '%d:%02d' $(( $1 / 60 )) $(( $1 % 60 )); }
progress_left() {
  if [ "$1" -lt 60 ]; then echo "under a minute"; else echo "about $(( ($1 + 30) / 60 )) min"; fi
}

# progress_line LAB RUN INDEX ELAPSED: the line for the current run.
progress_line() {
  local lab=$1 run=$2 i=$3 used=$4 left=0 k est here
  for (( k = i; k < ${#PROGRESS_PLAN[@]}; k++ )); do
    # shellcheck disable=SC2086 # "lab run"
    est=$(progress_estimate ${PROGRESS_PLAN[k]})
    if [ "$k" = "$i" ]; then
      here=$(( est - used ))
      [ "$here" -lt 0 ] && here=0
      left=$(( left + here ))
    else
      left=$(( left + est ))
    fi
  done
  local over=""
  est=$(progress_estimate "$lab" "$run")
  [ "$used" -gt "$est" ] && over=" (over its estimate of $(progress_clock "$est"))"
  echo "[$(( i + 1 ))/${#PROGRESS_PLAN[@]}] $lab $run: $(progress_clock "$used")$over, $(progress_left "$left") left in all"
}

progress_end() { # lab run index status start: the run's last line
  local outcome="done"
  [ "$4" = 0 ] || outcome="FAILED (status $4)"
  echo "[$(( $3 + 1 ))/${#PROGRESS_PLAN[@]}] $1 $2: $outcome in $(progress_clock $(( $(date +%s) - $5 )))"
}

progress_run() { # lab run cmd...
  local lab=$1 run=$2; shift 2
  local i=$PROGRESS_DONE start rc=0 pid k
  # Its place in the plan (a run skipped before it, e.g. a failed lab's
  # platform run, leaves a gap rather than shifting the count).
  for (( k = 0; k < ${#PROGRESS_PLAN[@]}; k++ )); do [ "${PROGRESS_PLAN[k]}" = "$lab $run" ] && i=$k; done
  start=$(date +%s)
  PROGRESS_LOG=
  if [ "$PROGRESS_MODE" = tty ]; then
    PROGRESS_LOG=results/logs/$lab-$run.log
    mkdir -p results/logs
    "$@" > "$PROGRESS_LOG" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
      printf '\r\033[K%s' "$(progress_line "$lab" "$run" "$i" $(( $(date +%s) - start )))"
      sleep 1
    done
    wait "$pid" || rc=$?
    printf '\r\033[K%s (log: %s)\n' "$(progress_end "$lab" "$run" "$i" "$rc" "$start")" "$PROGRESS_LOG"
    if [ "$rc" != 0 ]; then tail -n 20 "$PROGRESS_LOG" | sed 's/^/    /'; fi
  else
    echo "== $(progress_line "$lab" "$run" "$i" 0): make $lab ($run)"
    "$@" || rc=$?
    echo "== $(progress_end "$lab" "$run" "$i" "$rc" "$start")"
  fi
  [ "$rc" = 0 ] && progress_save "$lab" "$run" $(( $(date +%s) - start ))
  PROGRESS_DONE=$(( i + 1 ))
  return "$rc"
}
