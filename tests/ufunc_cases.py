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
        keep = (
            set(ints) if full or not sample or not ints else {ints[(k + 3 * j) % len(ints)] for j in range(3)}
        )
        out += [(u.__name__, ins) for ins in loops if ins not in ints or ins in keep]
    return out


# -- inputs -----------------------------------------------------------------------------------------
_POSITIVE = {"sqrt", "log", "log2", "log10", "log1p", "arccosh"}
_UNIT = {"arcsin", "arccos", "arctanh"}
_SMALL_RHS = {"left_shift", "right_shift", "power", "float_power"}


def domain(name: str, ins: tuple[str, ...]) -> str:
    """The input class of a ufunc's loop: the loops of one class and input dtypes take the same
    inputs (so the jitted test computes them in one kernel)."""
    if name == "ldexp":
        return "ldexp"
    if all(np.dtype(d).kind == "f" for d in ins):
        return "positive" if name in _POSITIVE else "unit" if name in _UNIT else "float"
    if len(ins) == 2 and name in _SMALL_RHS:
        return "small_rhs"  # shift counts in [0, bits), small exponents
    return "int"


def inputs(cls: str, ins: tuple[str, ...], rng: np.random.Generator, n: int = N) -> list[np.ndarray]:
    """Random inputs of dtypes `ins` valid for every ufunc of input class `cls` (see `domain`)."""
    if cls == "positive":  # half >= 1 (arccosh), half in (0, 1)
        return [np.exp(np.abs(rng.uniform(-7, 7, n)) * np.sign(np.arange(n) - n / 2)).astype(d) for d in ins]
    if cls == "unit":
        return [rng.uniform(-0.99, 0.99, n).astype(d) for d in ins]
    if cls == "ldexp":
        return [rand(rng, ins[0], n), rng.integers(-40, 40, n).astype(ins[1])]
    hs = [rand(rng, dt, n) for dt in ins]
    if cls == "float":
        _inject_specials(hs)
        return hs
    for h in hs:
        if h.dtype.kind == "i":
            h[h == np.iinfo(h.dtype).min] = -1  # the smallest value // -1 (and its |x|) overflow
    if cls == "small_rhs":
        bits = 8 * np.dtype(ins[1]).itemsize if ins[1] != "bool" else 1
        hs[1] = rng.integers(0, bits, n, endpoint=ins[1] == "bool").astype(ins[1])
    elif len(hs) == 2 and hs[1].dtype != np.bool_:
        hs[1][:3] = 0  # integer division by zero gives 0
        hs[1][3:9] = [1, 2, 3, 5, 7, 60][:6] if hs[1].dtype.kind == "u" else [-1, 2, -3, 5, -7, 60]
    if len(hs) == 1 and hs[0].dtype.kind in "iu":
        hs[0][hs[0] == 0] = 1  # NumPy's integer reciprocal of 0 is undefined
    return hs


def _inject_specials(hs):
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, -0.5, 1.5, -1.5, 2.5])
    for k, h in enumerate(hs):
        if h.dtype.kind == "f":
            h[: len(specials)] = np.roll(specials, 3 * k).astype(h.dtype)
    if len(hs) == 2:
        hs[1][12:16] = hs[0][12:16]  # equal operands (nextafter, logaddexp)
    else:
        hs[0][12:16] = 0.5, -2.5, 3.5, -1e-3  # halves


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
