"""complex64 and complex128 in ``@numba_ext.jit`` code: fused array expressions with arithmetic,
complex literals and scalar arguments, the math functions, ``.real`` / ``.imag``, mixed real and
complex operands, whole-array sums and means, and ``prange`` loops over complex arrays. Results are
checked on fresh random complex inputs against the same function run by plain Numba on NumPy arrays
(Numba types Python complex literals as complex128, where NumPy 2 treats them as weak scalars)."""

import numba
import numpy as np
import pytest
from numba import prange

import numba_ext as nx
from numba_ext.errors import UnsupportedError

from ..checks import N, check, crand, poison


def ref(f, *args):
    """`f` run by plain Numba on the host: NumPy's values with Numba's typing."""
    return numba.njit(f.py_func)(*args)


def _rtol(cdt):
    return 2e-5 if cdt == "complex64" else 1e-12


@nx.jit
def _arith(a, b, c):
    return (a * b - c) / (b + 1j) + a * c * 2.0


@nx.jit
def _math(a):
    return np.exp(a) + np.log(a) * np.sqrt(a) - np.sin(a) * np.cos(a) + np.conj(a)


@nx.jit
def _parts(a, r):
    return np.abs(a) + a.real * r - a.imag


@nx.jit
def _with_scalar(a, s):
    return a * s + s


def test_fused_arithmetic(rng, cdt):
    ha, hb, hc = crand(rng, cdt), crand(rng, cdt), crand(rng, cdt)
    a, b, c = nx.asarray(ha), nx.asarray(hb), nx.asarray(hc)
    poison(N, cdt)
    out = _arith(a, b, c)
    assert len(_arith.inspect_kernels(a, b, c)) == 1
    r = _rtol(cdt)
    check(out, ref(_arith, ha, hb, hc), "arith", rtol=r, atol=r)


def test_math_functions(rng, cdt):
    ha = crand(rng, cdt)
    r = _rtol(cdt) * 10
    check(_math(nx.asarray(ha)), ref(_math, ha), "math", rtol=r, atol=r)


def test_abs_real_imag_with_real_operands(rng, cdt):
    ha = crand(rng, cdt)
    hr = rng.standard_normal(N).astype(np.dtype(cdt).type(0).real.dtype)
    r = _rtol(cdt)
    check(_parts(nx.asarray(ha), nx.asarray(hr)), ref(_parts, ha, hr), "parts", rtol=r, atol=r)


def test_complex_scalar_arguments(rng, cdt):
    ha = crand(rng, cdt)
    s = complex(rng.standard_normal(), rng.standard_normal())
    r = _rtol(cdt)
    want = ref(_with_scalar, ha, np.dtype(cdt).type(s))
    check(_with_scalar(nx.asarray(ha), np.dtype(cdt).type(s)), want, "numpy scalar", rtol=r, atol=r)
    # a Python complex is complex128 in Numba: the result follows Numba's typing
    check(_with_scalar(nx.asarray(ha), s), ref(_with_scalar, ha, s), "python complex", rtol=r, atol=r)


@nx.jit
def _sum(a):
    return np.sum(a)


@nx.jit
def _mean_and_sum(a):
    return a.mean(), (a * 2).sum()


def test_reductions(rng, cdt):
    ha = crand(rng, cdt, 2000)
    a = nx.asarray(ha)
    r = 1e-4 if cdt == "complex64" else 1e-11
    s = _sum(a)
    assert isinstance(s, complex)  # Numba returns complex scalars as Python complex
    np.testing.assert_allclose(s, ha.sum(), rtol=r)
    m, s2 = _mean_and_sum(a)
    np.testing.assert_allclose(m, ha.mean(), rtol=r)
    np.testing.assert_allclose(s2, (ha * 2).sum(), rtol=r)


@nx.jit
def _prange_loop(a, out):
    for i in prange(a.shape[0]):
        out[i] = a[i] * a[i].conjugate() + 1j * a[i].real


@nx.jit
def _prange_sum(a):
    s = 0j
    for i in prange(a.shape[0]):
        s += a[i] * 2
    return s


def test_prange(rng, cdt):
    ha = crand(rng, cdt)
    a = nx.asarray(ha)
    poison(N, cdt)
    out = nx.empty(N, dtype=cdt)
    _prange_loop(a, out)
    want = np.empty(N, cdt)
    ref(_prange_loop, ha, want)
    r = _rtol(cdt)
    check(out, want, "prange", rtol=r, atol=r)
    np.testing.assert_allclose(_prange_sum(a), (ha * 2).sum(), rtol=1e-4 if cdt == "complex64" else 1e-11)


@nx.jit
def _prod(a):
    return np.prod(a)


def test_products_are_refused(rng, cdt):
    with pytest.raises(UnsupportedError, match=f"products of {cdt}"):
        _prod(nx.asarray(crand(rng, cdt)))
