"""The ufunc coverage cases shared by tests/library/test_ufunc_coverage.py (eager) and
tests/compiler/test_ufunc_coverage_jit.py (jitted): every ufunc in Numba's own list
(``numba.np.ufunc_db.get_ufuncs()``) with each of its real-dtype loops, valid random inputs per
ufunc, NumPy's results as the reference, and the one table of what is not supported."""

import os

import numpy as np
from numba.np import ufunc_db

import numba_ext as nx

from .checks import check, rand

N = 61
REAL_CHARS = set("?bBhHiIlLqQfd")

#: The one exclusion table: (ufunc name, loop input dtypes or "*" for every loop) -> why numba_ext
#: does not compute it. The tests assert that exactly these cases fail, and that the ufuncs below
#: that are never run really have only such loops.
EXCLUDED: dict[tuple[str, str], str] = {
    ("isnat", "*"): "datetime64/timedelta64 only: numba_ext arrays hold bool, integer and float dtypes",
    ("*", "complex"): "complex loops are not part of the real-dtype coverage (complex dtypes are covered "
    "separately)",
}

#: Loops that Numba's table lists but NumPy refuses (numba_ext follows NumPy: refused too, eagerly).
NUMPY_REFUSES = {("negative", "bool"), ("positive", "bool"), ("subtract", "bool,bool")}

#: Ufuncs whose results are exact (compared bit for bit, not within a tolerance).
EXACT = {
    "absolute", "fabs", "negative", "positive", "conjugate", "sign", "floor", "ceil", "trunc",
    "rint", "maximum", "minimum", "fmax", "fmin", "copysign", "nextafter", "spacing", "ldexp",
    "remainder", "fmod", "divmod", "floor_divide", "true_divide", "divide", "multiply", "add",
    "subtract", "square", "signbit", "isnan", "isinf", "isfinite",
}  # fmt: skip


def ufuncs() -> list[np.ufunc]:
    """Numba's supported ufuncs, by name."""
    return sorted(ufunc_db.get_ufuncs(), key=lambda u: u.__name__)


def real_loops(u: np.ufunc) -> list[tuple[str, ...]]:
    """The input dtypes of each loop of `u` in Numba's table whose dtypes are all real (bool,
    integer, float); loops differing only in C type names of one dtype ('l' and 'q') appear once."""
    seen: list[tuple[str, ...]] = []
    for key in ufunc_db.get_ufunc_info(u):
        if set(key.replace("->", "")) <= REAL_CHARS:
            ins = tuple(np.dtype(c).name for c in key.split("->")[0])
            if ins not in seen:
                seen.append(ins)
    return seen


def complex_loops(u: np.ufunc) -> list[str]:
    return [k for k in ufunc_db.get_ufunc_info(u) if set(k) & set("FDG")]


def sig(ins: tuple[str, ...]) -> str:
    return ",".join(ins)


def excluded(name: str, ins: tuple[str, ...]) -> str | None:
    return EXCLUDED.get((name, sig(ins))) or EXCLUDED.get((name, "*"))


def cases(sample: bool) -> list[tuple[str, tuple[str, ...]]]:
    """(ufunc name, input dtypes) of every real loop, less the loops NumPy refuses. With `sample`,
    the integer loops of each ufunc are a deterministic rotation of three of its integer loops (all
    of them with NUMBA_EXT_UFUNC_FULL=1); float, bool and mixed loops are always in."""
    full = os.environ.get("NUMBA_EXT_UFUNC_FULL") == "1"
    out = []
    for k, u in enumerate(ufuncs()):
        loops = [ins for ins in real_loops(u) if (u.__name__, sig(ins)) not in NUMPY_REFUSES]
        ints = [ins for ins in loops if len(set(ins)) == 1 and np.dtype(ins[0]).kind in "iu"]
        keep = set(ints) if full or not sample or not ints else {ints[(k + 3 * j) % len(ints)] for j in range(3)}
        out += [(u.__name__, ins) for ins in loops if ins not in ints or ins in keep]
    return out


# -- inputs -----------------------------------------------------------------------------------------
_POSITIVE = {"sqrt", "log", "log2", "log10"}
_UNIT = {"arcsin", "arccos", "arctanh"}
_SPECIALS = {
    "isnan", "isinf", "isfinite", "signbit", "sign", "maximum", "minimum", "fmax", "fmin", "spacing",
    "copysign", "nextafter", "floor", "ceil", "trunc", "rint", "logaddexp", "logaddexp2", "absolute",
    "fabs", "negative",
}  # fmt: skip
_DIVISIONS = {"floor_divide", "remainder", "fmod", "divmod", "divide", "true_divide"}


