#!/usr/bin/env bash
# labs/net/cluster.sh - an emulated cluster on this machine: N hosts, each a
# Linux network namespace with one veth link to a bridge in a hub
# namespace, every link shaped to a rate with tc TBF, and each host's
# packets sent at that rate, one after the other, plus the latency, by
# nfq_delay (labs/net/nfq_delay.c). Nothing is created or changed outside
# the namespaces it makes, and traffic only ever goes between them, on
# 198.18.0.0/24 (the benchmarking range, RFC 2544).
#
#   cluster.sh check                     can this machine do it? (exit 0, or
#                                        1 and the reason with what to run)
#   cluster.sh up TAG HOSTS RATE_BPS LATENCY_US [--owner PID] [--bin DIR]
#                                        build it; TAG is ddl-<owner pid>
#   cluster.sh down TAG [--quiet]        remove it: processes, namespaces,
#                                        links, qdiscs, rules, state
#   cluster.sh stale [--clean]           list (or remove) clusters whose owner
#                                        process is gone (a killed run)
#   cluster.sh list                      every ddl- namespace on this machine
#   cluster.sh ping TAG FROM TO [COUNT]  round-trip time between two hosts
#
# Layout of cluster TAG (namespaces TAG-hub, TAG-h0 .. TAG-h<N-1>):
#   TAG-hK:   eth0 198.18.0.<K+1>/24, its route setting TCP cubic; lo; an
#             iptables rule queueing output to 198.18.0.0/24 to NFQUEUE 0,
#             and nfq_delay releasing queue 0 at the link rate plus the
#             latency; TBF root qdisc on eth0 (host -> switch)
#   TAG-hub:  bridge br0 with ports h0 .. h<N-1> (the veth peers); TBF root
#             qdisc on each port (switch -> host)
# Both directions of every link are shaped: full duplex, like a switched
# Ethernet port; a host receiving from several senders gets the rate once.
# State (owner, hostfile, the rsh agent's host map, delay logs) lives in
# $DDL_NET_RUN/TAG (default /run/ddlab-net/TAG).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
RUN_DIR=${DDL_NET_RUN:-/run/ddlab-net}
SUBNET=198.18.0
MAX_HOSTS=64
MTU_FRAME=1514   # what TBF counts per full-size frame: 1500 B MTU + 14 B Ethernet header

die() { echo "net: error: $*" >&2; exit 1; }
say() { echo "net: $*" >&2; }

# --- prerequisites ------------------------------------------------------------
# Prints the first missing thing and what to run instead; exit 1.
check() {
  local instead="run the lab without NET= (shared memory on this machine), or PLATFORM=cluster4 (simulated)"
  if [ "$(id -u)" != 0 ]; then
    echo "emulated networks need root (network namespaces, tc): run 'sudo make ... NET=...', or $instead"; return 1
  fi
  local tool pkg
  for tool in ip:iproute2 tc:iproute2; do
    command -v "${tool%%:*}" >/dev/null 2>&1 ||
      { echo "'${tool%%:*}' not found: install ${tool#*:} ('make deps' as root), or $instead"; return 1; }
  done
  for tool in iptables:iptables ping:iputils-ping; do
    command -v "${tool%%:*}" >/dev/null 2>&1 ||
      { echo "'${tool%%:*}' not found: install ${tool#*:} ('make deps' as root), or $instead"; return 1; }
  done
  # Namespaces may be forbidden (an unprivileged container, seccomp): try one.
  local probe=ddl-probe-$$
  if ! ip netns add "$probe" 2>/dev/null; then
    echo "cannot create network namespaces here (a container without CAP_SYS_ADMIN?): $instead"; return 1
  fi
  local ok=1
  ip -n "$probe" link add p0 type veth peer name p1 2>/dev/null || ok=0
  [ "$ok" = 1 ] && { ip -n "$probe" link add b0 type bridge 2>/dev/null || ok=2; }
  [ "$ok" = 1 ] && { ip -n "$probe" link set p0 up && tc -n "$probe" qdisc add dev p0 root tbf rate 1gbit burst 16kb limit 64kb 2>/dev/null || ok=3; }
  ip netns del "$probe" 2>/dev/null
  case $ok in
    0) echo "this kernel cannot make veth links: $instead"; return 1 ;;
    2) echo "this kernel cannot make bridges: $instead"; return 1 ;;
    3) echo "tc cannot attach a TBF qdisc (sch_tbf missing?): $instead"; return 1 ;;
  esac
  return 0
}

