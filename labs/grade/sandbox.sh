#!/bin/bash
# sandbox.sh - the inside of the grader's sandbox (labs/grade/sandbox.py;
# labs/grade/README.md, "Confinement"). sandbox.py starts it as root, as
# the first process (PID 1) of new PID, mount, network, IPC and UTS
# namespaces:
#   unshare --pid --fork --kill-child --mount-proc --net --mount --ipc --uts -- \
#     sandbox.sh --work DIR --uid N [--ro] [--show DIR]... [--hide DIR]... [--home-cwd] [--status-fd N]
#       [--python PATH] -- command...
# In this mount namespace (the host's mounts stay as they are) it makes
# every mount read-only, mounts empty private tmpfs on /tmp and /dev/shm
# and this IPC namespace's own message queues over every mqueue mount,
# shows the work folder read-write (--ro: read-only) as /tmp/work, shows
# each --show folder (the build) read-only where it was when those tmpfs
# hid it (a checkout under /tmp or /dev/shm), hides
# the --hide folders under empty tmpfs, brings up the namespace's own
# loopback (MPI's processes talk over it; there is no other interface),
# and runs the command in /tmp/work (--home-cwd: /tmp/home, the
# command's HOME) as uid N with no capabilities and no way to gain any,
# through nosock.py (run by --python, default /usr/bin/python3): a seccomp filter
# that keeps it off the host's Unix sockets.
# When the command ends, this script ends, and the kernel kills whatever
# the command left in the namespace (a daemon, a fork bomb).
# Exit status: the command's (128 + N: killed by signal N); 125 with a
# "grade-sandbox:" line on --status-fd (closed before the command starts,
# so only this script writes there; default stderr) when the sandbox
# itself could not be set up.
set -u
status=2
fail() { echo "grade-sandbox: $*" >&"$status"; exit 125; }

nosock=$(realpath "$(dirname "${BASH_SOURCE[0]}")/nosock.py")  # before any cd
# Opened now: a checkout under /tmp or /dev/shm is hidden by the private
# tmpfs below, so nosock.py is copied from this descriptor into the
# sandbox's own /tmp (root's, read-only to the command).
exec {nosock_fd}<"$nosock" || { echo "grade-sandbox: cannot read $nosock" >&2; exit 125; }
work= uid= mode=rw cwd=/tmp/work python=/usr/bin/python3
[ -x "$python" ] || python=python3
hide=() show=()
while [ $# -gt 0 ]; do
  case $1 in
    --work) work=$2; shift 2 ;;
    --uid) uid=$2; shift 2 ;;
    --ro) mode=ro; shift ;;
    --hide) hide+=("$2"); shift 2 ;;
    --show) show+=("$2"); shift 2 ;;
    --home-cwd) cwd=/tmp/home; shift ;;
    --status-fd) [[ $2 =~ ^[0-9]+$ ]] && status=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --) shift; break ;;
    *) fail "unknown option '$1'" ;;
  esac