_OWN_DOMAIN = {"arccosh", "log1p", "power", "float_power", "ldexp", "reciprocal"}


def domain(name: str) -> str:
    """The input class of a ufunc: ufuncs of one class and loop take the same inputs."""
    classes = {"positive": _POSITIVE, "unit": _UNIT, "specials": _SPECIALS, "division": _DIVISIONS}
    classes |= {"gcd": {"gcd", "lcm"}, "shift": {"left_shift", "right_shift"}}
    for cls, names in classes.items():
        if name in names:
            return cls
    return name if name in _OWN_DOMAIN else "any"


def inputs(cls: str, ins: tuple[str, ...], rng: np.random.Generator, n: int = N) -> list[np.ndarray]:
    """Random inputs of dtypes `ins` valid for every ufunc of input class `cls`."""
    hs = [rand(rng, dt, n) for dt in ins]
    floats = [np.dtype(d).kind == "f" for d in ins]
    ints = [np.dtype(d).kind in "iu" for d in ins]
    if cls == "positive":
        hs = [np.exp(rng.uniform(-7, 7, n)).astype(d) for d in ins]
    elif cls == "unit":
        hs = [rng.uniform(-0.99, 0.99, n).astype(d) for d in ins]
    elif cls == "arccosh":
        hs = [rng.uniform(1, 100, n).astype(d) for d in ins]
    elif cls == "log1p":
        hs = [rng.uniform(-0.9, 100, n).astype(d) for d in ins]
    elif cls in ("power", "float_power"):
        hs = _power(rng, ins, n)
    elif cls == "ldexp":
        hs[1] = rng.integers(-40, 40, n).astype(ins[1])
    elif cls == "reciprocal" and ints[0]:
        hs[0][hs[0] == 0] = 1  # NumPy's integer 1 / 0 is undefined
    elif cls == "shift":
        bits = 8 * max(np.dtype(ins[1]).itemsize, 1)
        hs[1] = rng.integers(0, bits, n).astype(ins[1])
    elif cls == "gcd":
        hs = [rand(rng, d, n, lo=-1000, hi=1000) for d in ins]
        for h in hs:
            h[h == np.iinfo(h.dtype).min] = 0
    elif cls == "division" and ints[0]:
        info = np.iinfo(ins[0])
        hs[0][hs[0] == info.min] = info.min + 1  # the smallest value // -1 overflows
        hs[1][:3] = 0  # integer division by zero gives 0
    elif cls == "specials" and any(floats):
        _inject_specials(hs, rng)
    elif cls == "any" and all(floats):
        hs[0][:2] = 0.5, -2.5  # halves
    return hs


def _power(rng, ins, n):
    if np.dtype(ins[0]).kind == "f":
        return [rng.uniform(0.1, 10, n).astype(ins[0]), (rng.standard_normal(n) * 2).astype(ins[1])]
    if ins[0] == "bool":
        return [rand(rng, "bool", n), rand(rng, "bool", n)]
    lo = 0 if np.dtype(ins[0]).kind == "u" else -4
    return [rng.integers(lo, 5, n).astype(ins[0]), rng.integers(0, 7, n).astype(ins[1])]


def _inject_specials(hs, rng):
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, -0.5, 1.5, -1.5, 2.5])
    for k, h in enumerate(hs):
        if h.dtype.kind == "f":
            h[: len(specials)] = np.roll(specials, 3 * k).astype(h.dtype)
    if len(hs) == 2 and hs[0].dtype == hs[1].dtype:
        hs[1][12:16] = hs[0][12:16]  # equal operands (nextafter, logaddexp)


def reference(u: np.ufunc, hs: list[np.ndarray]):
    """NumPy's results as a tuple (one entry per output)."""
    with np.errstate(all="ignore"):
        want = u(*hs)
    return want if isinstance(want, tuple) else (want,)


def compare(name: str, got, want: np.ndarray, what: str) -> None:
    """numba_ext result `got` against NumPy's `want`: bit for bit for exact ufuncs (and integers),
    else within tests/checks.py's tolerances."""
    check(got, want, what)
    if name in EXACT:
        np.testing.assert_array_equal(nx.asnumpy(got), want, err_msg=what)
