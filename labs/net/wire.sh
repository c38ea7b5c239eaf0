# labs/net/wire.sh - every byte on the emulated hosts' links, as a
# container monitor (docker stats) counts it: each host's eth0 counters
# (frames with their Ethernet, IP and TCP headers, MPI's own control
# messages and start-up included), read once a second. Sourced by a lab's
# run.sh on an emulated network (NET=), after labs/common.sh.
#
#   wire_start FILE   sample every host of this run's cluster into FILE
#                     (CSV: t_s,host,rx_bytes,tx_bytes; the counters as
#                     the kernel keeps them, cumulative since the link
#                     came up), once a second, in the background
#   wire_stop         one last sample, then the sampler ends
# The sampler is bounded (WIRE_MAX_S, default 3600 samples) and stopped by
# the lab's exit hooks whatever happens.

WIRE_PID=
wire_sample() { # file host...: one line per host
  local t h rx tx
  t=$(date +%s.%N)
  for h in "$@"; do
    rx=$(ip netns exec "$h" cat /sys/class/net/eth0/statistics/rx_bytes 2>/dev/null) || continue
    tx=$(ip netns exec "$h" cat /sys/class/net/eth0/statistics/tx_bytes 2>/dev/null) || continue
    echo "$t,${h##*-},$rx,$tx"
  done >> "$1"
}
wire_start() { # file
  local file=$1 hosts=() k
  [ -n "${NET_NAME:-}" ] || return 0
  for (( k = 0; k < NET_HOSTS; k++ )); do hosts+=("$NET_NAME-h$k"); done
  echo "t_s,host,rx_bytes,tx_bytes" > "$file"
  wire_sample "$file" "${hosts[@]}"
  ( trap 'exit 0' TERM
    for (( n = 0; n < ${WIRE_MAX_S:-3600}; n++ )); do sleep 1; wire_sample "$file" "${hosts[@]}"; done ) &
  WIRE_PID=$! WIRE_FILE=$file WIRE_HOSTS=("${hosts[@]}")
}
wire_stop() {
  [ -n "$WIRE_PID" ] || return 0
  kill -TERM "$WIRE_PID" 2>/dev/null
  wait "$WIRE_PID" 2>/dev/null
  WIRE_PID=
  wire_sample "$WIRE_FILE" "${WIRE_HOSTS[@]}"
}
lab_on_exit wire_stop
