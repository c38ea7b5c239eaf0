# labs/net/net.sh - make labN NET=RATE[,LATENCY] [HOSTS=N]: run the lab's
# MPI jobs on an emulated cluster of N hosts on this machine (network
# namespaces linked by a bridge, every link shaped by tc TBF, each packet
# sent at the link rate plus the latency by labs/net/nfq_delay.c), launched the way a cluster job is: a hostfile
# and a remote agent (labs/net/rsh.sh) that enters a host's namespace
# where ssh would log in. Sourced by labs/common.sh when NET is set; see
# labs/net/README.md.
#
# After sourcing (nothing is created yet):
#   NET_TAG          "net-<NET>" (net-1gbit, net-100mbit-200us): the name part of
#                    result folders, figures and tables (VARIANT in labs/common.sh)
#   NET_LABEL        "emulated network: 2 hosts, 1 Gbit/s, no added latency"
#   NET_HOSTS, NET_RATE_BPS, NET_LATENCY_US, NET_SUBNET
#   net_up           builds the cluster (labs/launch.sh's launch_begin calls it)
#   net_mca NP       the Open MPI settings of these links, into MCA (k v ...);
#                    labs/launch.sh renders them for mpirun or srun
# The programs label their outputs from DDL_NET and DDL_NET_SETUP (passed
# to every rank; core/results/meta.c). The cluster is removed when the
# lab's script exits, fails, or is stopped (Ctrl-C, SIGTERM, SIGHUP:
# labs/common.sh's exit hooks); a cluster left by a killed run is removed
# by the next one (labs/net/cluster.sh stale).
NET_DIR=labs/net
NET_CLUSTER=$NET_DIR/cluster.sh
NET_SUBNET=198.18.0.0/24

# awk reads and prints numbers in the locale's form: under de_DE "1.5"
# read as 1 and the label said "1,5 Gbit/s". NET's numbers are C's.
net_awk() { LC_ALL=C awk "$@"; }

# net_parse VALUE: sets NET_RATE_BPS, NET_RATE_TEXT, NET_LATENCY_US,
# NET_LATENCY_TEXT; returns 2 with the expected form on bad input.
net_parse() {
  local v=$1 re='^([0-9]+(\.[0-9]+)?)(kbit|mbit|gbit)(,([0-9]+(\.[0-9]+)?)(us|ms))?$'
  local form="expected RATE[,LATENCY]: RATE a number with kbit, mbit or gbit (1mbit .. 10gbit), LATENCY a number with us or ms (0 .. 1000ms), e.g. NET=1gbit or NET=100mbit,200us"
  if ! [[ $v =~ $re ]]; then
    echo "error: NET='$v': $form" >&2; return 2
  fi
  local num=${BASH_REMATCH[1]} unit=${BASH_REMATCH[3]} lnum=${BASH_REMATCH[5]:-0} lunit=${BASH_REMATCH[7]:-us}
  NET_RATE_BPS=$(net_awk -v n="$num" -v u="$unit" 'BEGIN { m = u == "kbit" ? 1e3 : u == "mbit" ? 1e6 : 1e9; printf "%.0f", n * m }')
  NET_LATENCY_US=$(net_awk -v n="$lnum" -v u="$lunit" 'BEGIN { printf "%.0f", u == "ms" ? n * 1000 : n }')
  if net_awk -v r="$NET_RATE_BPS" 'BEGIN { exit !(r < 1e6 || r > 1e10) }'; then
    echo "error: NET='$v': the rate must be 1mbit .. 10gbit; $form" >&2; return 2
  fi
  # in awk: a latency of 20 digits is past what [ -gt ] compares
  if net_awk -v l="$NET_LATENCY_US" 'BEGIN { exit !(l > 1000000) }'; then
    echo "error: NET='$v': the latency must be at most 1000ms; $form" >&2; return 2
  fi
  NET_RATE_TEXT=$(net_awk -v r="$NET_RATE_BPS" 'BEGIN {
    if (r >= 1e9) printf "%g Gbit/s", r / 1e9; else if (r >= 1e6) printf "%g Mbit/s", r / 1e6; else printf "%g kbit/s", r / 1e3 }')
  if [ "$NET_LATENCY_US" = 0 ]; then NET_LATENCY_TEXT="no added latency"
  elif [ $(( NET_LATENCY_US % 1000 )) = 0 ]; then NET_LATENCY_TEXT="$(( NET_LATENCY_US / 1000 )) ms latency"
  else NET_LATENCY_TEXT="$NET_LATENCY_US us latency"; fi
}

