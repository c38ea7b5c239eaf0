#!/usr/bin/env bash
# ddl-test-pass: optimised: shell logic with stand-in labs; no C runs
# e2e_figures_platform.sh - `make figures`' choice of a platform beside the
# native runs (figures/platforms.sh) and its progress lines
# (figures/progress.sh), on a copy of figures/ in a temporary tree where a
# stand-in `make` (MAKE=) writes a result file per call, or fails on
# demand, and labs/net/cluster.sh's check says yes or no. Nothing is run,
# no namespace is made: what is checked is which runs make_figures asks
# for, what it records in results/labN/platform.txt, that a failed platform
# run fails nothing and keeps the native results, and the progress lines
# (plain, and in place on a terminal through script(1)). A second or so;
# prints ok / not ok lines.
set -u
cd "$(dirname "$0")/.." || exit 1
SRC=$PWD
# The runs' settings make_figures passes on when set (CI sets DDL_DATA):
# the checks below read the calls as a plain `make figures` makes them.
unset NP DEVICE PROFILE SEED DDL_DATA
source tests/e2e_lib.sh
e2e_begin "figures platform"

# tree NAME CHECK: a tree with figures/, labs 1-6 (stand-in run.sh and
# figures.sh), labs/net/cluster.sh whose check exits CHECK, bin/net/nfq_delay.
tree() {
  local t=$tmp/$1 n
  mkdir -p "$t/figures" "$t/labs/net" "$t/bin/net"
  cp "$SRC"/figures/make_figures.sh "$SRC"/figures/platforms.sh "$SRC"/figures/progress.sh "$t/figures/"
  for n in 1 2 3 4 5 6; do
    mkdir -p "$t/labs/lab$n"
    echo '# stand-in' > "$t/labs/lab$n/run.sh"
    printf '#!/usr/bin/env bash\nmkdir -p figures && : > "figures/%s-x.png"\n' "lab$n" > "$t/labs/lab$n/figures.sh"
  done
  if [ "$2" = 0 ]; then
    printf '#!/usr/bin/env bash\nexit 0\n' > "$t/labs/net/cluster.sh"
  else
    printf '#!/usr/bin/env bash\necho "emulated networks need root (network namespaces, tc): run ..., or run the lab without NET= (x)"\nexit 1\n' \
      > "$t/labs/net/cluster.sh"
  fi
  printf '#!/bin/sh\nexit 0\n' > "$t/bin/net/nfq_delay"
  chmod +x "$t/labs/net/cluster.sh" "$t/bin/net/nfq_delay"
  # The stand-in make: labN [VAR=value ...] -> results/labN[/net-X|/sim-X]/run.csv
  # and a line in calls.txt; FAKE_FAIL=labN:variant fails that run,
  # FAKE_HANG=labN:variant makes it hang (30 s).
  cat > "$t/fake-make" <<'EOF'
#!/usr/bin/env bash
lab= dir= var=native
for a in "$@"; do
  case $a in lab[1-6]) lab=$a ;; NET=*) var=net-${a#NET=} ;; PLATFORM=*) var=sim-${a#PLATFORM=} ;; esac
done
echo "$lab $var $* env:${LAB2_ONLY:-}${LAB3_ONLY:-}${LAB6_STYLES:-}" >> calls.txt
[ "${FAKE_FAIL:-}" = "$lab:$var" ] && { echo "stand-in: $lab $var dies"; exit 3; }
[ "${FAKE_HANG:-}" = "$lab:$var" ] && exec sleep 30
dir=results/$lab; [ "$var" = native ] || dir=$dir/$var
mkdir -p "$dir" && echo "x" > "$dir/run.csv" && echo "stand-in: $lab $var ran"
EOF
  chmod +x "$t/fake-make"
  echo "$t"
}
# A PATH without SimGrid: every command of /usr/bin and /bin but smpirun and smpicc.
nosim=$tmp/nosim-bin
mkdir -p "$nosim"
for f in /usr/local/bin/* /usr/bin/* /bin/*; do
  b=${f##*/}
  case $b in smpirun|smpicc) continue ;; esac
  [ -e "$nosim/$b" ] || ln -s "$f" "$nosim/$b"
done