# --- ownership and stale clusters -------------------------------------------
start_time() { # pid: the kernel's start time of that process (field 22 of stat)
  [ -r "/proc/$1/stat" ] || return 1
  sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }'
}
owner_alive() { # tag
  local tag=$1 pid start
  pid=$(cat "$RUN_DIR/$tag/owner" 2>/dev/null) || pid=${tag#ddl-}
  case "$pid" in ''|*[!0-9]*) return 1 ;; esac
  start=$(start_time "$pid") || return 1
  # No state file: the pid alone decides (a recycled pid keeps it, safely).
  [ -f "$RUN_DIR/$tag/owner_start" ] || return 0
  [ "$start" = "$(cat "$RUN_DIR/$tag/owner_start")" ]
}
all_namespaces() { ip netns list 2>/dev/null | awk '{ print $1 }' | grep '^ddl-' || true; }
cluster_tags() { # every ddl-<pid> with a namespace or a state folder
  { all_namespaces | sed -E 's/^(ddl-[0-9]+)-.*/\1/' | grep -E '^ddl-[0-9]+$'
    ls "$RUN_DIR" 2>/dev/null | grep -E '^ddl-[0-9]+$'; } | sort -u
}
namespaces_of() { all_namespaces | grep -E "^$1-(hub|h[0-9]+)\$" || true; }

stale() { # [--clean]
  local clean=0 tag n found=0
  [ "${1:-}" = --clean ] && clean=1
  for tag in $(cluster_tags); do
    owner_alive "$tag" && continue
    found=1
    n=$(namespaces_of "$tag" | wc -l)
    if [ "$clean" = 1 ]; then
      down "$tag" --quiet
      say "removed stale emulated cluster $tag ($n namespaces): its run was killed before it could clean up"
    else
      echo "$tag: $n namespaces, owner process gone (remove with: labs/net/cluster.sh stale --clean)"
    fi
  done
  [ "$clean" = 1 ] || [ "$found" = 0 ]
}

