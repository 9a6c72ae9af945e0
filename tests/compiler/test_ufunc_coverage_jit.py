"""Every ufunc Numba supports, in ``@numba_ext.jit`` array expressions: each real-dtype loop of
Numba's own ufunc table (tests/ufunc_cases.py) on fresh random inputs valid for the ufunc, against
NumPy (dtype, shape, values). A ufunc Numba adds, or a loop numba_ext cannot compile, fails here
unless tests/ufunc_cases.py's exclusion table names it.

To keep compilation short, the ufuncs that take the same inputs (one input class and loop) are
applied in one jitted function, twelve at a time: the expressions read the same arrays, so they
fuse into one kernel. Of the loops of one integer dtype, four dtypes run (every width, both
signednesses); NUMBA_EXT_UFUNC_FULL=1 runs all eight. The excluded loops are compiled one by one
and must fail."""

import os

import numpy as np
import pytest
from numba import prange
from numba.core.errors import TypingError

import numba_ext as nx
from numba_ext.errors import UnsupportedError

from .. import ufunc_cases as uc
from ..checks import N, poison

CASES = uc.cases(sample=False)
CHUNK = 12
INT_SAMPLE = {"int8", "uint16", "int32", "uint64"}
FULL = os.environ.get("NUMBA_EXT_UFUNC_FULL") == "1"


def _sampled(ins: tuple[str, ...]) -> bool:
    kinds = {np.dtype(d).kind for d in ins}
    return FULL or len(set(ins)) > 1 or not kinds <= {"i", "u"} or ins[0] in INT_SAMPLE


def _groups() -> dict[tuple[str, tuple[str, ...]], list[str]]:
    """(input class, input dtypes) -> the ufuncs taking those inputs (excluded loops left out)."""
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for name, ins in CASES:
        if not uc.excluded(name, ins) and _sampled(ins):
            groups.setdefault((uc.domain(name, ins), ins), []).append(name)
    return groups


GROUPS = _groups()


def _unary(us):
    u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11 = us

    def f(a):
        return u0(a), u1(a), u2(a), u3(a), u4(a), u5(a), u6(a), u7(a), u8(a), u9(a), u10(a), u11(a)

    return f


def _binary(us):
    u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11 = us

    def f(a, b):
        return (
            u0(a, b), u1(a, b), u2(a, b), u3(a, b), u4(a, b), u5(a, b),
            u6(a, b), u7(a, b), u8(a, b), u9(a, b), u10(a, b), u11(a, b),
        )  # fmt: skip

    return f


def _jitted(ufuncs: list[np.ufunc]):
    """One jitted function applying each of (up to twelve) `ufuncs` to the same arguments."""
    padded = ufuncs + [ufuncs[-1]] * (CHUNK - len(ufuncs))
    return nx.jit(_unary(padded) if ufuncs[0].nin == 1 else _binary(padded))


@pytest.mark.parametrize(("cls", "ins"), list(GROUPS), ids=[f"{c}-{uc.sig(i)}" for c, i in GROUPS])
def test_ufuncs_jit(rng, cls, ins):
    names = GROUPS[(cls, ins)]
    hs = uc.inputs(cls, ins, rng)
    xs = [nx.asarray(h) for h in hs]
    for start in range(0, len(names), CHUNK):
        chunk = [getattr(np, n) for n in names[start : start + CHUNK]]
        wants = [uc.reference(u, hs) for u in chunk]
        poison(N, *{w.dtype for want in wants for w in want})
        gots = _jitted(chunk)(*xs)
        for u, got, want in zip(chunk, gots, wants):
            got = got if isinstance(got, tuple) else (got,)
            assert len(got) == len(want), u.__name__
            for k, (g, w) in enumerate(zip(got, want)):
                uc.compare(u.__name__, g, w, f"jit np.{u.__name__} on {uc.sig(ins)} [output {k}]")


def test_every_loop_is_covered():
    """Each real loop of each ufunc in Numba's list is in a group above or excluded."""
    grouped = {(n, ins) for (_, ins), names in GROUPS.items() for n in names}
    grouped |= {(n, ins) for n, ins in CASES if not _sampled(ins)}
    for u in uc.ufuncs():
        loops = [ins for ins in uc.real_loops(u) if (u.__name__, uc.sig(ins)) not in uc.NUMPY_REFUSES]
        if not loops:
            assert uc.excluded(u.__name__, ("*",)), f"np.{u.__name__} has no real loop and no exclusion"
        for ins in loops:
            assert (u.__name__, ins) in grouped or uc.excluded(u.__name__, ins), (u.__name__, ins)


EXCLUDED_LOOPS = [(n, ins) for n, ins in CASES if uc.excluded(n, ins)]


def test_excluded_loops_fail(rng):
    """Every real loop the exclusion table names really fails in jitted code (so an entry that
    starts working is noticed); the table holds none today."""
    for name, ins in EXCLUDED_LOOPS:
        xs = [nx.asarray(h) for h in uc.inputs(uc.domain(name, ins), ins, rng)]
        with pytest.raises((UnsupportedError, TypingError)):
            _jitted([getattr(np, name)])(*xs)


@pytest.mark.parametrize("dtypes", [("bool", "bool"), ("int32", "int32"), ("uint8", "int64")])
def test_true_divide_dtype(rng, dtypes):
    """Integer and bool true division gives float64, as in NumPy."""
    hs = uc.inputs("int", dtypes, rng)
    f = nx.jit(lambda a, b: (a / b, np.true_divide(a, b)))
    want = uc.reference(np.true_divide, hs)[0]
    for g in f(*[nx.asarray(h) for h in hs]):
        uc.compare("true_divide", g, want, f"{dtypes}")


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64"])
def test_shift_operators(rng, dtype):
    a = uc.rand(rng, dtype, N)
    s = rng.integers(0, 8 * np.dtype(dtype).itemsize, N).astype(dtype)
    f = nx.jit(lambda a, s: (a << s, a >> s, (a << s) >> s))
    got = f(nx.asarray(a), nx.asarray(s))
    want = (a << s, a >> s, (a << s) >> s)
    for g, w in zip(got, want):
        uc.compare("left_shift", g, w, dtype)


@nx.jit
def _scalar_ufuncs(a, s, x, out_i, out_f):
    for i in prange(a.shape[0]):
        out_i[i] = ((a[i] << s[i]) >> 3) ^ np.left_shift(a[i], 2)
        out_f[i] = np.arcsinh(x[i]) + np.cbrt(x[i]) * np.copysign(1.0, x[i])


def test_scalar_ufuncs_in_prange(rng):
    """Shifts and the new math ufuncs on scalars inside a prange loop (the control-flow kernel)."""
    a = uc.rand(rng, "int64", N)
    s = rng.integers(0, 64, N)
    x = rng.standard_normal(N) * 3
    out_i, out_f = nx.empty(N, dtype=np.int64), nx.empty(N)
    _scalar_ufuncs(nx.asarray(a), nx.asarray(s), nx.asarray(x), out_i, out_f)
    uc.compare("left_shift", out_i, ((a << s) >> 3) ^ (a << 2), "prange shifts")
    uc.compare("arcsinh", out_f, np.arcsinh(x) + np.cbrt(x) * np.copysign(1.0, x), "prange math")
