"""Complex elementwise functions on the device against NumPy (codegen/complex.rs): every complex
ufunc of complex64 and complex128 arrays (exp expm1 log log1p log2 log10 sqrt abs, the trigonometric
and hyperbolic functions and their inverses) on random finite values of magnitudes 1e-8 to 1e3 (on
the axes too), within a few units in the last place of NumPy's results; and the special values of
C99 Annex G (zeros of both signs, infinities, NaN) of exp, expm1, sin, cos, tan, sinh, cosh, tanh,
arctan, arctanh, sqrt, log, log1p, log2, log10 and abs exactly as NumPy gives them (equal values,
equal signs of zeros and infinities, NaN where NumPy's is NaN: the sign of a NaN is unspecified).

NumPy's complex log1p is ``log(|1 + z|)`` (it loses the relative accuracy near 0), so its reference
is the accurate formula evaluated in long double. The ``cmath`` functions in kernels use the same
lowering."""

import cmath
import warnings

import numpy as np
import pytest

import numba_ext as nx

# name -> the ulps (of the component dtype) allowed, relative to the larger part of the result
FUNCTIONS = {
    "exp": 8,
    "expm1": 8,
    "log": 8,
    "log1p": 8,
    "log2": 8,
    "log10": 8,
    "sqrt": 8,
    "absolute": 8,
    "sin": 8,
    "cos": 8,
    "tan": 8,
    "sinh": 8,
    "cosh": 8,
    "tanh": 8,
    "arcsin": 8,
    "arccos": 8,
    "arctan": 8,
    "arcsinh": 8,
    "arccosh": 8,
    "arctanh": 8,
}

