#!/usr/bin/env bash
# Run numba_ext's test suite (and benchmarks) on a machine with an NVIDIA GPU that has no package
# registry: build the self-contained wheel here, carry `.gpu/` there, install it and run there. See
# README.md, "Running on an NVIDIA GPU".
#
#   scripts/gpu_check.sh pack              # here (Debian 12 build machine): the wheel into .gpu/
#   scripts/gpu_check.sh run [PYTEST ARGS] # there, from the repo root: pytest (default: tests) on the GPU
#   scripts/gpu_check.sh bench [RUN ARGS]  # there: benchmarks/run.py (default: --preset M --workloads gpu)
#   scripts/gpu_check.sh all [PYTEST ARGS] [-- RUN ARGS]  # there: run, then bench, in one call
#   scripts/gpu_check.sh exec CMD [ARGS]   # there: any command in the prepared environment
#   scripts/gpu_check.sh selftest          # here: the remote half on a copy of the tree, on the CPU
#
# `pack` builds the self-contained wheel with scripts/build_wheel.sh (LLVM linked statically, a
# manylinux tag; the extension needs nothing beyond glibc, libstdc++, libgcc_s and zlib, and opens the
# machine's OpenCL ICD loader at run time) into .gpu/ with a MANIFEST.txt, and prints the size of what
# a device call sends (the working tree plus .gpu) against the 64 MiB limit. Nothing else travels: no
# LLVM, no OpenCL loader, no spirv-val (the tests use it only on SPIR-V devices).
#
# `run`, `bench` and `all` install the wheel alone (`pip install --no-index --no-deps --target
# /tmp/site`; the machine's NumPy and Numba must meet its requirements, which is checked) and run
# against the installed package: PYTHONPATH is /tmp/site alone, and pytest runs from an empty folder
# as `python -m pytest -p numba_ext` (the package imported from there before pytest puts the repo root
# on sys.path for tests/), so the repo's sources, which travel without the extension, never shadow it. They print the environment (GPU, versions, the wheel's install time, the devices),
# then run with NUMBA_EXT_DEVICE=gpu (an existing setting wins). Logs, junit XML and JSON go to $OUT
# when set (else .gpu/out/). The exit status is pytest's (run, all) or run.py's (bench). In `exec`,
# scripts (`python3 benchmarks/x.py`) import the installed numba_ext; `python3 -c`/`-m` need `-P`.
#
# Environment: PYTHON (interpreter; default: the first of /opt/torch/.venv/bin/python3, python3 that
# imports numba), NUMBA_EXT_DEVICE (default gpu), GPU_CHECK_TIMEOUT (seconds for pytest, default 480;
# 300 in `all`), GPU_CHECK_DUMP=1 (keep every device program: NUMBA_EXT_DUMP_DIR, returned as
# $OUT/dump.tar.xz; not with `all`, whose 8 files are the device tool's limit), GPU_CHECK_DIR (default
# .gpu), GPU_CHECK_SITE (where the wheel is installed, default /tmp/site), GPU_CHECK_DIAG=1
# (scripts/gpu_diag.py as well). `pack` passes PYTHON, MATURIN, AUDITWHEEL and CARGO_TARGET_DIR on to
# scripts/build_wheel.sh.
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

# -- here: pack ------------------------------------------------------------------------------------

tree_bytes() {
    # what the device tool sends besides carried paths: tracked and untracked-not-ignored files
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
        if [[ -f $f && ! -L $f ]]; then stat -c %s -- "$f"; fi
    done | awk '{ s += $1 } END { print s + 0 }'
}

dir_bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

pack() {
    mkdir -p "$GPU"
    # what earlier versions of this script packed next to the wheel
    rm -f "$GPU"/numba_ext-*.whl "$GPU"/libs.tar.xz "$GPU"/libs.manifest
    local wheel
    wheel=$(bash "$ROOT/scripts/build_wheel.sh" "$GPU" | tail -1)
    [[ -f $wheel ]] || die "scripts/build_wheel.sh wrote no wheel"
    {
        echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) ($(os_name))"
        echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
        echo "uncommitted library changes: $(git status --porcelain -- rust Cargo.toml Cargo.lock pyproject.toml numba_ext 2>/dev/null | tr '\n' ' ')"
        echo "wheel: $(basename "$wheel") sha256 $(sha256sum "$wheel" | cut -d' ' -f1) $(stat -c %s "$wheel") bytes"
    } >"$GPU/MANIFEST.txt"

    local tree gpu total
    tree=$(tree_bytes)
    gpu=$(dir_bytes "$GPU")
    total=$((tree + gpu))
    echo
    echo "wheel        $(basename "$wheel") ($(mib "$(stat -c %s "$wheel")"))"
    echo "$GPU/        $(mib "$gpu")"
    echo "tree         $(mib "$tree") (tracked + untracked-not-ignored files)"
    echo "travels      $(mib "$total") of ${LIMIT_MIB} MiB (tree + carried $GPU)"
    if ((gpu > GPU_MAX_MIB * 1048576)); then
        die "$GPU is over ${GPU_MAX_MIB} MiB (what else is in it?)"
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

