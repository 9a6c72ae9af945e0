"""Dropping a jitted function or kernel releases its device kernels (their binaries and built
programs): the process-wide compile cache refers to kernels weakly, compiled code refers to them
through its environment, and the extension's caller objects show the garbage collector what they
hold (a jitted function and its dispatcher refer to each other)."""

import gc

import numpy as np
from numba.core.dispatcher import Dispatcher

import numba_ext
from numba_ext import _core

from ..checks import check


def make_function(c):
    def f(a):
        return np.sqrt(a) * 2.0 + c

    return f


def make_kernel(c):
    def k(a, out):
        i = numba_ext.get_global_id(0)
        out[i] = a[i] * c

    return k


def test_dropped_functions_and_kernels_release_their_kernels(rng):
    x_np = rng.random(50)
    x = numba_ext.asarray(x_np)
    # Numba keeps its last 128 dispatchers alive: once earlier tests have made that many, each new
    # one would release an earlier test's kernels during this test
    Dispatcher._recent.clear()
    gc.collect()
    before = _core._live_kernels()
    for i in range(12):  # each a distinct kernel (the constant is part of it)
        c = float(i) + 0.5
        f = numba_ext.jit(make_function(c))
        np.testing.assert_allclose(numba_ext.asnumpy(f(x)), np.sqrt(x_np) * 2.0 + c, rtol=1e-12, atol=1e-14)
        k = numba_ext.kernel(make_kernel(c))
        out = numba_ext.full(50, np.nan)
        k[50](x, out)
        np.testing.assert_allclose(numba_ext.asnumpy(out), x_np * c, rtol=1e-12, atol=1e-14)
    assert _core._live_kernels() >= before + 2  # the last function's and kernel's are alive
    del f, k
    gc.collect()
    assert _core._live_kernels() == before


def test_dropped_functions_are_collected_whichever_paths_served_them(rng):
    """A function served from its source and by Numba (both caches of the extension filled) is freed
    once dropped: no reference cycle runs through the extension's fields, which the garbage collector
    cannot break (it would clear the function's attributes and leave the object itself, and what the
    extension holds for it, alive)."""
    from numba_ext.functions.jit_function import JitFunction

    def alive():
        return sum(type(o) is JitFunction for o in gc.get_objects())

    h = rng.random(16)
    x = numba_ext.asarray(h)
    numba_ext.compiler.jit(lambda a: a + 1.0)(x)  # Numba's typing loaded: both fast paths in use
    gc.collect()
    before = alive()
    for i in range(4):
        c = float(i)
        f = numba_ext.jit(make_function(c))
        for _ in range(3):  # from the source, through the extension's cache
            np.testing.assert_allclose(numba_ext.asnumpy(f(x)), np.sqrt(h) * 2.0 + c, rtol=1e-12, atol=1e-14)
        check(f(numba_ext.asarray(h + 0j)), np.sqrt(h + 0j) * 2.0 + c)  # complex: Numba serves it
    assert alive() >= before + 1
    del f
    gc.collect()
    assert alive() == before


def test_host_code_optimization_makes_one_pass_builder_per_defined_function(rng, monkeypatch):
    """Numba's per-function optimization runs on the functions each module defines: every run
    makes an llvmlite pass builder whose instrumentation LLVM keeps for the life of the process,
    and running it on a declaration does nothing. The array expression's subroutine of a plain
    ``numba.njit`` function is not kept in the target's cache either (its key is a code object
    made for that one compilation)."""
    import numba
    from numba.core import codegen
    from numba.core.registry import cpu_target

    runs, defined = [], []
    make_fpm = codegen.JITCPUCodegen._function_pass_manager
    optimize = codegen.CPUCodeLibrary._optimize_functions

    def counting_fpm(self, **kw):
        runs.append(1)
        return make_fpm(self, **kw)

    def counting_optimize(library, ll_module):
        defined.extend(f.name for f in ll_module.functions if not f.is_declaration)
        return optimize(library, ll_module)

    monkeypatch.setattr(codegen.JITCPUCodegen, "_function_pass_manager", counting_fpm)
    monkeypatch.setattr(codegen.CPUCodeLibrary, "_optimize_functions", counting_optimize)
    monkeypatch.setenv("NUMBA_EXT_HOT_CALLS", "0")  # compiled by Numba from the first call
    h = rng.random(40)
    cache = cpu_target.target_context.cached_internal_func
    numba.njit(make_function(0.0))(h)  # Numba's own helpers (cached for reuse) compiled
    kept = len(cache)
    for i in range(3):
        c = 0.25 + i
        f = numba_ext.jit(make_function(c))
        r = numba_ext.asnumpy(f(numba_ext.asarray(h)))
        np.testing.assert_allclose(r, np.sqrt(h) * 2.0 + c, rtol=1e-12)
        g = numba.njit(make_function(c))
        np.testing.assert_allclose(g(h), np.sqrt(h) * 2.0 + c, rtol=1e-12)
        assert len(cache) == kept
    assert 0 < len(runs) == len(defined)
