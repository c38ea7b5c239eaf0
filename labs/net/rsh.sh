#!/bin/sh
# labs/net/rsh.sh - Open MPI's remote agent (--mca plm_rsh_agent) for an
# emulated cluster: where mpirun would run "ssh HOST COMMAND...", this
# enters HOST's network namespace on this machine and runs COMMAND there
# with /bin/sh, as sshd would run it with the user's shell. The host ->
# namespace map is the run's "hosts" file (labs/net/cluster.sh writes it;
# DDL_NET_HOSTS names it, and mpirun passes its environment on to us).
# Options before the host (ssh-style flags such as -x) are ignored.
#
# Each host gets its own Open MPI session directory (orte_tmpdir_base, a
# folder of the run's state that cluster.sh removes with it), as each node
# of a real cluster has its own /tmp: the emulated hosts share this
# machine's /tmp and host name, so their daemons made the same
# /tmp/ompi.<host>.<uid>/jf.<job> and raced for it ("A call to mkdir was
# unable to create the desired directory ... File exists", orte_init
# failed): 32 of 100 launches of 3 hosts failed that way with both cores
# busy, 1 of 12 in a make test run.
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
OMPI_MCA_orte_tmpdir_base=$(dirname "$DDL_NET_HOSTS")/tmp-$ns
mkdir -p "$OMPI_MCA_orte_tmpdir_base" || exit 255
# The ranks of this host name it (the emulated hosts share this machine's
# host name): core/platform/placement.c, the outputs' host count.
DDL_NET_HOST=$host
export OMPI_MCA_orte_tmpdir_base DDL_NET_HOST
exec ip netns exec "$ns" /bin/sh -c "$*"
