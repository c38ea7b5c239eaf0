#!/usr/bin/env bash
# ddl-test-pass: optimised: the grader is Python and grades with the optimised reference build (build/opt), whatever the pass
# e2e_grade_isolation.sh - what a submission's code can reach on the host
# and leave behind (bin/grade, labs/grade/README.md, "Confinement"),
# from right lab5 fp16_round code whose constructor
#   - tests/grade/isolation/unix_socket.c: sends a line to Unix sockets
#     bound in a folder of this test's by a root process (world-writable,
#     stream and datagram), every way it can; it exits 3 when none gets
#     through: it must score 0 and the listener must receive nothing;
#   - mqueue.c: makes POSIX message queues, by mq_open and as files in an
#     mqueue file system this test mounts on the host (and /dev/mqueue,
#     where there is one): none may be left on the host;
#   - many_files.c: makes 20,000 files in its work folder, named like
#     sources and objects and not: only the source and object the grader
#     made may be left there.
# @MARK@, @SOCK@ and @MQDIR@ in the sources are filled in first.
# Root only (the sandbox): not root, it says so and checks nothing.
set -u
cd "$(dirname "$0")/.."
. tests/grade/e2e_lib.sh
if [ ${#unconfined[@]} != 0 ]; then
  echo "skip - grade e2e: isolation: the sandbox needs root"; exit 0
fi
t0=$(date +%s)
mark=ddlab-isolation-$$-$RANDOM
# Outside /tmp and /dev/shm (the sandbox has private ones, which would
# hide the socket and the queues whatever the fix), and outside the
# submissions' folder (hidden from their code).
base=$(mktemp -d /var/tmp/ddlab-grade-e2e.XXXXXX)
chmod 755 "$base" && mkdir -m 755 "$base/sock" "$base/mq" "$base/subs"
listener= mounted=
cleanup() {
  [ -n "$listener" ] && kill "$listener" 2>/dev/null && wait "$listener" 2>/dev/null
  # A queue made through the mount is the host's: removed by its mark.
  [ -n "$mounted" ] && rm -f "$base/mq/$mark"* && umount "$base/mq"
  rm -rf "$tmp" "$base"
}
trap cleanup EXIT
# The listener: a stream and a datagram socket, mode 0777, whatever they
# receive appended to got; bounded in time (timeout), killed by its PID.
sock=$base/sock/s
timeout 600 python3 -c '
import os, selectors, socket, sys
path, got = sys.argv[1], sys.argv[2]
st = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); st.bind(path); st.listen(8)
dg = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); dg.bind(path + ".dgram")
for p in (path, path + ".dgram"):
    os.chmod(p, 0o777)
open(got + ".ready", "w").close()
sel = selectors.DefaultSelector()
sel.register(st, selectors.EVENT_READ); sel.register(dg, selectors.EVENT_READ)
while True:
    for key, _ in sel.select():
        if key.fileobj is st:
            c, _ = st.accept(); c.settimeout(5)
            try:
                data = c.recv(4096) or b"(connected, nothing sent)\n"
            except OSError:
                data = b"(connected, nothing sent)\n"
            c.close()
        else:
            data = dg.recv(4096)
        with open(got, "ab") as f:
            f.write(data)
' "$sock" "$base/got" &
listener=$!
for _ in $(seq 50); do [ -e "$base/got.ready" ] && break; sleep 0.1; done
check $([ -e "$base/got.ready" ] && echo 0 || echo 1) "a root process listens on world-writable Unix sockets in $base/sock"
mount -t mqueue mqueue "$base/mq" && mounted=1
check $([ -n "$mounted" ] && echo 0 || echo 1) "an mqueue file system is mounted on the host at $base/mq"

subs=()
for c in tests/grade/isolation/*.c; do
  s=$base/subs/$(basename "$c" .c)
  mkdir -p "$s/labs/lab5/exercises"
  sed -e "s|@MARK@|$mark|g" -e "s|@SOCK@|$sock|g" -e "s|@MQDIR@|$base/mq|g" "$c" > "$s/labs/lab5/exercises/fp16_round.c"
  subs+=("$s")
done
grade --labs lab5 "${subs[@]}" > "$tmp/out" 2>&1
echo "# grade e2e: isolation graded in $(( $(date +%s) - t0 )) s" >&2
log() { cat "$base/subs/$1/.grade/lab5-fp16_round/log.txt" 2>/dev/null; }

# Unix sockets
s=$base/subs/unix_socket
got=$(cat "$base/got" 2>/dev/null)
check $([ -z "$got" ] && echo 0 || echo 1) "the host's listener received nothing from the submission" "$got"
check $([ "$(passed "$s" lab5 fp16_round)" = no ] && [ "$(field "$s" lab5 fp16_round 3)" = 0 ] && echo 0 || echo 1) \
  "code that reaches a host socket or else exits scores 0 (it could not reach it)" \
  "$(passed "$s" lab5 fp16_round): $(reason "$s" lab5 fp16_round)"
n=$(log unix_socket | grep -c "^isolation: .*: Permission denied")
check $([ "$n" -ge 3 ] && ! log unix_socket | grep -q "^isolation: .*: SENT" && echo 0 || echo 1) \
  "socket(AF_UNIX) and a datagram socketpair are refused ($n ways said Permission denied)" \
  "$(log unix_socket | grep "^isolation:" | sort -u | tr '\n' ' ')"

# Message queues
left=$(ls -A "$base/mq" /dev/mqueue 2>/dev/null | grep -F -- "$mark")
check $([ -z "$left" ] && log mqueue | grep -q "^isolation: mq_open: MADE" && echo 0 || echo 1) \
  "message queues a submission makes (mq_open, files in an mqueue mount) are not left on the host" \
  "left: $left; $(log mqueue | grep "^isolation:" | sort -u | tr '\n' ' ')"
says "$base/subs/mqueue" lab5 fp16_round "passed" "right code that makes message queues keeps its marks"

# Files made in the work folder
s=$base/subs/many_files
kept=$(ls -A "$s/.grade/lab5-fp16_round/work" 2>/dev/null | tr '\n' ' ')
check $([ "$kept" = "fp16_round.c fp16_round.o " ] && log many_files | grep -q "^isolation: made 20000 files" &&
  echo 0 || echo 1) "20,000 files made by the submission's code are removed: its work folder keeps the source and object only" \
  "kept: $(echo "$kept" | cut -c1-200) ($(echo "$kept" | wc -w) entries)"
owned=$(find "$s" -newer "$s/labs" ! -user root 2>/dev/null | head -3)
check $([ -z "$owned" ] && echo 0 || echo 1) "nothing left in the submission's folder belongs to the sandbox's uid" "$owned"
says "$s" lab5 fp16_round "passed" "right code that fills its work folder keeps its marks"
echo "# grade e2e: isolation $(( $(date +%s) - t0 )) s" >&2
exit $fail
