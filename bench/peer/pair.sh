# bench/peer/pair.sh - start the ranks of one PyTorch job (bench/peer/
# torch_ddp.py step|allreduce) and make sure they all end (sourced).
#
#   peer_pair LIMIT_S OUTFILE NS_PREFIX -- ARGS...
# runs WORLD ranks of `$PEER_PY bench/peer/torch_ddp.py ARGS --rank R`
# (WORLD from --world in ARGS, default 2), each in its own process group:
# natively when NS_PREFIX is empty (gloo on loopback, 127.0.0.1), or rank R
# in network namespace NS_PREFIX-h<R mod PEER_HOSTS> of an emulated cluster
# (labs/net/; PEER_HOSTS default WORLD: one rank per host, round-robin as
# the labs place MPI ranks; rank 0's address 198.18.0.1, gloo over eth0). Rank 0's output goes to
# OUTFILE, the others' stderr to OUTFILE.rankR.
#
# A rank that dies (killed, an error) ends the pair: its peers see gloo's
# timeout or a closed connection within --timeout seconds and exit; any
# rank still there 5 s after the first failure, or at LIMIT_S seconds
# after the start, gets SIGTERM and then SIGKILL, by process group (only
# the groups this function started). Returns 0 when every rank exited 0,
# else 1 (124 when the limit was hit), with every rank gone.
PEER_PY=${PEER_PY:-${BENCH_PYTHON:-/usr/bin/python3}}

peer_pair() {
  local limit=$1 out=$2 ns=$3; shift 4 # the '--'
  local world=2 i
  for ((i = 1; i <= $#; i++)); do [ "${!i}" = --world ] && { local j=$((i + 1)); world=${!j}; }; done
  local pids=() r cmd master=127.0.0.1 ifname=lo
  [ -n "$ns" ] && { master=198.18.0.1; ifname=eth0; }
  for ((r = 0; r < world; r++)); do
    cmd=(env GLOO_SOCKET_IFNAME=$ifname OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
         "$PEER_PY" bench/peer/torch_ddp.py "$@" --rank "$r" --master "$master")
    [ -n "$ns" ] && cmd=(ip netns exec "$ns-h$(( r % ${PEER_HOSTS:-$world} ))" "${cmd[@]}")
    if [ "$r" = 0 ]; then setsid "${cmd[@]}" > "$out" 2> "$out.rank0" &
    else setsid "${cmd[@]}" > /dev/null 2> "$out.rank$r" & fi
    pids+=($!)
  done
  PEER_PAIR_PIDS=("${pids[@]}")
  PEER_PAIR_STARTED=("${pids[@]}") # each rank's session id (setsid): what a caller may check is gone
  local start=$SECONDS failed_at="" status=0 alive p
  while :; do
    alive=0
    for i in "${!pids[@]}"; do
      p=${pids[i]}
      [ -z "$p" ] && continue
      if kill -0 "$p" 2>/dev/null; then alive=1; continue; fi
      wait "$p"; local rc=$?
      pids[i]=""
      if [ "$rc" != 0 ]; then status=1; [ -z "$failed_at" ] && failed_at=$SECONDS; fi
    done
    [ "$alive" = 0 ] && break
    if [ -n "$failed_at" ] && (( SECONDS - failed_at >= 5 )); then break; fi
    if (( SECONDS - start >= limit )); then status=124; break; fi
    sleep 0.2
  done
  peer_pair_kill "${pids[@]}"
  PEER_PAIR_PIDS=()
  return "$status"
}

# For an exit hook (labs/common.sh's lab_on_exit): a script stopped while a
# pair runs (Ctrl-C, SIGTERM, a timeout) ends the pair's process groups too;
# each rank runs in its own session, out of reach of the signal the script got.
PEER_PAIR_PIDS=()
peer_pair_stop() { [ ${#PEER_PAIR_PIDS[@]} -eq 0 ] || peer_pair_kill "${PEER_PAIR_PIDS[@]}"; PEER_PAIR_PIDS=(); }

# SIGTERM to each process group still there, SIGKILL after 3 s.
peer_pair_kill() {
  local p left=() i
  for p in "$@"; do [ -n "$p" ] && kill -0 "$p" 2>/dev/null && { kill -TERM -- "-$p" 2>/dev/null; left+=("$p"); }; done
  [ ${#left[@]} -gt 0 ] || return 0
  for i in $(seq 30); do
    local any=0
    for p in "${left[@]}"; do kill -0 "$p" 2>/dev/null && any=1; done
    [ $any = 0 ] && break
    sleep 0.1
  done
  for p in "${left[@]}"; do kill -KILL -- "-$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  return 0
}