# --- teardown -----------------------------------------------------------------
# Every process inside our namespaces is ours (nfq_delay, mpirun, orted,
# ranks): TERM first (nfq_delay releases what it holds and reports), then
# KILL what is left after 3 s.
kill_inside() { # namespaces...
  local ns pids=() p
  for ns in "$@"; do
    for p in $(ip netns pids "$ns" 2>/dev/null); do [ "$p" != $$ ] && pids+=("$p"); done
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  kill -TERM "${pids[@]}" 2>/dev/null
  local i
  for i in $(seq 30); do
    local alive=()
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive+=("$p"); done
    [ ${#alive[@]} -eq 0 ] && return 0
    sleep 0.1
  done
  kill -KILL "${alive[@]}" 2>/dev/null
  sleep 0.2
}
down() { # tag [--quiet]
  local tag=$1 quiet=0
  [ "${2:-}" = --quiet ] && quiet=1
  # Digits only after "ddl-": the tag becomes a path that down removes
  # whole ($RUN_DIR/TAG), so "ddl-1/../.." must not pass.
  [[ $tag =~ ^ddl-[0-9]+$ ]] || die "down: '$tag' is not an emulated cluster's tag (ddl-<pid>)"
  trap '' INT TERM HUP # finish, whatever the job around us receives
  local spaces; spaces=$(namespaces_of "$tag")
  # A launch in flight (rsh.sh entering a namespace) can start a process
  # after the first pass: pass again until the namespaces are empty.
  local pass
  for pass in 1 2 3; do
    # shellcheck disable=SC2086
    kill_inside $spaces
    [ -z "$(for ns in $spaces; do ip netns pids "$ns" 2>/dev/null; done)" ] && break
  done
  if [ "$quiet" = 0 ] && ls "$RUN_DIR/$tag"/delay-h*.log >/dev/null 2>&1; then
    local f; for f in "$RUN_DIR/$tag"/delay-h*.log; do
      grep -h 'packets held' "$f" | sed "s/^/net: $(basename "$f" .log): /" >&2
    done
  fi
  local ns left=0
  for ns in $spaces; do ip netns del "$ns" 2>/dev/null || left=1; done
  rm -rf "${RUN_DIR:?}/$tag"
  [ "$left" = 0 ] || { say "could not delete every namespace of $tag: see 'ip netns list'"; return 1; }
  [ "$quiet" = 1 ] || say "$tag removed ($(echo $spaces | wc -w) namespaces)"
}

# --- building it --------------------------------------------------------------
# TBF parameters (labs/net/README.md has the measurements):
#   burst = max(rate x 500 us, 4 full frames): the bytes that may leave back
#           to back. A real link has no burst; TBF needs one because it can
#           only send when its timer wakes it, and on a busy machine every
#           wake-up is late: measured here at 1 Gbit/s (one TCP stream,
#           64 MiB), a 100 us burst gave 765-825 Mbit/s, 500 us 942, 1 ms
#           950-957 (the most TCP can carry: 1448 of every 1514 bytes is
#           956).
#   gso   = 90% of the burst (at most 64 KiB): the largest packet the host's
#           TCP may hand to eth0 (gso_max_size). TBF cuts a packet larger
#           than its burst into 1514-byte frames, one wake-up each: at 1
#           Gbit/s both ways that took every cycle of 2 cores (ring
#           allreduce at 0.6x the rate); packets that fit the burst keep it
#           at 0.93x. 90%: a packet's frames add 66 header bytes per 1448.
#   limit = max(rate x 20 ms, 128 KiB): the queue a switch port would have.
#           Large enough that several senders converging on one host are
#           queued rather than dropped (a drop costs TCP a 200 ms timeout),
#           small enough to bound the queueing delay at 20 ms.
tbf_burst() { # rate_bps
  awk -v r="$1" -v f="$MTU_FRAME" 'BEGIN { b = r / 8 * 500e-6; if (b < 4 * f) b = 4 * f; printf "%.0f\n", b }'
}
tbf_args() { # rate_bps
  awk -v r="$1" -v b="$(tbf_burst "$1")" 'BEGIN {
    limit = r / 8 * 20e-3; if (limit < 131072) limit = 131072
    printf "rate %.0fbit burst %.0f limit %.0f\n", r, b, limit }'
}
gso_size() { # rate_bps
  awk -v b="$(tbf_burst "$1")" 'BEGIN { g = int(b * 0.9); if (g > 65536) g = 65536; print g }'
}

up() { # tag hosts rate_bps latency_us [--owner pid] [--bin dir]
  local tag=$1 hosts=$2 rate=$3 lat=$4; shift 4
  [[ $tag =~ ^ddl-[0-9]+$ ]] || die "up: '$tag' is not a tag down could take (ddl-<digits>)"
  local owner=$PPID bin=bin
  while [ $# -gt 0 ]; do
    case $1 in
      --owner) owner=$2; shift 2 ;;
      --bin) bin=$2; shift 2 ;;
      *) die "up: unknown option '$1'" ;;
    esac
  done
  case "$hosts" in ''|*[!0-9]*) die "up: HOSTS must be a number (got '$hosts')" ;; esac
  [ "$hosts" -ge 1 ] && [ "$hosts" -le $MAX_HOSTS ] || die "HOSTS=$hosts: 1 .. $MAX_HOSTS emulated hosts"
  [ "$tag" = "ddl-$owner" ] || die "up: the tag must be ddl-<owner pid> (ddl-$owner), got '$tag'"
  local why
  why=$(check) || die "$why"
  local cc=${DDL_NET_CC:-cubic}
  grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control ||
    die "DDL_NET_CC=$cc: not one of this kernel's TCP congestion controls ($(cat /proc/sys/net/ipv4/tcp_available_congestion_control))"
  local delay=$bin/net/nfq_delay
  [ -x "$delay" ] || die "$delay is not built: install libnetfilter-queue-dev ('make deps' as root) and run make"
  stale --clean
  [ -z "$(namespaces_of "$tag")" ] || die "$tag exists already (a run of this process?): cluster.sh down $tag"

  # State first: whatever is created from here on can be found and removed.
  local st=$RUN_DIR/$tag
  mkdir -p "$st" || die "cannot create $st"
  echo "$owner" > "$st/owner"
  start_time "$owner" > "$st/owner_start" || die "owner process $owner is not running"
  # From here a failure removes what was made.
  trap 'say "set-up failed: removing $tag"; down "$tag" --quiet' ERR
  set -E -e

  local hub=$tag-hub k ns
  ip netns add "$hub"
  ip -n "$hub" link set lo up
  ip -n "$hub" link add br0 type bridge
  # No spanning tree, no learning delay: ports forward as soon as they are up.
  ip -n "$hub" link set br0 type bridge stp_state 0 forward_delay 0
  ip -n "$hub" link set br0 up
  local tbf gso; tbf=$(tbf_args "$rate"); gso=$(gso_size "$rate")
  : > "$st/hostfile"; : > "$st/hosts"
  for (( k = 0; k < hosts; k++ )); do
    ns=$tag-h$k
    ip netns add "$ns"
    ip -n "$hub" link add "h$k" type veth peer name eth0 netns "$ns"
    ip -n "$hub" link set "h$k" master br0 up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$SUBNET.$(( k + 1 ))/24" dev eth0
    ip -n "$ns" link set eth0 gso_max_size "$gso" up
    # TCP's congestion control, on the hosts' one route: the namespaces
    # inherit this machine's default, which may be BBR (it is on the dev
    # VM), and only the first namespace may change that default. BBR drains
    # its queue every 10 s (PROBE_RTT: 4 packets in flight for 200 ms), and
    # on these links that stalled an allreduce by ~150 ms in 1 of ~8 steps
    # after an idle gap (a compute phase): measured, 37 MB at 1 Gbit/s,
    # gaps of 500 ms, 16 rounds: 1-3 stalls per run with BBR, none in 40
    # rounds with cubic, Linux's default, loss-based, as on most clusters.
    # DDL_NET_CC picks another one the kernel has (e.g. bbr, to see it).
    ip -n "$ns" route replace "$SUBNET.0/24" dev eth0 proto kernel scope link src "$SUBNET.$(( k + 1 ))" \
      congctl "$cc"
    # shellcheck disable=SC2086
    tc -n "$ns" qdisc add dev eth0 root tbf $tbf
    # shellcheck disable=SC2086
    tc -n "$hub" qdisc add dev "h$k" root tbf $tbf
    echo "$SUBNET.$(( k + 1 )) slots=1" >> "$st/hostfile"
    echo "$SUBNET.$(( k + 1 )) $ns" >> "$st/hosts"
  done
  echo "$tbf gso_max_size $gso" > "$st/tbf"
  wait_reachable "$tag" "$hosts"

  local base="" with=""
  [ "$hosts" -ge 2 ] && base=$(rtt "$tag" 0 1 20)
  # DDL_NET_PACE=0: TBF alone sets the rate (its burst crosses at memory
  # speed); nfq_delay then only adds a latency, if there is one.
  local pace=$rate
  [ "${DDL_NET_PACE:-1}" = 0 ] && pace=0
  if [ "$pace" != 0 ] || [ "$lat" != 0 ]; then
    for (( k = 0; k < hosts; k++ )); do start_delay "$tag" "$k" "$pace" "$lat" "$delay"; done
    [ "$hosts" -ge 2 ] && with=$(rtt "$tag" 0 1 20)
  fi
  set +E +e
  trap - ERR
  { echo "tbf=$tbf (eth0 gso_max_size $gso)"; echo "tcp_cc=$cc"; echo "rtt_base=$base"; echo "rtt_with_delay=$with"; } > "$st/measured"
  say "$tag: $hosts hosts up, $SUBNET.1-$hosts, TBF $tbf on both ends of every link, TCP $cc, nfq_delay at $pace bit/s + $lat us at each sender${base:+; ping h0-h1: $base before nfq_delay, $with with it}"
}

