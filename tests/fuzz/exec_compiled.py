"""The executors and oracles of the families that compile device code: kernel launches (a model of
the launch rules), jit arguments (Numba's CPU result) and eager operations (NumPy's)."""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numba
import numpy as np

import numba_ext as nx

from .classify import CORRECT, WRONG, brief, classify_error, compare, describe
from .execute import env
from .values import Enc, decode

Verdict = tuple[str, str]


# -- launches ---------------------------------------------------------------------------------------
@nx.kernel
def _count(out):
    i = nx.get_global_linear_id()
    out[i] = i + 1


def _extent(v: Enc) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, dict) and v.get("$") == "np" and np.dtype(v["t"]).kind in "iu":
        return int(v["v"])
    return None


def _items(v: Enc) -> list[Enc] | None:
    if isinstance(v, list):
        return v
    if isinstance(v, dict) and v.get("$") in ("tuple", "Range"):
        return list(v["v"])
    return None


def _range(v: Enc) -> tuple[int, ...] | None:
    """The extents of a range (an int, a list, a tuple or a Range), None if it is malformed."""
    items = _items(v)
    if items is not None and len(items) == 1 and _items(items[0]) is not None:
        items = _items(items[0])  # Range((n, m)): the extents as one sequence
    ext = [_extent(x) for x in (items if items is not None else [v])]
    if not 1 <= len(ext) <= 3 or any(e is None or e < 0 for e in ext):
        return None
    dims = tuple(e for e in ext if e is not None)
    return dims if math.prod(dims) <= 2**63 - 1 and max(dims) <= 2**63 - 1 else None


def _nd(g: Enc, lo: Enc) -> tuple[tuple[int, ...], tuple[int, ...] | None] | None:
    gr, lr = _range(g), _range(lo)
    if gr is None or lr is None or len(gr) != len(lr) or any(n < 1 or m % n for m, n in zip(gr, lr)):
        return None
    return gr, lr


def launch_model(cfg: Enc) -> tuple[tuple[int, ...], tuple[int, ...] | None] | None:
    """The global and local range of a launch configuration by numba-dpex's rules (an int, 1 to 3
    extents, a Range, an NdRange or a (global, local) pair; two ints are a 1-D global and local
    size), None for a configuration those rules refuse."""
    if isinstance(cfg, dict) and cfg.get("$") == "NdRange":
        return _nd(cfg["g"], cfg["l"])
    if isinstance(cfg, dict) and cfg.get("$") == "tuple" and len(cfg["v"]) == 2:
        a, b = cfg["v"]
        if _extent(a) is not None and _extent(b) is not None:
            return _nd(a, b)
        if all(_extent(x) is not None or _items(x) is not None for x in (a, b)):
            return _nd(a, b)
    r = _range(cfg)
    return None if r is None else (r, None)


def run_launch(case: dict) -> Verdict:
    model = launch_model(case["cfg"])
    n = math.prod(model[0]) if model else 0
    size = n + 3 if model and n <= 2**20 else 16
    out = nx.full(size, -7, dtype=case["dtype"])
    handlers = env("nx")
    handlers.update(
        Range=lambda t, e: nx.Range(*decode(t["v"], e)),
        NdRange=lambda t, e: nx.NdRange(decode(t["g"], e), decode(t["l"], e)),
    )
    try:
        cfg = decode(case["cfg"], handlers)
        if case["spelling"] == "getitem":
            _count[cfg](out)
        else:
            nx.call_kernel(_count, cfg, out)
    except Exception as e:
        return classify_error(e, None, ()), describe(e)
    if model is None:
        return WRONG, f"a launch with the malformed configuration {case['cfg']!r} ran"
    want = np.full(size, -7, dtype=case["dtype"])
    want[:n] = np.arange(1, n + 1)
    problem = compare(nx.asnumpy(out), want)
    return (WRONG, f"{problem} after a launch over {model}") if problem else (CORRECT, str(model))


# -- jit arguments ----------------------------------------------------------------------------------
def add(x, y):
    return x + y


def mul_sum(x, s):
    return (x * s).sum()