# The installed wheel's requirements (Requires-Dist outside extras) against what this Python has.
check_requirements() {
    "$PY" -P - "$SITE" <<'EOF'
import sys
from importlib import metadata

sys.path.insert(0, sys.argv[1])
dist = metadata.distribution("numba_ext")
try:
    from packaging.requirements import Requirement
except ImportError:
    print("not checked (no packaging module):", dist.requires)
    sys.exit(0)
bad = []
for text in dist.requires or []:
    req = Requirement(text)
    if req.marker is not None and not req.marker.evaluate({"extra": ""}):
        continue
    try:
        have = metadata.version(req.name)
    except metadata.PackageNotFoundError:
        bad.append(f"{req} (not installed)")
        continue
    if not req.specifier.contains(have, prereleases=True):
        bad.append(f"{req} (have {have})")
print("; ".join(bad) if bad else "met")
sys.exit(1 if bad else 0)
EOF
}

setup() {
    local wheels=("$GPU"/numba_ext-*.whl)
    [[ -f ${wheels[0]} ]] || die "no wheel in $GPU: run 'scripts/gpu_check.sh pack' here and carry $GPU"
    ((${#wheels[@]} == 1)) || die "several wheels in $GPU: ${wheels[*]}"
    PY=$(pick_python)
    if [[ -n ${OUT:-} ]]; then OUTDIR=$OUT; elif [[ $GPU == /* ]]; then OUTDIR=$GPU/out; else OUTDIR=$ROOT/$GPU/out; fi
    mkdir -p "$OUTDIR"
    SITE=${GPU_CHECK_SITE:-/tmp/site}
    read_ld_cache

    log "installing ${wheels[0]} (alone) into $SITE"
    rm -rf "$SITE"
    local t0 t1
    t0=$(date +%s.%N)
    if "$PY" -m pip --version >/dev/null 2>&1; then
        PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 \
            "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "${wheels[0]}"
    else  # a wheel is a zip file: unpacked into a folder on sys.path it works the same
        "$PY" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "${wheels[0]}" "$SITE"
    fi
    t1=$(date +%s.%N)
    INSTALL_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    REQUIREMENTS=$(check_requirements) || die "the wheel's requirements are not met by $PY: $REQUIREMENTS"
    # the installed package alone: the repo's sources travel without the extension and must not shadow it
    export PYTHONPATH=$SITE
    # child processes that tests start from the repo root import the repo's sources (the same Python
    # code as the wheel's): they get the installed extension next to them
    cp "$SITE"/numba_ext/_core*.so numba_ext/ 2>/dev/null || true
    for d in "$SITE"/numba_ext.libs; do [[ -d $d ]] && cp -r "$d" . ; done
    export PYTHONUNBUFFERED=1
    export NUMBA_EXT_DEVICE=${NUMBA_EXT_DEVICE-gpu}
    if [[ ${GPU_CHECK_DUMP:-0} == 1 ]]; then
        export NUMBA_EXT_DUMP_DIR=/tmp/nxdump
        rm -rf "$NUMBA_EXT_DUMP_DIR"
        mkdir -p "$NUMBA_EXT_DUMP_DIR"
    fi

    EXT=$SITE/numba_ext/_core.abi3.so
    local missing where
    missing=$(ldd "$EXT" 2>&1 | grep "not found" || true)
    [[ -z $missing ]] || die "the extension's libraries do not resolve: $missing"
    where=$(cd "$ROOT" && "$PY" -P -c 'import numba_ext; print(numba_ext.__file__)' 2>&1 | tail -1)
    [[ $where == "$SITE"/* ]] || die "numba_ext does not come from the installed wheel: $where"
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
    found=$(cd "$ROOT" && "$PY" -P -c 'import numba_ext; print(sum(d.device_type == "gpu" for d in numba_ext.get_devices()))' 2>&1 | tail -1)
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
    echo "wheel installed in $INSTALL_S s (pip install --no-index --no-deps --target $SITE); requirements: $REQUIREMENTS"
    "$PY" -P - <<'EOF' || true
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
    echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    echo "OpenCL loader (opened at run time): $(ld_cache | awk '$1 == "libOpenCL.so.1" { print $NF; exit }')"
    echo "system OpenCL vendors: $(cat /etc/OpenCL/vendors/*.icd 2>/dev/null | tr '\n' ' ')"
    echo "NVIDIA OpenCL driver: $(ld_cache | awk '$1 ~ /^libnvidia-opencl/ { print $NF }' | tr '\n' ' ')"
    echo "libdevice: ${NUMBA_EXT_LIBDEVICE:-$(ls /usr/local/cuda/nvvm/libdevice/libdevice.10.bc 2>/dev/null || echo "not in /usr/local/cuda (numba_ext also looks in the nvidia-nvvm wheel)")}"
    echo "spirv-val: $(command -v spirv-val || echo "none (used by tests on SPIR-V devices only)")"
    echo "== ldd $EXT"
    ldd "$EXT" 2>&1 || true
    echo "== numba_ext devices"
    (cd "$ROOT" && "$PY" -P - <<'EOF' 2>&1) || true
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
    local args=() a
    (($#)) || set -- tests
    # pytest runs from an empty folder, so that neither it nor the Python processes the tests start
    # with `python -c` find the repo's numba_ext (sources without the extension) in the current
    # directory: the repo's paths are given absolute
    for a in "$@"; do
        if [[ $a != -* && $a != /* && -e $ROOT/${a%%::*} ]]; then args+=("$ROOT/$a"); else args+=("$a"); fi
    done
    local cwd
    cwd=$(mktemp -d /tmp/nx-pytest.XXXXXX)
    log "pytest -q -rs $* (from $cwd, NUMBA_EXT_DEVICE=$NUMBA_EXT_DEVICE, stopped after ${timeout_s} s)"
    local rc=0
    # SIGINT at the limit: pytest still prints its summary and writes the junit XML. `-p numba_ext`
    # imports the installed package (PYTHONPATH) before pytest puts the repo root first on sys.path
    # for the tests package.
    (cd "$cwd" && timeout -s INT -k 30 "$timeout_s" "$PY" -m pytest -p numba_ext -q -rs -p no:cacheprovider \
        --rootdir="$ROOT" --junitxml="$OUTDIR/junit.xml" "${args[@]}" 2>&1) | tee "$OUTDIR/pytest.log" ||
        rc=${PIPESTATUS[0]}
    rmdir "$cwd" 2>/dev/null || true
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
    local wheels=("$GPU"/numba_ext-*.whl)
    [[ -f ${wheels[0]} ]] || die "run 'scripts/gpu_check.sh pack' first"
    local py=${PYTHON:-$ROOT/.venv/bin/python}
    local sim
    sim=$(mktemp -d /tmp/gpu-check-sim.XXXXXX)
    log "copying the tree that travels (+ $GPU) to $sim/repo"
    mkdir -p "$sim/repo" "$sim/out"
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
        [[ -f $f ]] && printf '%s\0' "$f"
    done | xargs -0 cp --parents -t "$sim/repo"
    cp -r "$GPU" "$sim/repo/"
    rm -rf "$sim/repo/$GPU/out"
    [[ ! -e $sim/repo/numba_ext/_core.abi3.so ]] || die "the extension travelled with the tree (it must not)"

    log "remote half there: the wheel alone, NUMBA_EXT_DEVICE=cpu, a few tests and a benchmark"
    local rc=0
    (
        cd "$sim/repo"
        export OUT=$sim/out NUMBA_EXT_DEVICE=cpu PYTHON=$py GPU_CHECK_SITE=$sim/site
        bash scripts/gpu_check.sh all tests/packaging tests/devices/test_devices.py tests/compiler/test_emit_helper.py \
            tests/compiler/test_jit_elementwise.py -- --preset S --reps 1 --workloads stream_triad,l2_norm
    ) || rc=$?
    log "checks on the simulation"
    # the installed extension links no LLVM, SPIRV-Tools or OpenCL library, and all it needs resolves
    local ldd_out
    ldd_out=$(ldd "$sim/site/numba_ext/_core.abi3.so")
    echo "$ldd_out"
    if grep -q "not found" <<<"$ldd_out"; then die "unresolved libraries"; fi
    if grep -Eq "libLLVM|libSPIRV|libOpenCL" <<<"$ldd_out"; then die "the installed extension links LLVM, SPIRV-Tools or OpenCL"; fi
    grep -q "^numba_ext .* from $sim/site/numba_ext$" "$sim/out/env.txt" ||
        die "the run did not use the installed wheel (see $sim/out/env.txt)"
    # a clean environment outside the repo: no LLVM tools or spirv-val on PATH, no LD_LIBRARY_PATH
    (cd / && env -i PATH="$(dirname "$py")" HOME="$sim" PYTHONPATH="$sim/site" NUMBA_EXT_DEVICE=cpu "$py" -c '
import numpy as np, numba_ext
assert numba_ext.__file__.startswith("'"$sim"'/site/"), numba_ext.__file__
f = numba_ext.jit(lambda a, b: np.sqrt(a) * b + 1.0)
x = np.random.default_rng().random(1000)
out = numba_ext.asnumpy(f(numba_ext.asarray(x), numba_ext.asarray(x)))
np.testing.assert_allclose(out, np.sqrt(x) * x + 1.0, rtol=1e-12)
print("clean env:", numba_ext.__file__, numba_ext.default_queue().device.name, "values match NumPy")') ||
        die "numba_ext from the installed wheel failed in a clean environment"
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
