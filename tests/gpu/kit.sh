# tests/gpu/kit.sh - make gpu-kit: the headers and libraries bin/gpucheck
# compiles and links against where the GPU machine lacks Debian's packages.
# Sourced by tests/gpu_check.sh (functions and their globals only).

# ---------------------------------------------------------------------------
# make gpu-kit
# ---------------------------------------------------------------------------
# kit_rm DIR: removes DIR only when it is a kit this script made (its
# MANIFEST.txt's first line says so) or an empty folder; anything else
# (a KIT= that names a user's folder) is kept, and the kit is refused.
kit_rm() {
    [ -e "$1" ] || return 0
    if head -n 1 "$1/MANIFEST.txt" 2>/dev/null | grep -q '^ddlab gpu-kit:' || rmdir "$1" 2>/dev/null; then
        rm -rf -- "$1"
        return 0
    fi
    echo "gpu-kit: $1 exists and is not a kit this script made: kept, not removed" >&2
    return 1
}

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
    kit_rm "$tmp" || exit 1
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
    rm -rf -- "$t" # mktemp -d's own folder, above

    local bytes tree limit=$((64 * 1024 * 1024))
    bytes=$(du -sb "$tmp" | cut -f1)
    [ "$bytes" -lt "$limit" ] || die "the kit is $bytes bytes, over 64 MiB"
    kit_rm "$kit" && mv "$tmp" "$kit" || { kit_rm "$tmp"; die "cannot move $tmp to $kit"; }
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
