#!/usr/bin/env bash
# Run numba_ext's test suite (and benchmarks) on a machine with an NVIDIA GPU that has no package
# registry: build and pack here, carry `.gpu/` there, run there. See README.md, "Running on an
# NVIDIA GPU".
#
#   scripts/gpu_check.sh pack              # here (Debian 12 build machine): wheel + libraries into .gpu/
#   scripts/gpu_check.sh run [PYTEST ARGS] # there, from the repo root: pytest (default: tests) on the GPU
#   scripts/gpu_check.sh bench [RUN ARGS]  # there: benchmarks/run.py (default: --preset M --workloads gpu)
#   scripts/gpu_check.sh all [PYTEST ARGS] [-- RUN ARGS]  # there: run, then bench, in one call
#   scripts/gpu_check.sh exec CMD [ARGS]   # there: any command in the prepared environment
#   scripts/gpu_check.sh selftest          # here: the remote half on a copy of the tree, on the CPU
#
# `pack` builds a release wheel (`maturin build --release`) and packs the shared libraries the
# extension needs beyond glibc, libstdc++ and libgcc_s (libLLVM.so.22.1 and its Debian 12
# dependencies), Debian's OpenCL ICD loader and spirv-val into .gpu/libs.tar.xz. It prints the size
# of what a device call sends (the working tree plus .gpu) against the 64 MiB limit. GPU_PACK_EXCLUDE
# ("libz3.so.4 libicudata.so.72 ...") leaves libraries out (the remote half then needs the machine's
# own); GPU_PACK_XZ sets the xz options (default --x86 --lzma2=preset=9e).
#
# `run`, `bench` and `all` unpack the libraries into /tmp/nxlibs-all and link into /tmp/nxlibs (on
# LD_LIBRARY_PATH) only those the machine lacks (libLLVM always; GPU_CHECK_LIBS=all: every carried
# one), install the wheel into /tmp/site, copy its extension into numba_ext/ (so the repo's sources,
# first on sys.path, import it), print the environment, then run with NUMBA_EXT_DEVICE=gpu (unless
# set). Logs, junit XML and JSON go to $OUT when set (else .gpu/out/). The exit status is pytest's
# (run, all) or run.py's (bench).
#
# Environment: PYTHON (interpreter; default: the first of /opt/torch/.venv/bin/python3, python3 that
# imports numba), NUMBA_EXT_DEVICE (default gpu), GPU_CHECK_LIBS (gaps|all), GPU_CHECK_TIMEOUT
# (seconds for pytest, default 480; 300 in `all`), GPU_CHECK_DUMP=1 (keep every device program:
# NUMBA_EXT_DUMP_DIR, returned as $OUT/dump.tar.xz; not with `all`, whose 8 files are the device
# tool's limit), GPU_CHECK_DIR (default .gpu).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
GPU=${GPU_CHECK_DIR:-.gpu}
LIMIT_MIB=64
# what a device call may carry besides the tree; pack fails above this
GPU_MAX_MIB=${GPU_MAX_MIB:-45}