# 1. No network, no SimGrid: labs run natively, the verdict's record says
#    "not available" with the command, nothing fails.
t=$(tree none 1)
out=$(cd "$t" && PATH=$nosim MAKE=./fake-make FIGURES_PROGRESS=plain bash figures/make_figures.sh 2>&1); rc=$?
check "$rc" "no network, no SimGrid: make figures succeeds" "$out"
[ "$(grep -c ' native ' "$t/calls.txt")" = 6 ] && ! grep -q 'net-\|sim-' "$t/calls.txt"
check $? "no network, no SimGrid: the six labs natively, no other run" "$(cat "$t/calls.txt")"
grep -q '^status: not available$' "$t/results/lab3/platform.txt" &&
  grep -q '^command: sudo LAB3_ONLY=table1 LAB3_STEPS=12 make lab3 NET=1gbit NP=2 (or .*PLATFORM=cluster4' "$t/results/lab3/platform.txt" &&
  grep -q '^why: .*need root.*SimGrid is not installed' "$t/results/lab3/platform.txt"
check $? "no network, no SimGrid: lab3's record: not available, why, the command" "$(cat "$t/results/lab3/platform.txt")"
[ ! -e "$t/results/lab1/platform.txt" ] && [ ! -e "$t/results/lab4/platform.txt" ] && [ -e "$t/results/lab6/platform.txt" ]
check $? "records for labs 2, 3 and 6 only"
grep -q 'lab6: not shown here' <<<"$out"
check $? "no network, no SimGrid: the summary says not shown here" "$out"
grep -q '^== \[1/6\] lab1 native: .* left in all: make lab1' <<<"$out" && grep -q '^== \[6/6\] lab6 native: done in' <<<"$out"
check $? "plain progress: one start and one end line per run, [k/N]" "$out"

# 2. An emulated network: labs 3, 4 and 6 also on it, beside the native
#    results (lab4's 2 workers for its links' byte counts); lab2 at the
#    seed's scale, its 80 processes simulated on wits80, where SimGrid is
#    (on the emulated link where it is not).
t=$(tree net 0)
out=$(cd "$t" && MAKE=./fake-make FIGURES_PROGRESS=plain FIGURES_PLATFORM=auto bash figures/make_figures.sh 2>&1); rc=$?
check "$rc" "network: make figures succeeds" "$out"
grep -q '^lab3 net-1gbit .*lab3 NET=1gbit NP=2 env:table1$' "$t/calls.txt" &&
  grep -q '^lab4 net-1gbit .*lab4 NET=1gbit NP=2 env:$' "$t/calls.txt" &&
  grep -q '^lab6 net-1gbit .*NET=1gbit HOSTS=2 NP= env:horovod$' "$t/calls.txt" && [ "$(grep -c net-1gbit "$t/calls.txt")" = 3 ]
check $? "network: labs 3, 4 and 6 on the emulated link, with their small settings" "$(cat "$t/calls.txt")"
lab2_var=net-1gbit
if command -v smpirun >/dev/null && command -v smpicc >/dev/null; then
  lab2_var=sim-wits80
  grep -q '^lab2 sim-wits80 .*lab2 PLATFORM=wits80 env:bench$' "$t/calls.txt" &&
    grep -q '^platform: sim (sim-wits80)$' "$t/results/lab2/platform.txt"
  check $? "network and SimGrid: lab2 at the seed's 80 processes, simulated on wits80" "$(cat "$t/calls.txt")"
fi
t2=$(tree net-nosim 0)
(cd "$t2" && PATH=$nosim MAKE=./fake-make FIGURES_PROGRESS=plain bash figures/make_figures.sh > /dev/null 2>&1)
grep -q '^lab2 net-1gbit .*NET=1gbit NP=4 HOSTS=4 env:bench$' "$t2/calls.txt" && ! grep -q 'sim-' "$t2/calls.txt"
check $? "network without SimGrid: lab2 on 4 emulated hosts" "$(cat "$t2/calls.txt")"
[ -f "$t/results/lab3/run.csv" ] && [ -f "$t/results/lab3/net-1gbit/run.csv" ] && grep -q '^status: ran$' "$t/results/lab3/platform.txt"
check $? "network: results beside the native ones, recorded as ran"
grep -q '^== \[4/10\] lab3 native' <<<"$out" && grep -q '^== \[5/10\] lab3 net-1gbit: done' <<<"$out"
check $? "network: the platform runs are counted in the progress" "$(grep '^==' <<<"$out")"
# Again: everything has results, nothing runs; the records say so.
: > "$t/calls.txt"
(cd "$t" && MAKE=./fake-make FIGURES_PROGRESS=plain bash figures/make_figures.sh > /dev/null 2>&1)
[ ! -s "$t/calls.txt" ] && grep -q '^status: had results$' "$t/results/lab6/platform.txt"
check $? "network, results there: nothing runs again"

