"""Host code of numba_ext.jit functions: optimized in numba_ext's LLVM with Numba's pipelines, loaded
into Numba's JIT from object code, the full module freed with its function."""

from __future__ import annotations

import collections
import gc
import re
import weakref

import llvmlite.binding as llvm
import numba
import numpy as np
import pytest
from numba.core import codegen, config

import numba_ext
from numba_ext import _core
from numba_ext.compiler import host_libraries
from numba_ext.errors import CodegenError


def make_function(c):
    def f(a, n):
        t = 0
        for i in range(n):  # a host loop next to the offloaded expression
            t += (i * 7) % 5
        return np.sqrt(a) * 2.0 + c, t

    return f


def expected(h, n, c):
    return np.sqrt(h) * 2.0 + c, sum((i * 7) % 5 for i in range(n))


def run_checked(fn, h, n, c):
    """Call `fn` (a jitted `make_function(c)`) on `h` and `n` and check both results."""
    r, t = fn(numba_ext.asarray(h), n)
    want, want_t = expected(h, n, c)
    np.testing.assert_allclose(numba_ext.asnumpy(r), want, rtol=1e-12, atol=1e-14)
    assert t == want_t


def library_of(jitted):
    (cres,) = jitted._dispatcher.overloads.values()
    return cres.library


@pytest.fixture
def by_numba(monkeypatch):
    monkeypatch.setenv("NUMBA_EXT_HOT_CALLS", "0")  # compiled by Numba from the first call


def test_host_code_is_optimized_without_llvmlite_pipelines(rng, by_numba, monkeypatch):
    """No llvmlite pipeline (each would keep its instrumentation for the life of the process) runs
    for a numba_ext.jit function, once Numba's helpers it shares with others are compiled; its
    results are right, its module stays inspectable."""
    if not host_libraries.available():
        pytest.fail(f"no host optimizer here: {_core.host_optimizer()}, llvmlite {llvm.llvm_version_info}")
    built = []
    for name in ("_function_pass_manager", "_module_pass_manager"):
        original = getattr(codegen.JITCPUCodegen, name)

        def counting(self, _original=original, _name=name, **kw):
            built.append(_name)
            return _original(self, **kw)

        monkeypatch.setattr(codegen.JITCPUCodegen, name, counting)
    h = rng.random(64)
    n = int(rng.integers(10, 50))
    c = float(rng.random())
    numba_ext.jit(make_function(c + 1.0))(numba_ext.asarray(h), n)  # the shared helpers
    built.clear()
    f = numba_ext.jit(make_function(c))
    out = np.full(64, np.nan)
    r, t = f(numba_ext.asarray(h), n)
    out[:] = numba_ext.asnumpy(r)
    want, want_t = expected(h, n, c)
    np.testing.assert_allclose(out, want, rtol=1e-12)
    assert t == want_t
    assert built == []
    lib = library_of(f)
    assert host_libraries.adopted(lib)
    assert not lib._final_module._owned  # the JIT engine holds an empty module, not this one
    sig = next(iter(f._dispatcher.signatures))
    assert re.search(r"define .*make_function", f._dispatcher.inspect_llvm(sig))
    assert "make_function" in f._dispatcher.inspect_asm(sig)


def test_plain_njit_on_numba_ext_arrays_is_adopted(rng):
    h = rng.random(24)
    g = numba.njit(make_function(0.25))
    run_checked(g, h, 9, 0.25)
    (cres,) = g.overloads.values()
    assert host_libraries.adopted(cres.library)
    assert not cres.library._final_module._owned


def test_plain_njit_on_numpy_arrays_keeps_numbas_path(rng):
    h = rng.random(16)
    g = numba.njit(make_function(0.5))
    r, t = g(h, 7)
    want, want_t = expected(h, 7, 0.5)
    np.testing.assert_allclose(r, want, rtol=1e-12)
    assert t == want_t
    (cres,) = g.overloads.values()
    assert not host_libraries.adopted(cres.library)
    assert cres.library._final_module._owned


def test_dropped_function_frees_its_module(rng, by_numba):
    h = rng.random(32)
    f = numba_ext.jit(make_function(1.25))
    r, _ = f(numba_ext.asarray(h), 3)
    np.testing.assert_allclose(numba_ext.asnumpy(r), np.sqrt(h) * 2.0 + 1.25, rtol=1e-12, atol=1e-14)
    lib = weakref.ref(library_of(f))
    del f, r
    gc.collect()
    assert lib() is None


