#!/usr/bin/env bash
# A separate virtual environment with dpnp and dpctl from PyPI, for the dpnp variants of the benchmark
# suite (every workload but knn and first_call; call_overhead compares dpnp's a + b).
#
#   bash benchmarks/setup_dpnp_env.sh            # creates benchmarks/out/dpnp-venv (git-ignored)
#   DPNP_VENV=/some/dir bash benchmarks/setup_dpnp_env.sh
#
# dpnp runs on the same Intel OpenCL CPU device as numba_ext (the `intel-opencl-rt` package): dpctl
# finds it through OCL_ICD_FILENAMES (as dpctl's documentation describes for PyPI installs). The
# environment also gets numba and numpy so that the NumPy and Numba rows are measured in the same
# process; numba_ext itself is taken from this checkout through PYTHONPATH (its extension module is
# built in place by `make build`): where it does not import, its rows read "n/a (numba_ext not
# importable: ...)" and the dpnp rows still run. The download is large (dpnp pulls oneMKL and the
# SYCL runtime, about 3 GB installed; 41 s on the reference machine).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=${DPNP_VENV:-benchmarks/out/dpnp-venv}
PYTHON=${PYTHON:-python3}

mkdir -p "$(dirname "$VENV")"
test -x "$VENV/bin/python" || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# numba's pin from requirements-dev.txt, so the Numba rows match the main environment's
NUMBA_PIN=$(grep -E '^numba==' requirements-dev.txt || echo numba)
"$VENV/bin/python" -m pip install -q dpnp dpctl intel-opencl-rt "$NUMBA_PIN"

VENV_ABS=$(cd "$VENV" && pwd)
ENV_VARS="OCL_ICD_FILENAMES=$VENV_ABS/lib/libintelocl.so LD_LIBRARY_PATH=$VENV_ABS/lib ONEAPI_DEVICE_SELECTOR=opencl:cpu PYTHONPATH=$ROOT"
echo "checking the environment:"
env $ENV_VARS "$VENV/bin/python" - <<'EOF'
import dpctl, dpnp, numba, numpy
print(f"  dpnp {dpnp.__version__}, dpctl {dpctl.__version__}, numba {numba.__version__}, numpy {numpy.__version__}")
print(f"  dpnp default device: {dpctl.select_default_device()}")
try:
    import numba_ext
    print(f"  numba_ext {numba_ext.__version__} on {numba_ext.default_queue().device.name}")
except Exception as e:  # the dpnp rows run without it
    print(f"  numba_ext not importable here ({type(e).__name__}: {e}); its rows will be n/a")
EOF
cat <<EOF

Run the dpnp comparison with:

  $ENV_VARS \\
    $VENV/bin/python benchmarks/run.py --preset S --workloads call_overhead,black_scholes,black_scholes_goal

(black_scholes_goal is Black-Scholes at 2^22 options, the goals' size; leave out --workloads for the
whole suite with its dpnp rows.)
EOF