done
[ -d "$work" ] && [[ $uid =~ ^[0-9]+$ ]] && [ $# -gt 0 ] || fail "usage: sandbox.sh --work DIR --uid N [--ro] [--hide DIR]... -- command"
[ "$$" = 1 ] || fail "not the first process of a PID namespace (start it with unshare --pid --fork)"
# The status descriptor moves to 19, out of the way of the descriptors
# this script opens below (3-9): the grader's number for it may be one.
if [ "$status" != 2 ]; then
  eval "exec 19>&$status $status>&-" || fail "cannot use descriptor $status"
  status=19
fi

mount --make-rprivate / || fail "cannot make the mounts private"
exec 3<"$work" || fail "cannot open $work"
# The --show folders, held open on descriptors 4-9 (and their identity
# noted) before the tmpfs below can hide them. They and the work folder
# are bound from /proc/self/fd/N with mount --no-canonicalize: libmount
# would otherwise resolve that link to the path it names, which the tmpfs
# covers by then (an empty folder of the same name was bound instead).
show_fd=() show_id=()
[ ${#show[@]} -le 6 ] || fail "at most 6 --show folders"
for s in ${show[@]+"${show[@]}"}; do
  case $s in /tmp/work | /tmp/work/* | /tmp/home | /tmp/home/*)
    fail "$s is where the sandbox puts its own work folder: keep the repository elsewhere" ;;
  esac
  fd=$(( 4 + ${#show_fd[@]} ))
  eval "exec $fd<\"\$s\"" || fail "cannot open $s"
  show_fd+=("$fd") show_id+=("$(stat -L -c %d:%i "/proc/self/fd/$fd")")
  [ -n "${show_id[-1]}" ] || fail "cannot see $s"
done
# Every file system read-only. The kernel's own (/proc, /sys, /dev, cgroup,
# namespace handles...) stay as they are: only root can change anything
# there, and some cannot be remounted. /proc/self/mountinfo escapes blanks
# in paths as \040; its fields: id parent dev root point options ... - type.
set -f
mapfile -t mounts < /proc/self/mountinfo  # read whole first: the loop adds mounts
for line in "${mounts[@]}"; do
  fields=(${line%% - *}) post=${line#* - }
  point=${fields[4]} opts=${fields[5]} type=${post%% *}
  case $point in *\\*) point=$(printf '%b' "$point") ;; esac
  # A message-queue file system shows the queues of the IPC namespace
  # that mounted it: the host's, whose queues a file made there (or
  # mq_open through it) would create, to outlive the run. This IPC
  # namespace's own queues are mounted over it, gone with the run.
  if [ "$type" = mqueue ]; then
    mount -t mqueue -o nosuid,nodev,noexec mqueue "$point" || fail "cannot mount a private mqueue on $point"
    continue
  fi
  case ",$opts," in *,ro,*) continue ;; esac
  case $type in
    proc | sysfs | cgroup | cgroup2 | devpts | devtmpfs | nsfs | bpf | tracefs | debugfs | securityfs | \
      pstore | configfs | fusectl | binfmt_misc | autofs | efivarfs | hugetlbfs) continue ;;
  esac
  mount -o remount,bind,ro "$point" 2>/dev/null || fail "cannot make $point read-only"
done
set +f
mount -t tmpfs -o size=512m,mode=1777,nosuid,nodev tmpfs /tmp || fail "cannot mount a private /tmp"
mount -t tmpfs -o size=512m,mode=1777,nosuid,nodev tmpfs /dev/shm || fail "cannot mount a private /dev/shm"
mkdir -m 755 /tmp/work /tmp/home && chown "$uid:$uid" /tmp/home || fail "cannot make /tmp/work and /tmp/home"
cat <&"$nosock_fd" > /tmp/.grade-nosock.py && chmod 444 /tmp/.grade-nosock.py || fail "cannot copy nosock.py into the sandbox"
exec {nosock_fd}<&-
nosock=/tmp/.grade-nosock.py
mount --no-canonicalize --bind /proc/self/fd/3 /tmp/work && mount -o "remount,bind,$mode,nosuid,nodev" /tmp/work ||
  fail "cannot mount $work on /tmp/work"
exec 3<&-
for i in ${show[@]+"${!show[@]}"}; do
  s=${show[$i]} fd=${show_fd[$i]}
  if [ "$(stat -L -c %d:%i "$s" 2>/dev/null)" != "${show_id[$i]}" ]; then
    mkdir -p "$s" && mount --no-canonicalize --bind "/proc/self/fd/$fd" "$s" && mount -o remount,bind,ro,nosuid,nodev "$s" ||
      fail "cannot show $s read-only in the sandbox"
  fi
  eval "exec $fd<&-"
done
for h in ${hide[@]+"${hide[@]}"}; do
  [ -d "$h" ] || continue
  mount -t tmpfs -o ro,size=4k,mode=755 tmpfs "$h" || fail "cannot hide $h"
done
ip link set lo up 2>/dev/null || echo "grade-sandbox: note: no loopback in the sandbox (iproute2 missing?)" >&2
cd "$cwd" || fail "cannot enter $cwd"
# The command cannot write where the sandbox's own failures go: nosock.py,
# the last of the sandbox's own steps, closes that descriptor before it
# execs the command (and writes there if its filter cannot be installed).
setpriv --reuid="$uid" --regid="$uid" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- \
  "$python" -I -S "$nosock" --status-fd "$status" -- "$@" &
wait $!