def test_recompiled_and_other_signatures_run_right(rng, by_numba):
    f = numba_ext.jit(make_function(0.75))
    for dtype in (np.float64, np.float32, np.float64):
        h = rng.random(20).astype(dtype)
        r, t = f(numba_ext.asarray(h), 11)
        want, want_t = expected(h.astype(np.float64), 11, 0.75)
        np.testing.assert_allclose(numba_ext.asnumpy(r), want, rtol=1e-6 if dtype == np.float32 else 1e-12)
        assert t == want_t
    f._dispatcher.recompile()
    h = rng.random(20)
    r, _ = f(numba_ext.asarray(h), 2)
    np.testing.assert_allclose(numba_ext.asnumpy(r), np.sqrt(h) * 2.0 + 0.75, rtol=1e-12, atol=1e-14)


def test_a_jitted_function_calls_another(rng, by_numba):
    """The callee's module is linked into the caller's (it stays with the callee's library)."""
    inner = numba_ext.jit(lambda x, k: x * k + 1.0)

    def outer(a, k):
        s = 0.0
        for i in range(k):
            s += inner(float(i), k)
        return a * 2.0, s

    f = numba_ext.jit(outer)
    h = rng.random(8)
    r, s = f(numba_ext.asarray(h), 9)
    np.testing.assert_allclose(numba_ext.asnumpy(r), h * 2.0, rtol=1e-12, atol=1e-14)
    assert s == sum(i * 9 + 1.0 for i in range(9))


def test_optimizer_failure_falls_back_to_numba_with_a_warning(rng, by_numba, monkeypatch):
    def failing(*args):
        raise CodegenError("host passes: injected failure")

    monkeypatch.setattr(_core, "optimize_host_module", failing)
    h = rng.random(16)
    f = numba_ext.jit(make_function(2.0))
    with pytest.warns(RuntimeWarning, match="Numba's optimizer takes over"):
        run_checked(f, h, 5, 2.0)
    assert not host_libraries.adopted(library_of(f))


def test_without_the_host_optimizer_numbas_path_runs(rng, by_numba, monkeypatch):
    monkeypatch.setattr(host_libraries, "available", lambda: False)
    h = rng.random(16)
    f = numba_ext.jit(make_function(3.0))
    run_checked(f, h, 6, 3.0)
    lib = library_of(f)
    assert not host_libraries.adopted(lib)
    assert lib._final_module._owned


def _normalized(module) -> collections.Counter:
    return collections.Counter(
        re.sub(r'%"[^"]*"|%[\w.$-]+', "%v", line)
        for line in str(module).splitlines()
        if not line.startswith("; ModuleID")
    )


def test_function_simplification_matches_numbas(rng, monkeypatch):
    """The per-function stage in numba_ext's LLVM gives the IR llvmlite's pass builder gives, for the
    modules of a plain numba.njit function."""
    modules = []
    add = codegen.CPUCodeLibrary.add_llvm_module

    def capture(self, ll_module):
        modules.append((self._codegen, ll_module.as_bitcode()))
        return add(self, ll_module)

    monkeypatch.setattr(codegen.CPUCodeLibrary, "add_llvm_module", capture)
    g = numba.njit(lambda a, b: np.exp(-a) * b + np.sqrt(a * a + 1.0))
    h = rng.random(10)
    np.testing.assert_allclose(g(h, 2.0), np.exp(-h) * 2.0 + np.sqrt(h * h + 1.0), rtol=1e-12)
    assert modules
    for cg, bitcode in modules:
        theirs = llvm.parse_bitcode(bitcode)
        theirs.data_layout = cg._data_layout
        for fn in theirs.functions:
            if not fn.is_declaration:
                fpm, pb = cg._function_pass_manager()
                fpm.run(fn, pb)
        ours = llvm.parse_bitcode(bitcode)
        ours.data_layout = cg._data_layout
        passes = f"function(function-simplification<O{int(config.OPT)}>)"
        ours = host_libraries._optimized(ours, cg, passes, config.LOOP_VECTORIZE, config.SLP_VECTORIZE)
        ours = host_libraries._refpruned(ours, cg)
        assert _normalized(ours) == _normalized(theirs)
