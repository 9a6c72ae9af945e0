"""The executor and oracle of the linalg family: the call on numba_ext arrays (with the
factorization forms the case forces, restored afterwards) against NumPy's ``np.linalg`` on the same
values.

Results that are not unique are checked by their defining properties, to tolerances of K * order *
eps times the matrix's norm (eps of the dtype NumPy computes in): eigh by A V = V diag(w), V^H V = I
and NumPy's eigenvalues; svd by U diag(S) Vh = A, orthonormal U and V and NumPy's singular values;
qr by Q R = A, orthonormal Q, R upper triangular (and |R| NumPy's where the leading columns have
full rank); solve, inv and cholesky by their residuals and, where the matrix is well conditioned,
NumPy's values to a tolerance that grows with its condition number; det and slogdet to the first
order error of a backward stable LU factorization; pinv, matrix_rank and lstsq by NumPy's, where no
singular value lies within rounding of the cutoff (else any rank within the band is right); the
norms against NumPy's on the float64 (complex128) values, scaled or not (a sum of squares that
overflows in NumPy may not in numba_ext). Dtypes and shapes must be NumPy's.

Where the outcome depends on rounding, either is right: a matrix singular (or not positive
definite) to working precision may be refused with ``LinAlgError`` or factored; a matrix with NaN
or infinite entries may give NaN or ``LinAlgError`` (LAPACK's non-convergence), so only its dtypes
and shapes are checked. Everywhere else an error where NumPy raises ``LinAlgError`` must be one."""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np

import numba_ext as nx
import numba_ext.linalg as la

from .classify import CLEAN, CORRECT, WRONG, brief, classify_error, describe
from .execute import env
from .values import Enc, decode

Verdict = tuple[str, str]
LinAlgError = np.linalg.LinAlgError
#: the factor of the tolerances: K * order * eps (the project's tests allow 200 eps at order 12; the
#: errors seen stay ten times below)
K = 20.0
#: the messages of the errors that depend on the values (the others on shapes and dtypes)
VALUE_ERRORS = ("Singular matrix", "not positive definite", "did not converge")


# -- values -----------------------------------------------------------------------------------------
def _draw(rng: np.random.Generator, cplx: bool, *shape: int) -> np.ndarray:
    g = rng.standard_normal(shape)
    return g + 1j * rng.standard_normal(shape) if cplx else g


def _orthonormal(rng: np.random.Generator, cplx: bool, n: int) -> np.ndarray:
    if n == 0:
        return np.zeros((0, 0), complex if cplx else float)
    q: np.ndarray = np.linalg.qr(_draw(rng, cplx, n, n))[0]
    return q