# Checks only: a bad NET or HOSTS, or a machine that cannot do it, is
# refused before the lab starts anything.
net_check() {
  net_parse "$NET" || exit 2
  if [ -n "${PLATFORM:-}" ]; then
    echo "error: NET=$NET and PLATFORM=$PLATFORM: choose one (an emulated network runs real sockets, a platform is simulated)" >&2
    exit 2
  fi
  NET_HOSTS=${HOSTS:-$NP}
  case "$NET_HOSTS" in
    [1-9]|[1-9][0-9]) ;;
    *) echo "error: HOSTS='$NET_HOSTS': a number of emulated hosts, 1 .. 64 (no leading zero)" >&2; exit 2 ;;
  esac
  [ "$NET_HOSTS" -le 64 ] || { echo "error: HOSTS=$NET_HOSTS: at most 64 emulated hosts" >&2; exit 2; }
  local why
  if ! why=$("$NET_CLUSTER" check); then
    echo "error: NET=$NET: $why" >&2
    exit 2
  fi
  NET_TAG=net-${NET//,/-}
  NET_LABEL="emulated network: $NET_HOSTS hosts, $NET_RATE_TEXT, $NET_LATENCY_TEXT"
}

# The cluster's names and socket buffers (nothing is made).
net_names() {
  NET_OWNER=$$
  NET_NAME=ddl-$NET_OWNER
  NET_STATE=${DDL_NET_RUN:-/run/ddlab-net}/$NET_NAME
  NET_SOCKBUF=$(net_awk -v r="$NET_RATE_BPS" -v l="$NET_LATENCY_US" 'BEGIN {
    b = 4 * r / 8 * (2 * l + 100) * 1e-6; if (b < 262144) b = 262144; printf "%.0f", b }')
}

net_up() {
  net_names
  # The hook is set before the cluster exists: a Ctrl-C during set-up
  # removes whatever was made.
  lab_on_exit net_teardown
  lab_no_lock "$NET_CLUSTER" up "$NET_NAME" "$NET_HOSTS" "$NET_RATE_BPS" "$NET_LATENCY_US" --owner "$NET_OWNER" \
    --bin "${NET_DELAY_BIN:-bin}" || exit 1
  export DDL_NET="$NET_HOSTS hosts, $NET_RATE_TEXT, $NET_LATENCY_TEXT"
  local tbf cc base with
  tbf=$(sed -n 's/^tbf=//p' "$NET_STATE/measured")
  cc=$(sed -n 's/^tcp_cc=//p' "$NET_STATE/measured")
  base=$(sed -n 's/^rtt_base=//p' "$NET_STATE/measured")
  with=$(sed -n 's/^rtt_with_delay=//p' "$NET_STATE/measured")
  DDL_NET_SETUP="$NET_HOSTS network namespaces on one machine, veth links to a bridge, tc TBF $tbf on both ends of every link"
  DDL_NET_SETUP+="; at each sender nfq_delay (NFQUEUE) releases every packet when a $NET_RATE_TEXT wire would have sent it, + $NET_LATENCY_US us"
  [ -n "$base" ] && DDL_NET_SETUP+="; ping h0-h1 $base without nfq_delay, $with with it"
  if [ "$LAUNCHER" = net-srun ]; then
    DDL_NET_SETUP+="; Open MPI over TCP ($cc; btl tcp,self) on $NET_SUBNET, started by srun --mpi=pmix with one slurmd per host"
  else
    DDL_NET_SETUP+="; Open MPI over TCP ($cc; btl tcp,self) on $NET_SUBNET, started by hostfile and a namespace-entering rsh agent"
  fi
  export DDL_NET_SETUP
  export DDL_NET_HOSTS=$NET_STATE/hosts
  note "$NET_LABEL (cluster $NET_NAME; results in ${NET_TAG})"
}

net_teardown() {
  [ -n "${NET_NAME:-}" ] || return 0
  # A second Ctrl-C, or the signal the whole job got, must not stop the
  # clean-up half-way: cluster.sh ignores them while it removes.
  "$NET_CLUSTER" down "$NET_NAME" || true
  NET_NAME=
}

