#!/usr/bin/env bash
# e2e_lab2_faults.sh - lab2 train --fault: each of the seed's plausible
# bugs runs on the ring rows only, beside a correct MPI_Allreduce, and
# does what it says. The checks lean on identities that hold to the bit:
#   - at 2 ranks, averaging with the left neighbour is the full average,
#     so "neighbour" equals the run without a fault (which also checks
#     that a replica's own update is rebuilt exactly from its weights and
#     gradient, faults.c);
#   - rank 0's replica trained alone on its shard ("unaveraged") is what
#     every replica is when all read rank 0's shard ("same-shard");
#   - at 3 ranks, neighbours differ from the full average;
#   - the rows that are not rings never change.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "lab2 faults"
e2e_need "$BIN/lab2"
e2e_mpi
run() { # np fault
  "${MPIRUN[@]}" -np "$1" "$BIN/lab2" train --synthetic --limit 600 --test-limit 200 --hidden 8,16 --algs mpi,ring,tree \
    --fault "$2" --out "$tmp/out$1" --quiet > "$tmp/$1-$2.log" 2>&1
}
csv() { # np fault
  case $2 in none) echo "$tmp/out$1/train-np$1.csv" ;; *) echo "$tmp/out$1/train-np$1-fault-$2.csv" ;; esac
}
rows() { # np fault alg: "fault,accuracy,loss,identical" per hidden width
  python3 - "$(csv "$1" "$2")" "$3" <<'PY'
import csv, sys
lines = [l for l in open(sys.argv[1]) if not l.startswith("#")]
for r in csv.DictReader(lines):
    if r["alg"] == sys.argv[2]:
        print(",".join((r["fault"], r["test_accuracy"], r["test_loss"], r["replicas_identical"])))
PY
}
for np in 2 3; do
  for f in none neighbour unaveraged no-divide same-shard; do
    run "$np" "$f"
    check $? "$np ranks, --fault $f: runs and exits 0" "$(tail -3 "$tmp/$np-$f.log")"
  done
done
check $(is "$(rows 2 neighbour ring | cut -d, -f2-)" "$(rows 2 none ring | cut -d, -f2-)") \
  "at 2 ranks the neighbour's average is the full one: the ring row equals the run without a fault" \
  "$(rows 2 neighbour ring | tr '\n' ' ') against $(rows 2 none ring | tr '\n' ' ')"
check $(all '[ "$(rows 3 neighbour ring | cut -d, -f3)" != "$(rows 3 none ring | cut -d, -f3)" ] &&
             ! rows 3 neighbour ring | grep -q ",yes$"') \
  "at 3 ranks neighbour averaging changes the ring row's loss, and its replicas differ" "$(rows 3 neighbour ring | tr '\n' ' ')"
for np in 2 3; do
  check $(is "$(rows "$np" unaveraged ring | cut -d, -f2,3)" "$(rows "$np" same-shard ring | cut -d, -f2,3)") \
    "$np ranks: rank 0's unaveraged replica is the model every rank trains on rank 0's shard" \
    "$(rows "$np" unaveraged ring | tr '\n' ' ') against $(rows "$np" same-shard ring | tr '\n' ' ')"
  check $(all '! rows '"$np"' unaveraged ring | grep -q ",yes$" && ! rows '"$np"' same-shard ring | grep -q ",no$"') \
    "$np ranks: unaveraged replicas differ, same-shard ones do not" \
    "$(rows "$np" unaveraged ring | tr '\n' ' ') / $(rows "$np" same-shard ring | tr '\n' ' ')"
done
check $(all "python3 - '$(csv 3 no-divide)' <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#')) if r['alg'] == 'ring']
sys.exit(0 if rows and all(float(r['test_loss']) > 100 or r['test_loss'] in ('nan', 'inf') for r in rows) else 1)
PY") "3 ranks: summing without the divide blows the ring's loss up" "$(rows 3 no-divide ring | tr '\n' ' ')"
for f in neighbour unaveraged no-divide same-shard; do
  for a in mpi tree; do
    check $(is "$(rows 3 "$f" "$a")" "$(rows 3 none "$a")") "3 ranks, --fault $f: the $a row trains without the fault" \
      "$(rows 3 "$f" "$a" | tr '\n' ' ')"
  done
  check $(all "grep -q '^# fault: $f: ' '$(csv 3 "$f")'") "the $f CSV says which fault its ring rows ran" \
    "$(grep '^# fault' "$(csv 3 "$f")")"
done
# At 8 ranks the sum grows 8-fold a step and the loss reaches NaN: that is
# the fault's result, recorded, not an error that stops the run.
"${MPIRUN[@]}" -np 8 "$BIN/lab2" train --synthetic --limit 4000 --test-limit 200 --hidden 8 --algs mpi,ring \
  --fault no-divide --out "$tmp/nan" --quiet > "$tmp/nan.log" 2>&1
rc=$?
check $(all "[ $rc = 0 ] && python3 - '$tmp/nan/train-np8-fault-no-divide.csv' <<'PY'
import csv, math, sys
rows = {r['alg']: r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#'))}
sys.exit(0 if math.isnan(float(rows['ring']['test_loss'])) and math.isfinite(float(rows['mpi']['test_loss'])) else 1)
PY") "8 ranks: without the divide the ring's loss reaches NaN, which the run records and goes on (MPI's stays finite)" \
  "rc=$rc: $(grep -v '^#' "$tmp/nan/train-np8-fault-no-divide.csv" 2>/dev/null | cut -d, -f1,11,12 | tr '\n' ' ') $(tail -2 "$tmp/nan.log")"
"${MPIRUN[@]}" -np 2 "$BIN/lab2" train --synthetic --limit 60 --fault bogus --out "$tmp/bad" > "$tmp/bad.log" 2>&1
rc=$?
check $(all '[ $rc = 2 ] && grep -q "no such fault (none, neighbour, no-divide, same-shard, unaveraged)" "$tmp/bad.log"') \
  "an unknown fault is refused, naming those there are" "rc=$rc: $(tail -2 "$tmp/bad.log")"
exit $fail