def row_sum(x, s):
    return np.sum(x * s, axis=-1)


def neg(x):
    return -x


def where_pos(x):
    return np.where(x > 0, x, 0)


_PY = {f.__name__: f for f in (add, mul_sum, neg, where_pos, row_sum)}
JITTED = {name: nx.jit(f) for name, f in _PY.items()}
ON_CPU = {name: numba.njit(f) for name, f in _PY.items()}


def _host(v: Any) -> np.ndarray:
    if isinstance(v, tuple):  # np.nonzero's or np.unique's arrays: their elements in a row
        return np.concatenate([_host(e).ravel() for e in v]) if v else np.zeros(0)
    return nx.asnumpy(v) if isinstance(v, nx.ndarray) else np.asarray(v)


def _sum_tolerance(terms: Any, inputs: Sequence[Any] = ()) -> tuple[float, float] | tuple[None, None]:
    """Tolerances of a sum of `terms` (any summation order): n * eps * max |term|, a few times. eps is
    that of the least precise float or complex input array: Numba computes `complex64 * int64` in
    complex64 where NumPy's terms are complex128, and a device sum adds in any order."""
    t = np.asarray(terms)
    if t.dtype.kind not in "fc" or t.size == 0:
        return None, None
    inexact = [a.dtype for a in inputs if isinstance(a, np.ndarray) and a.dtype.kind in "fc"]
    eps = max(float(np.finfo(d).eps) for d in [t.dtype, *inexact])
    with np.errstate(all="ignore"):
        big = float(np.nanmax(np.abs(t))) if np.isfinite(t).any() else 0.0
    return 4 * t.size * eps, 4 * t.size * eps * big + 1e-30


def _reference(f: Callable[..., Any], args: list[Any]) -> tuple[Any, type[BaseException] | None]:
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f(*args), None
    except Exception as e:
        return None, type(e)


def run_jit(case: dict) -> Verdict:
    """Correct: the result of Numba on the CPU or of NumPy (Numba types a Python int as int64, NumPy 2
    as a weak scalar; numba_ext may follow either), or an error where Numba on the CPU raises one."""
    fn = case["fn"]
    np_args = decode(case["args"], env("np"))
    want, reference = _reference(ON_CPU[fn], np_args)
    args = decode(case["args"], env("nx"))
    try:
        got = JITTED[fn](*args)
    except Exception as e:
        return classify_error(e, reference, ()), describe(e)
    if reference is not None:
        return WRONG, f"Numba on the CPU raises {reference.__name__}; numba_ext returned {brief(got)}"
    rtol = atol = None
    if fn in ("mul_sum", "row_sum"):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:  # the terms as NumPy forms them (an unsigned array times a negative int overflows)
                terms = np.asarray(np_args[0]) * np_args[1]
            except (OverflowError, TypeError):
                terms = np.asarray(want)
            rtol, atol = _sum_tolerance(terms, np_args)
    problem = compare(_host(got), _host(want), rtol, atol)
    if problem:
        want_np, exc = _reference(_PY[fn], decode(case["args"], env("np")))
        if exc is None and compare(_host(got), _host(want_np), rtol, atol) is None:
            problem = None
    return (WRONG, problem) if problem else (CORRECT, "")


# -- eager operations -------------------------------------------------------------------------------
OPERATORS: dict[str, Callable[..., Any]] = {
    "add": operator.add,
    "subtract": operator.sub,
    "multiply": operator.mul,
    "true_divide": operator.truediv,
    "floor_divide": operator.floordiv,
    "remainder": operator.mod,
    "power": operator.pow,
    "bitwise_and": operator.and_,
    "bitwise_or": operator.or_,
    "bitwise_xor": operator.xor,
    "left_shift": operator.lshift,
    "right_shift": operator.rshift,
    "less": operator.lt,
    "equal": operator.eq,
    "greater_equal": operator.ge,
    "matmul": operator.matmul,
}


#: the Fourier transforms the eager family draws (np.fft's)
FOURIER = ("fft", "ifft", "rfft", "irfft", "fftn")


