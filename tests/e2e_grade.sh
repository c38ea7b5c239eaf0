#!/usr/bin/env bash
# ddl-test-pass: optimised: the grader is Python and grades with the optimised reference build (build/opt), whatever the pass
# e2e_grade.sh - make grade / bin/grade on made-up submissions:
#   - the reference implementations (and committed result fixtures,
#     tests/grade/results/) copied as a submission: full marks, exit 0;
#   - the skeletons (labs/labN/exercises/*.c): zero on every code item,
#     each failing loudly ("exercise X not implemented");
#   - tests/grade/broken/*.c and *.sed (a sed script over the item's
#     reference file: the bug alone), each with its lab's other reference files:
#     each loses its own item ("grade-broken: lab/item" in its first line)
#     and nothing else; garbage output, a misnamed function, a hang (per
#     test timeout) and a compile error fail their item, not the grader;
#   - tampered results (a byte count, a speedup, a metadata line) are
#     flagged by exactly the check that should catch them;
#   - every reference file a rubric names defines exactly the functions
#     its skeleton defines (what makes linking the student's object before
#     libddl.a sound), and make IMPL=student links the skeletons into
#     bin/student/lab2, lab5 and lab6.
# Attacks on the grader: tests/e2e_grade_hostile.sh.
# Submissions are graded in batches (one bin/grade call each) to pay the
# make and start-up costs once; items build separately by design.
# Quick tier (make test): one check of every kind, three repetitions
# left out. Code items are graded by a sample of their test runs
# (tests/grade/e2e_lib.sh says which and why). The skeletons are graded
# for lab5 and lab6 (their loud failure through the grader is the same
# for every item; the others would cost an MPI start each), and every
# reference file is compared with its skeleton's object from
# make IMPL=student (the object that build links first). The broken
# variants leave out gather_scatter_weights_only (a second mpi_sync run
# of a minute at load), ps_step_wrong_count (a second wrong ps_step) and
# fedavg_by_user_count (a second lab5 variant with its companion item):
# a wrong result caught by the replay, and a companion item that still
# passes, are shown by the others. The partial submission holds lab5's
# fp16_round, not lab3's buckets (the same check, without a run of
# test_buckets), and make IMPL=student runs lab2 only (lab5 and lab6 are
# the same Makefile rule with other files).
set -u
cd "$(dirname "$0")/.."
. tests/grade/e2e_lib.sh
t0=$(date +%s)
[ $quick = 1 ] && echo "# quick tier: code items at every rank count and by mpi_ps; the skeletons of lab2-lab4 graded; broken gather_scatter_weights_only, ps_step_wrong_count, fedavg_by_user_count; a partial lab3 submission; make IMPL=student for lab5, lab6 (make test-full runs it)"

# Rubric items: lab item file replaces (code items only).
code_items() { for r in labs/lab*/exercises/rubric.txt; do
  awk -v lab="$(basename "$(dirname "$(dirname "$r")")")" '!/^#/ && $3 == "code" {print lab, $1, $4, $5}' "$r"; done; }

# ---- reference, skeleton ----------------------------------------------------
ref=$tmp/reference skel=$tmp/skeleton
while read -r lab item file replaces; do
  mkdir -p "$ref/labs/$lab/exercises" "$skel/labs/$lab/exercises"
  cp "$replaces" "$ref/labs/$lab/exercises/$file"
  [ $quick = 1 ] && [ "$lab" != lab5 ] && [ "$lab" != lab6 ] && continue
  cp "labs/$lab/exercises/$file" "$skel/labs/$lab/exercises/$file"
