#!/bin/sh
# labs/net/rsh.sh - Open MPI's remote agent (--mca plm_rsh_agent) for an
# emulated cluster: where mpirun would run "ssh HOST COMMAND...", this
# enters HOST's network namespace on this machine and runs COMMAND there
# with /bin/sh, as sshd would run it with the user's shell. The host ->
# namespace map is the run's "hosts" file (labs/net/cluster.sh writes it;
# DDL_NET_HOSTS names it, and mpirun passes its environment on to us).
# Options before the host (ssh-style flags such as -x) are ignored.
while [ $# -gt 0 ]; do
  case $1 in
    -*) shift ;;
    *) break ;;
  esac
done
host=${1:-}
[ -n "$host" ] || { echo "rsh.sh: no host given" >&2; exit 255; }
shift
[ -r "${DDL_NET_HOSTS:-}" ] || { echo "rsh.sh: DDL_NET_HOSTS does not name a readable host map (set by labs/net)" >&2; exit 255; }
ns=$(awk -v h="$host" '$1 == h { print $2; exit }' "$DDL_NET_HOSTS")
[ -n "$ns" ] || { echo "rsh.sh: host '$host' is not in $DDL_NET_HOSTS" >&2; exit 255; }
exec ip netns exec "$ns" /bin/sh -c "$*"
