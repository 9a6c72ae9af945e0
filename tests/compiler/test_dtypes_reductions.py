"""Whole-array reductions (sum prod min max mean argmin argmax any all) on every dtype, eagerly and in
@numba_ext.jit code; empty arrays; scalar reductions in prange loops (products, integer min/max,
float32 sums). Fresh random inputs, checked against NumPy value by value."""

import warnings

import numba
import numpy as np
import pytest
from numba import prange

import numba_ext as nx

DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint64", "bool", "float32", "float64"]
OPS = ["sum", "prod", "min", "max", "mean", "argmin", "argmax", "any", "all"]
N = 301


def _data(rng, dtype):
    """x: values with ties at both extremes (argmin/argmax take the first) and a zero (all() is
    False); p: values for prod that stay in range; z: zeros (any() is False)."""
    dt = np.dtype(dtype)
    i, j, k, m, z = rng.choice(N, 5, replace=False)
    if dt == np.bool_:
        x = rng.random(N) < 0.5
        p = rng.random(40) < 0.99  # mostly all True
    elif dt.kind == "f":
        x = (rng.standard_normal(N) * 10).astype(dt)
        x[[i, j]] = x.min() - 1
        x[[k, m]] = x.max() + 1
        p = rng.uniform(0.5, 1.5, 40).astype(dt)
    else:
        info = np.iinfo(dt)
        # 8- to 32-bit: the whole range (sums and products are 64-bit in NumPy); uint64: sums stay in range
        lo, hi = (info.min, info.max) if dt.itemsize <= 4 else (0, 2**50)
        x = rng.integers(lo, hi, N, dtype=dt, endpoint=True)
        x[[i, j]] = lo
        x[[k, m]] = hi
        p = rng.choice([-2, -1, 1, 2] if dt.kind == "i" else [1, 2, 3], 40).astype(dt)  # |prod| > int8 range
    x[z] = 0
    return x, p, np.zeros(17, dt)


def _approx(got, want, dtype, scale):
    if np.dtype(dtype).kind == "f" or isinstance(want, (float, np.floating)):
        rtol = 2e-5 if np.dtype(dtype) == np.float32 else 1e-12
        return got == pytest.approx(want, rel=rtol, abs=rtol * scale)
    return got == want


def _expected(x, p, z):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return {
            "sum": x.sum(),
            "prod": p.prod(),
            "min": x.min(),
            "max": x.max(),
            "mean": x.mean(),
            "argmin": x.argmin(),
            "argmax": x.argmax(),
            "any": x.any(),
            "all": x.all(),
            "all(p)": p.all(),
            "any(z)": z.any(),
        }


def _compare(got: dict, want: dict, x, dtype, how):
    scale = float(np.abs(x.astype(np.float64)).sum())
    bad = {
        k: (got[k], want[k])
        for k in got
        if not _approx(got[k], want[k], dtype, scale if k != "mean" else scale / x.size)
    }
    assert not bad, f"{how} {dtype}: {bad}"
    for k, v in got.items():  # Python scalars of the kind NumPy's result has
        assert not isinstance(v, nx.ndarray), k
        kind = np.asarray(want[k]).dtype.kind
        assert isinstance(
            v,
            {
                "b": (bool, np.bool_),
                "i": (int, np.integer),
                "u": (int, np.integer),
                "f": (float, np.floating),
            }[kind],
        ), (how, dtype, k, type(v))


@pytest.mark.parametrize("dtype", DTYPES)
def test_whole_array_reductions_eager(rng, dtype):
    hx, hp, hz = _data(rng, dtype)
    x, p, z = nx.asarray(hx), nx.asarray(hp), nx.asarray(hz)
    arrays = {op: getattr(p if op == "prod" else x, op)() for op in OPS}
    arrays.update({"all(p)": p.all(), "any(z)": z.any()})
    want = _expected(hx, hp, hz)
    for k, v in arrays.items():  # eagerly: 0-d arrays of NumPy's result dtype on the queue, as dpnp's
        assert isinstance(v, nx.ndarray) and v.shape == () and v.sycl_queue is x.sycl_queue, k
        assert v.dtype == np.asarray(want[k]).dtype, (k, v.dtype)
    got = {k: nx.asnumpy(v)[()] for k, v in arrays.items()}
    _compare(got, want, hx, dtype, "eager")
    for k, v in got.items():  # NumPy's scalar type exactly (np.float32 for float32 data)
        assert type(v) is type(want[k]), (k, type(v), type(want[k]))
    # NumPy's functions call the methods
    total = nx.asnumpy(np.sum(x))[()]
    assert _approx(total, got["sum"], dtype, float(np.abs(hx.astype(np.float64)).sum()))
    assert int(np.argmax(x)) == got["argmax"]