# Bridge ports need a moment after they come up; ARP must have resolved.
wait_reachable() { # tag hosts
  local tag=$1 hosts=$2 k i
  for (( k = 1; k < hosts; k++ )); do
    for i in $(seq 50); do
      ip netns exec "$tag-h0" ping -c 1 -W 1 -q "$SUBNET.$(( k + 1 ))" >/dev/null 2>&1 && break
      [ "$i" = 50 ] && { say "host h$k does not answer h0"; return 1; }
      sleep 0.1
    done
  done
  return 0
}

start_delay() { # tag k rate_bps latency_us delay_program
  local tag=$1 k=$2 rate=$3 lat=$4 prog=$5 ns=$1-h$2 st=$RUN_DIR/$1
  # The program first, then the rule: no packet waits on a queue nobody reads.
  local args=(--delay-us "$lat" --queue 0 --realtime)
  [ "$rate" != 0 ] && args+=(--rate-bps "$rate")
  ip netns exec "$ns" "$prog" "${args[@]}" > "$st/delay-h$k.log" 2>&1 &
  echo $! > "$st/delay-h$k.pid"
  local i
  for i in $(seq 50); do
    grep -q ': ready' "$st/delay-h$k.log" 2>/dev/null && break
    kill -0 "$(cat "$st/delay-h$k.pid")" 2>/dev/null || { say "nfq_delay in $ns died: $(cat "$st/delay-h$k.log")"; return 1; }
    sleep 0.05
  done
  grep -q ': ready' "$st/delay-h$k.log" || { say "nfq_delay in $ns did not start"; return 1; }
  # --queue-bypass: were nfq_delay to die, packets pass undelayed (TBF still
  # shapes the rate) instead of the job hanging; `down` reports each
  # program's count, so it shows.
  ip netns exec "$ns" iptables -w -A OUTPUT -d "$SUBNET.0/24" -j NFQUEUE --queue-num 0 --queue-bypass
}