def _call(case: dict, args: list[Any], kw: dict[str, Any]) -> Any:
    kind, name = case["kind"], case["name"]
    if kind == "reduction":
        return getattr(args[0], name)(**kw)
    if kind == "scan":
        return getattr(np, name)(args[0], **kw)
    if kind == "function":
        x = args[0]
        if name in ("concatenate", "stack"):
            return getattr(np, name)([x, x], **kw)
        if name in ("isclose", "array_equal"):
            return getattr(np, name)(x, x * 0.5 + 1, **kw)
        if name == "argsort":  # NumPy's default sort is not stable; the device's is
            return np.argsort(x, kind="stable", **kw)
        if name == "searchsorted":  # a sorted haystack: searches of unsorted data differ by algorithm
            return np.searchsorted(np.sort(x, axis=None), x * 0.5 + 1, **kw)
        if name == "take":
            return np.take(x, [0, -1, 2, 1], **kw)
        if name == "take_along_axis":
            return np.take_along_axis(x, np.argsort(x, kind="stable", **kw), **kw)
        if name == "extract":
            return np.extract(x != 0, x)
        if name == "repeat":
            return np.repeat(x, 2, **kw)
        if name == "mask":
            return x[x != 0]
        if name == "add_at":  # repeated positions add up; a copy, so the input stays as it was
            y = x.copy()
            np.add.at(y, [0, -1, 0], 1)
            return y
        if name == "unique":
            return np.unique(x, return_index=True, return_inverse=True, return_counts=True, **kw)
        if name == "tensordot":
            return np.tensordot(x, x, **kw)
        if name in ("quantile", "nanpercentile"):
            rest = {k: v for k, v in kw.items() if k != "q"}  # kw serves NumPy's call and ours
            return getattr(np, name)(x, kw.get("q", 0.5 if name == "quantile" else 50), **rest)
        if name == "einsum":
            return _einsum(x, kw.get("form", "sum"))
        if name == "interp":  # sample points of x's own sorted values
            points = np.sort(x, axis=None)
            return np.interp(x * 0.5, points, points * 2 - 1, **kw)
        if name == "digitize":
            return np.digitize(x, np.sort(x[..., :3], axis=None), **kw)
        if name in ("convolve", "correlate"):  # with a second sequence made from the first
            return getattr(np, name)(x, x * 0.5 + 1, **kw)
        if name in (*FOURIER, "fftshift"):
            return getattr(np.fft, name)(x, **kw)
        if name == "assign_int":  # repeated positions: the last value wins; a copy keeps the input
            y = x.copy()
            y[[0, -1, 0]] = x[[1, 0, -1]]
            return y
        return getattr(np, name)(x, **kw)
    if kind in ("operator", "matmul") and name in OPERATORS:
        return OPERATORS[name](*args)
    return getattr(np, name)(*args)


def _einsum(x: Any, form: str) -> Any:
    """An einsum of `x` with itself whose subscripts fit its rank."""
    letters = "abcdefgh"[: x.ndim]
    if form == "trace" and x.ndim >= 2:
        return np.einsum(
            letters[0] * 2 + letters[2:], x[..., : x.shape[0]] if x.ndim == 2 else x[:, : x.shape[0]]
        )
    if form == "transpose":
        return np.einsum(f"{letters}->{letters[::-1]}", x)
    if form == "outer" and x.ndim <= 2:
        other = "ijkl"[: x.ndim]
        return np.einsum(f"{letters},{other}->{letters}{other}", x, x)
    if form == "contract" and x.ndim >= 1:
        return np.einsum(f"{letters},{letters[-1]}->{letters[:-1]}", x, x[(0,) * (x.ndim - 1)])
    return np.einsum(f"{letters}->", x)