log() { printf '%s\n' "== $*" >&2; }
die() { printf 'gpu_check: %s\n' "$*" >&2; exit 2; }
os_name() { sed -n 's/^PRETTY_NAME=//p' /etc/os-release 2>/dev/null | tr -d '"'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

# Libraries never carried: the C library family, libstdc++ and libgcc_s (the GPU machine's are newer).
SYSTEM_LIBS='^(linux-vdso|linux-gate|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libutil\.so|libresolv\.so|libstdc\+\+\.so|libgcc_s\.so)'

# -- here: pack ------------------------------------------------------------------------------------

tree_bytes() {
    # what the device tool sends besides carried paths: tracked and untracked-not-ignored files
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
        if [[ -f $f && ! -L $f ]]; then stat -c %s -- "$f"; fi
    done | awk '{ s += $1 } END { print s + 0 }'
}

dir_bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

# The shared libraries (resolved paths) a library needs, minus the system ones; one "soname path" a line.
closure() {
    ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | grep -Ev "$SYSTEM_LIBS" || true
    if ldd "$1" | grep -q "not found"; then
        ldd "$1" | grep "not found" >&2
        die "$1 has unresolved libraries here"
    fi
}

pack() {
    local maturin=${MATURIN:-$ROOT/.venv/bin/maturin} py=${PYTHON:-$ROOT/.venv/bin/python}
    [[ -x $maturin ]] || die "no maturin at $maturin (make setup, or set MATURIN)"
    command -v xz >/dev/null || die "xz is needed (apt-get install xz-utils)"
    export LLVM_SYS_221_PREFIX=${LLVM_SYS_221_PREFIX:-/usr/lib/llvm-22}
    mkdir -p "$GPU"
    PACK_TMP=$(mktemp -d)
    trap 'rm -rf "${PACK_TMP:-}"' EXIT
    local tmp=$PACK_TMP

    log "building the release wheel (maturin build --release; LLVM_SYS_221_PREFIX=$LLVM_SYS_221_PREFIX)"
    # plain linux tag, no auditwheel: the libraries travel separately (libs.tar.xz), not in the wheel
    VIRTUAL_ENV=$ROOT/.venv PATH=$ROOT/.venv/bin:$PATH "$maturin" build --release --strip \
        --compatibility linux --auditwheel skip -i "$py" -o "$tmp/wheel"
    local wheel
    wheel=$(find "$tmp/wheel" -name 'numba_ext-*.whl' | head -1)
    [[ -n $wheel ]] || die "maturin wrote no wheel"
    rm -f "$GPU"/numba_ext-*.whl
    cp "$wheel" "$GPU/"
    wheel=$GPU/$(basename "$wheel")

    "$py" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("numba_ext/_core.abi3.so", sys.argv[2])' \
        "$wheel" "$tmp/ext"
    local ext=$tmp/ext/numba_ext/_core.abi3.so
    log "libraries the extension needs (ldd), without glibc/libstdc++/libgcc_s:"
    local stage=$tmp/stage
    mkdir -p "$stage/lib" "$stage/opencl" "$stage/bin"
    local deps soname path
    deps=$(closure "$ext" | sort -u)
    local exclude=" ${GPU_PACK_EXCLUDE:-} "
    while read -r soname path; do
        if [[ $exclude == *" $soname "* ]]; then
            printf '   %-22s %s (not packed: GPU_PACK_EXCLUDE)\n' "$soname" "$path" >&2
            continue
        fi
        printf '   %-22s %s\n' "$soname" "$path" >&2
        cp -L "$path" "$stage/lib/$soname"
    done <<<"$deps"
    [[ -f $stage/lib/libLLVM.so.22.1 ]] || die "the extension does not link libLLVM.so.22.1: check the ldd output"
    # the ICD loader, used there only if the machine has none; spirv-val for the tests that validate SPIR-V
    local ocl
    ocl=$(ldconfig -p | awk '$1 == "libOpenCL.so.1" && /x86-64/ { print $NF; exit }')
    [[ -n $ocl ]] || die "no libOpenCL.so.1 here (apt-get install ocl-icd-libopencl1)"
    cp -L "$ocl" "$stage/opencl/libOpenCL.so.1"
    if command -v spirv-val >/dev/null; then
        cp -L "$(command -v spirv-val)" "$stage/bin/spirv-val"
    fi

    # re-compress only when the libraries changed (xz of 150 MB takes a minute or two on 2 cores)
    local manifest
    local xz_opts=${GPU_PACK_XZ:---x86 --lzma2=preset=9e}
    manifest=$( (echo "xz $xz_opts" && cd "$stage" && find . -type f -exec md5sum {} + | sort -k2) )
    if [[ -f $GPU/libs.tar.xz && -f $GPU/libs.manifest && "$(cat "$GPU/libs.manifest")" == "$manifest" ]]; then
        log "libraries unchanged: keeping $GPU/libs.tar.xz"
    else
        log "compressing the libraries (xz -T2 $xz_opts; a few minutes on 2 cores, done again only when they change)"
        # shellcheck disable=SC2086  # xz_opts is a list of options
        tar --owner=0 --group=0 --numeric-owner -C "$stage" -cf - lib opencl bin | xz -T2 $xz_opts >"$GPU/libs.tar.xz.tmp"
        mv "$GPU/libs.tar.xz.tmp" "$GPU/libs.tar.xz"
        printf '%s\n' "$manifest" >"$GPU/libs.manifest"
    fi

    {
        echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) ($(os_name))"
        echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
        echo "uncommitted library changes: $(git status --porcelain -- rust Cargo.toml Cargo.lock pyproject.toml numba_ext 2>/dev/null | tr '\n' ' ')"
        echo "wheel: $(basename "$wheel") sha256 $(sha256sum "$wheel" | cut -d' ' -f1)"
        echo "libraries:"
        (cd "$stage" && find . -type f -printf '  %p %s\n' | sort)
    } >"$GPU/MANIFEST.txt"

    local tree gpu total
    tree=$(tree_bytes)
    gpu=$(dir_bytes "$GPU")
    total=$((tree + gpu))
    echo
    echo "wheel        $(basename "$wheel") ($(mib "$(stat -c %s "$wheel")"))"
    echo "libs.tar.xz  $(mib "$(stat -c %s "$GPU/libs.tar.xz")") ($(mib "$(dir_bytes "$stage")") unpacked)"
    echo "$GPU/        $(mib "$gpu")"
    echo "tree         $(mib "$tree") (tracked + untracked-not-ignored files)"
    echo "travels      $(mib "$total") of ${LIMIT_MIB} MiB (tree + carried $GPU)"
    if ((gpu > GPU_MAX_MIB * 1048576)); then
        die "$GPU is over ${GPU_MAX_MIB} MiB"
    fi
    if ((total > LIMIT_MIB * 1048576)); then
        die "the tree plus $GPU is over the ${LIMIT_MIB} MiB a device call carries"
    fi
    echo "device tool: carry [\"$GPU\"], command: bash scripts/gpu_check.sh run   (or bench, all)"
}

