"""Shared helpers of the tests: random inputs of every dtype, poisoned outputs, and value-by-value
checks against NumPy with dtype-appropriate tolerances."""

from fractions import Fraction

import numpy as np

import numba_ext as nx

N = 97  # not a multiple of any vector width
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def rand(rng, dtype, n=N, lo=None, hi=None):
    """Random values of `dtype`: integers over the whole range (or [lo, hi]), floats ~ N(0, 3)."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(n) < 0.5
    if dt.kind == "f":
        return (rng.standard_normal(n) * 3).astype(dt)
    info = np.iinfo(dt)
    lo = info.min if lo is None else max(lo, info.min)
    hi = info.max if hi is None else min(hi, info.max)
    return rng.integers(lo, hi, n, dtype=dt, endpoint=True)


def poison(n, *dtypes, copies=6):
    """Free blocks of the results' sizes filled with garbage: the next allocations of those sizes
    reuse them, so an element a kernel forgets to write cannot look right by accident."""
    for size in {n * np.dtype(d).itemsize for d in dtypes}:
        if size:
            blocks = [nx.full(size, 0xA5, dtype=np.uint8) for _ in range(copies)]
            del blocks


def tol(dtype):
    """(rtol, atol) for results of `dtype` compared with NumPy's, following the floating-point policy
    of docs/numerics.md: a multiply-add may be one fused operation (on PTX it is), which differs from
    NumPy's two roundings by up to half an ulp of the product: these tolerances cover that for
    operands of magnitude up to about 10 (atol for sums that cancel near zero). Never compare float
    results of device code with rtol=1e-13 and atol=0: use `check`, or `fp_tol` with
    `np.testing.assert_allclose`."""
    if np.dtype(dtype) == np.float16:
        return (1e-3, 1e-4)  # one unit in the last place of half precision: 2**-10
    return (1e-5, 1e-6) if np.dtype(dtype) in (np.float32, np.complex64) else (1e-12, 1e-14)


def fp_tol(dtype="float64"):
    """`tol(dtype)` as `np.testing.assert_allclose` keywords."""
    rtol, atol = tol(dtype)
    return {"rtol": rtol, "atol": atol}


def sum_tol(terms, dtype=None):
    """`np.testing.assert_allclose` keywords for a sum of `terms` computed in another order than
    NumPy's: `tol(dtype)`'s rtol, and its atol times the sum of the terms' magnitudes, since a sum
    that cancels near zero keeps the rounding errors of its large terms whatever the order."""
    terms = np.asarray(terms)
    rtol, atol = tol(dtype if dtype is not None else terms.dtype)
    return {"rtol": rtol, "atol": atol * max(1.0, float(np.abs(terms).sum()))}


def _round_once(exact, dtype):
    """The `dtype` value nearest to the Fraction `exact` (ties to even): one correct rounding."""
    near = dtype.type(float(exact))  # float64 first: may round twice for float32, so look around
    cands = [near, np.nextafter(near, dtype.type(-np.inf)), np.nextafter(near, dtype.type(np.inf))]
    finite = [c for c in cands if np.isfinite(c)] or [near]
    return min(finite, key=lambda c: (abs(Fraction(float(c)) - exact), int(c.view(f"u{dtype.itemsize}")) & 1))


def fused_multiply_add(a, b, c):
    """`a * b + c` rounded once (an FMA), element by element, exactly: what a contracted multiply-add
    gives, for float32 or float64 inputs. (Python's `math.fma` needs Python 3.13.)"""
    a, b, c = np.broadcast_arrays(*map(np.asarray, (a, b, c)))
    dt = np.result_type(a, b, c)
    out = [
        _round_once(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)), dt)
        for x, y, z in zip(a.flat, b.flat, c.flat)
    ]
    return np.array(out, dtype=dt).reshape(a.shape)


def check(got, want, what="", rtol=None, atol=None):
    """`got` (a numba_ext array) equals `want` (NumPy): dtype, shape and values; floats within
    dtype-appropriate tolerances, integers and booleans exactly."""
    want = np.asarray(want)
    assert isinstance(got, nx.ndarray), (what, type(got))
    host = nx.asnumpy(got)
    assert host.dtype == want.dtype, (what, host.dtype, want.dtype)
    assert host.shape == want.shape, (what, host.shape, want.shape)
    if want.dtype.kind in "fc":
        r, a = tol(want.dtype)
        np.testing.assert_allclose(
            host, want, rtol=rtol or r, atol=atol if atol is not None else a, err_msg=what
        )
    else:
        np.testing.assert_array_equal(host, want, err_msg=what)


def check_all(gots, wants, what=""):
    assert len(gots) == len(wants)
    for k, (g, w) in enumerate(zip(gots, wants)):
        check(g, w, f"{what}[{k}]")


def host_reference(f, *hs):
    with np.errstate(all="ignore"):
        return f(*hs)


COMPLEX = ["complex64", "complex128"]


def crand(rng, dtype, n=N):
    """`n` random complex values of `dtype` (normal real and imaginary parts)."""
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)


def halves(rng, shape=N, lo=-4.0, hi=4.0):
    """Random float16 values in [lo, hi)."""
    return rng.uniform(lo, hi, shape).astype(np.float16)


def same_ulps(got, want, ulps=0):
    """`got` (a numba_ext array) has `want`'s dtype and shape and its values within `ulps` units in
    the last place (exactly equal for 0)."""
    host = nx.asnumpy(got)
    want = np.asarray(want)
    assert host.dtype == want.dtype and host.shape == want.shape, (host.dtype, want.dtype)
    if ulps == 0:
        np.testing.assert_array_equal(host, want)
    else:
        spacing = np.abs(np.spacing(want)).astype(np.float64)
        err = np.abs(host.astype(np.float64) - want.astype(np.float64))
        assert np.all((err <= ulps * spacing) | (host == want)), np.max(err / spacing)


def refuse_calls(monkeypatch, module, *names):
    """Replace the functions `names` of `module` by ones that fail the test when called: the code
    under test must not reach them (the Numba-compiled helpers a direct kernel replaces)."""
    for name in names:

        def refuse(*args, _name=name, **kwargs):
            raise AssertionError(f"{module.__name__}.{_name} was called")

        monkeypatch.setattr(module, name, refuse)