def _product_tolerance(a: Any, b: Any, dtype: np.dtype) -> tuple[float, float] | tuple[None, None]:
    """Tolerances of a matrix product of `a` and `b` with `dtype` results: sums of k products."""
    if dtype.kind not in "fc":
        return None, None
    a, b = np.abs(np.asarray(a)), np.abs(np.asarray(b))
    k = max(1, a.shape[-1] if a.ndim else 1)
    big = [float(np.max(np.where(np.isfinite(x), x, 0), initial=0)) for x in (a, b)]
    eps = float(np.finfo(dtype).eps)
    return 4 * k * eps, 4 * k * eps * big[0] * big[1] * k + 1e-30


def run_eager(case: dict) -> Verdict:
    np_args = decode(case["args"], env("np"))
    kw = decode(case.get("kwargs", {}), env("np"))
    reference, want = None, None
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = _call(case, np_args, kw)
    except Exception as e:
        reference = type(e)
    args = decode(case["args"], env("nx"))
    try:
        got = _call(case, args, kw)
    except Exception as e:
        return classify_error(e, reference, ()), describe(e)
    if reference is not None:
        return WRONG, f"NumPy raises {reference.__name__}; numba_ext returned {brief(got)}"
    rtol = atol = None
    if (case["kind"], case["name"]) in (
        ("reduction", "sum"),
        ("reduction", "mean"),
        ("reduction", "prod"),
        ("scan", "cumsum"),
    ):
        accumulate = kw.get("dtype")  # sums in a given dtype: that dtype's precision
        inexact = (
            [np.empty(0, accumulate)] if accumulate is not None and np.dtype(accumulate).kind in "fc" else []
        )
        rtol, atol = _sum_tolerance(np_args[0], inexact)
        if case["name"] == "mean" and atol is not None:
            atol /= max(1, np.asarray(np_args[0]).size)
    elif case["kind"] == "function" and case["name"] in FOURIER:  # sums of terms as large as |x|
        rtol, atol = _sum_tolerance(np.abs(np.asarray(np_args[0])).astype(np.float64), np_args)
    elif case["kind"] == "function" and case["name"] in ("convolve", "correlate"):  # sums of x * v
        x = np.asarray(np_args[0])
        rtol, atol = _sum_tolerance(np.abs(x) * (np.abs(x) * 0.5 + 1), np_args)
    elif (case["kind"], case["name"]) in (("function", "average"), ("function", "einsum")):
        terms = np.asarray(np_args[0])
        rtol, atol = _sum_tolerance(np.abs(terms) ** 2 + np.abs(terms) if terms.dtype.kind in "fc" else terms)
    elif (case["kind"], case["name"]) in (("function", "var"), ("function", "std"), ("function", "trace")):
        terms = np.asarray(np_args[0])
        if case["name"] != "trace" and terms.dtype.kind in "fc":
            terms = np.abs(terms) ** 2  # squared deviations, summed
        rtol, atol = _sum_tolerance(terms)
        if case["name"] == "std" and atol is not None:
            atol = float(np.sqrt(atol))
    elif case["kind"] == "matmul":
        rtol, atol = _product_tolerance(np_args[0], np_args[1], np.asarray(want).dtype)
    got_h, want_h = _host(got), _host(want)
    if case["kind"] == "function" and case["name"] in FOURIER and not np.isfinite(np_args[0]).all():
        # an infinity reaches every output, as inf or NaN by the order of the operations: only
        # which outputs are finite is defined
        if got_h.shape != want_h.shape or got_h.dtype != want_h.dtype:
            return WRONG, f"{brief(got)} where NumPy gives {want_h.dtype} {want_h.shape}"
        finite = np.isfinite(want_h)
        if not np.array_equal(np.isfinite(got_h), finite):
            return WRONG, "the non-finite outputs differ from NumPy's"
        got_h, want_h = got_h[finite], want_h[finite]
    if case["name"] == "reciprocal" and want_h.dtype.kind in "iu":  # 1 // 0: NumPy gives the CPU's value
        zero = np.broadcast_to(np.asarray(np_args[0]) == 0, want_h.shape)
        got_h, want_h = np.where(zero, 0, got_h).astype(got_h.dtype), np.where(zero, 0, want_h)
    problem = compare(got_h, want_h, rtol, atol)
    return (WRONG, problem) if problem else (CORRECT, "")