def structured(rng: np.random.Generator, kind: str, m: int, n: int, rank: int, cplx: bool) -> np.ndarray:
    """One m x n matrix (float64 or complex128) of the structure `kind`."""
    k = min(m, n)
    if kind in ("hermitian", "spd", "psd", "repeated") and m != n:
        kind = "random" if kind != "repeated" else "repeated_rect"
    if kind == "identity":
        return np.eye(m, n) + 0j if cplx else np.eye(m, n)
    if kind == "zero":
        return np.zeros((m, n), complex if cplx else float)
    if kind == "ones":
        return np.ones((m, n), complex if cplx else float)
    if kind == "diagonal":
        out = np.zeros((m, n), complex if cplx else float)
        out[range(k), range(k)] = rng.standard_normal(k) * (rng.random(k) > 0.2)
        return out
    if kind == "lowrank":
        r = min(rank, k)
        return _draw(rng, cplx, m, r) @ _draw(rng, cplx, r, n)
    if kind == "triangular":
        g = _draw(rng, cplx, m, n)
        return np.triu(g) if rng.random() < 0.5 else np.tril(g)
    if kind == "nearly_singular":
        s = np.ones(k)
        if k:
            s[-1] = 10.0 ** -float(rng.choice([5, 9, 13, 15, 17]))
        return (_orthonormal(rng, cplx, m)[:, :k] * s) @ _orthonormal(rng, cplx, n)[:k]
    if kind == "graded":
        return _draw(rng, cplx, m, n) * 10.0 ** np.linspace(-6, 6, n)
    if kind == "hilbert":
        i = np.arange(m)[:, None] + np.arange(n)[None, :]
        return 1.0 / (i + 1.0) + (0j if cplx else 0)
    if kind == "hermitian":
        g = _draw(rng, cplx, n, n)
        return (g + g.conj().T) / 2
    if kind == "spd":
        g = _draw(rng, cplx, n, n)
        return g @ g.conj().T + n * np.eye(n)
    if kind == "psd":  # positive semidefinite, singular where the rank is below n
        g = _draw(rng, cplx, n, min(rank, n))
        return g @ g.conj().T
    if kind in ("repeated", "repeated_rect"):  # a few distinct eigenvalues (singular values)
        values = rng.standard_normal(max(1, min(rank, k) // 2 + 1))
        d = rng.choice(values, k) if k else np.zeros(0)
        if kind == "repeated":
            q = _orthonormal(rng, cplx, n)
            return (q * d) @ q.conj().T
        return (_orthonormal(rng, cplx, m)[:, :k] * np.abs(d)) @ _orthonormal(rng, cplx, n)[:k]
    return _draw(rng, cplx, m, n)


def host_matrix(t: Enc) -> np.ndarray:
    """The values of a matrix token (C order, its dtype)."""
    rng = np.random.default_rng(t["seed"])
    dt = np.dtype(t["dtype"])
    shape = list(t["shape"])
    cplx = dt.kind == "c"
    if len(shape) < 2:
        values = _draw(rng, cplx, *shape) if shape else np.asarray(_draw(rng, cplx, 1)[0])
        if t["kind"] in ("zero", "ones"):
            values = np.full_like(values, 0 if t["kind"] == "zero" else 1)
    else:
        m, n = shape[-2:]
        count = math.prod(shape[:-2])
        stack = [structured(rng, t["kind"], m, n, t["rank"], cplx) for _ in range(count)]
        values = np.reshape(np.array(stack, complex if cplx else float), shape)
    values = values * t["scale"]
    if t["special"] and values.size and dt.kind in "fc":  # (integers and bools have no NaN)
        flat = values.reshape(-1)
        bad = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf}[t["special"]]
        flat[rng.integers(0, flat.size, int(rng.integers(1, 4)))] = bad
        values = flat.reshape(values.shape)
    with np.errstate(all="ignore"):
        if dt == np.bool_:
            return np.asarray(np.rint(values.real) != 0)
        if dt.kind in "iu":
            r = np.rint(values.real)
            return np.asarray(np.abs(r) if dt.kind == "u" else r).astype(dt)
        return np.asarray(values).astype(dt)


def make_matrix(t: Enc, want: str) -> Any:
    """The array a matrix token names: a numba_ext array in the token's layout (for the call), or
    the NumPy values (for the oracle, or where the token is a host array)."""
    values = host_matrix(t)
    if want == "np" or t["host"]:
        return values
    layout, dt = t["layout"], values.dtype
    if values.ndim == 1 and layout == "step":  # every other element of a larger array
        full = np.full(2 * values.shape[0], 7, dt)
        full[::2] = values
        return nx.asarray(full)[::2]
    if values.ndim < 2:
        return nx.asarray(values)
    if layout == "F":
        return nx.asarray(np.asfortranarray(values))
    if layout == "step":  # every other row of a larger array
        full = np.full((*values.shape[:-2], 2 * values.shape[-2], values.shape[-1]), 7, dt)
        full[..., ::2, :] = values
        return nx.asarray(full)[..., ::2, :]
    if layout == "step_cols":
        full = np.full((*values.shape[:-1], 2 * values.shape[-1]), 7, dt)
        full[..., ::2] = values
        return nx.asarray(full)[..., ::2]
    if layout == "T":  # the transpose of a C-ordered array
        swap: Any = np.swapaxes
        return swap(nx.asarray(np.ascontiguousarray(np.swapaxes(values, -1, -2))), -1, -2)
    if layout == "rev":  # rows stored in reverse order, read back with a negative step
        return nx.asarray(np.ascontiguousarray(values[..., ::-1, :]))[..., ::-1, :]
    return nx.asarray(values)


def make_tolerances(t: Enc, want: str) -> Any:
    """A tolerance per matrix of the stack (rtol, rcond or tol as an array)."""
    rng = np.random.default_rng(t["seed"])
    values = rng.choice([1e-12, 1e-6, 0.05, 0.4], tuple(t["shape"]))
    return values if want == "np" or t["host"] else nx.asarray(values)


def _env(want: str) -> dict[str, Any]:
    handlers = env(want)
    handlers["matrix"] = lambda t, e: make_matrix(t, want)
    handlers["tolerances"] = lambda t, e: make_tolerances(t, want)
    return handlers


# -- forms ------------------------------------------------------------------------------------------
@contextmanager
def forced_forms(form: Enc) -> Iterator[None]:
    """The factorization forms and constants of ``numba_ext.decompositions`` the case forces, for
    the duration of the call (restored afterwards). Only what the host reads at each call: a
    constant a kernel is compiled with (``QL_LOCAL_N``, the size of a local array) would stay in
    the cached program and corrupt later calls."""
    from numba_ext import decompositions

    saved: dict[str, Any] = {}

    def force(name: str, value: Any) -> None:
        saved.setdefault(name, getattr(decompositions, name))
        setattr(decompositions, name, value)

    try:
        if form:
            for key, name in (("lu", "_lu_form"), ("eigh", "_eigh_form"), ("svd", "_svd_form")):
                if form.get(key):
                    force(name, lambda device, batch, n, f=form[key]: f)
            if form.get("gpu_like"):
                force("SERIAL_DEVICES", ())
            if form.get("ql_log_sweeps"):
                force("QL_LOG_SWEEPS", form["ql_log_sweeps"])
        yield
    finally:
        for name, value in saved.items():
            setattr(decompositions, name, value)


# -- calls ------------------------------------------------------------------------------------------
def _call(api: str, fn: str, args: list[Any], kw: dict[str, Any], oracle: bool) -> Any:
    if api == "numpy" or oracle:
        if api == "array_api" and fn == "pinv":
            kw = {"rtol": None, **kw}  # the array API's default cutoff (NumPy's own is 1e-15)
            if isinstance(args[0], np.ndarray) and args[0].dtype.kind in "iub":  # (whose eps it needs)
                args = [args[0].astype(np.float64), *args[1:]]
        return getattr(np.linalg, fn)(*args, **kw)
    return getattr(la, fn)(*args, **kw)


def _quiet(f: Callable[[], Any]) -> Any:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f()


def _parts(result: Any) -> list[np.ndarray]:
    """A result as a list of host arrays (a tuple's parts in order)."""
    items = list(result) if isinstance(result, tuple) else [result]
    return [nx.asnumpy(p) if isinstance(p, nx.ndarray) else np.asarray(p) for p in items]


def _tokens(v: Enc) -> Iterator[dict]:
    if isinstance(v, list):
        for x in v:
            yield from _tokens(x)
    elif isinstance(v, dict):
        if v.get("$") in ("matrix", "tolerances"):
            yield v
        elif "$" not in v:
            for x in v.values():
                yield from _tokens(x)


def _allowed(case: dict) -> tuple[type[BaseException], ...]:
    """The built-in classes a case may raise as a documented refusal: TypeError for a host (NumPy)
    array or another non-numba_ext operand (no implicit copies to the device), and for an integer
    or bool matrix of the array API's norms (which take floating-point arrays); ValueError for an
    array API function of fewer than two dimensions (which NumPy may take)."""
    tokens = list(_tokens([case["args"], case["kwargs"]]))
    if any(t["host"] for t in tokens) or case["fn"] in ("eig", "eigvals", "tensorinv", "multi_dot"):
        return (TypeError,)
    args = case["args"]
    if case["api"] == "array_api" and not (isinstance(args[0], dict) and args[0].get("$") == "matrix"):
        return (TypeError,)
    if case["api"] == "array_api" and case["fn"] in ("matrix_norm", "vector_norm"):
        if np.dtype(args[0]["dtype"]).kind not in "fc":
            return (TypeError,)
    if case["fn"] in ("solve", "lstsq") and not (isinstance(args[1], dict) and args[1].get("$") == "matrix"):
        return (TypeError,)
    if case["api"] == "array_api" and len(args[0]["shape"]) < 2:  # the array API's x is (..., M, N)
        return (ValueError,)
    return ()


def _special(case: dict) -> bool:
    """Whether NaN or infinities are among the operands (floating-point ones only hold them)."""
    return any(t.get("special") and np.dtype(t["dtype"]).kind in "fc" for t in _tokens(case["args"]))


def _benign(case: dict) -> Any:
    """NumPy's result for the case's shapes, dtypes and keywords on identity matrices (no NaN, no
    infinities): the form a result must have where NumPy's values are not deterministic (or where
    LAPACK might not return: its SVD can loop forever on an infinite entry)."""

    def clean(v: Enc) -> Enc:
        if isinstance(v, list):
            return [clean(x) for x in v]
        if isinstance(v, dict) and v.get("$") == "matrix":
            return {**v, "special": None, "kind": "identity", "scale": 1.0}
        return v

    args, kw = decode(clean(case["args"]), _env("np")), decode(case["kwargs"], _env("np"))
    return _quiet(lambda: _call(case["api"], case["fn"], args, kw, True))


def _form_problem(got: list[np.ndarray], want: list[np.ndarray], skip: tuple[int, ...] = ()) -> str | None:
    if len(got) != len(want):
        return f"{len(got)} results, NumPy gives {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        wd = w.dtype if w.dtype.isnative else w.dtype.newbyteorder("=")
        if g.dtype != wd:
            return f"result {i}: dtype {g.dtype}, NumPy's {wd}"
        if g.shape != w.shape and i not in skip:
            return f"result {i}: shape {g.shape}, NumPy's {w.shape}"
    return None


def _numpy_quirks(case: dict, np_args: list[Any], wanted: list[np.ndarray]) -> list[np.ndarray]:
    """NumPy's results with the dtype of its computation where NumPy's own is an accident: pinv of
    an empty integer or bool stack keeps the input's dtype (any other gives float64)."""
    a = np_args[0]
    if case["fn"] == "pinv" and isinstance(a, np.ndarray) and a.size == 0 and a.dtype.kind in "iub":
        return [w.astype(np.float64) for w in wanted]
    return wanted


def _changed_inputs(given: Any, values: Any) -> str | None:
    """What the call wrote into its numba_ext operands (`given`, whose values were `values`)."""
    if isinstance(given, (list, tuple)):
        for g, v in zip(given, values):
            problem = _changed_inputs(g, v)
            if problem:
                return problem
    elif isinstance(given, dict):
        for k in given:
            problem = _changed_inputs(given[k], values[k])
            if problem:
                return problem
    elif isinstance(given, nx.ndarray):
        now = nx.asnumpy(given)
        same = np.array_equal(now, values, equal_nan=now.dtype.kind in "fc")
        return None if same else f"the call changed its operand of shape {given.shape}"
    return None


def _placement_problem(raw: Any, want: Any) -> str | None:
    """A result NumPy gives as an array (of at least one dimension) must be a numba_ext array."""
    got_items = list(raw) if isinstance(raw, tuple) else [raw]
    want_items = list(want) if isinstance(want, tuple) else [want]
    for i, (g, w) in enumerate(zip(got_items, want_items)):
        if np.ndim(w) >= 1 and not isinstance(g, nx.ndarray):
            return f"result {i} is a {type(g).__name__}, not a numba_ext array"
    return None


def _elementwise_case(case: dict, kw: dict[str, Any]) -> bool:
    """Whether each element decides the result (NaN and infinities included), without LAPACK."""
    return case["fn"] in ("trace", "diagonal") or case["fn"] in ELEMENTWISE_NORMS and _elementwise(case, kw)


def run_linalg(case: dict) -> Verdict:
    api, fn = case["api"], case["fn"]
    np_args, np_kw = decode(case["args"], _env("np")), decode(case["kwargs"], _env("np"))
    special = _special(case)
    elementwise = _elementwise_case(case, np_kw)
    reference: BaseException | None = None
    want: Any = None
    try:  # NaN or infinities: only the form of the result is NumPy's (see _benign)
        want = (
            _benign(case)
            if special and not elementwise
            else _quiet(lambda: _call(api, fn, np_args, np_kw, True))
        )
    except Exception as e:
        reference = e
    args, kw = decode(case["args"], _env("nx")), decode(case["kwargs"], _env("nx"))
    allowed = _allowed(case)
    with forced_forms(case.get("form")):
        try:
            raw = _quiet(lambda: _call(api, fn, args, kw, False))
            got = _parts(raw)
        except Exception as e:
            return _judge_error(case, e, reference, allowed, special, np_args, np_kw)
    problem = _changed_inputs([args, kw], [np_args, np_kw])
    if problem:
        return WRONG, problem
    if reference is not None:
        if _value_dependent(reference) and _excused(reference, case, special, np_args, np_kw):
            try:
                problem = _form_problem(got, _parts(_benign(case)))
            except Exception:
                problem = None
            return (WRONG, problem) if problem else (CORRECT, f"NumPy: {describe(reference)}")
        return WRONG, f"NumPy raises {describe(reference)}; numba_ext returned {brief(got)}"
    wanted = _numpy_quirks(case, np_args, _parts(want))
    problem = _placement_problem(raw, want)
    problem = problem or _form_problem(got, wanted, _rank_dependent_parts(case, np_args, np_kw))
    if problem is None and special:
        if elementwise:
            problem = CHECKS[fn](got, wanted, np_args, np_kw, case)
        return (WRONG, problem) if problem else (CORRECT, "non-finite input")
    if problem is None:
        check = CHECKS.get(fn)
        problem = None if check is None else _quiet(lambda: check(got, wanted, np_args, np_kw, case))
    return (WRONG, problem) if problem else (CORRECT, "")


def _value_dependent(e: BaseException) -> bool:
    return isinstance(e, LinAlgError) and any(s in str(e) for s in VALUE_ERRORS)


def _excused(e: BaseException, case: dict, special: bool, np_args: list[Any], kw: dict[str, Any]) -> bool:
    """Whether a value-dependent LinAlgError of one side (and a result of the other) is within
    what rounding decides: any outcome for NaN or infinite entries; a singular (not positive
    definite) matrix to within rounding; never a method that did not converge on finite values."""
    if special:
        return True
    return "did not converge" not in str(e) and _borderline(case, np_args, kw)


def _judge_error(
    case: dict,
    e: BaseException,
    reference: BaseException | None,
    allowed: tuple[type[BaseException], ...],
    special: bool,
    np_args: list[Any],
    np_kw: dict[str, Any],
) -> Verdict:
    if allowed and isinstance(e, allowed) and not isinstance(e, LinAlgError):
        return CLEAN, describe(e)
    if reference is not None:
        if type(e) is TypeError and not isinstance(reference, TypeError):
            return CLEAN, describe(e)  # another argument checked first (a dtype, a keyword)
        if isinstance(reference, LinAlgError) and not isinstance(e, LinAlgError):
            return WRONG, f"NumPy raises LinAlgError ({str(reference)[:100]}); numba_ext raised {describe(e)}"
        return classify_error(e, type(reference), allowed), describe(e)
    if _value_dependent(e):
        if _excused(e, case, special, np_args, np_kw):
            return CORRECT, describe(e)
        return WRONG, f"NumPy gives a result; numba_ext raised {describe(e)}"
    return classify_error(e, None, allowed), describe(e)


# -- numbers of the matrices ------------------------------------------------------------------------
def _compute_dtype(a: np.ndarray) -> np.dtype:
    """The dtype NumPy's linalg computes `a` in."""
    return a.dtype if a.dtype.kind in "fc" and a.dtype.itemsize >= 4 else np.dtype(np.float64)


def _eps(a: np.ndarray) -> float:
    return float(np.finfo(_compute_dtype(a)).eps)


class Info(NamedTuple):
    """A floating dtype's machine epsilon, smallest normal and largest value, as Python floats
    (NumPy scalars of float16 would overflow in the tolerances' products)."""

    eps: float
    tiny: float
    max: float


def _finfo(dtype: Any) -> Info:
    f = np.finfo(dtype)
    return Info(float(f.eps), float(f.tiny), float(f.max))


def _real(a: np.ndarray) -> Info:
    return _finfo(_compute_dtype(a))


def _wide(a: np.ndarray) -> np.ndarray:
    """`a` in float64 or complex128."""
    return np.asarray(a).astype(np.complex128 if np.asarray(a).dtype.kind == "c" else np.float64)


def _stack(a: np.ndarray) -> np.ndarray:
    """`a` (..., m, n) as (count, m, n)."""
    return a.reshape((math.prod(a.shape[:-2]), *a.shape[-2:]))


def _sv(a: np.ndarray) -> np.ndarray:
    """The singular values of each matrix of `a` (float64; rows of a (count, k) array)."""
    s = _stack(_wide(a))
    if s.shape[0] == 0 or min(s.shape[-2:]) == 0:
        return np.zeros((s.shape[0], min(s.shape[-2:])))
    out: np.ndarray = np.linalg.svd(s, compute_uv=False)
    return out


def _hermitian_of(a: np.ndarray, uplo: str = "L") -> np.ndarray:
    """The Hermitian matrices LAPACK reads from `a`'s `uplo` triangle (the diagonal's real part)."""
    w = _wide(a)
    tri = np.tril(w, -1) if uplo == "L" else np.conj(np.swapaxes(np.triu(w, 1), -1, -2))
    diag = np.real(np.diagonal(w, 0, -2, -1))
    out: np.ndarray = tri + np.conj(np.swapaxes(tri, -1, -2)) + diag[..., None] * np.eye(w.shape[-1])
    return out


def _uplo(kw: dict[str, Any]) -> str:
    return str(kw.get("UPLO", "L")).upper()


def _order_of(a: np.ndarray) -> int:
    return max(1, *a.shape[-2:]) if a.ndim >= 2 else max(1, a.size)


def _borderline(case: dict, np_args: list[Any], kw: dict[str, Any]) -> bool:
    """Whether the matrix is singular (for cholesky: not positive definite) to within rounding, so
    that a factorization may fail or not by the order of its operations."""
    a = np.asarray(np_args[0])
    if a.ndim < 2 or not np.isfinite(_wide(a)).all():
        return True
    n = _order_of(a)
    noise = K * n * _eps(a)
    if case["fn"] == "cholesky":
        h = _stack(_hermitian_of(a))
        if h.shape[0] == 0 or h.shape[-1] == 0:
            return False
        lam = np.linalg.eigvalsh(h)
        top = np.max(np.abs(lam), axis=-1)
        return bool(np.any(lam[:, 0] <= noise * top))
    s = _sv(a)
    if s.size == 0:
        return False
    return bool(np.any(s[:, -1] <= noise * s[:, 0]))


def _rank_dependent_parts(case: dict, np_args: list[Any], kw: dict[str, Any]) -> tuple[int, ...]:
    """lstsq's residuals: their shape depends on the rank, which rounding may decide."""
    if case["fn"] != "lstsq":
        return ()
    lo, hi = _lstsq_rank_band(np_args, kw)
    return (1,) if lo != hi else ()


# -- the checks -------------------------------------------------------------------------------------
def _bad(ok: Any, got: Any, want: Any, what: str) -> str | None:
    """None where `ok` holds everywhere, else the first element where it does not."""
    ok = np.asarray(ok)
    if ok.all():
        return None
    i = tuple(int(j) for j in np.argwhere(~ok)[0]) if ok.ndim else ()
    g, w = (_at(v, ok.shape, i) for v in (got, want))
    return f"{what}: {int(np.sum(~ok))} of {ok.size} differ, e.g. at {i}: {g!r} vs {w!r}"


def _at(v: Any, shape: tuple[int, ...], i: tuple[int, ...]) -> Any:
    """The element of `v` (broadcast to `shape`) at `i`, or `v` itself where it does not broadcast."""
    try:
        return np.broadcast_to(v, shape)[i] if np.ndim(v) else v
    except ValueError:
        return v


def _close(got: Any, want: Any, atol: Any, rtol: Any = 0.0) -> np.ndarray:
    """Elementwise: |got - want| <= atol + rtol |want|, NaN where NaN, equal infinities."""
    g, w = np.asarray(got).astype(np.complex128), np.asarray(want).astype(np.complex128)
    with np.errstate(all="ignore"):
        ok = np.abs(g - w) <= atol + rtol * np.abs(w)
        ok |= np.isnan(g) & np.isnan(w)
        ok |= np.isinf(g) & (g == w)
    return np.asarray(ok)


def _adj(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


def _identity_error(q: np.ndarray, columns: bool = True) -> np.ndarray:
    """max |Q^H Q - I| (columns) or |Q Q^H - I| (rows) per matrix of the stack."""
    w = _stack(_wide(q))
    if w.shape[0] == 0 or w.shape[-1] == 0 or w.shape[-2] == 0:
        return np.zeros(w.shape[0])
    g = _adj(w) @ w if columns else w @ _adj(w)
    out: np.ndarray = np.max(np.abs(g - np.eye(g.shape[-1])), axis=(-2, -1))
    return out


def _top(x: np.ndarray) -> np.ndarray:
    """max |x| per matrix of a (count, m, n) stack, 1 where it is zero (a scale to divide by)."""
    if x.shape[0] == 0:
        return np.ones(0)
    t = np.max(np.abs(x), axis=(-2, -1), initial=0.0)
    return np.where(t > 0, t, 1.0)


def _equilibrated_logs(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per matrix: the logs of the singular values (descending), those of the matrix with its
    columns scaled to unit norm, and the sum of the logs of those column norms. LU with partial
    pivoting does not see a column scaling, so bounds of either form hold: the lesser counts."""
    w = _stack(_wide(a))
    norms = np.sqrt(np.sum(np.abs(w / _top(w)[:, None, None]) ** 2, axis=-2)) * _top(w)[:, None]
    norms = np.where(norms > 0, norms, 1.0)
    with np.errstate(all="ignore"):
        logs = np.log(_sv(w))
        logs_eq = np.log(_sv(w / norms[:, None, :]))
    return logs, logs_eq, np.sum(np.log(norms), axis=-1)


def _check_det(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    """Within the first order error of LU: K n eps sigma_1 times the product of the other
    singular values but the last (the derivative of det is the adjugate), of the matrix or of its
    column-equilibrated form; NumPy's own det is exp(log |det|) times the sign, eps |log |det||
    relative on top. No NaN for finite values; beyond the dtype's range, an overflow either way."""
    a = np.asarray(np_args[0])
    n = a.shape[-1]
    if n == 0:
        return _bad(got[0] == 1, got[0], 1.0, "det of an empty matrix")
    info = _real(a)
    logs, logs_eq, log_norms = _equilibrated_logs(a)
    g, w = got[0].reshape(-1).astype(np.complex128), want[0].reshape(-1).astype(np.complex128)
    top = math.log(info.max) - 1
    with np.errstate(all="ignore"):
        true_log = np.sum(logs, axis=-1)
        log_tol = math.log(K * n * info.eps) + np.minimum(
            logs[:, 0] + np.sum(logs[:, :-1], axis=-1),
            logs_eq[:, 0] + np.sum(logs_eq[:, :-1], axis=-1) + log_norms,
        )
        rounding = np.where(np.isfinite(true_log), K * info.eps * np.abs(true_log) * np.exp(true_log), 0.0)
        tol = np.exp(log_tol) + rounding + info.tiny
        loose = log_tol >= top  # no digit is certain
        beyond = true_log >= top  # |det| at or beyond the largest float: an overflow is right
        finite = np.isfinite(g)
        ok = np.where(
            np.isfinite(w),
            np.where(finite, np.abs(g - w) <= tol, beyond | loose),
            ~finite | (np.log(np.abs(g)) >= top) | loose,
        )
        ok &= ~np.isnan(g) | np.isnan(w)
    return _bad(ok, g, w, "det (to the first order error of LU)")


def _check_slogdet(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    """log |det| within K n eps cond (of the matrix or of its column-equilibrated form) of NumPy's
    float64 value (an LU factorization too: the logs of a graded matrix's singular values would
    be less accurate), plus the rounding of a sum of n logs and the quantization of subnormal
    values; the sign NumPy's where that error leaves it certain."""
    a = np.asarray(np_args[0])
    n = a.shape[-1]
    if n == 0:
        return _bad((got[0] == 1) & (got[1] == 0), got[0], 1.0, "slogdet of an empty matrix")
    info = _real(a)
    eps = float(info.eps)
    logs, logs_eq, _ = _equilibrated_logs(a)
    with np.errstate(all="ignore"):
        true_log = np.linalg.slogdet(_stack(_wide(a))).logabsdet
        rel = K * n * eps * np.exp(np.minimum(logs[:, 0] - logs[:, -1], logs_eq[:, 0] - logs_eq[:, -1]))
        subnormal = np.sum(float(info.tiny) / np.exp(logs), axis=-1)
        atol = rel + K * n * eps * np.sum(np.abs(logs), axis=-1) + subnormal
    sign, log = got[0].reshape(-1), got[1].reshape(-1)
    want_sign = want[0].reshape(-1)
    sure = rel + subnormal < 0.5
    problem = _bad(~sure | _close(log, true_log, atol), log, true_log, "slogdet's logabsdet")
    if problem:
        return problem
    if a.dtype.kind == "c":
        ok = ~sure | (np.abs(sign.astype(np.complex128) - want_sign) <= 2 * rel + K * n * eps)
    else:
        ok = ~sure | (sign == want_sign)
    return _bad(ok, sign, want_sign, "slogdet's sign")


def _conditioned(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per matrix: the largest and smallest singular values and the condition number (inf for a
    singular matrix)."""
    s = _sv(a)
    if s.shape[-1] == 0:  # empty matrices: nothing to lose
        return np.zeros(s.shape[0]), np.zeros(s.shape[0]), np.ones(s.shape[0])
    with np.errstate(all="ignore"):
        cond = np.where(s[:, -1] > 0, s[:, 0] / s[:, -1], np.inf)
    return s[:, 0], s[:, -1], cond


def _check_inv(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a = np.asarray(np_args[0])
    n = _order_of(a)
    info = _real(a)
    big, small, cond = _conditioned(a)
    fine = cond * K * n * info.eps < 1
    with np.errstate(all="ignore"):
        fine &= np.where(small > 0, 1.0 / small, np.inf) < info.max / (2 * n)  # no overflow
    x = _stack(_wide(got[0]))
    w = _stack(_wide(a))
    with np.errstate(all="ignore"):
        scale = np.where(big > 0, big, 1.0)[:, None, None]
        residual = np.max(np.abs((w / scale) @ (x * scale) - np.eye(w.shape[-1])), axis=(-2, -1), initial=0)
        ok = ~fine | (residual <= K * n * info.eps * cond + K * n * info.tiny * big)
    problem = _bad(ok, residual, 0.0, "inv: |A X - I| beyond K n eps cond(A)")
    if problem:
        return problem
    want_x = _stack(np.linalg.inv(w[fine])) if fine.any() else np.zeros((0, n, n))
    with np.errstate(all="ignore"):
        tol = (K * n * info.eps * cond[fine] / np.where(small[fine] > 0, small[fine], 1))[:, None, None]
        return _bad(
            (cond[fine] * K * n * info.eps > 0.1)[:, None, None] | _close(x[fine], want_x, tol + info.tiny),
            x[fine],
            want_x,
            "inv against NumPy's (float64) inverse",
        )


def _column_norms(x: np.ndarray) -> np.ndarray:
    """A bound of each column's 2-norm that neither overflows nor underflows: sqrt(rows) times the
    largest magnitude."""
    top: np.ndarray = np.max(np.abs(x), axis=-2, keepdims=True, initial=0.0)
    return top * math.sqrt(max(1, x.shape[-2]))


def _check_solve(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a, b = np.asarray(np_args[0]), np.asarray(np_args[1])
    n = _order_of(a)
    info = _finfo(np.result_type(_compute_dtype(a), _compute_dtype(b)))
    vector = b.ndim == 1
    x = _wide(got[0])
    aw, bw = _wide(a), _wide(b)
    if vector:
        bw, x = bw[:, None], x[..., None]
    batch = x.shape[:-2]
    aw = np.broadcast_to(aw, (*batch, *aw.shape[-2:]))
    bw = np.broadcast_to(bw, x.shape)
    big, small, cond = (np.reshape(v, batch) for v in _conditioned(aw))
    fine = cond * K * n * info.eps < 1
    with np.errstate(all="ignore"):  # (and no solution beyond the dtype's range)
        fine &= np.max(np.abs(bw), axis=(-2, -1), initial=0.0) / small < info.max / (2 * n)
    with np.errstate(all="ignore"):
        scale = np.where(big > 0, big, 1.0)[..., None, None]
        residual = np.abs((aw / scale) @ x - bw / scale)
        xnorm = _column_norms(x)
        bnorm = _column_norms(bw / scale)
        tol = K * n * info.eps * (xnorm + bnorm) + K * n * info.tiny
        ok = ~fine[..., None, None] | ~np.isfinite(x).all(axis=(-2, -1), keepdims=True) | (residual <= tol)
        finite_x = np.isfinite(x) | ~fine[..., None, None]
    problem = _bad(finite_x, x, 0.0, "solve: a non-finite solution of a well-conditioned system")
    problem = problem or _bad(ok, residual, tol, "solve: |A X - B| beyond K n eps (|X| + |B|)")
    if problem or not fine.any():
        return problem
    with np.errstate(all="ignore"):
        want_x = np.linalg.solve(aw[fine], bw[fine])
        tight = (cond[fine] * K * n * info.eps > 0.1)[..., None, None]
        norm = _column_norms(want_x)
        tol = K * n * info.eps * cond[fine][..., None, None] * norm + info.tiny
        return _bad(
            tight | _close(x[fine], want_x, tol), x[fine], want_x, "solve against NumPy's (float64) solution"
        )


def _check_cholesky(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a = np.asarray(np_args[0])
    n = _order_of(a)
    info = _real(a)
    upper = bool(kw.get("upper", False))
    f = _stack(_wide(got[0]))
    lower = _adj(f) if upper else f
    if np.any(np.triu(lower, 1) != 0):
        return "cholesky: a factor that is not triangular"
    d = np.diagonal(lower, 0, -2, -1)
    if np.any(d.imag != 0) or np.any(~(d.real > 0)):
        return f"cholesky: a diagonal that is not real and positive: {d[~(d.real > 0) | (d.imag != 0)][:3]}"
    h = _stack(_hermitian_of(a))
    if h.shape[0] == 0 or h.shape[-1] == 0:
        return None
    scale = _top(h)[:, None, None]
    with np.errstate(all="ignore"):
        residual = np.max(np.abs(lower @ _adj(lower) / scale - h / scale), axis=(-2, -1), initial=0)
    problem = _bad(residual <= K * n * info.eps + K * n * info.tiny, residual, 0.0, "cholesky: |L L^H - A|")
    if problem:
        return problem
    lam = np.linalg.eigvalsh(h)
    cond = np.abs(lam[:, -1]) / np.where(lam[:, 0] > 0, lam[:, 0], np.nan)
    fine = cond * K * n * info.eps < 0.1
    if not fine.any():
        return None
    want_l = np.linalg.cholesky(h[fine])
    tol = (K * n * info.eps * cond[fine])[:, None, None] * np.sqrt(_top(h[fine]))[:, None, None]
    return _bad(_close(lower[fine], want_l, tol + info.tiny), lower[fine], want_l, "cholesky against NumPy's")


def _check_eigh(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a = np.asarray(np_args[0])
    n = _order_of(a)
    info = _real(a)
    h = _stack(_hermitian_of(a, _uplo(kw)))
    count = h.shape[0]
    if count == 0 or h.shape[-1] == 0:
        return None
    values = got[0].reshape(count, -1).astype(np.float64)
    want_values = np.linalg.eigvalsh(h)
    norm = np.max(np.abs(want_values), axis=-1)
    scale = np.where(norm > 0, norm, 1.0)
    tol = (K * n * info.eps + K * n * info.tiny / scale)[:, None]
    if np.any(np.diff(values, axis=-1) < 0):
        return f"eigenvalues not ascending: {values[np.any(np.diff(values, axis=-1) < 0, axis=-1)][0][:6]}"
    problem = _bad(
        _close(values / scale[:, None], want_values / scale[:, None], tol),
        values,
        want_values,
        "eigenvalues (to K n eps |A|)",
    )
    if problem or len(got) == 1:
        return problem
    v = _stack(_wide(got[1]))
    ortho = _identity_error(v)
    problem = _bad(ortho <= K * n * info.eps, ortho, 0.0, "eigenvectors: |V^H V - I|")
    if problem:
        return problem
    with np.errstate(all="ignore"):
        residual = np.max(
            np.abs((h / scale[:, None, None]) @ v - v * (values / scale[:, None])[:, None, :]), axis=(-2, -1)
        )
    return _bad(residual <= tol[:, 0], residual, 0.0, "eigenpairs: |A V - V diag(w)| / |A|")


def _singular_values(got: np.ndarray, truth: np.ndarray, n: int, info: Any, what: str) -> str | None:
    """Singular values: descending, non-negative, within K n eps sigma_1 of the truth."""
    s = got.reshape(truth.shape).astype(np.float64)
    if s.size == 0:
        return None
    if np.any(np.diff(s, axis=-1) > 0) or np.any(s < 0):
        return f"{what}: not descending and non-negative: {s[0][:6]}"
    top = np.where(truth[:, :1] > 0, truth[:, :1], 1.0)
    return _bad(_close(s / top, truth / top, K * n * info.eps + K * n * info.tiny / top), s, truth, what)


def _check_svd(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a = np.asarray(np_args[0])
    n = _order_of(a)
    info = _real(a)
    hermitian = bool(kw.get("hermitian", False))
    target = _stack(_hermitian_of(a) if hermitian else _wide(a))
    if hermitian:
        lam = np.linalg.eigvalsh(target) if target.size else np.zeros((target.shape[0], target.shape[-1]))
        truth = -np.sort(-np.abs(lam), axis=-1)
    else:
        truth = _sv(a)
    s_part = got[1] if len(got) == 3 else got[0]
    problem = _singular_values(s_part, truth, n, info, "singular values (to K n eps sigma_1)")
    if problem or len(got) == 1 or target.shape[0] == 0:
        return problem
    u, vh = _stack(_wide(got[0])), _stack(_wide(got[2]))
    s = truth if s_part.size == 0 else s_part.reshape(truth.shape).astype(np.float64)
    ortho = _identity_error(u)
    problem = _bad(ortho <= K * n * info.eps, ortho, 0.0, "svd: |U^H U - I|")
    if not hermitian:
        ortho = _identity_error(vh, columns=False)
        problem = problem or _bad(ortho <= K * n * info.eps, ortho, 0.0, "svd: |Vh Vh^H - I|")
    if problem:
        return problem
    k = s.shape[-1]
    if k == 0:
        return None
    top = np.where(truth[:, :1] > 0, truth[:, :1], 1.0)[:, :, None]
    with np.errstate(all="ignore"):
        rebuilt = (u[..., :k] * (s[:, None, :] / top)) @ vh[..., :k, :]
        residual = np.max(np.abs(rebuilt - target / top), axis=(-2, -1), initial=0)
    return _bad(
        residual <= K * n * info.eps + K * n * info.tiny / top[:, 0, 0], residual, 0.0, "svd: |U S Vh - A|"
    )


def _check_svdvals(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a = np.asarray(np_args[0])
    return _singular_values(got[0], _sv(a), _order_of(a), _real(a), "svdvals (to K n eps sigma_1)")


def _check_qr(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a = np.asarray(np_args[0])
    mode = kw.get("mode", "reduced")
    if mode not in ("reduced", "complete", "r"):
        return None  # 'raw': LAPACK's reflectors; their form is checked
    n = _order_of(a)
    info = _real(a)
    w = _stack(_wide(a))
    r = _stack(_wide(got[-1]))
    if np.any(np.tril(r, -1) != 0):
        return "qr: R is not upper triangular"
    d = np.diagonal(r, 0, -2, -1)
    if np.any(np.abs(d.imag) > K * info.eps * np.abs(d)):
        return "qr: R's diagonal is not real"
    sigma = _sv(w)
    scale = (np.where(sigma[:, 0] > 0, sigma[:, 0], 1.0) if sigma.size else np.ones(w.shape[0]))[
        :, None, None
    ]
    if mode != "r":
        q = _stack(_wide(got[0]))
        ortho = _identity_error(q)
        problem = _bad(ortho <= K * n * info.eps, ortho, 0.0, "qr: |Q^H Q - I|")
        if problem:
            return problem
        with np.errstate(all="ignore"):
            residual = np.max(np.abs(q @ (r / scale) - w / scale), axis=(-2, -1), initial=0)
        tol = K * n * info.eps + K * n * info.tiny / scale[:, 0, 0]
        problem = _bad(residual <= tol, residual, 0.0, "qr: |Q R - A| / |A|")
        if problem:
            return problem
    k = min(w.shape[-2:])
    if k == 0 or w.shape[0] == 0:
        return None
    lead = _sv(w[..., :k])
    with np.errstate(all="ignore"):
        cond = lead[:, 0] / lead[:, -1]
    fine = cond * K * n * info.eps < 0.1
    if not fine.any():
        return None
    want_r: Any = np.linalg.qr(w[fine], mode="r")
    rows = min(r.shape[-2], want_r.shape[-2])
    tol = (K * n * info.eps * cond[fine])[:, None, None] * scale[fine]
    got_r = np.abs(r[fine][..., :rows, :])
    return _bad(
        _close(got_r, np.abs(want_r[..., :rows, :]), tol + info.tiny),
        got_r,
        want_r,
        "qr: |R| against NumPy's",
    )


def _cutoffs(case: dict, kw: dict[str, Any], s: np.ndarray, a: np.ndarray, fn: str) -> np.ndarray:
    """Per matrix: the singular value at or below which pinv, matrix_rank or lstsq drop one."""
    m, n = a.shape[-2:]
    eps = _eps(a)
    top = s[:, 0] if s.size else np.zeros(s.shape[0])
    count = s.shape[0]

    def per_matrix(v: Any) -> np.ndarray:
        try:
            return np.broadcast_to(np.asarray(v, dtype=float), a.shape[:-2]).reshape(count) * np.ones(count)
        except (TypeError, ValueError):
            return np.full(count, np.nan)

    if fn == "lstsq":
        rcond = kw.get("rcond")
        # LAPACK's gelsd takes machine precision for an rcond outside (0, 1)
        rc = eps * max(m, n) if rcond is None else (rcond if 0 < rcond < 1 else eps)
        return top * rc
    if fn == "matrix_rank":
        if kw.get("tol") is not None:
            return per_matrix(kw["tol"])
        rtol = kw.get("rtol")
        return top * (per_matrix(rtol) if rtol is not None else max(m, n) * eps)
    # pinv
    if case["api"] == "array_api" or ("rtol" in kw and kw.get("rcond") is None):
        rtol = kw.get("rtol")
        return top * (per_matrix(rtol) if rtol is not None else max(m, n) * eps)
    rcond = kw.get("rcond")
    return top * (1e-15 if rcond is None else per_matrix(rcond))


def _spectrum(a: np.ndarray, hermitian: bool) -> np.ndarray:
    """The singular values pinv and matrix_rank see: of the matrix, or the magnitudes of the
    eigenvalues of its lower triangle's Hermitian matrix, descending."""
    if not hermitian:
        return _sv(a)
    h = _stack(_hermitian_of(a))
    if h.shape[0] == 0 or h.shape[-1] == 0:
        return np.zeros((h.shape[0], h.shape[-1]))
    out: np.ndarray = -np.sort(-np.abs(np.linalg.eigvalsh(h)), axis=-1)
    return out


def _band(s: np.ndarray, cutoff: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per matrix: the least and greatest rank rounding allows (singular values within K n eps
    sigma_1 of the cutoff may fall either side) and that noise."""
    n = _order_of(a)
    top = s[:, 0] if s.size else np.zeros(s.shape[0])
    noise = K * n * _eps(a) * top
    noise = noise * (1 + np.abs(np.nan_to_num(cutoff / np.where(top > 0, top, 1), nan=0.0)))
    with np.errstate(invalid="ignore"):
        lo = np.sum(s > (cutoff + noise)[:, None], axis=-1)
        hi = np.sum(s > (cutoff - noise)[:, None], axis=-1)
    return lo, hi, noise


def _check_matrix_rank(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a = np.asarray(np_args[0])
    if a.ndim < 2:
        return _bad(got[0] == want[0], got[0], want[0], "matrix_rank of a vector")
    s = _spectrum(a, bool(kw.get("hermitian", False)))
    lo, hi, _ = _band(s, _cutoffs(case, kw, s, a, "matrix_rank"), a)
    r = got[0].reshape(-1)
    return _bad(
        (lo <= r) & (r <= hi), r, np.stack([lo, hi], -1), "matrix_rank outside the band rounding allows"
    )


def _pinv_reference(
    w: np.ndarray, s: np.ndarray, cutoff: np.ndarray, hermitian: bool, noise: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The float64 pseudo-inverses with `cutoff` (per matrix), the matrices whose values are
    determined (the kept singular values well above the rounding `noise`: no noise inverted) and
    the amplification of a relative error of the matrix in each (sigma_1 / sigma_r times 1 /
    sigma_r plus one over the gap to the largest dropped one)."""
    count, m, n = w.shape
    out = np.zeros((count, n, m), w.dtype)
    fine = np.zeros(count, bool)
    tol = np.zeros(count)
    for i in range(count):
        if hermitian:
            lam, vec = np.linalg.eigh(_hermitian_of(w[i]))
            keep = np.abs(lam) > cutoff[i]
            with np.errstate(all="ignore"):
                inv = np.where(keep, 1.0 / np.where(keep, lam, 1.0), 0.0)
            out[i] = (vec * inv) @ _adj(vec)
        else:
            u, sv, vh = np.linalg.svd(w[i], full_matrices=False)
            keep = sv > cutoff[i]
            with np.errstate(all="ignore"):
                inv = np.where(keep, 1.0 / np.where(keep, sv, 1.0), 0.0)
            out[i] = (_adj(vh) * inv) @ _adj(u)
        kept, dropped = s[i][s[i] > cutoff[i]], s[i][s[i] <= cutoff[i]]
        fine[i] = bool(np.isfinite(cutoff[i]))
        tol[i] = 0.0
        if kept.size:
            gap = kept[-1] - (dropped[0] if dropped.size else 0.0)
            fine[i] &= bool(kept[-1] > 2 * noise[i] and gap > 0)
            with np.errstate(all="ignore"):
                tol[i] = s[i][0] / kept[-1] * (1 / kept[-1] + 1 / gap)
    return out, fine, tol


def _check_pinv(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a = np.asarray(np_args[0])
    m, n = a.shape[-2:]
    if min(m, n) == 0:
        return _bad(got[0] == 0, got[0], 0.0, "pinv of an empty matrix")
    info = _real(a)
    order = _order_of(a)
    hermitian = bool(kw.get("hermitian", False))
    s = _spectrum(a, hermitian)
    cutoff = _cutoffs(case, kw, s, a, "pinv")
    lo, hi, noise = _band(s, cutoff, a)
    w = _stack(_wide(a))
    x = _stack(_wide(got[0]))
    ref, fine, tol = _pinv_reference(w, s, cutoff, hermitian, noise)
    fine &= lo == hi
    with np.errstate(all="ignore"):
        tol = K * order * info.eps * tol + K * order * info.tiny
    fine &= np.isfinite(tol)
    if not fine.any():
        return None
    return _bad(
        _close(x[fine], ref[fine], tol[fine][:, None, None]),
        x[fine],
        ref[fine],
        "pinv against NumPy's (float64)",
    )


def _lstsq_rank_band(np_args: list, kw: dict) -> tuple[int, int]:
    a = np.asarray(np_args[0])
    if a.ndim != 2:
        return 0, 0
    if not np.isfinite(_wide(a)).all():  # NaN: any rank
        return 0, min(a.shape)
    s = _sv(a)
    lo, hi, _ = _band(s, _cutoffs({}, kw, s, a, "lstsq"), a)
    return int(lo[0]), int(hi[0])


def _check_lstsq(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a, b = np.asarray(np_args[0]), np.asarray(np_args[1])
    m, n = a.shape
    info = _finfo(np.result_type(_compute_dtype(a), _compute_dtype(b)))
    order = max(m, n, 1)
    x, residuals, rank, sv = got
    s = _sv(a)
    problem = _singular_values(sv, s, order, info, "lstsq's singular values")
    lo, hi = _lstsq_rank_band(np_args, kw)
    problem = problem or _bad((lo <= rank) & (rank <= hi), rank, np.array([lo, hi]), "lstsq's rank")
    if problem or lo != hi or min(m, n) == 0:
        return problem
    w, bw = _wide(a), _wide(b)
    cutoff = _cutoffs({}, kw, s, a, "lstsq")
    _, _, noise = _band(s, cutoff, a)
    ref, fine, amp = _pinv_reference(w[None], s, cutoff, False, noise)
    if not fine[0] or not np.isfinite(amp[0]):
        return None
    want_x = ref[0] @ bw
    if not np.max(np.abs(want_x), initial=0.0) < info.max / (2 * order):
        return None  # a solution beyond the dtype's range: an overflow either way
    r = bw - w @ want_x
    bnorm = np.max(np.abs(bw), initial=0.0) * np.sqrt(m)  # NumPy floats: inf, not OverflowError
    rnorm = np.max(np.abs(r), initial=0.0) * np.sqrt(m)
    kept = s[0][s[0] > cutoff[0]]
    with np.errstate(all="ignore"):  # (a zero right-hand side or residual adds nothing, even times inf)
        tol = (
            K
            * order
            * info.eps
            * (
                (amp[0] * bnorm if bnorm else 0.0)
                + (rnorm * (s[0][0] / kept[-1]) / kept[-1] if rnorm and kept.size else 0.0)
            )
        )
    problem = _bad(
        _close(x, want_x, tol + info.tiny), x, want_x, "lstsq's solution against NumPy's (float64)"
    )
    if problem or residuals.size == 0:
        return problem
    want_res = np.sum(np.abs(r) ** 2, axis=0).reshape(-1)
    rtol = K * order * info.eps * (s[0][0] / kept[-1]) if kept.size else 1.0
    ok = _close(residuals, want_res, rtol * bnorm**2 + info.tiny) | _close(
        residuals, want[1], rtol * bnorm**2
    )
    return _bad(ok, residuals, want_res, "lstsq's residuals (float64, or NumPy's own where they overflow)")


#: the norms whose value each element decides (NaN and infinities included)
ELEMENTWISE_NORMS = ("norm", "matrix_norm", "vector_norm")


def _elementwise(case: dict, kw: dict) -> bool:
    order = kw.get("ord", kw.get("p"))
    return case["fn"] != "cond" and order not in (2, -2, "nuc") or case["fn"] == "vector_norm"


def _norm_axes(case: dict, a: np.ndarray, kw: dict) -> tuple[int, ...] | None:
    """The axes a norm reduces (None: not a matrix norm over two axes)."""
    fn = case["fn"]
    if fn == "matrix_norm":
        return (a.ndim - 2, a.ndim - 1)
    if fn == "vector_norm":
        return None
    axis = kw.get("axis")
    if axis is None:
        return tuple(range(a.ndim)) if a.ndim == 2 and kw.get("ord") is not None else None
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(int(x) % a.ndim for x in axes) if len(axes) == 2 else None


def _check_norm(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    """Against NumPy's result, NumPy's on the float64 (complex128) values, or that scaled by the
    largest magnitude first (where a sum of squares overflows or underflows): any of them within
    K * (terms) * eps."""
    a = np.asarray(np_args[0])
    w = _wide(a)
    info = _finfo(want[0].dtype)  # float16 arrays: NumPy's sums are float16
    fn = case["fn"]

    def norm_of(x: np.ndarray) -> np.ndarray:
        return np.asarray(_quiet(lambda: getattr(np.linalg, fn)(x, **kw)))

    finite = w[np.isfinite(w)]
    s = float(np.max(np.abs(finite), initial=0.0))
    candidates = [want[0], norm_of(w)]
    if s > 0:
        candidates.append(norm_of(w / s) * s)
    order = kw.get("ord", kw.get("p"))
    terms = max(1, a.size)
    axes = _norm_axes(case, a, kw)
    atol: Any = info.tiny * terms
    if axes is not None and order in (2, -2, "nuc"):
        big = np.asarray(_quiet(lambda: np.linalg.norm(w, 2, axis=axes, keepdims=bool(kw.get("keepdims")))))
        k = min(a.shape[axes[0]], a.shape[axes[1]])
        atol = atol + K * max(a.shape[axes[0]], a.shape[axes[1]], 1) * info.eps * big * (
            k if order == "nuc" else 1
        )
    rtol = K * terms * info.eps
    oks = [_close(got[0], c, atol, rtol) for c in candidates if np.shape(c) == got[0].shape]
    if any(ok.all() for ok in oks):
        return None
    return _bad(oks[0] if oks else np.zeros(1, bool), got[0], want[0], f"{fn} against NumPy's")


def _cond64(x: np.ndarray, p: Any) -> float:
    """The `p`-norm of a matrix times that of its inverse, in float64 (inf for a singular one)."""
    try:
        return float(np.linalg.norm(x, p) * np.linalg.norm(np.linalg.inv(x), p))
    except (LinAlgError, ValueError):
        return math.inf


def _check_cond(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a = np.asarray(np_args[0])
    n = _order_of(a)
    info = _real(a)
    big, small, cond = _conditioned(a)
    g = got[0].reshape(-1).astype(np.float64)
    p = kw.get("p")
    with np.errstate(all="ignore"):
        if p in (None, 2, -2):
            truth = (
                np.where(small > 0, big / small, np.inf)
                if p != -2
                else small / np.where(big > 0, big, np.nan)
            )
        else:  # the norms of the matrix and its inverse in float64
            truth = np.array([_cond64(x, p) for x in _stack(_wide(a))])
        rel = K * n * info.eps * cond
        fine = rel < 0.5
        own = want[0].reshape(-1).astype(np.float64)
        # NumPy's own: where its norms leave the dtype's range (squares of 1e-30 in float32), any
        ranged = _close(own, truth, info.tiny, 2 * rel) | ~np.isfinite(truth)
        ok = ~fine | ~ranged | _close(g, truth, info.tiny, 2 * rel) | _close(g, own, info.tiny, 2 * rel)
    return _bad(ok, g, truth, "cond (to K n eps cond(A) relative)")


def _check_matrix_power(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a = np.asarray(np_args[0])
    p = operator.index(np_args[1])
    if a.dtype.kind not in "fc" and p >= 0:  # integer and bool matrices: exact (wrapping) products
        return _bad(got[0] == want[0], got[0], want[0], "matrix_power of integers")
    n = _order_of(a)
    info = _finfo(want[0].dtype)  # float16 matrices: NumPy's products are float16
    big, small, cond = _conditioned(a)
    if p == 0:
        return _bad(got[0] == want[0], got[0], want[0], "matrix_power(x, 0)")
    w = _stack(_wide(a))
    x = _stack(_wide(got[0]))
    with np.errstate(all="ignore"):
        base = big if p > 0 else np.where(small > 0, 1 / small, np.inf)
        log_size = abs(p) * np.log(np.where(base > 0, base, 1.0))
        fine = log_size < math.log(info.max) - math.log(n + 1) - 2
        if p < 0:
            fine &= cond * K * n * info.eps < 0.1
        if not fine.any():
            return None
        ref = np.linalg.matrix_power(w[fine] if p > 0 else np.linalg.inv(w[fine]), abs(p))
        amp = (1 if p > 0 else cond[fine]) * abs(p)
        tol = (K * n * info.eps * amp * np.exp(log_size[fine]))[:, None, None] + info.tiny * n
    return _bad(_close(x[fine], ref, tol), x[fine], ref, f"matrix_power(x, {p}) against NumPy's (float64)")


def _check_trace(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    a = np.asarray(np_args[0])
    if want[0].dtype.kind not in "fc":
        return _bad(got[0] == want[0], got[0], want[0], "trace")
    info = _finfo(want[0].dtype)
    d = np.abs(_wide(np.diagonal(a, kw.get("offset", 0), -2, -1)))
    atol = K * max(1, d.shape[-1]) * info.eps * np.sum(d, axis=-1) + info.tiny
    return _bad(_close(got[0], want[0], atol), got[0], want[0], "trace")


def _check_diagonal(got: list, want: list, np_args: list, kw: dict, case: dict) -> str | None:
    return _bad(_close(got[0], want[0], 0.0), got[0], want[0], "diagonal")


CHECKS: dict[str, Callable[[list, list, list, dict, dict], str | None]] = {
    "det": _check_det,
    "slogdet": _check_slogdet,
    "inv": _check_inv,
    "solve": _check_solve,
    "cholesky": _check_cholesky,
    "eigh": _check_eigh,
    "eigvalsh": _check_eigh,
    "svd": _check_svd,
    "svdvals": _check_svdvals,
    "qr": _check_qr,
    "pinv": _check_pinv,
    "matrix_rank": _check_matrix_rank,
    "lstsq": _check_lstsq,
    "norm": _check_norm,
    "matrix_norm": _check_norm,
    "vector_norm": _check_norm,
    "cond": _check_cond,
    "matrix_power": _check_matrix_power,
    "trace": _check_trace,
    "diagonal": _check_diagonal,
}
