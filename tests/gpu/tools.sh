# tests/gpu/tools.sh - what several steps of gpu-check use: the libraries
# the build may link (NCCL, cuDNN), and reading logs and results CSVs.
# Sourced by tests/gpu_check.sh (functions and their globals only).

count() { # count PATTERN FILE: lines matching (0 when none or no file)
    local n
    n=$(grep -c -E -- "$1" "$2" 2>/dev/null) || true
    echo "${n:-0}"
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

# csv_field FILE COLUMN: the first data row's COLUMN of a results CSV.
csv_field() {
    awk -F, -v col="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) idx[$i] = i; h = 1; next }
        { if (col in idx) print $(idx[col]); exit }' "$1" 2>/dev/null
}

norm_width() { awk -v w="$1" 'BEGIN { printf "%g", w }'; }