# -- there: run / bench ----------------------------------------------------------------------------

pick_python() {
    if [[ -n ${PYTHON:-} ]]; then
        echo "$PYTHON"
        return
    fi
    local c
    for c in /opt/torch/.venv/bin/python3 python3; do
        if command -v "$c" >/dev/null && "$c" -c 'import numba, numpy' 2>/dev/null; then
            command -v "$c"
            return
        fi
    done
    die "no Python with numba and numpy found (set PYTHON)"
}

# The dynamic linker's cache ("ldconfig -p"), read once by setup.
LD_CACHE=
read_ld_cache() { LD_CACHE=$("$(command -v ldconfig || echo /sbin/ldconfig)" -p 2>/dev/null || true); }
ld_cache() { printf '%s\n' "$LD_CACHE"; }

have_system_lib() {
    local name=$1 d
    if ld_cache | awk -v n="$name" '$1 == n && /x86-64/ { f = 1 } END { exit !f }'; then
        return 0
    fi
    for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64; do
        [[ -e $d/$name ]] && return 0
    done
    return 1
}

# Link the carried libraries the machine lacks (mode gaps) or all of them (mode all) into $NXLIBS.
link_libs() {
    local mode=$1 f so
    rm -rf "$NXLIBS"
    mkdir -p "$NXLIBS"
    CARRIED=()
    for f in "$NXLIBS_ALL"/lib/*; do
        so=$(basename "$f")
        if [[ $mode == all || $so == libLLVM.so.* ]] || ! have_system_lib "$so"; then
            ln -s "$f" "$NXLIBS/$so"
            CARRIED+=("$so")
        fi
    done
    if [[ $mode == all ]] || ! have_system_lib libOpenCL.so.1; then
        ln -s "$NXLIBS_ALL/opencl/libOpenCL.so.1" "$NXLIBS/libOpenCL.so.1"
        CARRIED+=("libOpenCL.so.1")
    fi
}

setup() {
    [[ -f $GPU/libs.tar.xz ]] || die "$GPU/libs.tar.xz is missing: run 'scripts/gpu_check.sh pack' here and carry $GPU"
    local wheels=("$GPU"/numba_ext-*.whl)
    [[ -f ${wheels[0]} ]] || die "no wheel in $GPU: run 'scripts/gpu_check.sh pack' and carry $GPU"
    PY=$(pick_python)
    if [[ -n ${OUT:-} ]]; then OUTDIR=$OUT; elif [[ $GPU == /* ]]; then OUTDIR=$GPU/out; else OUTDIR=$ROOT/$GPU/out; fi
    mkdir -p "$OUTDIR"
    NXLIBS_ALL=${NXLIBS_ALL:-/tmp/nxlibs-all}
    NXLIBS=${NXLIBS_DIR:-/tmp/nxlibs}
    SITE=${GPU_CHECK_SITE:-/tmp/site}

    log "unpacking $GPU/libs.tar.xz into $NXLIBS_ALL"
    rm -rf "$NXLIBS_ALL"
    mkdir -p "$NXLIBS_ALL"
    # Python's tarfile reads xz itself (no xz binary needed there)
    "$PY" - "$GPU/libs.tar.xz" "$NXLIBS_ALL" <<'EOF'
import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    kw = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
    t.extractall(sys.argv[2], **kw)
EOF
    local mode=${GPU_CHECK_LIBS:-gaps}
    read_ld_cache
    link_libs "$mode"
    export LD_LIBRARY_PATH=$NXLIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    # the carried spirv-val only where the machine has none
    command -v spirv-val >/dev/null || export PATH=$PATH:$NXLIBS_ALL/bin

    log "installing ${wheels[0]} into $SITE"
    rm -rf "$SITE"
    if "$PY" -m pip --version >/dev/null 2>&1; then
        PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 \
            "$PY" -m pip install -q --no-index --no-deps --no-compile --upgrade --target "$SITE" "${wheels[0]}"
    else  # a wheel is a zip file: unpacked into a folder on sys.path it works the same
        "$PY" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "${wheels[0]}" "$SITE"
    fi
    # `python -m pytest` from the repo root puts the repo first on sys.path: give its numba_ext the extension
    cp "$SITE/numba_ext/_core.abi3.so" "$ROOT/numba_ext/_core.abi3.so"
    # the repo's Python sources first (they travel with every call), /tmp/site for the installed
    # distribution's metadata (Numba's numba_extensions entry point)
    export PYTHONPATH=$ROOT:$SITE${PYTHONPATH:+:$PYTHONPATH}
    export PYTHONUNBUFFERED=1
    export NUMBA_EXT_DEVICE=${NUMBA_EXT_DEVICE-gpu}
    if [[ ${GPU_CHECK_DUMP:-0} == 1 ]]; then
        export NUMBA_EXT_DUMP_DIR=/tmp/nxdump
        rm -rf "$NUMBA_EXT_DUMP_DIR"
        mkdir -p "$NUMBA_EXT_DUMP_DIR"
    fi

    local ext=$ROOT/numba_ext/_core.abi3.so missing
    missing=$(ldd "$ext" 2>&1 | grep "not found" || true)
    if [[ -n $missing && $mode != all ]]; then
        log "with the machine's own libraries: $missing"
        log "retrying with every carried library (GPU_CHECK_LIBS=all)"
        link_libs all
        missing=$(ldd "$ext" 2>&1 | grep "not found" || true)
    fi
    [[ -z $missing ]] || die "the extension's libraries do not resolve: $missing"
    ensure_gpu_icd
    environment_report | tee "$OUTDIR/env.txt"
    if [[ ${GPU_CHECK_DIAG:-0} == 1 ]]; then
        log "diagnostics (scripts/gpu_diag.py)"
        "$PY" "$ROOT/scripts/gpu_diag.py" 2>&1 | tee -a "$OUTDIR/env.txt" || true
        nvidia-smi --query-gpu=compute_mode,memory.used --format=csv 2>&1 | tee -a "$OUTDIR/env.txt" || true
    fi
}

# numba_ext registers NVIDIA's OpenCL driver itself (numba_ext/devices/drivers.py). If it finds no GPU anyway,
# say so loudly and register the driver here, so the run still tells us about the GPU.
ensure_gpu_icd() {
    local found
    found=$("$PY" -c 'import numba_ext; print(sum(d.device_type == "gpu" for d in numba_ext.get_devices()))' 2>&1 | tail -1)
    [[ $found =~ ^[0-9]+$ ]] || found=0
    if ((found > 0)) || [[ $NUMBA_EXT_DEVICE != *gpu* ]]; then
        return 0
    fi
    local lib
    lib=$(ld_cache | awk '$1 == "libnvidia-opencl.so.1" && /x86-64/ { print $NF; exit }')
    [[ -n $lib ]] || lib=$(find /usr/lib /usr/lib64 /usr/local /opt -name 'libnvidia-opencl.so.1' 2>/dev/null | head -1 || true)
    log "WARNING: numba_ext lists no OpenCL GPU with its own ICD registration (OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-unset})"
    if [[ -z $lib ]]; then
        log "WARNING: no libnvidia-opencl.so.1 on this machine: numba_ext cannot see the GPU"
        return 0
    fi
    local icd=/tmp/nxicd f
    rm -rf "$icd"
    mkdir -p "$icd"
    for f in /etc/OpenCL/vendors/*.icd; do [[ -f $f ]] && cp "$f" "$icd/"; done
    echo "$lib" >"$icd/nvidia.icd"
    export OCL_ICD_VENDORS=$icd
    log "WARNING: registered $lib through OCL_ICD_VENDORS=$icd ourselves (a gap in numba_ext/devices/drivers.py)"
}

environment_report() {
    echo "== environment ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
    echo "host: $(uname -n) $(uname -srm); $(os_name); $(ldd --version 2>&1 | head -1)"
    echo "cpus: $(nproc)"
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi -L || true
        nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || true
    else
        echo "nvidia-smi: not found"
    fi
    [[ -f $GPU/MANIFEST.txt ]] && sed -n '1,4p' "$GPU/MANIFEST.txt"
    echo "python: $PY"
    "$PY" - <<'EOF' || true
import importlib, platform
print("python", platform.python_version())
for name in ("numpy", "numba", "cupy", "pytest", "hypothesis", "matplotlib"):
    try:
        m = importlib.import_module(name)
        print(f"{name} {getattr(m, '__version__', '?')}")
    except Exception as e:
        print(f"{name}: not importable ({type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''})")
try:
    from importlib.metadata import version
    print("numba-cuda", version("numba-cuda"))
except Exception as e:
    print(f"numba-cuda: no distribution ({type(e).__name__})")
EOF
    echo "NUMBA_EXT_DEVICE=$NUMBA_EXT_DEVICE"
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    echo "carried libraries in use: ${CARRIED[*]}"
    echo "OpenCL loader: $(ld_cache | awk '$1 == "libOpenCL.so.1" { print $NF; exit }') (carried one in use: $([[ -e $NXLIBS/libOpenCL.so.1 ]] && echo yes || echo no))"
    echo "system OpenCL vendors: $(cat /etc/OpenCL/vendors/*.icd 2>/dev/null | tr '\n' ' ')"
    echo "NVIDIA OpenCL driver: $(ld_cache | awk '$1 ~ /^libnvidia-opencl/ { print $NF }' | tr '\n' ' ')"
    echo "spirv-val: $(command -v spirv-val || echo none)"
    echo "== ldd numba_ext/_core.abi3.so"
    ldd "$ROOT/numba_ext/_core.abi3.so" 2>&1 || true
    echo "== numba_ext devices"
    "$PY" - <<'EOF' 2>&1 || true
import os
import numba_ext
print("numba_ext", numba_ext.__version__, "from", os.path.dirname(numba_ext.__file__))
print("OCL_ICD_VENDORS", os.environ.get("OCL_ICD_VENDORS"), os.listdir(os.environ["OCL_ICD_VENDORS"])
      if os.environ.get("OCL_ICD_VENDORS") else "")
for d in numba_ext.get_devices():
    print(f"{d.filter_string:<18} {d.device_type:<6} fp64={d.has_fp64} usm={d.has_usm} target={d.target} "
          f"{d.name} [{d.vendor}] driver {d.driver_version}")
try:
    q = numba_ext.default_queue()
    print(f"default device (NUMBA_EXT_DEVICE={os.environ.get('NUMBA_EXT_DEVICE')!r}): {q.device.name} "
          f"[{q.device.filter_string}] target {q.device.target}")
except Exception as e:
    print(f"default device: {type(e).__name__}: {e}")
EOF
}

save_dump() {
    if [[ ${GPU_CHECK_DUMP:-0} == 1 && -d ${NUMBA_EXT_DUMP_DIR:-} ]]; then
        tar -C "$NUMBA_EXT_DUMP_DIR" -cf - . | xz -T0 -6 >"$OUTDIR/dump.tar.xz" || true
    fi
}

run_tests() {
    local timeout_s=${GPU_CHECK_TIMEOUT:-$1}
    shift
    local args=("$@")
    ((${#args[@]})) || args=(tests)
    log "pytest -q -rs ${args[*]} (NUMBA_EXT_DEVICE=$NUMBA_EXT_DEVICE, stopped after ${timeout_s} s)"
    local rc=0
    # SIGINT at the limit: pytest still prints its summary and writes the junit XML
    timeout -s INT -k 30 "$timeout_s" "$PY" -m pytest -q -rs -p no:cacheprovider \
        --junitxml="$OUTDIR/junit.xml" "${args[@]}" 2>&1 | tee "$OUTDIR/pytest.log" || rc=${PIPESTATUS[0]}
    log "pytest exit status $rc; log and junit XML in $OUTDIR"
    return "$rc"
}

run_bench() {
    local args=("$@")
    ((${#args[@]})) || args=(--preset M --workloads gpu --reps 7)
    local json=$OUTDIR/bench.json
    log "benchmarks/run.py ${args[*]} --markdown --json $json (NUMBA_EXT_DEVICE=$NUMBA_EXT_DEVICE)"
    local rc=0
    "$PY" benchmarks/run.py "${args[@]}" --markdown --json "$json" 2>&1 | tee "$OUTDIR/bench.log" || rc=${PIPESTATUS[0]}
    if [[ -f $json ]]; then
        MPLBACKEND=Agg "$PY" benchmarks/plot.py "$json" 2>&1 | tee -a "$OUTDIR/bench.log" || true
    fi
    log "run.py exit status $rc; JSON, log and plots in $OUTDIR"
    return "$rc"
}

# -- here: the remote half on a copy of the tree --------------------------------------------------

selftest() {
    [[ -f $GPU/libs.tar.xz ]] || die "run 'scripts/gpu_check.sh pack' first"
    local sim
    sim=$(mktemp -d /tmp/gpu-check-sim.XXXXXX)
    log "copying the tree that travels (+ $GPU) to $sim/repo"
    mkdir -p "$sim/repo" "$sim/out"
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
        [[ -f $f ]] && printf '%s\0' "$f"
    done | xargs -0 cp --parents -t "$sim/repo"
    cp -r "$GPU" "$sim/repo/"
    [[ ! -e $sim/repo/numba_ext/_core.abi3.so ]] || die "the extension travelled with the tree (it must not)"

    log "remote half there: all carried libraries, NUMBA_EXT_DEVICE=cpu, a few tests and a benchmark"
    local rc=0
    (
        cd "$sim/repo"
        export OUT=$sim/out NUMBA_EXT_DEVICE=cpu GPU_CHECK_LIBS=all PYTHON=$ROOT/.venv/bin/python
        export NXLIBS_ALL=$sim/nxlibs-all NXLIBS_DIR=$sim/nxlibs GPU_CHECK_SITE=$sim/site
        bash scripts/gpu_check.sh all tests/devices/test_devices.py tests/compiler/test_jit_elementwise.py -- \
            --preset S --reps 1 --workloads stream_triad,l2_norm
    ) || rc=$?
    log "checks on the simulation"
    # every library the extension needs resolves into the carried folder, none from the system
    local ldd_out
    ldd_out=$(LD_LIBRARY_PATH=$sim/nxlibs ldd "$sim/site/numba_ext/_core.abi3.so")
    echo "$ldd_out"
    if grep -q "not found" <<<"$ldd_out"; then die "unresolved libraries"; fi
    local lib
    for lib in $(awk '$2 == "=>" { print $1 }' <<<"$ldd_out" | grep -Ev "$SYSTEM_LIBS" || true); do
        grep -q "^[[:space:]]*$lib => $sim/nxlibs/" <<<"$ldd_out" || die "$lib does not come from $sim/nxlibs"
    done
    # a clean environment, outside the repo: numba_ext from the installed wheel alone
    (cd / && env -i PATH=/usr/bin:/bin HOME="$sim" LD_LIBRARY_PATH="$sim/nxlibs" PYTHONPATH="$sim/site" \
        NUMBA_EXT_DEVICE=cpu "$ROOT/.venv/bin/python" -c '
import numpy as np, numba_ext
assert numba_ext.__file__.startswith("'"$sim"'/site/"), numba_ext.__file__
f = numba_ext.jit(lambda a, b: np.sqrt(a) * b + 1.0)
a = numba_ext.asarray(np.arange(8.0)); b = numba_ext.asarray(np.ones(8))
print("clean env:", numba_ext.__file__, numba_ext.default_queue().device.name, numba_ext.asnumpy(f(a, b)))') \
        || die "numba_ext from the installed wheel failed in a clean environment"
    ls -la "$sim/out"
    log "selftest: remote half exit status $rc; files in $sim"
    return "$rc"
}

# -- main -------------------------------------------------------------------------------------------

main() {
    local cmd=${1:-}
    shift || true
    case $cmd in
    pack) pack ;;
    run)
        setup
        local rc=0
        run_tests 480 "$@" || rc=$?
        save_dump
        exit "$rc"
        ;;
    bench)
        setup
        local rc=0
        run_bench "$@" || rc=$?
        save_dump
        exit "$rc"
        ;;
    all)
        # all [PYTEST ARGS] [-- RUN.PY ARGS]
        local targs=() bargs=()
        while (($#)) && [[ $1 != -- ]]; do targs+=("$1"); shift; done
        (($#)) && shift
        bargs=("$@")
        setup
        local rc=0 brc=0
        run_tests 300 "${targs[@]}" || rc=$?
        run_bench "${bargs[@]}" || brc=$?
        save_dump
        ((rc != 0)) || rc=$brc
        exit "$rc"
        ;;
    exec)
        # exec CMD [ARGS]: any command in the prepared environment (probes, one workload)
        setup
        "$@"
        ;;
    selftest) selftest ;;
    *)
        sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
        [[ $cmd == -h || $cmd == --help || $cmd == help ]] || exit 2
        ;;
    esac
}

main "$@"
