#!/usr/bin/env bash
# ddl-test-pass: optimised: the counting is shell (labs/net/wire.sh) and Python (report/ddreport/lab4.py); lab4's C code runs under the sanitizers in e2e_lab4.sh
# e2e_lab4_wire.sh - what the seed's docker stats counted, counted on
# emulated links: `make lab4 NET=1gbit NP=2` samples both hosts' eth0
# counters once a second beside its own exact count of the averaging
# (labs/net/wire.sh), and:
#   - the counters only grow, on both hosts, over the job;
#   - every byte ddlab counts crossed the links: the hosts sent at least as
#     much as ddlab's bytes_sent, and not more than 1.5x (frames' headers
#     and MPI's control traffic, measured 1.12x on 2026-12-06);
#   - the report's lab4 section reads them and says what they show;
#   - no namespace, sampler or folder of the run is left.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "lab4 wire"
e2e_need "$BIN/lab4" "$BIN/net/nfq_delay"
if ! why=$(labs/net/cluster.sh check 2>&1); then
  echo "skip - lab4 wire: no emulated network here: $why"
  exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset HOSTS PLATFORM LAUNCH NODES SLURM_JOB_ID DRY_RUN
R=$tmp/r
NET=1gbit NP=2 BIN=$BIN NET_DELAY_BIN=$BIN RESULTS=$R FIGURES=$tmp/fig TABLES=$tmp/tab timeout 300 labs/lab4/run.sh \
  > "$tmp/run.log" 2>&1
check $? "make lab4 NET=1gbit NP=2 runs" "$(tail -3 "$tmp/run.log")"
w=$R/wire-np2.csv
grown=$(awk -F, 'NR > 1 { if ($2 in rx && ($3 < rx[$2] || $4 < tx[$2])) bad = 1; rx[$2] = $3; tx[$2] = $4; n[$2]++ }
  END { print (bad || length(n) != 2) ? "no" : "yes" }' "$w" 2>/dev/null)
check $(is "$grown" yes) "both hosts sampled, their counters only grow" "$(head -3 "$w" 2>/dev/null | tr '\n' ' ')"
sent=$(awk -F, 'NR > 1 { if (!($2 in a)) a[$2] = $4; z[$2] = $4 } END { for (h in z) s += z[h] - a[h]; printf "%.0f", s }' "$w" 2>/dev/null)
counted=$(col "$R/runs-np2.csv" bytes_sent 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }')
check $(all '[ "${counted:-0}" -gt 0 ] && awk -v w="${sent:-0}" -v c="$counted" "BEGIN { exit !(w >= c && w <= 1.5 * c) }"') \
  "the links carried ddlab's counted bytes and at most 1.5x them" "sent on the links ${sent:-?}, ddlab counted ${counted:-?}"
cause=$(python3 - "$tmp" <<'PY'
import os, sys
sys.path.insert(0, "report")
from ddreport import lab4
print(lab4.bytes_cause(os.path.join(sys.argv[1], "r")))
PY
)
check $(all 'grep -q "tested on the emulated hosts. links .*x ddlab.s count of the averaging .*cause unknown" <<<"$cause"') \
  "the report reads the counts and says what they show" "$cause"
left=$(ip netns list 2>/dev/null | grep -c "^$(sed -n 's/.*(cluster \(ddl-[0-9]*\);.*/\1/p' "$tmp/run.log" | head -1)-" || true)
check $(all '[ "$left" = 0 ] && [ ! -e "$R.tmp" ]') "nothing of the run is left" "$left namespaces"
exit $fail