done < <(code_items)
mkdir -p "$ref/results" && cp -r tests/grade/results/. "$ref/results/"
grade "$ref" > "$tmp/ref.out" 2>&1
check $? "reference: exit status 0 (everything graded)" "$(tail -3 "$tmp/ref.out")"
echo "# grade e2e: reference graded at $(( $(date +%s) - t0 )) s" >&2
total=$(awk -F, 'NR > 1 {p += $3; m += $4} END {print p "/" m}' "$ref/grade-report.csv")
bad=$(awk -F, 'NR > 1 && $5 != "yes" {print $1 "/" $2 ": " $6}' "$ref/grade-report.csv")
check $([ -z "$bad" ] && [ -n "$total" ] && echo 0 || echo 1) "reference as a submission: full marks ($total)" "$bad"
grade "$skel" > "$tmp/rs.out" 2>&1
echo "# grade e2e: skeletons graded at $(( $(date +%s) - t0 )) s" >&2
# the soundness of linking the student's object first (see Makefile IMPL)
skel_nm_check() {
  want=$(nm -g --defined-only "build/opt/${replaces%.c}.o" | awk '{print $3}' | sort | tr '\n' ' ')
  got=$(nm -g --defined-only "$skel_obj" 2>/dev/null | awk '{print $3}' | sort | tr '\n' ' ')
  check $([ -n "$want" ] && [ "$want" = "$got" ] && echo 0 || echo 1) \
    "$replaces defines exactly what its skeleton does ($want)" "skeleton: $got"
}
# Quick tier: the skeletons' objects as make IMPL=student compiles them.
if [ $quick = 1 ]; then
  objs=$(code_items | awk '{print "build/opt/student/labs/" $1 "/exercises/" substr($3, 1, length($3) - 2) ".o"}')
  make -s --no-print-directory IMPL=student $objs > "$tmp/student-objs.out" 2>&1 ||
    check 1 "make IMPL=student compiles the skeletons" "$(tail -3 "$tmp/student-objs.out")"
fi
while read -r lab item file replaces; do
  if [ $quick = 1 ]; then skel_obj=build/opt/student/labs/$lab/exercises/${file%.c}.o
  else skel_obj=$skel/.grade/$lab-$item/work/$item.o; fi
  [ -f "$skel/labs/$lab/exercises/$file" ] || { skel_nm_check; continue; }
  p=$(passed "$skel" "$lab" "$item")
  r=$(reason "$skel" "$lab" "$item")
  check $([ "$p" = no ] && [ "$(field "$skel" "$lab" "$item" 3)" = 0 ] && [[ $r == *"exercise $item not implemented"* ]] && echo 0 || echo 1) \
    "skeleton $lab/$item scores 0, failing loudly" "$p: $r"
  skel_nm_check
done < <(code_items)
sk=$(grep "$skel: " "$tmp/rs.out")
check $([[ $sk == *"incomplete"* ]] && echo 0 || echo 1) "skeleton without results: reported incomplete (exit 1)" "$sk"

# ---- broken variants ---------------------------------------------------------
# Each variant replaces its item's file. Those of lab5 come with their
# lab's other reference file and must lose their own item only (items
# build separately: a broken fp16_round cannot cost fedavg_aggregate); the
# others come alone, as the companions of lab2 and lab3 (recdoubling at 7
# rank counts, mpi_sync) would cost minutes of record and replay runs to
# show the same. The robustness variants ("(alone)" in their first line: garbage output,
# a misnamed function, a hang, a compile error) are graded on their own,
# with an 8 s cap per test run so the hang costs one short timeout (the
# reference's runs of those tests take about a second).
subs=() alone=()
quick_left="gather_scatter_weights_only ps_step_wrong_count fedavg_by_user_count"
for b in tests/grade/broken/*.c tests/grade/broken/*.sed; do
  name=$(basename "${b%.*}")
  [ $quick = 1 ] && [[ " $quick_left " == *" $name "* ]] && continue
  key=$(sed -n '1s,^\(/\*\|#\) grade-broken: \([a-z0-9]*/[a-z0-9_]*\).*,\2,p' "$b")
  lab=${key%/*} item=${key#*/}
  read -r file replaces < <(awk -v i="$item" '$1 == i {print $4, $5}' "labs/$lab/exercises/rubric.txt")
  [ -n "$file" ] || { check 1 "$b names a rubric item" "'$key'"; continue; }
  s=$tmp/broken-$name
  mkdir -p "$s/labs/$lab/exercises"
  if head -1 "$b" | grep -q "(alone)"; then alone+=("$s")
  else subs+=("$s"); [ "$lab" = lab5 ] && cp "$ref/labs/$lab/exercises/"* "$s/labs/$lab/exercises/"; fi
  if [[ $b == *.sed ]]; then
    sed -f "$b" "$replaces" > "$s/labs/$lab/exercises/$file"
    cmp -s "$replaces" "$s/labs/$lab/exercises/$file" && check 1 "$b changes $replaces" "sed left it as it was"
  else cp "$b" "$s/labs/$lab/exercises/$file"; fi
  echo "$lab $item" > "$s.key"
