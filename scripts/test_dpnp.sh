#!/usr/bin/env bash
# `make test-dpnp`: the dpctl / dpnp interop tests (tests/interop_dpnp) in the separate environment of
# benchmarks/setup_dpnp_env.sh (dpnp, dpctl and the Intel OpenCL CPU runtime from PyPI, numba_ext from
# this checkout through PYTHONPATH). Where that environment cannot be made (no network, pip failure)
# the group is skipped with the reason; once it exists, a failing test fails the target.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=${DPNP_VENV:-benchmarks/out/dpnp-venv}
export DPNP_VENV=$VENV

skip() {
    echo "test-dpnp skipped: $1"
    exit 0
}

if ! log=$(bash benchmarks/setup_dpnp_env.sh 2>&1); then
    reason=$(printf '%s\n' "$log" | grep -iE 'error|could not|no matching|network|resolve' | head -1)
    skip "dpnp and dpctl could not be installed from PyPI (${reason:-see benchmarks/setup_dpnp_env.sh})"
fi
PYTEST_PIN=$(grep -E '^pytest==' requirements-dev.txt || echo pytest)
"$VENV/bin/python" -m pip install -q "$PYTEST_PIN" || skip "pytest could not be installed into $VENV"

VENV_ABS=$(cd "$VENV" && pwd)
exec env OCL_ICD_FILENAMES="$VENV_ABS/lib/libintelocl.so" LD_LIBRARY_PATH="$VENV_ABS/lib" \
    ONEAPI_DEVICE_SELECTOR=opencl:cpu PYTHONPATH="$ROOT" NUMBA_EXT_DPNP_TESTS=1 \
    "$VENV/bin/python" -m pytest -q -rs -p no:cacheprovider tests/interop_dpnp