# 3. The emulated run dies: said, the native results and the other labs stay, exit 0.
t=$(tree fails 0)
out=$(cd "$t" && MAKE=./fake-make FIGURES_PROGRESS=plain FAKE_FAIL=lab3:net-1gbit bash figures/make_figures.sh 2>&1); rc=$?
check "$rc" "a dying emulated run fails nothing" "$out"
grep -q '^status: failed$' "$t/results/lab3/platform.txt" && grep -q "^why: .*exited with status 3; the native results stand" "$t/results/lab3/platform.txt" &&
  [ -f "$t/results/lab3/run.csv" ] && [ ! -e "$t/results/lab3/net-1gbit" ] && [ -f "$t/results/lab6/net-1gbit/run.csv" ]
check $? "a dying emulated run: recorded failed, native kept, the next lab still runs" "$(cat "$t/results/lab3/platform.txt")"
grep -q 'lab3 net-1gbit: FAILED (status 3' <<<"$out"
check $? "a dying emulated run: the summary says so" "$out"
# A platform run that hangs is stopped at FIGURES_PLATFORM_TIMEOUT (status 124), and recorded.
t=$(tree hangs 0)
(cd "$t" && MAKE=./fake-make FIGURES_PROGRESS=plain FAKE_HANG=lab2:$lab2_var FIGURES_PLATFORM_TIMEOUT=1 \
   bash figures/make_figures.sh > /dev/null 2>&1); rc=$?
[ "$rc" = 0 ] && grep -q "^why: .*exited with status 124" "$t/results/lab2/platform.txt" && [ -f "$t/results/lab3/net-1gbit/run.csv" ]
check $? "a hanging platform run is stopped at FIGURES_PLATFORM_TIMEOUT, recorded, the others run" "$rc $(cat "$t/results/lab2/platform.txt")"
# A native run that fails still fails make figures.
t=$(tree native 0)
(cd "$t" && MAKE=./fake-make FIGURES_PROGRESS=plain FAKE_FAIL=lab4:native bash figures/make_figures.sh > /dev/null 2>&1)
check $(( $? == 1 ? 0 : 1 )) "a failed native run still fails make figures (status 1)"

# 4. Forced kinds and bad input.
t=$(tree forced 0)
(cd "$t" && MAKE=./fake-make FIGURES_PROGRESS=plain FIGURES_PLATFORM=sim bash figures/make_figures.sh > /dev/null 2>&1)
if command -v smpirun >/dev/null && command -v smpicc >/dev/null; then
  grep -q '^lab3 sim-cluster4 .*PLATFORM=cluster4 NP=4 env:table1$' "$t/calls.txt" && grep -q '^lab6 sim-cluster4 .*PLATFORM=cluster4 NP= env:horovod$' "$t/calls.txt" &&
    ! grep -q '^lab4 \(net\|sim\)-' "$t/calls.txt"
  check $? "FIGURES_PLATFORM=sim: labs 3 and 6 on SimGrid's cluster4, lab4 (links to count) nowhere" "$(cat "$t/calls.txt")"
else
  echo "skip - figures platform: FIGURES_PLATFORM=sim: SimGrid not installed"
fi
out=$(cd "$t" && FIGURES_PLATFORM=wifi bash figures/make_figures.sh 2>&1); rc=$?
[ "$rc" = 2 ] && grep -q "FIGURES_PLATFORM='wifi': auto, net, sim or none" <<<"$out"
check $? "FIGURES_PLATFORM=wifi refused (status 2, the choices)" "$rc $out"
out=$(cd "$t" && FIGURES_PROGRESS=fancy bash figures/make_figures.sh 2>&1); rc=$?
[ "$rc" = 2 ] && grep -q "FIGURES_PROGRESS='fancy': plain or tty" <<<"$out"
check $? "FIGURES_PROGRESS=fancy refused (status 2, the choices)" "$rc $out"

# 5. On a terminal: one line per run, redrawn in place; the run's output in its log.
t=$(tree tty 1)
if command -v script >/dev/null 2>&1; then
  (cd "$t" && PATH=$nosim MAKE=./fake-make FIGURES_PLATFORM=none script -qec "bash figures/make_figures.sh" /dev/null > tty.out 2>&1)
  grep -q $'\r\033\[K\[3/6\] lab3 native: done in' "$t/tty.out" && grep -q 'stand-in: lab3 native ran' "$t/results/logs/lab3-native.log" &&
    ! grep -q '^== \[\|stand-in' "$t/tty.out" && grep -Eq '^lab3 native [0-9]+$' "$t/results/logs/times.txt"
  check $? "terminal: lines redrawn in place, logs per run, times kept" "$(tr '\r' '|' < "$t/tty.out" | head -5)"
else
  echo "skip - figures platform: terminal: script(1) not installed"
fi
exit $fail