# net_mca NP: the Open MPI settings for these links, appended to MCA
# (key value ...); labs/launch.sh renders them as mpirun's --mca or srun's
# OMPI_MCA_ variables. MPI traffic goes over TCP on the emulated links only.
net_mca() {
  MCA+=(btl tcp,self btl_tcp_if_include "$NET_SUBNET")
  # The emulated hosts share this machine's cores with the kernel's network
  # work (veth, bridge, TBF, TCP) and nfq_delay: a rank that polls for its
  # message takes the core from what would deliver it. Measured here, ring
  # allreduce of 64 MiB at 2 ranks, 1 Gbit/s, 2 shared cores: median
  # 1.0-1.15 s polling, 0.57 s yielding (the wire time is 0.56 s; measured
  # before the put fix below, not measured again since).
  # Socket buffers fixed at max(256 KiB, 4 x bandwidth-delay product): this
  # bounds how much data can queue ahead of Open MPI's control messages (the
  # rendezvous replies of a large send). Measured with put off (below), ring
  # allreduce of 64 MiB, 2 hosts at 1 Gbit/s, median of 5: 577 ms with these
  # buffers, 588 ms with the kernel's autotuned ones.
  MCA+=(mpi_yield_when_idle 1 btl_tcp_sndbuf "$NET_SOCKBUF" btl_tcp_rcvbuf "$NET_SOCKBUF")
  # A large message without the TCP transport's emulated RDMA put: Open MPI
  # 4.1 sends all of a large message past its first 192 KiB as one "put"
  # fragment, and two such puts crossing on a connection (both halves of a
  # ring step's MPI_Sendrecv) went one after the other. Measured here, 2
  # hosts at 1 Gbit/s, 32 MiB each way in one MPI_Isend/MPI_Irecv pair:
  # 562 ms with put (477 Mbit/s each way), 282 ms without (950 each way,
  # the same as one direction alone). Without put, ob1 pipelines the
  # message as 128 KiB send fragments. (Upstream: open-mpi/ompi#8983/#8984.)
  MCA+=(btl_tcp_flags "${DDL_NET_BTL_FLAGS:-send,inplace,need-ack,need-csum}")
  # MPI_Iallreduce (DDP's and Horovod's --alg mpi) as a ring. Open MPI 4.1's
  # non-blocking collectives (coll/libnbc) pick a binomial reduce-then-
  # broadcast whenever the call is in place or there are fewer than 4
  # ranks: one direction of each link at a time, twice the wire time.
  # Measured (bench/ddp_bar, VGG-11 width 1, 2 hosts at 1 Gbit/s, 4 rounds):
  # DDP's 37 MB of allreduces took 755 ms per step that way and 391-436 ms
  # as a ring; DDP went from slower than the flat allreduce (1053 vs 973 ms)
  # to faster (818-826 vs 966-980 ms). DDL_NET_NBC_ALLREDUCE=0 restores
  # Open MPI's own choice (1 ring, 2 binomial, 4 recursive doubling).
  MCA+=(coll_libnbc_iallreduce_algorithm "${DDL_NET_NBC_ALLREDUCE:-1}")
  # Open MPI's TCP transport moves bytes only when the program calls into
  # MPI, unless its progress thread does it: DDP's bucket allreduces,
  # started during backward, then progress while backward computes, as
  # they would on a NIC that does the work. Measured (bench/ddp_bar, VGG-11,
  # 2 hosts at 1 Gbit/s, 4 rounds, a loaded machine): DDP hid 0.59-0.63 of
  # its communication without the thread and was slower than the flat
  # control in 12 of 14 rounds; with it, 0.73-0.82 and faster in 6 of 8.
  # DDL_NET_PROGRESS_THREAD=0 turns it off. Under srun it is off: there
  # the thread raced MPI_Init (a peer's connection handled before ob1 was
  # enabled: SIGSEGV in mca_btl_tcp's event callback, 2 of 6 launches of 2
  # ranks on 2 emulated hosts; 0 of 10 without the thread).
  local progress=1
  [ "$LAUNCHER" = net-srun ] && progress=0
  MCA+=(btl_tcp_progress_thread "${DDL_NET_PROGRESS_THREAD:-$progress}")
  # DDL_NET_MCA: more settings, to try others ("btl_tcp_links 2").
  # shellcheck disable=SC2206
  [ -n "${DDL_NET_MCA:-}" ] && MCA+=(${DDL_NET_MCA//--mca /})
  return 0
}
net_check
