#!/usr/bin/env bash
# gpu_check.sh - the driver of `make gpu-check` and `make gpu-kit`
# (mk/gpu-check.mk says what they are for and how to call them on the
# GPU machine; core/cuda/README.md has the one-paragraph recipe).
#
#   tests/gpu_check.sh run                  (make gpu-check)
#   tests/gpu_check.sh kit DIR [OPENBLAS]   (make gpu-kit)
#
# run: the steps below, in this order, each with its own time limit, none
# started after the deadline (GPU_CHECK_DEADLINE_S, default 420: a device
# command ends at 600 s, and the machine's start and the copies back take
# some of it). The summary lists every step from the start ("pending"),
# and is written anew, with the step's log, as each step ends, into
# GPU_CHECK_OUT (default results/gpu-check): a run cut short still leaves
# every result so far, and the steps it did not reach say "skipped
# (deadline)". Every step runs even when an earlier one failed.
#   1   build the gpu-check tree (make gpu-check-build; build.log). If only
#       -Werror stops it (a newer compiler there warns), the step fails and
#       the tree is rebuilt with GPUCHECK_WERROR=0 so the other steps run;
#       if it still fails with cuDNN in it, once more with CUDNN=0 (the
#       cuDNN steps then say the build has none).
#   2   test_cuda_kernels on the GPU (every CUDA kernel against its CPU
#       reference). It is also the GPU probe: when it finds no usable GPU
#       (it says "# no GPU ... (why)" and runs no checks) gpu-check stops
#       here, FAILED, with "no usable GPU: why".
#   Sanitizers first, as the kernels that never ran on a GPU are where bugs
#   hide (compute-sanitizer, built with -lineinfo so reports name lines):
#   3a  memcheck, 3b initcheck, 3c racecheck, 3d synccheck: each on
#       test_cuda_kernels, on every convolution path's test_path_<name> (on
#       the GPU's backend alone, DDL_COMPARE_ONLY), and on one small
#       training step (bench/train_step,
#       resnet18 x0.0625, batch 2) with each forced convolution path:
#       --conv winofused, winograd4, direct, pointwise; memcheck also with
#       --conv cudnn (an access past a workspace or tensor of ours shows
#       there; the other tools would examine cuDNN's own kernels), skipped,
#       saying why, where cuDNN cannot run. On the emulated GPU, 3a runs the
#       same programs in its strict mode instead (core/cuda/README.md), and
#       3b-3d are skipped.
#   Then correctness:
#   4a  test_backend_kernels and each path's test_path_<name>,
#       4b test_backend_models (every usable backend;
#       each must have run checks on the GPU backend)
#   4c  mpi_comm_device, one rank: NCCL's allreduce on device buffers (FP32,
#       FP16, sum, average, in flight, split) and the host algorithms on
#       device buffers, on the GPU backend (a build without NCCL fails it)
#   4d  lab1's cnn3, same small settings, on the CPU and on the GPU. Both
#       start from the same weights and data, so iteration 0's loss must
#       agree tightly (GPU_CHECK_FIRST_TOL, 1e-5 relative: only the
#       summation order differs); after that the two sides' rounding
#       differences grow as training amplifies them (on the emulated GPU,
#       6.7e-5 by iteration 15; bit-identical runs only where every path
#       matches), so the first GPU_CHECK_EARLY_ITERS (16) losses are held
#       to a loose GPU_CHECK_EARLY_TOL (0.05) and the final test accuracy
#       and loss to GPU_CHECK_ACC_TOL and GPU_CHECK_LOSS_TOL; the summary
#       prints each early iteration's difference either way. (The final
#       accuracies of such runs spread over 0.90-0.93: CPU 0.9250 and
#       0.9275, emulated GPU 0.9010 and 0.9050; an H200 gave 0.9215 against
#       the CPU's 0.9065.)
#   4e  test_conv_cudnn: cuDNN's convolutions against the CPU's im2col on
#       9 shapes, deterministic, descriptors kept (its checks without a GPU
#       run too); skipped, saying why, when the build has no cuDNN or the
#       device cannot run it (the emulated GPU)
#   Then speed:
#   5a  the SGEMM peak on the GPU (bin/gpucheck/bench/gemm_peak: cublasSgemm
#       and FP16 cublasGemmEx, square 4096 and 8192): the reference for 5b
#   5b  ddlab's training step on the GPU: bin/gpucheck/bench/train_step
#       --device (should it refuse the device, lab1 --iters timed per
#       iteration instead, median after warm-up, and the summary says so);
#       its GFLOP/s as a share of 5a's peak; for vgg11 and resnet18
#       (GPU_CHECK_FP16) the mixed-precision step too, against FP32
#   5c  the same steps in PyTorch eager on the GPU (bench/torch_step_gpu.py;
#       skipped when torch is not importable or torch.cuda.is_available() is
#       False; its probe has a time limit too); same parameter counts required
#   5d  cuDNN against auto: train_step --conv auto, then --conv cudnn, for
#       vgg11 and resnet18 at batch 256 (GPU_CHECK_CUDNN_BENCH), each with
#       --profile-layers: the step medians, their ratio, the convolutions'
#       share, and every layer's time (bench-cudnn.log): what a cuDNN line
#       of the device rule needs (core/conv/pick.c). The cuDNN run's conv
#       line must say every convolution ran by cuDNN. Skipped, saying why,
#       where cuDNN cannot run.
# Exit status 0 only when nothing failed and nothing was skipped for the
# deadline.
#
# Environment: GPU_CHECK_DEVICE cuda (default) | cuda-emu (dry run on the
# emulated GPU: the same binaries and steps, no GPU needed; PyTorch then
# runs on the CPU as a stand-in). GPU_CHECK_OUT (results/gpu-check),
# GPU_CHECK_DEADLINE_S (420), GC_BIN (bin/gpucheck), GPU_KIT
# (build/gpu-kit), MAKE, JOBS, NVCC, GPU_CHECK_PYTHON (a python with
# torch; default: python3, /usr/bin/python3), GPU_CHECK_BENCH
# ("model:width:batch ..."), GPU_CHECK_LAB1_ARGS, GPU_CHECK_ACC_TOL (0.05),
# GPU_CHECK_LOSS_TOL (0.1), GPU_CHECK_FIRST_TOL (1e-5),
# GPU_CHECK_EARLY_ITERS (16), GPU_CHECK_EARLY_TOL (0.05),
# GPU_CHECK_CUDNN_BENCH ("vgg11:1:256 resnet18:1:256"), CUDNN_HOME,
# GPU_CHECK_SKIP_BUILD=1 (use the tree as it is), GPU_CHECK_ONLY (steps to
# run, e.g. "1,2,4d"; the others are listed as not selected).
set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1

