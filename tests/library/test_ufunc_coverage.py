"""Every ufunc Numba supports, eagerly on numba_ext arrays (``np.sqrt(x)``, through
``__array_ufunc__``): each real-dtype loop of Numba's own ufunc table (tests/ufunc_cases.py) on fresh
random inputs valid for the ufunc, against NumPy (dtype, shape, values). A ufunc Numba adds, or a
loop numba_ext cannot compute, fails here unless tests/ufunc_cases.py's exclusion table names it.

Eagerly each loop is one kernel to compile, so the integer loops are a deterministic rotation of
three per ufunc (every loop with NUMBA_EXT_UFUNC_FULL=1); the jitted test covers every loop."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import ExecutionPlacementError

from .. import ufunc_cases as uc
from ..checks import N, check, poison

NAMES = [u.__name__ for u in uc.ufuncs()]
CASES = uc.cases(sample=True)


@pytest.mark.parametrize("name", NAMES)
def test_ufunc_eager(rng, name):
    u = getattr(np, name)
    loops = [ins for n, ins in CASES if n == name]
    if uc.excluded(name, ("*",)) and not uc.real_loops(u):
        return  # no real loop at all: test_exclusions checks the entry
    assert loops, f"np.{name}: no real loop to test"
    for ins in loops:
        hs = uc.inputs(uc.domain(name, ins), ins, rng)
        what = f"np.{name} on {uc.sig(ins)}"
        if uc.excluded(name, ins):
            with pytest.raises(TypeError):
                u(*[nx.asarray(h) for h in hs])
            continue
        want = uc.reference(u, hs)
        poison(N, *[w.dtype for w in want])
        got = u(*[nx.asarray(h) for h in hs])
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want), what
        for k, (g, w) in enumerate(zip(got, want)):
            uc.compare(name, g, w, f"{what} [output {k}]")


def test_exclusions():
    """The exclusion table names real ufuncs and loops; NumPy refuses the loops listed as refused,
    and so does numba_ext."""
    names = set(NAMES)
    for (name, loop), reason in uc.EXCLUDED.items():
        assert reason
        if name == "*":
            assert loop == "complex" and any(uc.complex_loops(u) for u in uc.ufuncs())
            continue
        assert name in names, name
        u = getattr(np, name)
        assert loop == "*" or tuple(loop.split(",")) in uc.real_loops(u), (name, loop)
    for name, loop in uc.NUMPY_REFUSES:
        hs = [np.ones(3, dt) for dt in loop.split(",")]
        with pytest.raises(TypeError):
            getattr(np, name)(*hs)
        with pytest.raises(TypeError):
            getattr(np, name)(*[nx.asarray(h) for h in hs])


# -- NumPy's type resolution, out=, operators ----------------------------------------------------------
@pytest.mark.parametrize(
    ("ufunc", "dtypes"),
    [
        (np.true_divide, ("bool", "bool")),
        (np.true_divide, ("int32", "int32")),
        (np.true_divide, ("uint8", "int64")),
        (np.sqrt, ("int32",)),
        (np.sqrt, ("int16",)),
        (np.exp, ("uint32",)),
        (np.left_shift, ("uint8", "int16")),
        (np.right_shift, ("int8", "uint8")),
        (np.arctan2, ("int32", "float32")),
        (np.sign, ("int8",)),
        (np.floor, ("int64",)),
        (np.isnan, ("int16",)),
    ],
)
def test_type_resolution(rng, ufunc, dtypes):
    """Mixed and promoted operands take NumPy's loop and result dtype."""
    hs = uc.inputs(uc.domain(ufunc.__name__, dtypes), dtypes, rng)
    if ufunc is np.sqrt:
        hs = [np.abs(h) for h in hs]
    want = uc.reference(ufunc, hs)[0]
    check(ufunc(*[nx.asarray(h) for h in hs]), want, f"np.{ufunc.__name__}{dtypes}")


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint64"])
def test_shift_counts_beyond_the_width(rng, dtype):
    """Shifts by the bit width or more (and, for signed counts, negative ones) shift every bit out,
    as in NumPy: 0, or -1 for negative values shifted right."""
    bits = 8 * np.dtype(dtype).itemsize
    a = uc.rand(rng, dtype, N)
    lo = -3 if np.dtype(dtype).kind == "i" else 0
    s = rng.integers(lo, min(2 * bits, np.iinfo(dtype).max), N).astype(dtype)
    x, c = nx.asarray(a), nx.asarray(s)
    check(x << c, np.left_shift(a, s), "<<")
    check(x >> c, np.right_shift(a, s), ">>")
    check(x << 3, a << 3, "<< 3")
    check(2 >> c, np.right_shift(np.asarray(2, dtype), s), "2 >>")


@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_divmod_operator(rng, dtype):
    a, b = uc.inputs(uc.domain("remainder", (dtype, dtype)), (dtype, dtype), rng)
    q, r = divmod(nx.asarray(a), nx.asarray(b))
    wq, wr = uc.reference(np.divmod, [a, b])
    check(q, wq, "quotient")
    check(r, wr, "remainder")


def test_out(rng):
    """out= writes the result into the given array (casting as NumPy's 'same_kind' allows, also
    into strided views) and returns it; divmod takes one array per output."""
    a, b = rng.standard_normal(N), rng.standard_normal(N)
    x, y = nx.asarray(a), nx.asarray(b)
    out = nx.empty(N)
    assert np.hypot(x, y, out=out) is out
    check(out, np.hypot(a, b), "hypot out=")
    out32 = nx.empty(N, dtype=np.float32)
    assert np.multiply(x, 2.0, out=out32) is out32
    check(out32, (a * 2.0).astype(np.float32), "float64 into float32")
    wide = nx.zeros((N, 2))
    np.exp(x, out=wide[:, 1])
    check(wide, np.stack([np.zeros(N), np.exp(a)], axis=1), "strided out")
    q, r = nx.empty(N), nx.empty(N)
    assert np.divmod(x, y, out=(q, r)) == (q, r)
    check(q, np.floor_divide(a, b), "divmod out quotient")
    check(r, np.remainder(a, b), "divmod out remainder")


def test_out_errors(rng):
    x = nx.asarray(rng.standard_normal(N))
    with pytest.raises(TypeError, match="same_kind"):
        np.sqrt(x, out=nx.empty(N, dtype=np.int64))
    with pytest.raises(ValueError, match="shape"):
        np.sqrt(x, out=nx.empty(N + 1))
    with pytest.raises(TypeError, match="numba_ext arrays"):
        np.sqrt(x, out=np.empty(N))
    d = nx.default_queue().device
    other = nx.Queue(d, context=nx.Context(d))  # a queue of another context: not equivalent
    with pytest.raises(ExecutionPlacementError):
        np.sqrt(x, out=nx.empty(N, sycl_queue=other))
