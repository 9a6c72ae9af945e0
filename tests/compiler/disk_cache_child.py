"""Child process of test_disk_cache.py: imports the module named on the command line (from the
directory given), calls its functions on seeded random inputs and prints, as JSON, their results
and what the process had to do: Numba typing passes, kernel compilations (calls of the compile
step), code generation (the kernels whose device code was not in the generated-code cache), program
builds by the driver (program cache misses), Numba disk-cache hits, and whether the array-expression
function ran from its source (without Numba)."""

import json
import os
import sys

import numba.core.typed_passes as typed_passes
import numpy as np

import numba_ext
from numba_ext import _core

counts = {"typing": 0, "compiles": 0}


def counting(fn, what):
    def wrapper(*args, **kwargs):
        counts[what] += 1
        return fn(*args, **kwargs)

    return wrapper


_core.compile_kernel = counting(_core.compile_kernel, "compiles")
_core.compile_function = counting(_core.compile_function, "compiles")
typed_passes.NopythonTypeInference.run_pass = counting(typed_passes.NopythonTypeInference.run_pass, "typing")

if os.environ.get("CHILD_OTHER_BUILD"):  # as if numba_ext had been rebuilt or upgraded
    from numba_ext.compiler import disk_cache, numba_hooks

    numba_hooks.build_id = disk_cache.build_id = lambda: ("numba_ext", "another build")

directory, module_name, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, directory)
mod = __import__(module_name)

rng = np.random.default_rng(seed)
a_np, b_np = rng.random(1000), rng.random(1000)
a, b = numba_ext.asarray(a_np), numba_ext.asarray(b_np)
out = numba_ext.full(1000, -7.0)  # poisoned
mod.kern[1000](a, b, out)
results = {
    "expr": numba_ext.asnumpy(mod.expr(a, b)).tolist(),
    "prange": float(mod.reduce(a)),
    "njit": numba_ext.asnumpy(mod.plain(a, b)).tolist(),
    "kernel": numba_ext.asnumpy(out).tolist(),
    "alloc": numba_ext.asnumpy(mod.alloc(5)).tolist(),
}
# `expr` is served from its source (no Numba; its kernel compiled, its device code from the disk)
hits = sum(sum(f.stats.cache_hits.values()) for f in (mod.reduce._dispatcher, mod.plain))
info = _core.program_cache_info()
source = mod.expr._impl is None
counts.update(codegen=info["code_misses"], driver_builds=info["misses"])
print(json.dumps({"results": results, **counts, "numba_hits": hits, "source": source}))