done
grade "${subs[@]}" > "$tmp/broken.out" 2>&1
GRADE_TIMEOUT=8 grade "${alone[@]}" > "$tmp/alone.out" 2>&1
echo "# grade e2e: broken variants graded at $(( $(date +%s) - t0 )) s" >&2
for s in "${subs[@]}" "${alone[@]}"; do
  read -r lab item < "$s.key"
  name=$(basename "$s")
  p=$(passed "$s" "$lab" "$item")
  others=$(awk -F, -v l="$lab" -v i="$item" 'NR > 1 && $1 == l && $2 != i && $5 == "no" {print $2}' "$s/grade-report.csv" | tr '\n' ' ')
  check $([ "$p" = no ] && [ -z "$others" ] && echo 0 || echo 1) \
    "$name loses $lab/$item only: $(reason "$s" "$lab" "$item" | cut -c1-110)" "$p; also lost: $others"
done
for pair in fp16_truncate:fedavg_aggregate fedavg_by_user_count:fp16_round; do
  [ $quick = 1 ] && [[ " $quick_left " == *" ${pair%:*} "* ]] && continue
  p=$(passed "$tmp/broken-${pair%:*}" lab5 "${pair#*:}")
  check $([ "$p" = yes ] && echo 0 || echo 1) "broken-${pair%:*}: its lab's other item, lab5/${pair#*:}, still passes" "$p: $(reason "$tmp/broken-${pair%:*}" lab5 "${pair#*:}")"
done
says "$tmp/broken-recdoubling_hang" lab2 recdoubling "timed out after 8 s" \
  "a hang is ended by the per-test timeout"
says "$tmp/broken-ring_garbage" lab2 ring "cannot be replayed" \
  "100,000 fake ok lines and exit 0 do not pass (the replay finds no results)"
says "$tmp/broken-ring_misnamed" lab2 ring "does not define build_ring" \
  "a missing function is not taken from the reference"
says "$tmp/broken-recdoubling_syntax" lab2 recdoubling "does not compile" \
  "a compile error fails the item"

# ---- tampered results ----------------------------------------------------------
tamper() { # name lab item sed-expression file
  local s=$tmp/tampered-$1
  mkdir -p "$s/results" && cp -r tests/grade/results/. "$s/results/"
  sed -i "$4" "$s/results/$2/$5"
  echo "$2 $3" > "$s.key"
  tsubs+=("$s")
}
tsubs=()
# ring at 1 MiB, 4 ranks: 1572864 bytes sent per rank -> 1472864
tamper bytes lab2 bytes 's/^\(ring,1048576,[^,]*,[^,]*,4,.*\),1572864,/\1,1472864,/' bench-np4.csv
tamper busbw lab2 bandwidth 's/^\(ring,4096,1024,fp32,4,[^,]*,[^,]*,[^,]*,[^,]*,0\.2141\),0\.3212,/\1,0.4212,/' bench-np4.csv
tamper accuracy lab2 accuracy 's/^\(mpi,16,102714,410856,4,1,469,[^,]*,[^,]*,[^,]*\),0\.9479,/\1,0.4479,/' train-np4.csv
tamper speedup lab3 speedup 's/^\(2a,.*\),1\.10,yes$/\1,1.90,yes/' table1.csv
tamper timings lab3 timings 's/^\(task2a,.*,231\.392,0\.2314,231\.295\),231\.494,/\1,230.494,/' task2a-summary.csv
tamper metadata lab4 metadata '/^# seed:/d' iters-np3.csv
tamper lab4bytes lab4 bytes 's/^\(group,3,1,k=1,4,52\),13808704,/\1,13808804,/' iters-np3.csv
# lab1, MLP: 64 images in 0.239 ms = 267325.8 images/s -> 167325.8
tamper lab1ips lab1 timings 's/,0\.239,\([0-9.]*\),267325\.8,/,0.239,\1,167325.8,/' mlp-mnist-summary.csv
# lab5, D-SGD FP32 (176402 parameters): counted bytes per round 705608 -> 705600
tamper lab5bytes lab5 bytes 's/,705608,705608,2822432,/,705608,705600,2822432,/' summary-D_SGD_BS32_FP32.csv
# lab5: 8 D-SGD rounds in 2 epochs of 128 / 32 -> 6 (payload totals left alone)
tamper lab5rounds lab5 bytes 's/^\(D_SGD_BS32_FP16,dsgd,fp16,2,32,16,0,iid,176402,128,2\),8,/\1,6,/' summary-D_SGD_BS32_FP16.csv
tamper lab5accuracy lab5 accuracy 's/,yes,0\.1406,0\.1562,/,yes,1.1406,0.1562,/' summary-D_SGD_BS32_FP32.csv
# lab5: 3 ranks on 2 cores said not to be oversubscribed
tamper lab5oversub lab5 metadata 's/^# oversubscribed: yes$/# oversubscribed: no/' summary-FL_BS32_FP32.csv
# lab6, SDSS DNN (9859 parameters), horovod 2 workers: ring 4N = 39436 -> 49436
tamper lab6bytes lab6 bytes 's/^\(cpu,horovod,2,2,sdss_dnn-sdss,.*\),39436,39436,/\1,49436,39436,/' lab6.csv
# lab6, ps 2 workers: the server's 4PN = 78872 -> 78870
tamper lab6psbytes lab6 bytes 's/,52581,78872,/,52581,78870,/' sdss_dnn-sdss-ps-w2-summary.csv
# lab6: 3 iterations in 0.002331 s = 1287.01 it/s -> 2287.01
tamper lab6iters lab6 throughput 's/,0\.002331,1287\.01,/,0.002331,2287.01,/' sdss_dnn-sdss-horovod-w2-summary.csv
tamper lab6oversub lab6 throughput 's/^\(cpu,ps,2,3,sdss_dnn-sdss,.*\),yes,synthetic,smoke$/\1,no,synthetic,smoke/' lab6.csv
tamper lab6accuracy lab6 accuracy 's/,53\.1,1\.0335,/,153.1,1.0335,/' sdss_dnn-sdss-horovod-w2-summary.csv
tamper lab6metadata lab6 metadata '/^# profile:/d' lab6.csv
# Unparseable or empty results score 0 (a garbage summary once got full
# marks for accuracy: "0 accuracies in range"). Graded in the same call.
gsubs=()
garbage() { # name file content
  local s=$tmp/garbage-$1
  mkdir -p "$s/results" && cp -r tests/grade/results/. "$s/results/"
  printf "$3" > "$s/results/lab1/$2"
  gsubs+=("$s")
}
garbage text mlp-mnist-summary.csv 'this is not a results file\n\x01\x02,,,\n'
garbage binary mlp-mnist-summary.csv '\x00\xff\xfe# program: lab1\n'
garbage norows mlp-mnist-summary.csv '# program: lab1\nrun,model,test_accuracy\n'
garbage nohead cnn3-mnist-summary.csv '# program: lab1\n'
grade "${tsubs[@]}" "${gsubs[@]}" > "$tmp/tampered.out" 2>&1
for s in "${tsubs[@]}"; do
  read -r lab item < "$s.key"
  name=$(basename "$s")
  if cmp -s <(find "$s/results" -type f -exec cat {} + | md5sum) <(find tests/grade/results -type f -exec cat {} + | md5sum); then
    check 1 "$name: the tampering changed a file" "sed matched nothing"; continue
  fi
  p=$(passed "$s" "$lab" "$item")
  others=$(awk -F, -v l="$lab" -v i="$item" 'NR > 1 && $1 == l && $2 != i && $5 == "no" {print $2}' "$s/grade-report.csv" | tr '\n' ' ')
  check $([ "$p" = no ] && [ -z "$others" ] && echo 0 || echo 1) \
    "$name flagged by $lab/$item only: $(reason "$s" "$lab" "$item" | cut -c1-110)" "$p; also flagged: $others"
done

for s in "${gsubs[@]}"; do
  name=$(basename "$s")
  p=$(passed "$s" lab1 accuracy)
  pts=$(field "$s" lab1 accuracy 3)
  r=$(reason "$s" lab1 accuracy)
  check $([ "$p" = no ] && [ "$pts" = 0 ] && [[ $r == *"unparseable"* || $r == *"nothing to check"* || $r == *"no rows"* ]] && echo 0 || echo 1) \
    "$name: lab1/accuracy scores 0: $(echo "$r" | cut -c1-110)" "$p $pts: $r"
done
# Bad options are refused with a message before any work.
bin/grade --no-build --labs lab9 "$tmp/empty-unused" > /dev/null 2> "$tmp/labs9.err"
rc=$?
check $([ "$rc" = 2 ] && grep -q "unknown lab 'lab9'" "$tmp/labs9.err" && echo 0 || echo 1) \
  "--labs lab9 is refused with a message" "rc $rc: $(head -1 "$tmp/labs9.err")"
bin/grade --no-build --timeout -5 "$tmp/empty-unused" > /dev/null 2> "$tmp/timeout.err"
rc=$?
check $([ "$rc" = 2 ] && grep -q -- "--timeout: '-5' is not a number of seconds" "$tmp/timeout.err" && echo 0 || echo 1) \
  "--timeout -5 is refused with a message" "rc $rc: $(head -1 "$tmp/timeout.err")"

says "$tmp/tampered-lab5oversub" lab5 metadata "oversubscribed: no, but 3 rank(s) on 2 cores" \
  "an oversubscribed flag that contradicts ranks and cores is flagged"

# ---- missing files, IMPL=student -----------------------------------------------
mkdir -p "$tmp/empty"
grade "$tmp/empty" > "$tmp/empty.out" 2>&1
rc=$?
check $([ "$rc" = 1 ] && grep -q "nothing to grade" "$tmp/empty.out" && echo 0 || echo 1) \
  "an empty submission: a clear message and exit status 1" "rc $rc: $(head -2 "$tmp/empty.out")"
# lab, the file submitted, the item left out
if [ $quick = 1 ]; then part=(lab5 fp16_round fedavg_aggregate); else part=(lab3 buckets gather_scatter); fi
mkdir -p "$tmp/partial/labs/${part[0]}/exercises" && cp "$ref/labs/${part[0]}/exercises/${part[1]}.c" "$tmp/partial/labs/${part[0]}/exercises/"
grade "$tmp/partial" > /dev/null 2>&1
rc=$?
r=$(reason "$tmp/partial" "${part[0]}" "${part[2]}")
check $([ "$rc" = 1 ] && [ "$(passed "$tmp/partial" "${part[0]}" "${part[1]}")" = yes ] && [[ $r == "not submitted"* ]] && echo 0 || echo 1) \
  "a partial submission: graded items graded, missing ones reported, exit status 1" "rc $rc; $r"

if make -s --no-print-directory IMPL=student bin/student/lab2 > "$tmp/student.out" 2>&1; then
  (OPENBLAS_NUM_THREADS=1 timeout 60 bin/student/lab2 bench --algs ring --max-bytes 64 --reps 1 --quiet \
    --out "$tmp/sr" || true) > "$tmp/sr.out" 2>&1
  grep -q "exercise ring not implemented" "$tmp/sr.out"
  check $? "make IMPL=student links labs/lab2/exercises into bin/student/lab2" "$(tail -2 "$tmp/sr.out")"
else
  check 1 "make IMPL=student bin/student/lab2 builds" "$(tail -3 "$tmp/student.out")"
fi
# lab5 and lab6 with their skeletons: the student program reaches the
# exercise (FedAvg's aggregation at the cloud, the server's step) and says so.
if [ $quick = 1 ]; then :
elif make -s --no-print-directory IMPL=student bin/student/lab5 bin/student/lab6 > "$tmp/student56.out" 2>&1; then
  mpi=(mpirun --oversubscribe --mca pml ob1 --mca btl self,vader --bind-to none)
  (OPENBLAS_NUM_THREADS=1 timeout 60 "${mpi[@]}" -np 3 bin/student/lab5 run --synthetic --width 0.125 --limit 64 \
    --test-limit 32 --epochs 1 --eval-batch 32 --scheme fedavg --batch 32 --quiet --out "$tmp/s5" || true) > "$tmp/s5.out" 2>&1
  grep -q "exercise fedavg_aggregate not implemented" "$tmp/s5.out"
  check $? "make IMPL=student links labs/lab5/exercises into bin/student/lab5" "$(tail -2 "$tmp/s5.out")"
  (OPENBLAS_NUM_THREADS=1 timeout 60 "${mpi[@]}" -np 2 bin/student/lab6 run --workload sdss_dnn-sdss --style ps \
    --limit 64 --test-limit 32 --batch 16 --iters 2 --synthetic --quiet --out "$tmp/s6" || true) > "$tmp/s6.out" 2>&1
  grep -q "exercise ps_step not implemented" "$tmp/s6.out"
  check $? "make IMPL=student links labs/lab6/exercises into bin/student/lab6" "$(tail -2 "$tmp/s6.out")"
else
  check 1 "make IMPL=student bin/student/lab5 bin/student/lab6 build" "$(tail -3 "$tmp/student56.out")"
fi
echo "# grade e2e: $(( $(date +%s) - t0 )) s" >&2
exit $fail
