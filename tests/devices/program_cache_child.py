"""Child process of the program-cache tests (run as a script, so that the in-process caches of the
test process cannot hide the disk cache): launches the named kernels on fresh random inputs, checks
each result against NumPy, and prints the program cache's state and the CacheWarnings as JSON.

Arguments: seed, kernel names (comma separated: a, b, c; e for an eager expression), and optionally
a folder in which to write ``ready.<pid>`` and then wait for ``go`` (to start many at once)."""

import json
import os
import sys
import time
import warnings

import numpy as np

import numba_ext as nx


@nx.kernel
def kernel_a(x, out):
    i = nx.get_global_id(0)
    out[i] = x[i] * 2.0 + 1.0


@nx.kernel
def kernel_b(x, out):
    i = nx.get_global_id(0)
    out[i] = x[i] - 3.0


@nx.kernel
def kernel_c(x, out):
    i = nx.get_global_id(0)
    out[i] = x[i] * x[i] + 0.5


REFERENCE = {
    "a": (kernel_a, lambda x: x * np.float32(2) + np.float32(1)),
    "b": (kernel_b, lambda x: x - np.float32(3)),
    "c": (kernel_c, lambda x: x * x + np.float32(0.5)),
}


def run(name: str, x: np.ndarray) -> None:
    if name == "e":
        got = nx.asnumpy(nx.asarray(x) * np.float32(4) - np.float32(2))
        want = x * np.float32(4) - np.float32(2)
    else:
        kern, ref = REFERENCE[name]
        out = nx.asarray(np.full(x.size, np.nan, dtype=np.float32))  # poisoned
        kern[nx.Range(x.size)](nx.asarray(x), out)
        got, want = nx.asnumpy(out), ref(x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)


def main() -> None:
    seed, names = int(sys.argv[1]), sys.argv[2].split(",")
    if len(sys.argv) > 3:
        sync = sys.argv[3]
        open(os.path.join(sync, f"ready.{os.getpid()}"), "w").close()
        while not os.path.exists(os.path.join(sync, "go")):
            time.sleep(0.01)
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name in names:
            run(name, (rng.standard_normal(1000) * 3).astype(np.float32))
    info = nx._core.program_cache_info()
    info["checked"] = len(names)
    info["cache_warnings"] = [
        str(w.message) for w in caught if issubclass(w.category, nx.errors.CacheWarning)
    ]
    print(json.dumps(info))


if __name__ == "__main__":
    main()