now() { if [ -n "${EPOCHREALTIME:-}" ]; then printf '%s' "$EPOCHREALTIME"; else date +%s.%N; fi; }
# Seconds since $1 (a now()), one decimal; in bash itself where it can
# (the summary is rewritten after every step: forks add up on a busy machine).
since() {
    local a=$1 b=${EPOCHREALTIME:-}
    [ -n "$b" ] || b=$(date +%s.%N)
    if [[ $a =~ ^[0-9]+\.[0-9]{6}$ && $b =~ ^[0-9]+\.[0-9]{6}$ ]]; then
        local d=$((10#${b/./} - 10#${a/./}))
        printf '%d.%d' $((d / 1000000)) $((d / 100000 % 10))
    else
        awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", b - a }'
    fi
}

# ---------------------------------------------------------------------------
# make gpu-kit
# ---------------------------------------------------------------------------
kit_main() {
    local kit=${1:-build/gpu-kit} openblas=${2:-} cc=${CC_FOR_KIT:-gcc}
    die() { echo "gpu-kit: $*" >&2; exit 1; }
    local ldconfig
    ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
    find_lib() { "$ldconfig" -p | awk -v s="$1" '$1 == s { print $NF; exit }'; }
    [ -n "$openblas" ] || openblas=$(find_lib libopenblas.so.0)
    [ -n "$openblas" ] && [ -f "$openblas" ] ||
        die "no libopenblas.so.0 (the OpenMP build the Makefile links): run 'make deps' (libopenblas0-openmp)"
    local tmp=$kit.tmp
    rm -rf "$tmp"
    mkdir -p "$tmp/include" "$tmp/lib" || die "cannot create $tmp"
    local manifest=$tmp/MANIFEST.txt
    {
        echo "ddlab gpu-kit: what bin/gpucheck compiles and links against where Debian's packages are missing"
        echo "made:   $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) ($(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $(uname -m))"
        echo "commit: $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"
        echo
    } >"$manifest"
    origin() { # the Debian package and version a file comes from
        local real pkg
        real=$(readlink -f "$1")
        pkg=$(dpkg -S "$real" 2>/dev/null | head -n 1 | cut -d: -f1)
        [ -n "$pkg" ] || pkg=$(dpkg -S "${real#/usr}" 2>/dev/null | head -n 1 | cut -d: -f1)
        [ -n "$pkg" ] && echo "$pkg $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null)" || echo "package unknown"
    }

    # Headers, as the compiler resolves them here (Debian keeps cblas.h
    # behind alternatives and png.h in libpng16/).
    local deps h p
    deps=$(printf '#include <cblas.h>\n#include <png.h>\n#include <zlib.h>\n' | "$cc" -M -x c - 2>&1) ||
        die "cannot include cblas.h, png.h and zlib.h with $cc: run 'make deps' (libopenblas-dev libpng-dev zlib1g-dev)"$'\n'"$deps"
    for h in cblas.h openblas_config.h png.h pngconf.h pnglibconf.h zlib.h zconf.h; do
        # shellcheck disable=SC2086
        p=$(printf '%s\n' $deps | awk -v h="$h" '{ n = split($0, a, "/"); if (a[n] == h) { print; exit } }')
        [ -n "$p" ] || die "$h is not among the headers cblas.h, png.h and zlib.h pull in"
        cp -L "$p" "$tmp/include/$h" || die "cannot copy $p"
        printf 'include/%-22s <- %s (%s)\n' "$h" "$p" "$(origin "$p")" >>"$manifest"
    done

    # Libraries: OpenBLAS (OpenMP build), libpng, zlib, and what they need
    # beyond glibc and the compiler's own runtime (libgomp, libgcc_s and
    # libstdc++ come with gcc there; a second libgomp would be a second
    # OpenMP runtime in the process).
    local -A path_of=()
    local name f order=()
    add() { [ -n "${path_of[$1]:-}" ] || { path_of[$1]=$2; order+=("$1"); }; }
    add libopenblas.so.0 "$openblas"
    p=$(find_lib libpng16.so.16); [ -n "$p" ] || die "no libpng16.so.16: run 'make deps' (libpng-dev)"
    add libpng16.so.16 "$p"
    p=$(find_lib libz.so.1); [ -n "$p" ] || die "no libz.so.1"
    add libz.so.1 "$p"
    for f in "$openblas" "$(find_lib libpng16.so.16)"; do
        while read -r name p; do
            case $name in
                linux-vdso* | ld-linux* | libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | \
                    libgcc_s.so* | libgomp.so* | libstdc++.so*) ;;
                *) [ -f "$p" ] || die "$f needs $name, which ldd does not find"; add "$name" "$p" ;;
            esac
        done < <(ldd "$f" | awk '$2 == "=>" { print $1, $3 }')
    done
    for name in "${order[@]}"; do
        cp -L "${path_of[$name]}" "$tmp/lib/$name" || die "cannot copy ${path_of[$name]}"
        chmod 644 "$tmp/lib/$name"
        if command -v strip >/dev/null; then strip --strip-unneeded "$tmp/lib/$name" 2>/dev/null; fi
        printf 'lib/%-26s <- %s (%s), %s bytes\n' "$name" "${path_of[$name]}" "$(origin "${path_of[$name]}")" \
            "$(stat -c %s "$tmp/lib/$name")" >>"$manifest"
    done

    # It must compile, link and run on its own: a CBLAS GEMM, libpng and
    # zlib, with every library found in the kit (DT_RPATH, as bin/gpucheck).
    local t abs
    abs=$(cd "$tmp/lib" && pwd)
    t=$(mktemp -d) || die "mktemp"
    cat >"$t/kit.c" <<'EOF'
#include <cblas.h>
#include <png.h>
#include <stdio.h>
#include <zlib.h>
int main(void)
{
    float a[4] = { 1, 2, 3, 4 }, b[4] = { 1, 0, 0, 1 }, c[4] = { 0 };
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
    printf("kit test: sgemm [%g %g %g %g], libpng %lu, zlib %s, %s\n", c[0], c[1], c[2], c[3],
           (unsigned long)png_access_version_number(), zlibVersion(), openblas_get_config());
    return !(c[0] == 1 && c[1] == 2 && c[2] == 3 && c[3] == 4);
}
EOF
    "$cc" -std=c11 -Wall -Werror -fopenmp -I"$tmp/include" "$t/kit.c" -o "$t/kit" -L"$abs" -Wl,--disable-new-dtags \
        -Wl,-rpath,"$abs" -l:libopenblas.so.0 -l:libpng16.so.16 -l:libz.so.1 || die "the kit's self-test does not build"
    "$t/kit" || die "the kit's self-test failed"
    local outside
    outside=$(ldd "$t/kit" | awk -v k="$abs/" '$2 == "=>" && index($3, k) != 1 { print $1 }' |
        grep -E '^lib(openblas|png16|z|gfortran|quadmath)\.' | tr '\n' ' ')
    [ -z "$outside" ] || die "the self-test resolved $outside outside the kit"
    echo "kit test: every kit library resolves inside the kit:"
    ldd "$t/kit" | awk -v k="$abs/" 'index($3, k) == 1 { print "  " $1 " => " $3 }'
    rm -rf "$t"

    local bytes tree limit=$((64 * 1024 * 1024))
    bytes=$(du -sb "$tmp" | cut -f1)
    [ "$bytes" -lt "$limit" ] || die "the kit is $bytes bytes, over 64 MiB"
    rm -rf "$kit" && mv "$tmp" "$kit" || die "cannot move $tmp to $kit"
    awk '/^(include|lib)\//' "$kit/MANIFEST.txt"
    echo "gpu-kit: $kit is $(awk -v b="$bytes" 'BEGIN { printf "%.1f MiB (%d bytes)", b / 1048576, b }') (limit 64 MiB)"
    tree=$(git ls-files -z -co --exclude-standard 2>/dev/null | du -cb --files0-from=- 2>/dev/null | tail -n 1 | cut -f1)
    if [ -n "$tree" ]; then
        awk -v t="$tree" -v k="$bytes" -v l="$limit" 'BEGIN {
            printf "gpu-kit: the working tree (%.1f MiB) and the kit together: %.1f MiB of a 64 MiB copy limit%s\n",
                   t / 1048576, (t + k) / 1048576, (t + k >= l) ? " - OVER THE LIMIT" : "" }'
    fi
    echo "gpu-kit: copy $kit to the GPU machine with the tree, then run make gpu-check there"
}

# ---------------------------------------------------------------------------
# make gpu-check
# ---------------------------------------------------------------------------
run_main() {
    DEV=${GPU_CHECK_DEVICE:-cuda}
    case $DEV in
        cuda | cuda-emu) ;;
        *) echo "gpu-check: GPU_CHECK_DEVICE=$DEV: use cuda (default) or cuda-emu (dry run)" >&2; exit 2 ;;
    esac
    BIN=${GC_BIN:-bin/gpucheck}
    KIT=${GPU_KIT:-build/gpu-kit}
    MAKE=${MAKE:-make}
    JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
    RES=${GPU_CHECK_OUT:-results/gpu-check}
    DEADLINE_S=${GPU_CHECK_DEADLINE_S:-420}
    case $DEADLINE_S in '' | *[!0-9]*) echo "gpu-check: GPU_CHECK_DEADLINE_S=$DEADLINE_S: whole seconds" >&2; exit 2 ;; esac
    ACC_TOL=${GPU_CHECK_ACC_TOL:-0.05}
    LOSS_TOL=${GPU_CHECK_LOSS_TOL:-0.1}
    FIRST_TOL=${GPU_CHECK_FIRST_TOL:-1e-5}
    EARLY_ITERS=${GPU_CHECK_EARLY_ITERS:-16}
    EARLY_TOL=${GPU_CHECK_EARLY_TOL:-0.05}
    if [ "$DEV" = cuda ]; then
        BENCH=${GPU_CHECK_BENCH:-cnn3:1:64 vgg11:1:256 resnet18:1:256}
        CUDNN_BENCH=${GPU_CHECK_CUDNN_BENCH:-vgg11:1:256 resnet18:1:256}
        REPS=20 WARMUP=5
        GPU_TEST=test_cuda_kernels
    else
        BENCH=${GPU_CHECK_BENCH:-cnn3:1:32}
        CUDNN_BENCH=${GPU_CHECK_CUDNN_BENCH:-cnn3:1:32}
        REPS=5 WARMUP=2
        GPU_TEST=test_cuda_kernels_emu
    fi
    T_START=$(now)
    DATE_START=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    # Not removed: GPU_CHECK_OUT may be where the caller collects results.
    # This run's files replace a previous run's, the summary first.
    mkdir -p "$RES" || exit 1
    rm -f "$RES/summary.txt"
    S_ID=() S_NAME=() S_RES=() S_WALL=() S_DETAIL=()
    GPU_NAME="" STOPPED="" FINISHED=""
    PLAN=("1|build (gcc, nvcc, MPI stub)" "2|$GPU_TEST on $DEV (the GPU probe)"
        "3a|memcheck" "3b|initcheck" "3c|racecheck" "3d|synccheck"
        "4a|test_backend_kernels" "4b|test_backend_models" "4c|mpi_comm_device" "4d|lab1 cnn3: cpu vs $DEV"
        "4e|test_conv_cudnn: cuDNN vs the CPU reference"
        "5a|SGEMM peak on $DEV" "5b|ddlab training step on $DEV" "5c|PyTorch eager training step"
        "5d|training step: --conv cudnn vs auto")
    if command -v timeout >/dev/null; then HAVE_TIMEOUT=1; else HAVE_TIMEOUT=0; fi

    echo "gpu-check: device $DEV, binaries $BIN, results $RES (deadline ${DEADLINE_S}s)"
    write_summary
    run_step 1 step_build
    run_step 2 step_gpu_test
    if [ -z "$STOPPED" ]; then
        run_step 3a step_sanitizer memcheck
        run_step 3b step_sanitizer initcheck
        run_step 3c step_sanitizer racecheck
        run_step 3d step_sanitizer synccheck
        run_step 4a step_backend 4a test_backend_kernels
        run_step 4b step_backend 4b test_backend_models
        run_step 4c step_backend 4c mpi_comm_device
        run_step 4d step_lab1
        run_step 4e step_conv_cudnn
        run_step 5a step_gemm_peak
        run_step 5b step_bench_ddlab
        run_step 5c step_bench_torch
        run_step 5d step_bench_cudnn
    fi
    finish
}

