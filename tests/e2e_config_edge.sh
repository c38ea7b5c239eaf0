#!/usr/bin/env bash
# e2e_config_edge.sh - configuration is read at the edge only: the
# programs read their DDL_ variables in one place
# (core/driver/environment.c) and hand the values down as fields and
# arguments; core's layers, comm, model, data and sync never read the
# environment. Checks, in about a second:
#   1. no getenv/environ in core/ outside the edge files listed below
#      (each with its reason), and each listed file still reads something
#      (a stale entry would let a new reader slip in unseen); no DDL_
#      variable read anywhere in core/ or labs/ but environment.c;
#   2. bare DEVICE and PROFILE do not reach the programs (common names a
#      shell may hold for other tools), DDL_DEVICE and DDL_PROFILE do; a DDL_ value of the wrong kind is refused by name;
#   3. DDL_DATA reaches the data loader (through DataOptions.root);
#   4. every variable of environment.c's table is listed by the programs'
#      --help and by `make help`.
# Prints ok / not ok lines.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "config edge"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
unset DDL_DEVICE DDL_PROFILE DDL_DATA DDL_CHECKPOINT_ROOT DDL_RESUME DDL_FAULT_KILL_AFTER

# --- 1. who reads the environment in core/ ------------------------------------
# path: why it may. Nothing else in core/ calls getenv or touches environ.
declare -A EDGE=(
  [core/driver/environment.c]="the programs' DDL_ configuration, one table"
  [core/platform/placement.c]="the launcher's own variables (SLURM_*, OMPI_*): where the process was started"
  [core/platform/threads.c]="OpenMP's, OpenBLAS's and glibc's own variables (OMP_NUM_THREADS, MALLOC_*), which those libraries read too"
  [core/results/meta.c]="the provenance block records the environment a result was produced in (SLURM_*, OPENBLAS_CORETYPE)"
)
calls=$(grep -rnE '\b(secure_)?getenv[[:space:]]*\(|\benviron\b' core \
  --include='*.c' --include='*.h' --include='*.cc' --include='*.cu' --include='*.cuh')
n=0 outside=()
while IFS= read -r line; do
  [ -n "$line" ] || continue
  n=$((n + 1))
  [ -n "${EDGE[${line%%:*}]+x}" ] || outside+=("$line")
