"""Eager elementwise calls of a kind served before (the operands' element types or Python number
types, the device, USM type and rank) run in one native step (``_core.known_call``): the same
results, dtypes, errors and warnings as NumPy's for every kind of Python number and element type,
into new arrays and into ``out=``, and the library's path wherever one step cannot reproduce NumPy
(a number out of the dtype's range, an overflowing conversion, overlapping output)."""

import subprocess
import sys
import warnings

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import _core

from ..checks import check, rand
from ..conftest import DEV

DTYPES = ["float64", "float32", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint64", "bool"]
DTYPES += ["complex64", "complex128"]


def number(rng, kind):
    """A fresh Python number of `kind`, small enough for every dtype of DTYPES but bool."""
    if kind == "float":
        return float(rng.standard_normal() * 3)
    if kind == "int":
        return int(rng.integers(0, 100))
    if kind == "bool":
        return bool(rng.random() < 0.5)
    return complex(rng.standard_normal(), rng.standard_normal())


def numpy_outcome(fn):
    """NumPy's result of `fn()`, or the type of the exception it raises (warnings as errors)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return fn()
        except Exception as e:  # NumPy's error for these operands: ours must be the same type
            return type(e)


def same_as_numpy(ours, theirs, what):
    want = numpy_outcome(theirs)
    if isinstance(want, type):
        with pytest.raises(want):
            ours()
        return
    check(ours(), want, what)


def values(rng, dtype):
    """Fresh random values of `dtype` (complex ones too)."""
    if np.dtype(dtype).kind == "c":
        return (rng.standard_normal(97) + 1j * rng.standard_normal(97)).astype(dtype)
    return rand(rng, dtype)


# (complex values have no ordering on the device: numba_ext refuses np.less of them)
CASES = [
    (ufunc, kind, dtype)
    for ufunc in (np.add, np.multiply, np.less)
    for kind in ("float", "int", "bool", "complex")
    for dtype in DTYPES
    if ufunc is not np.less or (kind != "complex" and not dtype.startswith("complex"))
]


@pytest.mark.parametrize("ufunc, kind, dtype", CASES, ids=lambda v: getattr(v, "__name__", v))
def test_numbers_of_every_kind(rng, dtype, kind, ufunc, fp64):
    """Three rounds with fresh values: the first places, types and compiles the call, the others are
    served natively where the number converts exactly; every round matches NumPy."""
    if dtype in ("float64", "complex128") and not fp64:
        pytest.fail(f"the default device has no fp64 ({dtype} needs it)")
    q = nx.Queue(DEV)
    served = []
    for _ in range(3):
        h = values(rng, dtype)
        x = nx.asarray(h, sycl_queue=q)
        s = number(rng, kind)
        before = _core.known_served()
        for ours, theirs in (((x, s), (h, s)), ((s, x), (s, h))):
            what = f"{ufunc.__name__}{theirs!r:.40}"
            same_as_numpy(lambda o=ours: ufunc(*o), lambda t=theirs: ufunc(*t), what)
        served.append(_core.known_served() - before)
    # NumPy compares a Python int with integers by value: those calls are never served natively
    checked = ufunc is np.less and kind == "int" and np.dtype(dtype).kind in "iub"
    if not isinstance(numpy_outcome(lambda: ufunc(h, s)), type):
        assert served == [0, 0, 0] if checked else served[1:] == [2, 2], served  # both orders, rounds 2 and 3


def test_arrays_of_one_kind(rng, fp64):
    _core.known_clear()  # no kind served yet
    dt = "float64" if fp64 else "float32"
    q = nx.Queue(DEV)
    for rnd in range(3):
        h, g = rand(rng, dt, 61), rand(rng, dt, 61)
        x, y = nx.asarray(h, sycl_queue=q), nx.asarray(g, sycl_queue=q)
        before = _core.known_served()
        check(x + y, h + g)
        check(np.sqrt(np.abs(x)), np.sqrt(np.abs(h)))
        check(-x, -h)
        check(np.hypot(x, y), np.hypot(h, g))
        assert _core.known_served() - before == (0 if rnd == 0 else 5)
    i = nx.asarray(rand(rng, "int32", lo=-1000, hi=1000), sycl_queue=q)
    for _ in range(2):
        quotient, remainder = divmod(i, 7)  # two results
        check(quotient, nx.asnumpy(i) // 7)
        check(remainder, nx.asnumpy(i) % 7)


def test_numbers_out_of_range_after_the_kind_is_known(rng):
    """A kind served before does not skip NumPy's checks of the number's value."""
    q = nx.Queue(DEV)
    u = nx.asarray(rand(rng, "uint8"), sycl_queue=q)
    f = nx.asarray(rand(rng, "float32"), sycl_queue=q)
    for _ in range(2):
        check(u + 3, nx.asnumpy(u) + 3)
        check(f * 2.0, nx.asnumpy(f) * 2.0)
    with pytest.raises(OverflowError):
        u + 300
    with pytest.raises(OverflowError):
        u + (-1)
    for big in (2**25 + 1, 2**62):  # rounded by NumPy as float32: the library's path
        check(f + big, nx.asnumpy(f) + big)
    with pytest.warns(RuntimeWarning, match="overflow"):
        got = f * 1e300
    with pytest.warns(RuntimeWarning, match="overflow"):
        want = nx.asnumpy(f) * 1e300
    check(got, want)


def test_in_place_and_out(rng, fp64):
    dt = "float64" if fp64 else "float32"
    q = nx.Queue(DEV)
    h, g = rand(rng, dt), rand(rng, dt)
    x, y = nx.asarray(h, sycl_queue=q), nx.asarray(g, sycl_queue=q)
    view = x[:10]
    for _ in range(3):
        x += y
        h += g
        x *= 0.5
        h *= 0.5
    check(x, h)
    check(view, h[:10])  # written in place
    before = _core.known_served()
    out = nx.full(h.shape, np.nan, dtype=dt, sycl_queue=q)
    assert np.add(x, y, out=out) is out
    assert np.add(x, y, out=(out,)) is out
    assert _core.known_served() - before == 2
    check(out, h + g)
    x -= x  # the very same elements: served
    check(x, np.zeros_like(h))
    # overlapping other elements, another dtype, a strided output: the library's path, NumPy's results
    a = nx.asarray(h, sycl_queue=q)
    a[1:] += a[:-1]
    want = h.copy()
    want[1:] += want[:-1]
    check(a, want)
    wide = nx.zeros(h.shape, dtype=np.complex128 if fp64 else np.complex64, sycl_queue=q)
    np.add(y, y, out=wide)
    check(wide, (g + g).astype(wide.dtype))
    gaps = nx.zeros(2 * h.size, dtype=dt, sycl_queue=q)
    np.multiply(y, 2.0, out=gaps[::2])
    check(gaps[::2], g * 2.0)
    check(gaps[1::2], np.zeros_like(g))
    i = nx.asarray(rand(rng, "int32"), sycl_queue=q)
    i += 1
    with pytest.raises(TypeError, match="same_kind"):
        i += 1.5  # NumPy's casting rule, also once `i += 1` is known


def test_queues_usm_types_and_empty_arrays(rng, fp64):
    dt = "float64" if fp64 else "float32"
    q = nx.Queue(DEV)
    other_context = nx.Queue(q.device, context=nx.Context(q.device))
    h, g = rand(rng, dt), rand(rng, dt)
    for queue in (q, other_context, q):
        for usm_type in ("device", "shared", "host"):
            x = nx.asarray(h, sycl_queue=queue, usm_type=usm_type)
            y = nx.asarray(g, sycl_queue=queue, usm_type=usm_type)
            got = x - y
            assert got.sycl_queue is queue and got.usm_type == usm_type
            check(got, h - g)
    with pytest.raises(nx.ExecutionPlacementError):
        nx.asarray(h, sycl_queue=q) + nx.asarray(g, sycl_queue=other_context)
    for _ in range(2):
        e = nx.empty((0, 3), dtype=dt, sycl_queue=q) + 1.0
        assert e.shape == (0, 3) and e.dtype == np.dtype(dt)


@pytest.mark.needs_fp16
def test_half_precision_numbers(rng):
    q = nx.Queue(DEV)
    h = rand(rng, "float16")
    x = nx.asarray(h, sycl_queue=q)
    for s in (1.5, float(rng.standard_normal()), 3, 2049, True, 3001):
        for _ in range(2):
            check(x + s, h + s, f"float16 + {s!r}")
    with pytest.warns(RuntimeWarning, match="overflow"):
        got = x + 70000.0
    with pytest.warns(RuntimeWarning, match="overflow"):
        want = h + 70000.0
    check(got, want)


def test_strided_and_broadcast_operands(rng, fp64):
    """Strided and broadcast operands and outputs are kinds of their own (layouts in the kind): served
    from the second call on, with NumPy's values, also where the `out=` array broadcasts an operand
    (``d += x[:, None]``) or is itself strided; new results keep NumPy's memory order."""
    _core.known_clear()
    dt = "float64" if fp64 else "float32"
    q = nx.Queue(DEV)
    served = []
    for _ in range(3):
        h, g = rand(rng, dt, 48).reshape(6, 8), rand(rng, dt, 8)
        x, y = nx.asarray(h, sycl_queue=q), nx.asarray(g, sycl_queue=q)
        col = nx.asarray(h[:, 0].copy(), sycl_queue=q)
        before = _core.known_served()
        check(x[::2, 1::3] * y[1::3], h[::2, 1::3] * g[1::3])  # strided, broadcast row
        check(x + col[:, None], h + h[:, :1])  # broadcast column
        check(np.sqrt(np.abs(x[:, ::-1])), np.sqrt(np.abs(h[:, ::-1])))  # negative strides
        d = nx.asarray(h, sycl_queue=q)
        d += col[:, None]
        d -= y
        check(d, h + h[:, :1] - g)
        t = nx.full((6, 16), np.nan, dtype=dt, sycl_queue=q)
        np.multiply(x, 2.0, out=t[:, ::2])  # a strided output
        check(t[:, ::2], h * 2.0)
        assert np.isnan(nx.asnumpy(t[:, 1::2])).all()
        f = x.T * 3.0  # F-ordered operand: an F-ordered result, as NumPy's
        assert f.strides == (h.T * 3.0).strides
        check(f, h.T * 3.0)
        served.append(_core.known_served() - before)
    assert served[0] < served[1] == served[2] >= 6, served


def test_assignments_into_views(rng, fp64):
    """Assignments into strided views (``out[:, :, k] = comp``) are served natively from the second
    one of a kind, broadcasting and casting as NumPy; overlapping ones copy first."""
    _core.known_clear()
    dt = "float64" if fp64 else "float32"
    q = nx.Queue(DEV)
    for rnd in range(3):
        h = rand(rng, dt, 40).reshape(10, 4)
        x = nx.asarray(h, sycl_queue=q)
        out = nx.full((10, 4, 3), np.nan, dtype=dt, sycl_queue=q)
        before = _core.known_served()
        out[:, :, 0] = x
        out[:, :, 1] = x[0]  # broadcast
        out[:, :, 2] = nx.asarray(h.astype(np.int32), sycl_queue=q)  # cast
        assert _core.known_served() - before == (0 if rnd == 0 else 3)
        want = np.stack([h, np.broadcast_to(h[0], h.shape), h.astype(np.int32).astype(dt)], axis=2)
        check(out, want)
    x[1:] = x[:-1]  # overlapping: copied first
    shifted = h.copy()
    shifted[1:] = shifted[:-1].copy()
    check(x, shifted)


def test_kinds_served_when_assignments_come_first():
    """A process whose first eager operations are assignments into views (no new results yet) and
    in-place operators serves them natively from their second call on, with NumPy's values."""
    code = f"""
import numpy as np, numba_ext as nx
from numba_ext import _core
q = nx.Queue({DEV!r})
h = np.arange(12.0).reshape(3, 4)
out = nx.zeros((3, 4, 2), sycl_queue=q)
x = nx.asarray(h, sycl_queue=q)
for k in range(2):
    out[:, :, k] = x
    x += x
assert _core.known_served() == 2, _core.known_served()
want = np.stack([h, 2 * h], axis=2)
assert (nx.asnumpy(out) == want).all() and (nx.asnumpy(x) == 4 * h).all()
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