# ELAPSED: whole seconds since the start (set without a fork where bash
# has EPOCHREALTIME).
elapsed() {
    if [[ ${EPOCHREALTIME:-} =~ ^[0-9]+\.[0-9]{6}$ && $T_START =~ ^[0-9]+\.[0-9]{6}$ ]]; then
        ELAPSED=$(((10#${EPOCHREALTIME/./} - 10#${T_START/./}) / 1000000))
    else
        ELAPSED=$(awk -v a="$T_START" -v b="$(date +%s.%N)" 'BEGIN { printf "%d", b - a }')
    fi
}

# Seconds left before the deadline (may be negative).
left() {
    elapsed
    echo $((DEADLINE_S - ELAPSED))
}

# run_step ID FUNC ARGS...: the step, unless the deadline has passed (or
# GPU_CHECK_ONLY names other steps).
run_step() {
    local id=$1
    shift
    if [ -n "${GPU_CHECK_ONLY:-}" ] && [[ ",$GPU_CHECK_ONLY," != *",$id,"* ]]; then
        record "$id" "$(plan_name "$id")" SKIP 0 "not selected (GPU_CHECK_ONLY=$GPU_CHECK_ONLY)"
        return
    fi
    elapsed
    if [ $((DEADLINE_S - ELAPSED)) -lt 1 ]; then
        record "$id" "$(plan_name "$id")" SKIP 0 "skipped (deadline): ${DEADLINE_S}s had passed, nothing new starts"
        return
    fi
    "$@"
}

plan_name() {
    local p
    for p in "${PLAN[@]}"; do [ "${p%%|*}" = "$1" ] && { echo "${p#*|}"; return; }; done
    echo "$1"
}

# min(cap, seconds left before the deadline), at least 1.
limit() {
    local l
    l=$(left)
    [ "$l" -lt "$1" ] || l=$1
    [ "$l" -ge 1 ] || l=1
    echo "$l"
}

# limited SECONDS CMD...: CMD with a time limit (exit 124 when it ran out;
# killed 2 s after if it ignores SIGTERM).
limited() {
    local s=$1
    shift
    elapsed
    if [ $((DEADLINE_S - ELAPSED)) -lt 1 ]; then
        echo "gpu-check: not started, the deadline (${DEADLINE_S}s) has passed: $*" >&2
        return 124
    fi
    if [ "$HAVE_TIMEOUT" = 1 ]; then timeout -k 2 "$s" "$@"; else "$@"; fi
}

# cut_by_deadline RC: whether a command's exit status RC is the deadline's
# doing (its time limit was what was left, and it ran out), not the step's.
cut_by_deadline() {
    [ "$1" -eq 124 ] || return 1
    elapsed
    [ $((DEADLINE_S - ELAPSED)) -le 1 ]
}

# record_cut ID NAME WALL DETAIL: a step the deadline stopped partway; what
# it did so far is in DETAIL.
record_cut() { record "$1" "$2" SKIP "$3" "skipped (deadline) partway, after: $4"; }

# record ID NAME PASS|FAIL|SKIP WALL_S DETAIL: one step's result; the
# summary is written anew each time.
record() {
    S_ID+=("$1") S_NAME+=("$2") S_RES+=("$3") S_WALL+=("$4") S_DETAIL+=("$5")
    printf 'gpu-check: [%s] %s %s (%s s): %s\n' "$3" "$1" "$2" "$4" "$5"
    write_summary
}

# run_test ID NAME BIN LOG SECONDS (in a step, after t0=$(now)): BIN run
# under the step's limit of SECONDS, its output in LOG, its status in the
# caller's rc; returns 1, ID recorded as FAIL, when BIN was not built.
run_test() {
    if [ ! -x "$3" ]; then
        record "$1" "$2" FAIL "$(since "$t0")" "$3 was not built (build.log)"
        return 1
    fi
    limited "$(limit "$5")" "$3" >"$4" 2>&1
    rc=$?
    return 0
}

count() { # count PATTERN FILE: lines matching (0 when none or no file)
    local n
    n=$(grep -c -E -- "$1" "$2" 2>/dev/null) || true
    echo "${n:-0}"
}

commit_line() {
    local rev
    if rev=$(git rev-parse --short=12 HEAD 2>/dev/null); then
        git diff --quiet HEAD 2>/dev/null || rev="$rev-dirty"
        echo "$rev"
    else
        echo "unknown here (no git checkout in this copy of the tree)$([ -f "$KIT/MANIFEST.txt" ] &&
            sed -n 's/^commit: */; the kit was made at /p' "$KIT/MANIFEST.txt")"
    fi
}

# RESULT_I: the index in S_* of step ID's result, or "" (no fork: the
# summary asks for every step each time it is written).
result_of() {
    local i
    RESULT_I=""
    for ((i = 0; i < ${#S_ID[@]}; i++)); do [ "${S_ID[$i]}" = "$1" ] && { RESULT_I=$i; return; }; done
}

# What the summary's head says that does not change during a run.
summary_head() {
    local mode="real GPU"
    [ "$DEV" = cuda-emu ] && mode="DRY RUN on the emulated GPU (cuda-emu): no real GPU was used"
    HEAD_STATIC="device:   $DEV ($mode)
deadline: ${DEADLINE_S}s (GPU_CHECK_DEADLINE_S): no step starts after it
host:     $(uname -n), $(nproc) cores, $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")
commit:   $(commit_line)"
}

write_summary() {
    local i n=${#S_ID[@]} pass=0 fail=0 skip=0 deadline=0 state p id
    for ((i = 0; i < n; i++)); do
        case ${S_RES[$i]} in PASS) pass=$((pass + 1)) ;; FAIL) fail=$((fail + 1)) ;; *) skip=$((skip + 1)) ;; esac
        [[ "${S_DETAIL[$i]}" == "skipped (deadline)"* ]] && deadline=$((deadline + 1)) # partway too
    done
    if [ -z "$FINISHED" ]; then state="INCOMPLETE (still running, or cut short)"
    elif [ -n "$STOPPED" ]; then state="FAIL: $STOPPED"
    elif [ "$fail" -gt 0 ]; then state="FAIL"
    elif [ "$deadline" -gt 0 ]; then state="INCOMPLETE: $deadline step(s) skipped (deadline)"
    else state="PASS"; fi
    [ -n "${HEAD_STATIC:-}" ] || summary_head
    {
        echo "ddlab gpu-check: $state"
        echo "$HEAD_STATIC"
        if [ -n "$FINISHED" ]; then echo "date:     $DATE_START (start, UTC), $(date -u +%Y-%m-%dT%H:%M:%SZ) (end)"
        else echo "date:     $DATE_START (start, UTC)"; fi
        echo "GPU:      ${GPU_NAME:-none found}"
        echo "binaries: $BIN (gcc + the single-rank MPI stub core/mpistub)"
        echo "libs:     ${LIBS_FROM:-not resolved yet}"
        echo "tools:    ${TOOLS:-}"
        echo
        # Steps in plan order; a detail line (tab-led) is wrapped at 100
        # columns and indented by the awk below.
        local pending=PENDING
        [ -n "$FINISHED" ] && pending=SKIP
        for p in "${PLAN[@]}"; do
            id=${p%%|*}
            result_of "$id"
            i=$RESULT_I
            if [ -z "$i" ]; then
                printf '[%s] %-4s %s\n' "$pending" "$id" "${p#*|}"
                continue
            fi
            printf '[%s] %-4s %-44s %8s s\n\t%s\n' "${S_RES[$i]}" "$id" "${S_NAME[$i]}" "${S_WALL[$i]}" "${S_DETAIL[$i]}"
        done
        echo
        echo "skipped:"
        local any=""
        for ((i = 0; i < n; i++)); do
            [ "${S_RES[$i]}" = SKIP ] && { echo "  ${S_ID[$i]} ${S_NAME[$i]}: ${S_DETAIL[$i]}"; any=1; }
        done
        [ -n "$any" ] || echo "  nothing"
        echo "failed:"
        any=""
        for ((i = 0; i < n; i++)); do
            [ "${S_RES[$i]}" = FAIL ] && { echo "  ${S_ID[$i]} ${S_NAME[$i]}"; any=1; }
        done
        [ -n "$any" ] || echo "  nothing"
        echo "total wall: $(since "$T_START") s"
        echo "logs: $RES/*.log"
        echo "gpu-check: $pass passed, $fail failed, $skip skipped"
    } | awk '!/^\t/ { print; next }
        { t = substr($0, 2); while (length(t) > 88) { c = 88; while (c > 40 && substr(t, c, 1) != " ") c--
              print "            " substr(t, 1, c); t = substr(t, c + 1) }
          print "            " t }' >"$RES/summary.txt.tmp" && mv "$RES/summary.txt.tmp" "$RES/summary.txt"
}

finish() {
    FINISHED=1
    local p id
    for p in "${PLAN[@]}"; do # steps never reached (no GPU): listed as such
        id=${p%%|*}
        result_of "$id"
        [ -n "$RESULT_I" ] || record "$id" "${p#*|}" SKIP 0 "not run: ${STOPPED:-an earlier step stopped the run}"
    done
    write_summary
    echo
    cat "$RES/summary.txt"
    if [ -n "$STOPPED" ]; then
        echo "gpu-check: $STOPPED" >&2
        exit 1
    fi
    grep -q '^\[FAIL\]' <(printf '[%s]\n' "${S_RES[@]}") && exit 1
    grep -q '^skipped (deadline)' <(printf '%s\n' "${S_DETAIL[@]}") && exit 1
    exit 0
}

# A library the build may use: NCCL for --alg nccl (step 4c), cuDNN for
# --conv cudnn (steps 3a, 4e, 5d). Found beside nvcc, else from its _HOME
# variable, else in the nvidia-<module> wheel of a python that has one (the
# GPU machines' CUDA image ships them only that way), exported as that
# _HOME for the Makefile. Sets <VAR>_FROM to where it was found, or why
# not: without it the build lacks it, and those steps say so.
#   find_library NAME VAR HEADER MODULE [what is lost without it]
find_library() {
    local name=$1 var=$2 header=$3 module=$4 lost=${5:-} top c dir from
    top=$(dirname "$(dirname "$(readlink -f "$(command -v "${NVCC:-nvcc}" || echo nvcc)")")")
    local home_var=${var}_HOME
    if [ -n "${!home_var:-}" ]; then
        from="$name from $home_var=${!home_var}"
    elif [ -f "$top/include/$header" ]; then
        from="$name beside nvcc ($top)"
    else
        from="no $name (none beside nvcc in $top, no $home_var, no nvidia-$module wheel with headers)${lost:+: $lost}"
        for c in ${GPU_CHECK_PYTHON:-} python3 /usr/bin/python3; do
            dir=$("$c" -c "import nvidia.$module as m; print(list(m.__path__)[0])" 2>/dev/null) || continue
            if [ -f "$dir/include/$header" ]; then
                export "$home_var=$dir"
                from="$name from $c's nvidia-$module wheel ($dir)"
                break
            fi
        done
    fi
    printf -v "${var}_FROM" '%s' "$from"
}

# Why --conv cudnn cannot run in this check (empty when it can): the
# emulated GPU never can; else the programs' --help says whether their
# build has cuDNN.
cudnn_absent() {
    if [ "$DEV" = cuda-emu ]; then
        echo "the emulated GPU runs ddlab's own kernels, not cuDNN's (a dry run: --conv cudnn is refused there)"
    elif ! "$BIN/bench/train_step" --help 2>&1 | grep -q 'this build has cuDNN'; then
        echo "this build has no cuDNN (${CUDNN_FROM:-build.log says where it looked})"
    fi
}

# ---- 1: build ----
step_build() {
    local t0 rc detail res=PASS
    t0=$(now)
    find_library NCCL NCCL nccl.h nccl "4c cannot run --alg nccl"
    find_library cuDNN CUDNN cudnn.h cudnn
    if [ "${GPU_CHECK_SKIP_BUILD:-0}" = 1 ]; then
        rc=0 detail="skipped by GPU_CHECK_SKIP_BUILD=1: the tree as it is"
        res=SKIP
    else
        echo "gpu-check: building (make -j$JOBS gpu-check-build, log $RES/build.log)"
        limited "$(limit 420)" "$MAKE" --no-print-directory -k -j"$JOBS" gpu-check-build >"$RES/build.log" 2>&1
        rc=$?
        detail="make -j$JOBS gpu-check-build"
        local last=$rc again=()
        if [ "$rc" -ne 0 ]; then
            res=FAIL
            local werr
            werr=$(count '\[-Werror|all warnings being treated as errors' "$RES/build.log")
            if [ "$werr" -gt 0 ] && [ "$rc" -ne 124 ]; then
                echo "gpu-check: -Werror stopped the build; rebuilding with GPUCHECK_WERROR=0 so the other steps run"
                echo "==== gpu-check: again with GPUCHECK_WERROR=0 ====" >>"$RES/build.log"
                again=(GPUCHECK_WERROR=0)
                limited "$(limit 420)" "$MAKE" --no-print-directory -k -j"$JOBS" gpu-check-build "${again[@]}" \
                    >>"$RES/build.log" 2>&1
                last=$?
                detail="$detail: warnings are errors here ($werr diagnostics, build.log); rebuilt with GPUCHECK_WERROR=0: exit $last"
            elif [ "$rc" -eq 124 ]; then
                detail="$detail: timed out"
            else
                detail="$detail: exit $rc; $(grep -m 3 -E 'error|Error' "$RES/build.log" | tr '\n' ' ' | cut -c1-300)"
            fi
        fi
        # A cuDNN that does not build (a wheel's headers that this nvcc
        # refuses) must not cost the other steps: once more without it.
        if [ "$last" -ne 0 ] && [ "$last" -ne 124 ] && [[ "$CUDNN_FROM" != "no cuDNN"* ]]; then
            echo "gpu-check: the build failed with cuDNN; rebuilding with CUDNN=0 so the other steps run"
            echo "==== gpu-check: again with CUDNN=0 ====" >>"$RES/build.log"
            limited "$(limit 420)" "$MAKE" --no-print-directory -k -j"$JOBS" gpu-check-build "${again[@]}" CUDNN=0 \
                >>"$RES/build.log" 2>&1
            last=$?
            detail="$detail; rebuilt without cuDNN (CUDNN=0): exit $last"
            CUDNN_FROM="$CUDNN_FROM, but the build failed with it and was made again without (CUDNN=0)"
        fi
    fi
    local p missing=""
    for p in lab1 bench/train_step tests/test_cuda_kernels tests/test_cuda_kernels_emu tests/test_backend_kernels \
        tests/test_backend_models tests/mpi_comm_device tests/test_conv_cudnn bench/gemm_peak \
        $(for f in tests/test_path_*.c; do echo "${f%.c}"; done); do
        [ -x "$BIN/$p" ] || missing="$missing $p"
    done
    [ -z "$missing" ] || { res=FAIL; detail="$detail; not built:$missing"; }
    # Where the libraries resolve (the kit, the system, or nowhere).
    if [ -x "$BIN/lab1" ]; then
        local libs
        # "dir: lib lib; dir: lib" for the libraries that matter here
        libs=$(ldd "$BIN/lab1" 2>&1 | awk '$2 == "=>" && $1 ~ /^lib(openblas|png16|z|gfortran|quadmath|cudart|cublas|cudnn|gomp)\./ {
                d = $3; sub(/\/[^\/]*$/, "", d); if (!(d in seen)) { seen[d] = 1; dirs[++n] = d }; l[d] = l[d] " " $1 }
            END { for (i = 1; i <= n; i++) printf "%s%s:%s", (i > 1 ? "; " : ""), dirs[i], l[dirs[i]] }')
        echo "==== ldd $BIN/lab1 ====" >>"$RES/build.log"
        ldd "$BIN/lab1" >>"$RES/build.log" 2>&1
        LIBS_FROM="$libs"
        if ldd "$BIN/lab1" 2>&1 | grep -q 'not found'; then
            res=FAIL
            detail="$detail; libraries not found: $(ldd "$BIN/lab1" 2>&1 | awk '/not found/ { print $1 }' | tr '\n' ' ')"
        fi
        detail="$detail; OpenBLAS/libpng/zlib from $([ -f "$KIT/lib/libopenblas.so.0" ] && echo "the kit $KIT" || echo "the system (no $KIT)")"
        detail="$detail; $NCCL_FROM; $CUDNN_FROM"
    fi
    TOOLS="gcc $(gcc -dumpfullversion 2>/dev/null || echo '?'), nvcc $("${NVCC:-nvcc}" --version 2>/dev/null |
        sed -n 's/.*release \([^,]*\),.*/\1/p' | head -n 1)"
    if command -v nvidia-smi >/dev/null; then
        TOOLS="$TOOLS, nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1)"
    fi
    record 1 "build (gcc, nvcc, MPI stub)" "$res" "$(since "$t0")" "$detail"
}

# ---- 2: test_cuda_kernels, the GPU probe ----
step_gpu_test() {
    local t0 rc bin=$BIN/tests/$GPU_TEST log=$RES/$GPU_TEST.log
    t0=$(now)
    run_test 2 "$GPU_TEST on $DEV" "$bin" "$log" 180 || return
    local p f k why
    p=$(count '^ok - ' "$log") f=$(count '^not ok - ' "$log") k=$(count '^skip - ' "$log")
    GPU_NAME=$(sed -n 's/^# GPU: //p' "$log" | head -n 1)
    if [ "$f" -eq 0 ] && cut_by_deadline "$rc"; then
        record_cut 2 "$GPU_TEST on $DEV" "$(since "$t0")" "$p passed, $f failed"
        return
    fi
    if [ -z "$GPU_NAME" ]; then
        why=$(sed -n 's/^# no GPU[^(]*(\(.*\)); test_cuda_kernels_emu.*/\1/p' "$log" | head -n 1)
        [ -n "$why" ] || why="$GPU_TEST found no GPU and ran no checks (exit $rc; $log)"
        STOPPED="no usable GPU: $why"
        record 2 "$GPU_TEST on $DEV" FAIL "$(since "$t0")" \
            "$p passed: the GPU test ran no checks: $STOPPED. A GPU machine where the probe fails fails gpu-check."
        return
    fi
    local res=FAIL
    [ "$rc" -eq 0 ] && [ "$p" -gt 0 ] && [ "$f" -eq 0 ] && res=PASS
    record 2 "$GPU_TEST on $DEV" "$res" "$(since "$t0")" \
        "$p passed, $f failed, $k skipped (exit $rc$([ "$rc" -eq 124 ] && echo ': timed out')) on $GPU_NAME"
}

# ---- 4a, 4b, 4c: the backend tests ----
step_backend() {
    local id=$1 name=$2 t0 rc log=$RES/$2.log prog progs
    t0=$(now)
    # test_backend_kernels: the shared kernels; each convolution path's
    # kernel table is its own program (tests/test_path_<name>.c), run
    # here too, into the same log, each with its own time limit
    progs=("$BIN/tests/$name")
    [ "$name" = test_backend_kernels ] && progs+=("$BIN"/tests/test_path_*)
    local first=0 # the first program's exit status that is not 0
    : >"$log"
    for prog in "${progs[@]}"; do
        run_test "$id" "$name" "$prog" "$log.one" 240 || return
        cat "$log.one" >>"$log"
        rm -f "$log.one"
        [ "$first" -ne 0 ] || first=$rc
        [ "$rc" -ne 124 ] || break # the deadline: the rest would not start
    done
    rc=$first
    local p f k dp df res=FAIL
    p=$(count '^ok - ' "$log") f=$(count '^not ok - ' "$log") k=$(count '^skip - ' "$log")
    dp=$(count "^ok - $DEV[ :]" "$log") df=$(count "^not ok - $DEV[ :]" "$log")
    [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] && [ "$dp" -gt 0 ] && res=PASS
    local detail
    detail="$p passed, $f failed, $k skipped (exit $rc$([ "$rc" -eq 124 ] && echo ': timed out')); on $DEV: $dp passed, $df failed"
    [ "$dp" -gt 0 ] || detail="$detail: NO checks ran on $DEV (backend_usable() did not list it)"
    if [ "$res" = FAIL ] && [ "$f" -eq 0 ] && cut_by_deadline "$rc"; then
        record_cut "$id" "$name" "$(since "$t0")" "$detail"
        return
    fi
    record "$id" "$name" "$res" "$(since "$t0")" "$detail"
}

# The training losses of two lab1 runs (their *-iters.csv), iteration by
# iteration over the first n: "i:rel ..." (rel = |a - b| / |a|), or nothing
# when either file is missing.
loss_diffs() {
    local a b
    a=$(ls "$1"/*-iters.csv 2>/dev/null | head -n 1) b=$(ls "$2"/*-iters.csv 2>/dev/null | head -n 1)
    [ -n "$a" ] && [ -n "$b" ] || return 0
    awk -F, -v n="$3" '
        /^#/ { next }
        !(FILENAME in hdr) { for (i = 1; i <= NF; i++) if ($i == "loss") col[FILENAME] = i; hdr[FILENAME] = 1; next }
        { k = ++row[FILENAME]; if (k <= n) v[FILENAME, k] = $(col[FILENAME]) }
        END {
            m = row[ARGV[1]] < row[ARGV[2]] ? row[ARGV[1]] : row[ARGV[2]]; if (m > n) m = n
            for (k = 1; k <= m; k++) {
                x = v[ARGV[1], k]; y = v[ARGV[2], k]; d = x - y; if (d < 0) d = -d
                s = x < 0 ? -x : x; if (s < 1e-30) s = 1e-30
                printf "%s%d:%.2g", (k > 1 ? " " : ""), k - 1, d / s
            }
            printf "\n" }' "$a" "$b"
}

# csv_field FILE COLUMN: the first data row's COLUMN of a results CSV.
csv_field() {
    awk -F, -v col="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) idx[$i] = i; h = 1; next }
        { if (col in idx) print $(idx[col]); exit }' "$1" 2>/dev/null
}

# The verdict of 4d from the two runs' numbers: "PASS ..." or "FAIL ...".
lab1_verdict() { # acc_cpu acc_dev loss_cpu loss_dev diffs
    awk -v a1="$1" -v a2="$2" -v l1="$3" -v l2="$4" -v diffs="$5" -v at="$ACC_TOL" -v lt="$LOSS_TOL" \
        -v ft="$FIRST_TOL" -v en="$EARLY_ITERS" -v et="$EARLY_TOL" 'BEGIN {
            da = a1 - a2; if (da < 0) da = -da; dl = l1 - l2; if (dl < 0) dl = -dl
            num = "^[0-9]+([.][0-9]+)?$"   # no nan, inf or empty value passes
            m = split(diffs, d, " "); worst = 0; first = -1; bad = 0
            for (k = 1; k <= m; k++) {
                split(d[k], kv, ":"); r = kv[2]
                if (r !~ /^[0-9.e+-]+$/) bad = 1
                if (k == 1) first = r + 0; else if (r + 0 > worst) worst = r + 0
            }
            fok = m >= 1 && !bad && first <= ft + 0
            eok = m == en && !bad && worst <= et + 0
            ok = (a1 ~ num && a2 ~ num && l1 ~ num && l2 ~ num && da <= at && dl <= lt && fok && eok)
            printf "%s iteration 0 (same weights and data): loss differs by %s relative (tol %s: %s); ",
                   (ok ? "PASS" : "FAIL"), (m ? first : "n/a (no iters.csv)"), ft, (fok ? "ok" : "TOO FAR")
            printf "iterations 1..%d: at most %s (tol %s: %s); ", en - 1, (m > 1 ? worst : "n/a"), et,
                   (eok ? "ok" : "TOO FAR")
            printf "|acc diff| %.4f (tol %s), |loss diff| %.4f (tol %s): %s", da, at, dl, lt,
                   (ok ? "they agree" : "they DISAGREE") }'
}

# ---- 4d: lab1 cnn3 on the CPU and on the GPU ----
step_lab1() {
    local t0 d rc args name="lab1 cnn3: cpu vs $DEV"
    t0=$(now)
    # shellcheck disable=SC2206
    args=(${GPU_CHECK_LAB1_ARGS:---model cnn3 --dataset mnist --synthetic --epochs 2 --limit 4096 --test-limit 2000 --batch 64 --lr 0.05 --seed 1})
    if [ ! -x "$BIN/lab1" ]; then
        record 4d "$name" FAIL "$(since "$t0")" "$BIN/lab1 was not built (build.log)"
        return
    fi
    local -A acc=() loss=() ms=() wall=() ok=()
    for d in cpu "$DEV"; do
        local t1 csv
        t1=$(now)
        limited "$(limit 150)" "$BIN/lab1" "${args[@]}" --profile smoke --device "$d" --out "$RES/lab1-$d" \
            --figures "$RES/lab1-figures" >"$RES/lab1-$d.log" 2>&1
        rc=$?
        wall[$d]=$(since "$t1")
        csv=$(ls "$RES/lab1-$d"/*-summary.csv 2>/dev/null | head -n 1)
        if [ "$rc" -eq 0 ] && [ -n "$csv" ]; then
            acc[$d]=$(csv_field "$csv" test_accuracy) loss[$d]=$(csv_field "$csv" test_loss) ms[$d]=$(csv_field "$csv" ms_mean)
            ok[$d]=1
        else
            ok[$d]=""
            acc[$d]="exit $rc$([ "$rc" -eq 124 ] && echo ' (timed out)'): $(tail -n 1 "$RES/lab1-$d.log" | cut -c1-200)"
        fi
    done
    local detail="${args[*]}: " res=FAIL diffs="" cut=""
    cut_by_deadline "${rc:-0}" && cut=1
    for d in cpu "$DEV"; do
        if [ -n "${ok[$d]}" ]; then
            detail="$detail$d: test acc ${acc[$d]}, loss ${loss[$d]}, ${ms[$d]} ms/iter (${wall[$d]} s); "
        else
            detail="$detail$d: FAILED ${acc[$d]}; "
        fi
    done
    diffs=$(loss_diffs "$RES/lab1-cpu" "$RES/lab1-$DEV" "$EARLY_ITERS")
    if [ -n "${ok[cpu]}" ] && [ -n "${ok[$DEV]}" ]; then
        local verdict
        verdict=$(lab1_verdict "${acc[cpu]}" "${acc[$DEV]}" "${loss[cpu]}" "${loss[$DEV]}" "$diffs")
        res=${verdict%% *}
        detail="$detail${verdict#* }"
    fi
    detail="$detail; relative loss difference per iteration (iteration:difference): ${diffs:-none (no iters.csv)}"
    printf 'relative training-loss difference, cpu vs %s, per iteration:\n%s\n' "$DEV" "${diffs:-none}" \
        >"$RES/lab1-diff.log"
    local dd
    dd=$(sed -n 's/^# device_detail: //p' "$RES/lab1-$DEV"/*-summary.csv 2>/dev/null | head -n 1)
    [ -n "$dd" ] && detail="$detail; the $DEV run's device: $dd"
    if [ -n "$cut" ] && [ -z "${ok[$DEV]}" ]; then
        record_cut 4d "$name" "$(since "$t0")" "$detail"
        return
    fi
    record 4d "$name" "$res" "$(since "$t0")" "$detail"
}

# ---- 4e: test_conv_cudnn, cuDNN against the CPU reference ----
step_conv_cudnn() {
    local t0 rc bin=$BIN/tests/test_conv_cudnn log=$RES/test_conv_cudnn.log name="test_conv_cudnn: cuDNN vs the CPU reference"
    t0=$(now)
    run_test 4e "$name" "$bin" "$log" 120 || return
    local p f dp why
    p=$(count '^ok - ' "$log") f=$(count '^not ok - ' "$log") dp=$(count '^ok - cuda cudnn' "$log")
    why=$(cudnn_absent)
    local detail="$p passed, $f failed (exit $rc$([ "$rc" -eq 124 ] && echo ': timed out'))"
    if [ "$f" -eq 0 ] && cut_by_deadline "$rc"; then
        record_cut 4e "$name" "$(since "$t0")" "$detail"
    elif [ "$f" -gt 0 ] || [ "$rc" -ne 0 ]; then
        record 4e "$name" FAIL "$(since "$t0")" "$detail: $(grep -m 2 '^not ok' "$log" | cut -c1-300 | tr '\n' ' ')"
    elif [ -n "$why" ]; then
        record 4e "$name" SKIP "$(since "$t0")" "$detail without cuDNN; cuDNN itself not run: $why"
    elif [ "$dp" -eq 0 ]; then
        record 4e "$name" FAIL "$(since "$t0")" "$detail, but none by cuDNN on $DEV: $(grep -m 1 '^skip - ' "$log" | cut -c1-300)"
    else
        record 4e "$name" PASS "$(since "$t0")" "$detail; $dp of them by cuDNN on ${GPU_NAME:-$DEV} ($(sed -n 's/^# cuDNN/cuDNN/p' "$log" | head -n 1)); worst errors in $(basename "$log")"
    fi
}

norm_width() { awk -v w="$1" 'BEGIN { printf "%g", w }'; }

# ---- 5b: ddlab's training step on the GPU ----
# Per spec "model:width:batch": BENCH_MS[key], BENCH_PARAMS[key], BENCH_LAYOUT[key]
# with key "model w<width> b<batch>".
declare -A BENCH_MS=() BENCH_PARAMS=() BENCH_LAYOUT=() BENCH_HOW=() BENCH_GF=()
PEAK_S="" PEAK_H=""
step_bench_ddlab() {
    local t0 spec m w b key log=$RES/bench-ddlab.log res=PASS detail="" note="" cut=""
    t0=$(now)
    : >"$log"
    for spec in $BENCH; do
        IFS=: read -r m w b <<<"$spec"
        w=$(norm_width "$w")
        key="$m w$w b$b"
        local out rc
        if [ -x "$BIN/bench/train_step" ]; then
            out=$(limited "$(limit 180)" "$BIN/bench/train_step" --device "$DEV" --model "$m" --width "$w" --batch "$b" \
                --reps "$REPS" --warmup "$WARMUP" --out "$RES/bench" 2>&1)
            rc=$?
            printf '$ train_step --device %s --model %s --width %s --batch %s --reps %s --warmup %s\n%s\n' \
                "$DEV" "$m" "$w" "$b" "$REPS" "$WARMUP" "$out" >>"$log"
        else
            out="not built" rc=127
        fi
        if [ "$rc" -eq 0 ] && grep -q 'median [0-9.]* ms' <<<"$out"; then
            BENCH_MS[$key]=$(sed -n 's/.*: median \([0-9.]*\) ms.*/\1/p' <<<"$out" | head -n 1)
            BENCH_GF[$key]=$(sed -n 's/.*ms, \([0-9.]*\) GFLOP\/s.*/\1/p' <<<"$out" | head -n 1)
            BENCH_PARAMS[$key]=$(sed -n 's/.*params \([0-9]*\).*/\1/p' <<<"$out" | head -n 1)
            BENCH_LAYOUT[$key]=$(sed -n 's/.*layout \([0-9a-f]*\).*/\1/p' <<<"$out" | head -n 1)
            BENCH_HOW[$key]="train_step"
        elif grep -q 'does not train on the GPU yet' <<<"$out" && [ -x "$BIN/lab1" ]; then
            # train_step refuses a GPU: time lab1's iterations instead (same
            # model, home input, batch; synthetic data, no augmentation).
            note="bin/bench/train_step refuses --device $DEV (\"does not train on the GPU yet\"), so ddlab's step is lab1's iteration time (--iters, median after $WARMUP warm-up)"
            local ds=mnist dir=$RES/bench-lab1/$m-w$w-b$b
            case $m in vgg11 | resnet18) ds=cifar10 ;; esac
            out=$(limited "$(limit 180)" "$BIN/lab1" --model "$m" --width "$w" --batch "$b" --dataset "$ds" --synthetic \
                --augment off --iters $((WARMUP + REPS)) --limit $((b * 4)) --test-limit 256 --seed 1 --device "$DEV" \
                --profile smoke --out "$dir" --figures "$RES/lab1-figures" 2>&1)
            rc=$?
            printf '$ lab1 --device %s --model %s --width %s --batch %s --dataset %s --iters %s\n%s\n' \
                "$DEV" "$m" "$w" "$b" "$ds" $((WARMUP + REPS)) "$out" >>"$log"
            local iters summary
            iters=$(ls "$dir"/*-iters.csv 2>/dev/null | head -n 1)
            summary=$(ls "$dir"/*-summary.csv 2>/dev/null | head -n 1)
            if [ "$rc" -eq 0 ] && [ -n "$iters" ]; then
                BENCH_MS[$key]=$(awk -F, -v w="$WARMUP" '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
                    $(c["iter"]) >= w { print $(c["ms"]) }' "$iters" | sort -g |
                    awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
                BENCH_PARAMS[$key]=$(csv_field "$summary" params)
                BENCH_HOW[$key]="lab1 --iters"
            fi
        fi
        if [ -n "${BENCH_MS[$key]:-}" ]; then
            detail="$detail$key: median ${BENCH_MS[$key]} ms/step (${BENCH_HOW[$key]}, params ${BENCH_PARAMS[$key]:-?}$(of_peak "${BENCH_GF[$key]:-}")); "
            [[ " ${GPU_CHECK_FP16:-vgg11 resnet18} " == *" $m "* ]] && detail="$detail$(fp16_step "$m" "$w" "$b" "$log")"
        elif cut_by_deadline "$rc"; then
            cut=1
            detail="$detail$key: cut at the deadline; "
        else
            res=FAIL
            detail="$detail$key: FAILED (exit $rc$([ "$rc" -eq 124 ] && echo ', timed out'): $(tail -n 1 <<<"$out" | cut -c1-200)); "
        fi
    done
    [ -n "$note" ] && detail="$detail$note"
    if [ "$res" = PASS ] && [ -n "$cut" ]; then
        record_cut 5b "ddlab training step on $DEV" "$(since "$t0")" "$detail"
        return
    fi
    record 5b "ddlab training step on $DEV" "$res" "$(since "$t0")" "$detail"
}

# " = G GFLOP/s, P% of the SGEMM peak" (5a), when both are known.
of_peak() {
    [ -n "$1" ] || return 0
    if [ -n "$PEAK_S" ]; then
        awk -v g="$1" -v p="$PEAK_S" 'BEGIN { printf ", %.1f GFLOP/s = %.0f%% of the SGEMM peak", g, 100 * g / p }'
    else
        printf ', %s GFLOP/s' "$1"
    fi
}

# fp16_step MODEL WIDTH BATCH LOG: the same step in mixed precision
# (train_step --fp16), and how it compares with FP32 (FP16 should be
# faster than ddlab's own FP32).
fp16_step() {
    local key="$1 w$2 b$3" out rc ms how
    out=$(limited "$(limit 180)" "$BIN/bench/train_step" --device "$DEV" --model "$1" --width "$2" --batch "$3" \
        --reps "$REPS" --warmup "$WARMUP" --fp16 --out "$RES/bench" 2>&1)
    rc=$?
    printf '$ train_step --device %s --model %s --width %s --batch %s --fp16\n%s\n' "$DEV" "$1" "$2" "$3" "$out" >>"$4"
    ms=$(sed -n 's/.*: median \([0-9.]*\) ms.*/\1/p' <<<"$out" | head -n 1)
    how=$(sed -n 's/.*precision \(.*\))$/\1/p' <<<"$out" | head -n 1)
    if [ "$rc" -ne 0 ] || [ -z "$ms" ]; then
        printf '%s fp16: FAILED (exit %s: %s); ' "$key" "$rc" "$(tail -n 1 <<<"$out" | cut -c1-160)"
        return
    fi
    awk -v k="$key" -v h="$ms" -v f="${BENCH_MS[$key]}" -v how="$how" \
        'BEGIN { r = f / h; printf "%s fp16: median %s ms, fp32/fp16 %.2f (%s, %s); ", k, h, r, (r > 1 ? "faster" : "NOT faster"), how }'
}

# ---- 5a: the SGEMM (and FP16 GemmEx) peak, the reference for 5b's GFLOP/s ----
step_gemm_peak() {
    local t0 out rc log=$RES/gemm-peak.log name="SGEMM peak on $DEV"
    t0=$(now)
    out=$(limited "$(limit 120)" "$BIN/bench/gemm_peak" --device "$DEV" 2>&1)
    rc=$?
    echo "$ gemm_peak --device $DEV"$'\n'"$out" >"$log"
    PEAK_S=$(sed -n 's/^bench sgemm [0-9]*^3: \([0-9.]*\) GFLOP.*/\1/p' <<<"$out" | sort -g | tail -n 1)
    PEAK_H=$(sed -n 's/^bench hgemm [0-9]*^3: \([0-9.]*\) GFLOP.*/\1/p' <<<"$out" | sort -g | tail -n 1)
    if [ "$rc" -eq 0 ] && [ -n "$PEAK_S" ]; then
        record 5a "$name" PASS "$(since "$t0")" "best of square GEMMs on $DEV: SGEMM $PEAK_S GFLOP/s, FP16 GemmEx ${PEAK_H:-n/a} GFLOP/s (gemm-peak.log)"
    else
        record 5a "$name" FAIL "$(since "$t0")" "exit $rc: $(tail -n 1 <<<"$out" | cut -c1-200)"
    fi
}

# ---- 5c: PyTorch eager, the same steps ----
step_bench_torch() {
    local t0 py="" c tdev=cuda log=$RES/bench-torch.log tried=""
    t0=$(now)
    for c in ${GPU_CHECK_PYTHON:-} python3 /usr/bin/python3; do
        command -v "$c" >/dev/null || continue
        tried="$tried $c"
        if "$c" -c 'import torch' >/dev/null 2>&1; then py=$c; break; fi
    done
    local name="PyTorch eager training step"
    if [ -z "$py" ]; then
        record 5c "$name" SKIP "$(since "$t0")" "torch is not importable (tried:${tried:- no python3}); set GPU_CHECK_PYTHON"
        return
    fi
    local stand_in=""
    if [ "$DEV" = cuda-emu ]; then
        tdev=cpu
        stand_in="DRY RUN: PyTorch on the CPU stands in for the GPU, so the ratios mean nothing; "
    fi
    local probe rc
    probe=$(limited "$(limit 60)" "$py" bench/torch_step_gpu.py --device "$tdev" --probe 2>&1)
    rc=$?
    echo "$ $py bench/torch_step_gpu.py --device $tdev --probe"$'\n'"$probe" >"$log"
    if cut_by_deadline "$rc"; then
        record_cut 5c "$name" "$(since "$t0")" "$py's torch probe was running"
        return
    fi
    if [ "$rc" -eq 4 ]; then
        record 5c "$name" SKIP "$(since "$t0")" "$py: $(tail -n 1 <<<"$probe" | sed 's/^torch_step_gpu: //')"
        return
    elif [ "$rc" -ne 0 ]; then
        record 5c "$name" FAIL "$(since "$t0")" "$py bench/torch_step_gpu.py --probe: exit $rc: $(tail -n 1 <<<"$probe" | cut -c1-200)"
        return
    fi
    local specs=() spec m w b
    for spec in $BENCH; do
        IFS=: read -r m w b <<<"$spec"
        specs+=("$m:$(norm_width "$w"):$b")
    done
    local out
    out=$(limited "$(limit 240)" "$py" bench/torch_step_gpu.py --device "$tdev" --reps "$REPS" --warmup "$WARMUP" \
        "${specs[@]}" 2>&1)
    rc=$?
    echo "$ $py bench/torch_step_gpu.py --device $tdev --reps $REPS --warmup $WARMUP ${specs[*]}"$'\n'"$out" >>"$log"
    local res=PASS detail="$stand_in${probe#torch_step_gpu: }; " key line tms tp tl
    if cut_by_deadline "$rc"; then
        record_cut 5c "$name" "$(since "$t0")" "${detail}PyTorch's steps were running"
        return
    fi
    [ "$rc" -eq 0 ] || { res=FAIL; detail="${detail}exit $rc$([ "$rc" -eq 124 ] && echo ' (timed out)'); "; }
    for spec in "${specs[@]}"; do
        IFS=: read -r m w b <<<"$spec"
        key="$m w$w b$b"
        line=$(grep -F "torch_step_gpu $key:" <<<"$out" | head -n 1)
        if [ -z "$line" ]; then
            res=FAIL
            detail="$detail$key: no result ($(tail -n 1 <<<"$out" | cut -c1-200)); "
            continue
        fi
        if grep -q ': error: ' <<<"$line"; then
            res=FAIL
            detail="$detail$key: torch ${line#*: }; "
            continue
        fi
        tms=$(sed -n 's/.*: median \([0-9.]*\) ms.*/\1/p' <<<"$line")
        tp=$(sed -n 's/.*params \([0-9]*\).*/\1/p' <<<"$line")
        tl=$(sed -n 's/.*layout \([0-9a-f]*\).*/\1/p' <<<"$line")
        local arch="params $tp"
        if [ -n "${BENCH_PARAMS[$key]:-}" ] && [ "${BENCH_PARAMS[$key]}" != "$tp" ]; then
            res=FAIL
            arch="params DIFFER: ddlab ${BENCH_PARAMS[$key]}, torch $tp"
        elif [ -n "${BENCH_LAYOUT[$key]:-}" ] && [ "${BENCH_LAYOUT[$key]}" != "$tl" ]; then
            res=FAIL
            arch="layout DIFFERS: ddlab ${BENCH_LAYOUT[$key]}, torch $tl"
        elif [ -n "${BENCH_PARAMS[$key]:-}" ]; then
            arch="$arch on both sides"
        fi
        if [ -n "${BENCH_MS[$key]:-}" ]; then
            detail="$detail$key: ddlab ${BENCH_MS[$key]} ms, torch $tms ms, ddlab/torch $(awk -v a="${BENCH_MS[$key]}" -v t="$tms" 'BEGIN { printf "%.2f", a / t }') ($arch); "
        else
            detail="$detail$key: torch $tms ms, no ddlab time ($arch); "
        fi
    done
    record 5c "$name" "$res" "$(since "$t0")" "$detail"
}

# ---- 5d: the training step with --conv cudnn against --conv auto ----
# Each model: auto, then cudnn, each with --profile-layers (the step's
# median first, then every layer's; the conv2d sum of the per-layer
# medians is the convolutions' time). The cuDNN run's CSV must say every
# convolution ran by cuDNN.
step_bench_cudnn() {
    local t0 log=$RES/bench-cudnn.log name="training step: --conv cudnn vs auto" why
    t0=$(now)
    why=$(cudnn_absent)
    if [ -n "$why" ]; then
        record 5d "$name" SKIP "$(since "$t0")" "not run: $why"
        return
    fi
    : >"$log"
    local spec m w b conv out rc csv res=PASS detail="" cut=""
    local -A ms=() convms=()
    for spec in $CUDNN_BENCH; do
        IFS=: read -r m w b <<<"$spec"
        w=$(norm_width "$w")
        ms=() convms=()
        for conv in auto cudnn; do
            out=$(limited "$(limit 150)" "$BIN/bench/train_step" --device "$DEV" --conv "$conv" --model "$m" --width "$w" \
                --batch "$b" --reps "$REPS" --warmup "$WARMUP" --profile-layers --out "$RES/bench-cudnn" \
                --tag "$m-w$w-b$b-$conv" 2>&1)
            rc=$?
            printf '$ train_step --device %s --conv %s --model %s --width %s --batch %s --reps %s --warmup %s --profile-layers\n%s\n' \
                "$DEV" "$conv" "$m" "$w" "$b" "$REPS" "$WARMUP" "$out" >>"$log"
            csv=$RES/bench-cudnn/train_step-$m-w$w-b$b-$conv.csv
            if [ "$rc" -eq 0 ] && grep -q 'median [0-9.]* ms' <<<"$out"; then
                ms[$conv]=$(sed -n 's/.*: median \([0-9.]*\) ms.*/\1/p' <<<"$out" | head -n 1)
                convms[$conv]=$(awk '$1 == "conv2d" && NF == 4 { printf "%.2f", $2 + $3 }' <<<"$out")
                grep -qE '^# conv: [0-9]+ convolutions: all [0-9]+ cuDNN' "$csv" 2>/dev/null || [ "$conv" = auto ] || {
                    res=FAIL
                    detail="$detail$m w$w b$b: the cudnn run's conv line does not say all cuDNN ($(grep -m 1 '^# conv:' "$csv" 2>/dev/null)); "
                }
            elif cut_by_deadline "$rc"; then
                cut=1
                detail="$detail$m w$w b$b --conv $conv: cut at the deadline; "
            else
                res=FAIL
                detail="$detail$m w$w b$b --conv $conv: FAILED (exit $rc: $(tail -n 1 <<<"$out" | cut -c1-200)); "
            fi
        done
        [ -n "${ms[auto]:-}" ] && [ -n "${ms[cudnn]:-}" ] && detail="$detail$(awk -v k="$m w$w b$b" -v a="${ms[auto]}" \
            -v c="${ms[cudnn]}" -v ca="${convms[auto]:-?}" -v cc="${convms[cudnn]:-?}" 'BEGIN {
                printf "%s: auto %s ms, cudnn %s ms, cudnn/auto %.2f (convolutions, sums of per-layer medians: auto %s ms, cudnn %s ms); ",
                       k, a, c, c / a, ca, cc }')"
    done
    detail="$detail(each layer's times: $(basename "$log"))"
    if [ "$res" = PASS ] && [ -n "$cut" ]; then
        record_cut 5d "$name" "$(since "$t0")" "$detail"
        return
    fi
    record 5d "$name" "$res" "$(since "$t0")" "$detail"
}

# ---- 3a-3d: the sanitizers, one compute-sanitizer tool per step ----
# Each checks the kernel tests, then one small training step per forced
# convolution path (the kernels most likely to hide a bug: they never ran
# on a GPU before, or rarely).
SAN_PATHS="winofused winograd4 direct pointwise"
SAN_STEP=(--model resnet18 --width 0.0625 --batch 2 --reps 1 --warmup 0)

find_sanitizer() {
    local cs d
    cs=$(command -v compute-sanitizer 2>/dev/null)
    for d in /usr/local/cuda/bin ${CUDA_HOME:+$CUDA_HOME/bin}; do
        [ -z "$cs" ] && [ -x "$d/compute-sanitizer" ] && cs=$d/compute-sanitizer
    done
    echo "$cs"
}

# sanitize_one LOG LABEL CAP CMD...: CMD under the step's checker, appended
# to LOG; prints "LABEL: <what it found>" and returns 0 when clean. The
# checker is compute-sanitizer --tool $SAN_TOOL, or on the emulated GPU
# its strict mode ($SAN_TOOL empty).
sanitize_one() {
    local log=$1 label=$2 cap=$3 rc out errs p f
    shift 3
    if [ "$(left)" -lt 1 ]; then
        echo "$label: skipped (deadline)"
        return 3
    fi
    out=$(mktemp)
    if [ -n "$SAN_TOOL" ]; then
        limited "$(limit "$cap")" "$SAN_CS" --tool "$SAN_TOOL" --error-exitcode 99 "$@" >"$out" 2>&1
    else
        limited "$(limit "$cap")" env DDL_EMU_STRICT=1 "$@" >"$out" 2>&1
    fi
    rc=$?
    { echo "==== $label: $*"; cat "$out"; } >>"$log"
    p=$(count '^ok - ' "$out") f=$(count '^not ok - ' "$out")
    if [ -n "$SAN_TOOL" ]; then
        errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$out" | tail -n 1)
        [ -n "$errs" ] || errs=$(sed -n 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) error.*/\1/p' "$out" | tail -n 1)
    else
        errs=$(count 'strict mode: ' "$out")
    fi
    if grep -q 'Device not supported' "$out"; then
        echo "$label: the tool cannot check on this machine ($(grep -m 1 'Device not supported' "$out" | sed 's/^=* *//'))"
        rm -f "$out"
        return 2
    fi
    rm -f "$out"
    if [ "${errs:-0}" = 0 ] && [ "$f" -eq 0 ] && cut_by_deadline "$rc"; then
        echo "$label: cut at the deadline ($p checks passed so far)"
        return 3
    fi
    local what="${errs:-no} report(s)"
    [ "$p" -gt 0 ] && what="$what, $p checks passed, $f failed"
    [ "$rc" -eq 124 ] && what="$what, timed out"
    echo "$label: $what (exit $rc)"
    [ "$rc" -eq 0 ] && [ "${errs:-x}" = 0 ] && [ "$f" -eq 0 ]
}

step_sanitizer() {
    local tool=$1 id t0 log=$RES/sanitizer-$1.log
    case $tool in memcheck) id=3a ;; initcheck) id=3b ;; racecheck) id=3c ;; *) id=3d ;; esac
    t0=$(now)
    SAN_TOOL=$tool SAN_CS=""
    local name="$tool (compute-sanitizer)"
    if [ "$DEV" = cuda-emu ]; then
        if [ "$tool" != memcheck ]; then
            record "$id" "$name" SKIP 0 "dry run: 3a ran the emulator's strict mode, which stands in for every tool"
            return
        fi
        SAN_TOOL="" name="the emulator's strict mode (stands in for compute-sanitizer)"
    else
        SAN_CS=$(find_sanitizer)
        if [ -z "$SAN_CS" ]; then
            record "$id" "$name" SKIP 0 "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
            return
        fi
    fi
    : >"$log"
    local res=PASS detail="" line rc p prog cut=""
    line=$(sanitize_one "$log" "$GPU_TEST" 150 "$BIN/tests/$GPU_TEST")
    rc=$?
    [ "$rc" -eq 2 ] && { record "$id" "$name" SKIP "$(since "$t0")" "$line"; return; }
    [ "$rc" -eq 3 ] && cut=1
    [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || res=FAIL
    detail="$line"
    # each path's kernels (tests/test_path_<name>.c), on the device only;
    # the variable set around the call, not by env(1), so that the
    # sanitizer's target is the test itself
    for prog in "$BIN"/tests/test_path_*; do
        line=$(DDL_COMPARE_ONLY=$DEV sanitize_one "$log" "${prog##*/}" 90 "$prog")
        rc=$?
        [ "$rc" -eq 3 ] && cut=1
        [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || res=FAIL
        detail="$detail; $line"
    done
    # cuDNN under memcheck only (the header says why); where it cannot run, why
    local paths=$SAN_PATHS why
    [ "$tool" = memcheck ] && paths="$paths cudnn"
    for p in $paths; do
        if [ "$p" = cudnn ] && why=$(cudnn_absent) && [ -n "$why" ]; then
            detail="$detail; --conv cudnn train_step: not run ($why)"
            continue
        fi
        line=$(sanitize_one "$log" "--conv $p train_step" 60 "$BIN/bench/train_step" --device "$DEV" --conv "$p" \
            "${SAN_STEP[@]}" \
            --out "$RES/bench")
        rc=$?
        [ "$rc" -eq 3 ] && cut=1
        [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || res=FAIL
        detail="$detail; $line"
    done
    detail="$detail (the steps: train_step ${SAN_STEP[*]}; $(basename "$log"))"
    if [ "$res" = PASS ] && [ -n "$cut" ]; then
        record_cut "$id" "$name" "$(since "$t0")" "$detail"
        return
    fi
    record "$id" "$name" "$res" "$(since "$t0")" "$detail"
}

case ${1:-run} in
    run) run_main ;;
    kit) shift; kit_main "$@" ;;
    *) echo "usage: $0 run | kit DIR [OPENBLAS_SO]" >&2; exit 2 ;;
esac
