# shellcheck shell=bash
# labs/scale/progress.sh - what `make scale` is on and how long is left
# (sourced by labs/scale/run.sh).
#
#   progress_start CFG...   the plan ("kind platform np" each)
#   progress_begin CFG      a line as it starts: [k/n] CFG, about T left
#   progress_end CFG RC PSS a line as it ends: its wall time, CPU time, memory
#   progress_skip CFG WHY   a configuration the platform cannot hold
#
# "Left" weighs each configuration by its ranks squared (a simulated
# allreduce over p ranks sends on the order of p^2 messages, and the rank
# counts double) and scales the wall time spent so far by the weight still
# to run: a guess that holds better as the run goes on.

PROGRESS_CFGS=()
PROGRESS_WEIGHT_DONE=0
PROGRESS_WEIGHT_ALL=0
PROGRESS_T0=0
PROGRESS_K=0

progress_weight() { local np=${1##* }; echo $(( np * np + 64 )); }

progress_start() {
  PROGRESS_CFGS=("$@")
  PROGRESS_T0=$(date +%s)
  local c
  for c in "$@"; do PROGRESS_WEIGHT_ALL=$(( PROGRESS_WEIGHT_ALL + $(progress_weight "$c") )); done
}

progress_left() {
  local spent=$(( $(date +%s) - PROGRESS_T0 ))
  if [ "$PROGRESS_WEIGHT_DONE" -eq 0 ]; then echo "unknown yet"; return; fi
  local left=$(( spent * (PROGRESS_WEIGHT_ALL - PROGRESS_WEIGHT_DONE) / PROGRESS_WEIGHT_DONE ))
  printf 'about %d min %02d s' $(( left / 60 )) $(( left % 60 ))
}

progress_begin() {
  PROGRESS_K=$(( PROGRESS_K + 1 ))
  echo "[scale] [$PROGRESS_K/${#PROGRESS_CFGS[@]}] $1: started, $(progress_left) left in all" >&2
}

progress_end() { # cfg rc pss-file
  PROGRESS_WEIGHT_DONE=$(( PROGRESS_WEIGHT_DONE + $(progress_weight "$1") ))
  local what
  what=$(tr '\n' ' ' < "$3" 2>/dev/null)
  echo "[scale] [$PROGRESS_K/${#PROGRESS_CFGS[@]}] $1: $([ "$2" = 0 ] && echo done || echo "FAILED (exit $2)"), $what; $(progress_left) left" >&2
}

progress_skip() {
  PROGRESS_K=$(( PROGRESS_K + 1 ))
  PROGRESS_WEIGHT_DONE=$(( PROGRESS_WEIGHT_DONE + $(progress_weight "$1") ))
  echo "[scale] [$PROGRESS_K/${#PROGRESS_CFGS[@]}] $1: skipped: $2" >&2
}