done <<<"$calls"
if [ ${#outside[@]} -eq 0 ] && [ $n -gt 0 ]; then
  ok "core reads the environment only in its ${#EDGE[@]} edge files ($n reads checked)"
else
  bad "core reads the environment outside the edge (core/driver/environment.c and the files this test lists):"
  printf '#   %s\n' "${outside[@]}"
fi
stale=()
for f in "${!EDGE[@]}"; do grep -q "^$f:" <<<"$calls" || stale+=("$f"); done
if [ ${#stale[@]} -eq 0 ]; then ok "every edge file listed here still reads the environment"
else bad "edge files that read no environment any more (remove them from this test): ${stale[*]}"; fi
# ddlab's own variables (DDL_*) are read in environment.c alone, in core
# and in the labs: the others get them handed down (LaunchInfo, the
# emulated GPU's switches) or ask its table (driver_env_text).
ddl=$(git grep -n -E 'getenv[[:space:]]*\([[:space:]]*"DDL_' -- core labs 2>/dev/null | grep -v '^core/driver/environment.c:')
if [ -z "$ddl" ]; then ok "no DDL_ variable is read outside core/driver/environment.c (core, labs)"
else
  bad "DDL_ variables read outside core/driver/environment.c:"
  printf '#   %s\n' "$ddl"
fi

# --- 2. the names the programs read -------------------------------------------
# train_step's one-line result names its device; a tiny step takes a second.
step=("$BIN/bench/train_step" --model cnn3 --width 0.25 --batch 2 --reps 1 --warmup 0 --out "$tmp/bench" --tag t)
out=$(env DEVICE=cuda-emu PROFILE=paper "${step[@]}" 2>&1)
if grep -q 'device cpu' <<<"$out"; then ok "bare DEVICE=cuda-emu does not reach the programs (they ran on the cpu)"
else bad "bare DEVICE changed the device: $(tail -n 2 <<<"$out")"; fi
if grep -q '^# profile: custom' "$tmp/bench/train_step-t.csv" 2>/dev/null; then
  ok "bare PROFILE=paper does not reach the programs (profile custom)"
else bad "bare PROFILE changed the profile: $(grep '^# profile' "$tmp/bench/train_step-t.csv" 2>&1)"; fi
out=$(env DDL_PROFILE=paper "${step[@]}" 2>&1)
if grep -q '^# profile: paper' "$tmp/bench/train_step-t.csv" 2>/dev/null; then ok "DDL_PROFILE=paper sets the profile"
else bad "DDL_PROFILE=paper did not set the profile: $(tail -n 2 <<<"$out")"; fi
env DDL_DEVICE=tpu "${step[@]}" > "$tmp/dev.log" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "device 'tpu'" "$tmp/dev.log"; then ok "DDL_DEVICE=tpu is refused as --device tpu would be"
else bad "DDL_DEVICE=tpu: status $rc: $(head -n 2 "$tmp/dev.log")"; fi
env DDL_RESUME=yes "${step[@]}" > "$tmp/resume.log" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q 'DDL_RESUME=yes: 0 or 1' "$tmp/resume.log"; then ok "DDL_RESUME=yes is refused by name"
else bad "DDL_RESUME=yes: status $rc: $(head -n 2 "$tmp/resume.log")"; fi
env DDL_FAULT_KILL_AFTER=soon "${step[@]}" > "$tmp/kill.log" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q 'DDL_FAULT_KILL_AFTER=soon' "$tmp/kill.log"; then ok "DDL_FAULT_KILL_AFTER=soon is refused by name"
else bad "DDL_FAULT_KILL_AFTER=soon: status $rc: $(head -n 2 "$tmp/kill.log")"; fi

# --- 3. DDL_DATA reaches the loader ---------------------------------------------
# Half a dataset under the root it names: the loader refuses it, naming the
# root (a loader that ignored DDL_DATA would look under datasets/).
mkdir -p "$tmp/data/mnist"
echo broken > "$tmp/data/mnist/train-images-idx3-ubyte"
env DDL_DATA="$tmp/data" "$BIN/lab1" --model cnn3 --width 0.25 --dataset mnist --iters 1 --limit 64 --quiet \
  --out "$tmp/lab1" > "$tmp/data.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "$tmp/data/mnist" "$tmp/data.log"; then ok "DDL_DATA names the data root the loader reads"
else bad "DDL_DATA: status $rc: $(grep -m 2 . "$tmp/data.log")"; fi

# --- 4. every variable is documented ------------------------------------------
names=$(sed -n 's/^ *{ "\(DDL_[A-Z0-9_]*\)", ENV_.*/\1/p' core/driver/environment.c)
help=$("$BIN/lab1" --help 2>&1)
mk=$(make -s --no-print-directory help 2>&1)
missing_help=() missing_make=()
for v in $names; do
  grep -q "^  $v " <<<"$help" || missing_help+=("$v")
  grep -q "$v" <<<"$mk" || missing_make+=("$v")
done
if [ -z "$names" ]; then bad "no DDL_ rows found in core/driver/environment.c"
elif [ ${#missing_help[@]} -eq 0 ]; then ok "--help lists the $(wc -w <<<"$names") variables the programs read"
else bad "--help does not list: ${missing_help[*]}"; fi
if [ -n "$names" ] && [ ${#missing_make[@]} -eq 0 ]; then ok "make help lists them too"
else bad "make help does not list: ${missing_make[*]}"; fi
exit $fail