SPECIAL = ("exp", "expm1", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arctan", "arctanh")
SPECIAL += ("sqrt", "log", "log1p", "log2", "log10", "absolute", "arcsin", "arccos", "arcsinh", "arccosh")


def sample(rng, cdt, n=4096):
    """Random finite values: |z| log-uniform in [1e-8, 1e3] at any angle, an eighth of them real and
    an eighth imaginary (both signs), and some within 1e-3 of 1, -1, i and -i."""
    mag = 10.0 ** rng.uniform(-8, 3, n)
    z = mag * np.exp(1j * rng.uniform(-np.pi, np.pi, n))
    k = n // 8
    z[:k] = z[:k].real
    z[k : 2 * k] = 1j * z[k : 2 * k].imag
    near = rng.choice([1, -1, 1j, -1j], k) + 1e-3 * (rng.standard_normal(k) + 1j * rng.standard_normal(k))
    z[2 * k : 3 * k] = near
    return z.astype(cdt)


def reference(name, h, accurate=True):
    """NumPy's result for host values `h` (log1p with `accurate`: the accurate formula in long
    double; NumPy's own for special values)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        if name != "log1p" or not accurate:
            return getattr(np, name)(h)
        x, y = h.real.astype(np.longdouble), h.imag.astype(np.longdouble)
        u = x * (2 + x) + y * y  # |1 + z|^2 - 1, whose log1p cancels near z = -1: log|1 + z| there
        re = np.where(u > -0.5, np.log1p(u) / 2, np.log(np.hypot(1 + x, y)))
        im = np.arctan2(y, 1 + x)
        return (re.astype(h.real.dtype) + 1j * im.astype(h.real.dtype)).astype(h.dtype)


def cancelling_terms(name, h):
    """The magnitude of the terms a part of the result is the difference of (0 where nothing
    cancels): the error scale of those parts, beyond the result's own."""
    with np.errstate(all="ignore"):
        x, y = h.real.astype(np.float64), h.imag.astype(np.float64)
        if name == "expm1":
            return np.abs(np.expm1(x) * np.cos(y)) + 2 * np.sin(y / 2) ** 2
        if name == "log1p":
            return np.abs(x * (2 + x)) + y * y
        return np.zeros(h.shape)


def ulp_errors(got, want, scale_extra, cdt):
    """Each element's error in ulps of the component dtype, relative to the larger finite part of
    the result (or `scale_extra`, the cancelling terms; at least the smallest subnormal, the ulp of
    results that underflow); infinite or NaN parts must match exactly (inf for a mismatch)."""
    fi = np.finfo(np.dtype(cdt).char.lower())
    eps = fi.eps
    got = np.asarray(got).astype(np.complex128)
    want = np.asarray(want).astype(np.complex128)
    parts = [(got.real, want.real), (got.imag, want.imag)]
    with np.errstate(all="ignore"):
        fin = [np.where(np.isfinite(w), np.abs(w), 0.0) for _, w in parts]
        scale = np.maximum(np.maximum(fin[0], fin[1]), scale_extra)
        unit = np.maximum(scale * eps, float(fi.smallest_subnormal))
        errs = []
        for g, w in parts:
            finite = np.isfinite(w)
            e = np.abs(g - w) / unit
            exact = (g == w) | (np.isnan(g) & np.isnan(w))
            errs.append(np.where(finite, np.where(np.isfinite(e), e, np.inf), np.where(exact, 0.0, np.inf)))
    return np.maximum(errs[0], errs[1])


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_random_values_match_numpy(rng, cdt, name):
    h = sample(rng, cdt)
    got = getattr(np, name)(nx.asarray(h))
    want = reference(name, h)
    host = nx.asnumpy(got)
    assert host.dtype == want.dtype and host.shape == want.shape, (host.dtype, want.dtype)
    err = ulp_errors(host, want, cancelling_terms(name, h), cdt)
    worst = int(np.argmax(err))
    assert err[worst] <= FUNCTIONS[name], (name, h[worst], host[worst], want[worst], err[worst])


def same_value(got, want):
    """Equal as NumPy's special values are: both NaN, or equal with the same sign (zeros, infs);
    finite nonzero parts within 8 ulps. An infinite part beside a NaN part may have either sign
    (C99 leaves it open: ``NaN ± i inf``, and NumPy versions differ)."""
    for g, w, other in ((got.real, want.real, want.imag), (got.imag, want.imag, want.real)):
        if np.isnan(w):
            if not np.isnan(g):
                return False
        elif np.isinf(w) and np.isnan(other):
            if not np.isinf(g):
                return False
        elif w == 0 or np.isinf(w):
            if not (g == w and np.signbit(g) == np.signbit(w)):
                return False
        elif not abs(g - w) <= 8 * np.finfo(type(w)).eps * abs(w):
            return False
    return True


@pytest.mark.parametrize("name", SPECIAL)
def test_special_values_match_numpy(cdt, name):
    v = [0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, np.nan]
    h = np.array([complex(a, b) for a in v for b in v], dtype=cdt)
    got = nx.asnumpy(getattr(np, name)(nx.asarray(h))).astype(cdt)
    want = reference(name, h, accurate=False).astype(cdt)
    # acosh(±0 + i NaN): NumPy 2.4 (glibc's C11 tables) gives NaN + i pi/2, NumPy 2.1 NaN + i NaN
    open_case = np.zeros(len(h), bool)
    if name == "arccosh":
        open_case = (h.real == 0) & np.isnan(h.imag)
    bad = [
        (h[i], got[i], want[i]) for i in range(len(h)) if not same_value(got[i], want[i]) and not open_case[i]
    ]
    assert not bad, bad
    assert all(np.isnan(got[open_case].real))


@pytest.mark.parametrize("name", ["exp", "sin", "cos", "sinh", "cosh"])
def test_no_spurious_overflow(cdt, name):
    """Products with e^|t| that overflows on its own stay finite where NumPy's result is."""
    big = 100.0 if cdt == "complex64" else 750.0
    t = np.array([big, -big, big + 0.5], dtype=np.float64)
    small = np.array([1e-30 if cdt == "complex64" else 1e-300, -1e-20, 1e-25])
    pairs = {"exp": (t, np.pi / 2 + small), "sin": (small, t), "cos": (np.pi / 2 + small, t)}
    x, y = pairs.get(name, (t, small))
    h = (x + 1j * y).astype(cdt)
    got = nx.asnumpy(getattr(np, name)(nx.asarray(h)))
    want = reference(name, h)
    err = ulp_errors(got, want, 0.0, cdt)
    assert np.all(err <= 8), (h, got, want, err)


CMATH_IN_KERNELS = ("tan", "tanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "log10")


@nx.kernel
def cmath_functions(a, out):
    i = nx.get_global_id(0)
    z = a[i]
    out[i, 0] = cmath.tan(z)
    out[i, 1] = cmath.tanh(z)
    out[i, 2] = cmath.asin(z)
    out[i, 3] = cmath.acos(z)
    out[i, 4] = cmath.atan(z)
    out[i, 5] = cmath.asinh(z)
    out[i, 6] = cmath.acosh(z)
    out[i, 7] = cmath.atanh(z)
    out[i, 8] = cmath.log10(z)


def test_cmath_functions_in_kernels(rng, cdt):
    h = sample(rng, cdt, 512)
    out = nx.empty((h.size, len(CMATH_IN_KERNELS)), dtype=cdt)
    cmath_functions[nx.Range(h.size)](nx.asarray(h), out)
    got = nx.asnumpy(out)
    for k, name in enumerate(CMATH_IN_KERNELS):
        want = reference(name, h)
        err = ulp_errors(got[:, k], want, 0.0, cdt)
        worst = int(np.argmax(err))
        assert err[worst] <= FUNCTIONS[name], (name, h[worst], got[worst, k], want[worst], err[worst])


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
def test_classification_looks_at_both_parts(cdt, name):
    """np.isnan / isinf / isfinite of complex values: either part NaN / infinite, both finite."""
    v = [0.0, -1.5, np.inf, -np.inf, np.nan]
    h = np.array([complex(a, b) for a in v for b in v], dtype=cdt)
    fn = getattr(np, name)
    np.testing.assert_array_equal(nx.asnumpy(fn(nx.asarray(h))), fn(h))
    f = nx.jit(lambda a: fn(a))
    np.testing.assert_array_equal(nx.asnumpy(f(nx.asarray(h))), fn(h))