rtt() { # tag from to count: "min/avg/max X/Y/Z ms"
  local out
  out=$(ip netns exec "$1-h$2" ping -c "${4:-10}" -i 0.01 -q "$SUBNET.$(( $3 + 1 ))" 2>&1 | sed -n 's/^rtt min\/avg\/max\/mdev = \([0-9.]*\)\/\([0-9.]*\)\/\([0-9.]*\)\/.*/\1\/\2\/\3/p')
  [ -n "$out" ] || return 1
  echo "RTT min/avg/max $out ms"
}

cmd=${1:-}
shift || true
case "$cmd" in
  check) check "$@" ;;
  up) [ $# -ge 4 ] || die "usage: cluster.sh up TAG HOSTS RATE_BPS LATENCY_US [--owner PID] [--bin DIR]"; up "$@" ;;
  down) [ $# -ge 1 ] || die "usage: cluster.sh down TAG [--quiet]"; down "$@" ;;
  stale) stale "$@" ;;
  list) all_namespaces ;;
  ping) [ $# -ge 3 ] || die "usage: cluster.sh ping TAG FROM TO [COUNT]"; rtt "$@" ;;
  -h|--help|help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
  *) die "usage: cluster.sh check|up|down|stale|list|ping (cluster.sh --help)" ;;
esac
