# shellcheck shell=bash
# labs/scale/platform.sh - the platform a `make scale` configuration runs on,
# and its run (sourced by labs/scale/run.sh).
#
#   scale_platform NAME NP   PLATFORM_XML and the rest of labs/platforms/sim.sh's
#                            variables for NP ranks of platform NAME; returns 1
#                            (SCALE_WHY says why) where NAME cannot hold NP
#   scale_run NP FOLDER LOG  ARGS under smpirun on it, bounded by SCALE_LIMIT_S,
#                            nice; LOG.log its output, LOG.pss its wall time,
#                            CPU time and peak PSS (labs/scale/pss.sh)
#
# A seed's cluster is grown, not oversubscribed: cluster4 (one rank a node)
# to NP nodes, wits80 (8 a machine) to NP/8 machines, each a copy of the
# platform file with only the node count changed (results/scale/platforms/,
# its comment says so). A platform of a fixed topology (fattree400g: a fat
# tree of 128 nodes) holds at most its own hosts x cores.

scale_platform() { # name np
  local name=$1 np=$2 hosts
  PLATFORM=$name
  # shellcheck source=labs/platforms/sim.sh
  source labs/platforms/sim.sh
  # shellcheck source=labs/launch.sh
  source labs/launch.sh
  hosts=$(( (np + PLATFORM_CORES - 1) / PLATFORM_CORES ))
  if grep -q 'topology=' "$PLATFORM_XML"; then
    if [ "$np" -gt "$PLATFORM_RANKS" ]; then
      SCALE_WHY="$name has $PLATFORM_RANKS ranks' room (a fixed topology), not $np"
      return 1
    fi
    return 0
  fi
  [ "$hosts" -le "$PLATFORM_HOSTS" ] && return 0
  local grown=results/scale/platforms/$name-x$hosts.xml
  sed -e "s/radical=\"0-[0-9]*\"/radical=\"0-$(( hosts - 1 ))\"/" \
      -e "s/ddlab: hosts=[0-9]*/ddlab: hosts=$hosts/" \
      -e "s|^<platform version|<!-- grown by labs/scale/platform.sh from labs/platforms/$name.xml ($PLATFORM_HOSTS nodes) to $hosts nodes; nothing else changed -->\n<platform version|" \
      "$PLATFORM_XML" > "$grown"
  PLATFORM_XML=$grown PLATFORM_HOSTS=$hosts PLATFORM_RANKS=$(( hosts * PLATFORM_CORES ))
  SIM_PLATFORM=$name-x$hosts
  export DDL_SIM_PLATFORM="$name grown to $hosts nodes (labs/scale/platform.sh)"
}

# scale_rm PATH: removes a folder of make scale's own, one inside $OUT
# (results/scale, which run.sh names itself), and refuses anything else.
scale_rm() {
  case "$1" in
    */../*|*/..) ;;
    "$OUT"/?*) rm -rf -- "$1"; return 0 ;;
  esac
  echo "error: $1 is not a folder of make scale's ($OUT/...): kept, not removed" >&2
  return 1
}

scale_run() { # np folder log
  local np=$1 folder=$2 log=$3
  LAUNCH_SIM_NETWORK=theory LAUNCH_SIM_COMPUTE=0 LAUNCH_SIM_BLOCK=67108864 launch_prefix_smpirun "$np"
  scale_rm "$folder" || return 1
  mkdir -p "$(dirname "$folder")"
  nice -n 10 timeout "$SCALE_LIMIT_S" labs/scale/pss.sh "$log.pss" "${LAUNCH_CMD[@]}" "${ARGS[@]}" --out "$folder" \
    > "$log.log" 2>&1
}