@nx.jit
def _reduce_all(x, p, z):
    return (
        np.sum(x),
        np.prod(p),
        np.min(x),
        np.max(x),
        np.argmin(x),
        np.argmax(x),
        np.any(x),
        np.all(x),
        np.all(p),
        np.any(z),
        x.sum(),
        x.argmax(),
    )


@nx.jit
def _reduce_bool(x, p, z):  # np.min / np.max of booleans: test_bool_min_max_in_jit_is_a_clear_error
    return (
        np.sum(x),
        np.prod(p),
        np.argmin(x),
        np.argmax(x),
        np.any(x),
        np.all(x),
        np.all(p),
        np.any(z),
        x.sum(),
        x.argmax(),
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_whole_array_reductions_jit(rng, dtype):
    hx, hp, hz = _data(rng, dtype)
    args = [nx.asarray(h) for h in (hx, hp, hz)]
    want = _expected(hx, hp, hz)
    if dtype == "bool":
        names = ["sum", "prod", "argmin", "argmax", "any", "all", "all(p)", "any(z)"]
        r = _reduce_bool(*args)
    else:
        names = ["sum", "prod", "min", "max", "argmin", "argmax", "any", "all", "all(p)", "any(z)"]
        r = _reduce_all(*args)
    got = dict(zip(names, r))
    _compare(got, want, hx, dtype, "jit")
    # the methods (a float sum may be added up in another order)
    assert _approx(r[len(names)], got["sum"], dtype, float(np.abs(hx.astype(np.float64)).sum()))
    assert r[len(names) + 1] == got["argmax"]


MEAN = nx.jit(lambda x: (np.mean(x), x.mean()))


@pytest.mark.parametrize("dtype", DTYPES)
def test_mean_jit(rng, dtype):
    hx, _, _ = _data(rng, dtype)
    m1, m2 = MEAN(nx.asarray(hx))
    want = hx.mean()
    scale = float(np.abs(hx.astype(np.float64)).mean())
    assert _approx(m1, want, dtype, scale) and _approx(m2, want, dtype, scale), (m1, m2, want)
    assert isinstance(m1, float)
    with warnings.catch_warnings():  # an empty array: NaN, as in NumPy
        warnings.simplefilter("ignore", RuntimeWarning)
        assert all(np.isnan(m) for m in MEAN(nx.asarray(hx[:0])))


def _sum_in_expressions(x):
    return x - np.sum(x), x.sum() + x, np.sum(x)


#: served from its source, compiled through Numba's pipeline with parfors, and by plain numba.njit
SUM_IN_EXPRESSIONS = {
    "source": nx.jit(_sum_in_expressions),
    "numba_ext.compiler": nx.compiler.jit(_sum_in_expressions),
    "numba.njit": numba.njit(_sum_in_expressions),
}


@pytest.mark.parametrize("compiled", list(SUM_IN_EXPRESSIONS))
@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "int8", "int32", "bool"])
def test_sums_of_narrow_integers_in_expressions_have_numpys_dtype(rng, dtype, compiled):
    # NumPy sums unsigned integers narrower than 64 bits into uint64 (signed ones and booleans into
    # int64), and an expression with that sum takes its dtype, whatever Numba version compiles it
    h = rng.integers(0, 2 if dtype == "bool" else 100, (4, 9)).astype(dtype)
    want = (h - np.sum(h), h.sum() + h, np.sum(h))
    got = SUM_IN_EXPRESSIONS[compiled](nx.asarray(h))
    for g, w in zip(got[:2], want[:2]):
        g = nx.asnumpy(g)
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
    assert got[2] == want[2]


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_mean_of_large_integers_does_not_wrap(rng, dtype):
    # NumPy sums integers for the mean in float64: no wraparound where the integer sum would overflow
    info = np.iinfo(dtype)
    h = rng.integers(info.max // 2, info.max, 64, dtype=dtype, endpoint=True)
    want = h.mean()
    x = nx.asarray(h)
    assert float(x.mean()) == pytest.approx(want, rel=1e-12), "eager"
    assert MEAN(x)[0] == pytest.approx(want, rel=1e-12), "jit"


def test_bool_min_max_in_jit(rng):
    # of an argument: the eager kernels' answer (all / any), as NumPy's; of booleans computed in the
    # function, Numba's parallel reductions have none: a clear error while compiling
    h = rng.random(20) < 0.5
    x = nx.asarray(h)
    for src, want in [("np.min(v)", h.min()), ("v.max()", h.max())]:
        assert nx.jit(eval(f"lambda v: {src}"))(x) is bool(want), src
    for src, use in [("np.min(v | v)", r"np\.all\(x\)"), ("v[2:5].max()", r"np\.any\(x\)")]:
        f = nx.jit(eval(f"lambda v: {src}"))
        with pytest.raises(nx.UnsupportedError, match=rf"(?s)of a boolean numba_ext array.*line.*use {use}"):
            f(x)
        assert f.signatures == [], src  # refused while compiling: nothing ran


# -- empty arrays -----------------------------------------------------------------------------------
EMPTY_OK = nx.jit(lambda x: (np.sum(x), np.prod(x), np.any(x), np.all(x)))
EMPTY_FAIL = {op: nx.jit(eval(f"lambda x: np.{op}(x)")) for op in ("min", "max", "argmin", "argmax")}


@pytest.mark.parametrize("dtype", ["float64", "int8", "bool"])
def test_empty_reductions(dtype):
    h = np.empty(0, dtype)
    x = nx.asarray(h)
    want = (h.sum(), h.prod(), h.any(), h.all())
    assert tuple(getattr(x, op)().item() for op in ("sum", "prod", "any", "all")) == want
    assert EMPTY_OK(x) == want
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(x.mean().item())
    for op in ("min", "max", "argmin", "argmax"):
        with pytest.raises(ValueError) as e:
            getattr(h, op)()
        with pytest.raises(ValueError, match=str(e.value)):
            getattr(x, op)()
        if dtype == "bool" and op in ("min", "max"):
            continue  # a compile-time error in jitted code (above)
        with pytest.raises(ValueError, match=str(e.value)):
            EMPTY_FAIL[op](x)


# -- scalar reductions in prange loops ---------------------------------------------------------------
@nx.jit
def prange_product(a):
    s = 1
    for i in prange(a.shape[0]):
        s *= a[i]
    return s


@nx.jit
def prange_min_max(a):
    lo = 10**12
    hi = -(10**12)
    for i in prange(a.shape[0]):
        lo = min(lo, a[i])
        hi = max(hi, a[i])
    return lo, hi


@nx.jit
def prange_min_max_int8(a):
    lo = np.int8(127)  # an int8 accumulator
    hi = np.int8(-128)
    for i in prange(a.shape[0]):
        lo = min(lo, a[i])
        hi = max(hi, a[i])
    return lo, hi


@nx.jit
def prange_sum_float32(a, b):
    s = np.float32(0)
    t = np.float32(1.5)
    for i in prange(a.shape[0]):
        s += a[i]
        t += a[i] * b[i]
    return s, t


def test_prange_product(rng):
    hf = rng.uniform(0.9, 1.1, 2000)
    assert prange_product(nx.asarray(hf)) == pytest.approx(np.prod(hf), rel=1e-11)
    hi = rng.choice([-1, 1, 2, 1, 1], 120)  # |prod| up to 2**~24
    assert prange_product(nx.asarray(hi)) == np.prod(hi)


def test_prange_integer_min_max(rng):
    h = rng.integers(-(10**9), 10**9, 3001)
    assert prange_min_max(nx.asarray(h)) == (h.min(), h.max())
    h8 = rng.integers(-128, 128, 3001).astype(np.int8)
    h8[rng.integers(0, 3001)] = rng.integers(-128, -100)  # extremes are not always at the range's ends
    assert prange_min_max(nx.asarray(h8)) == (h8.min(), h8.max())
    assert prange_min_max_int8(nx.asarray(h8)) == (h8.min(), h8.max())
    h8 = rng.integers(-20, 30, 500).astype(np.int8)  # both extremes inside the int8 range
    assert prange_min_max_int8(nx.asarray(h8)) == (h8.min(), h8.max())


def test_prange_float32_sums(rng):
    ha = rng.random(5003).astype(np.float32)
    hb = rng.standard_normal(5003).astype(np.float32)
    s, t = prange_sum_float32(nx.asarray(ha), nx.asarray(hb))
    # float32 accumulation in another order than NumPy's: within float32 rounding of the sum
    assert s == pytest.approx(ha.sum(dtype=np.float64), rel=1e-4)
    assert t == pytest.approx(
        1.5 + (ha.astype(np.float64) * hb).sum(), rel=1e-4, abs=1e-4 * float(np.abs(ha * hb).sum())
    )


# -- np.cumsum / np.cumprod (numba_ext/compiler/scans.py): a blocked scan on the array's queue ---------------
SCAN_JIT = nx.jit(lambda x, p: (np.cumsum(x), np.cumprod(p)))


def _scan_check(got, want, dtype, what):
    host = nx.asnumpy(got)
    assert host.dtype == want.dtype and host.shape == want.shape, (what, host.dtype, want.dtype)
    if want.dtype.kind == "f":
        rtol = 1e-3 if want.dtype == np.float32 else 1e-10  # thousands of roundings, in another order
        scale = float(np.abs(want).max(initial=0.0))
        np.testing.assert_allclose(host, want, rtol=rtol, atol=rtol * scale, err_msg=what)
    else:  # integers wrap as NumPy's 64-bit accumulation does: exact
        np.testing.assert_array_equal(host, want, err_msg=what)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_cumprod_jit_and_eager(rng, dtype):
    for n in (0, 1, N, 4096 * 2 + 3):  # empty, one element, one element per block, partial last block
        hx, _, _ = _data(rng, dtype)
        hx = np.resize(hx, n)
        rng.shuffle(hx)
        hp = np.resize(_data(rng, dtype)[1], n)  # integers: products wrap modulo 2**64, exactly as NumPy's
        if np.dtype(dtype).kind == "f":  # floats: products near 1 stay finite in any association order
            hp = rng.uniform(0.99, 1.01, n).astype(dtype)
        x, p = nx.asarray(hx, usm_type="shared"), nx.asarray(hp, usm_type="shared")
        with np.errstate(over="ignore"):
            want = (np.cumsum(hx), np.cumprod(hp))
        for how, got in (("jit", SCAN_JIT(x, p)), ("eager", (np.cumsum(x), np.cumprod(p)))):
            for g, w, op in zip(got, want, ("cumsum", "cumprod")):
                assert g.sycl_queue is x.sycl_queue and g.usm_type == "shared", (how, op)
                _scan_check(g, w, dtype, f"{how} {op} {dtype} n={n}")


def test_cumsum_flattens_views_and_n_d_arrays(rng):
    h = rng.standard_normal((40, 9))
    x = nx.asarray(h)
    f = nx.jit(lambda a: (np.cumsum(a), np.cumsum(a.T), np.cumsum(a[::-3, 1::2]) * 2.0))
    for got, want in zip(f(x), (np.cumsum(h), np.cumsum(h.T), np.cumsum(h[::-3, 1::2]) * 2.0)):
        _scan_check(got, want, "float64", "views")
    _scan_check(np.cumsum(x.T), np.cumsum(h.T), "float64", "eager view")
    # along an axis: eagerly offloaded, in jitted code a clean refusal
    _scan_check(np.cumsum(x, axis=0), np.cumsum(h, axis=0), "float64", "eager axis")
    with pytest.raises(nx.UnsupportedError, match="not offloaded"):
        nx.jit(lambda a: np.cumsum(a, axis=0))(x)
