"""NumPy functions of numba_ext arrays in jitted code, computed by the eager library: sorting and
searching (``np.sort``, ``np.argsort``, ``np.unique``, ``np.nonzero``, ...), order statistics
(``np.median``, ``np.percentile``, the ``nan*`` reductions), joining and rearranging (``np.concatenate``,
``np.stack``, ``np.roll``, ``np.triu``, ...), ``np.convolve``, ``np.interp``, ``np.cov``, and the linear
algebra of ``np.linalg`` (``solve``, ``inv``, ``det``, ``eigh``, ``svd``, ``qr``, ``norm``, ...).

Numba implements most of these for its own arrays with host loops, which read device memory on
the host (refused where the host cannot address it), and some (``np.linalg``'s, through SciPy's
LAPACK) not at all for ours. The before-inference rewrite (``numpy_calls``) turns each call of a
function of :data:`FUNCTIONS` into a call of a *dispatch function* made here for the call's form
(the function, how many positional arguments, which keywords): for NumPy arrays its overload is the
call as written, so Numba's implementation is untouched; when an argument is (or holds) a
numba_ext array it is :func:`eager_numpy`, which boxes the arguments, calls the NumPy function (the
array's ``__array_function__`` runs the eager library on the array's queue) and unboxes the result.

The result's type is NumPy's for arguments of the same types: the function is called at compile
time on small arrays of the arguments' dtypes and ranks (constants where the arguments are
literals), and arrays become numba_ext arrays on the arguments' device with the USM type their USM
types give. At run time the result is made to match: C-contiguous, of that dtype, 0-d results as
scalars, named tuples (``eigh``, ``svd``, ``slogdet``) as tuples."""

from __future__ import annotations

import functools
import warnings
import weakref
from typing import Any

import numpy as np
from numba.core import types
from numba.extending import intrinsic, overload
from numba.np import numpy_support

from ..arrays.ndarray import ndarray
from ..errors import ExecutionPlacementError, UnsupportedError
from ..placement import coerce_usm_types
from .eager_calls import box_arguments
from .types import USMArrayType

_NUMPY = (
    *("allclose", "angle", "append", "argpartition", "argsort", "argwhere", "around", "array_equal"),
    *("array_equiv", "average", "column_stack", "compress", "concatenate", "convolve", "corrcoef"),
    *("correlate", "count_nonzero", "cov", "cross", "diag", "diagflat", "diagonal", "diff"),
    *("digitize", "ediff1d", "einsum", "extract", "flatnonzero", "gradient", "inner", "interp"),
    *("isclose", "kron", "matrix_transpose", "median", "meshgrid", "nan_to_num", "nanargmax"),
    *("nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean", "nanmedian", "nanmin"),
    *("nanpercentile", "nanprod", "nanquantile", "nanstd", "nansum", "nanvar", "nonzero", "outer"),
    *("partition", "percentile", "polyval", "quantile", "ravel", "repeat", "roll", "round", "select"),
    *("sinc", "sort", "stack", "std", "take", "take_along_axis", "tensordot", "tile"),
    *("trace", "trapezoid", "tril", "triu", "unique", "vander", "var", "vdot", "where"),
)
_LINALG = (
    *("cholesky", "cond", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "lstsq", "matrix_norm"),
    *("matrix_power", "matrix_rank", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd"),
    *("svdvals", "trace", "vector_norm"),
)

#: name -> NumPy function, for the functions whose calls on numba_ext arrays in jitted code the
#: eager library computes (those this NumPy has)
FUNCTIONS: dict[str, Any] = {
    **{n: getattr(np, n) for n in _NUMPY if hasattr(np, n)},
    **{f"linalg.{n}": getattr(np.linalg, n) for n in _LINALG if hasattr(np.linalg, n)},
}
_NAMES = {id(f): n for n, f in FUNCTIONS.items()}

#: array methods whose calls come here, as calls of the NumPy function of the same name
METHODS = frozenset(("argsort", "diagonal", "nonzero", "repeat", "round", "std", "take", "trace", "var"))


def eager_name(fn: Any, npos: int, nkw: int) -> str | None:
    """The name in :data:`FUNCTIONS` of the NumPy function `fn` when its call with `npos` positional
    and `nkw` keyword arguments comes here, else None."""
    name = _NAMES.get(id(fn))
    if name is None or FUNCTIONS[name] is not fn:
        return None
    if name == "where":  # np.where(c, a, b) is elementwise on the device
        return name if npos == 1 and not nkw else None
    return name


def _site(key: str) -> tuple[Any, int, tuple[str, ...]]:
    """(NumPy function, positional count, keyword names) of a call form's key (a method's key
    starts with a dot; its object is the first positional argument)."""
    name, npos, kws = key.split("|")
    return FUNCTIONS[name.lstrip(".")], int(npos), tuple(kws.split(",")) if kws else ()


@functools.cache
def dispatcher(name: str, npos: int, kwnames: tuple[str, ...], method: bool = False) -> Any:
    """The dispatch function for calls of ``FUNCTIONS[name]`` (of the method `name` of the first
    argument where `method`) with `npos` positional arguments and the keywords `kwnames`: a
    function of as many parameters that makes the call as written (the implementation Numba
    compiles for NumPy arrays), overloaded for numba_ext arrays."""
    key = f"{'.' if method else ''}{name}|{npos}|{','.join(kwnames)}"
    params = [f"a{i}" for i in range(npos)] + [f"kw_{k}" for k in kwnames]
    call = ", ".join([*params[:npos], *(f"{k}={p}" for k, p in zip(kwnames, params[npos:]))])
    if method:
        call = ", ".join([*params[1:npos], *(f"{k}={p}" for k, p in zip(kwnames, params[npos:]))])
    callee = f"a0.{name}" if method else "FN"
    signature = ", ".join(params)
    packed = f"({signature},)" if params else "()"
    form = "method" if method else "eager"
    fname = f"nx_{form}_{name.replace('.', '_')}_{npos}_{'_'.join(kwnames)}".rstrip("_")
    # __name__: the environments of the compiled functions can then go into Numba's on-disk cache
    # (Numba leaves out those of functions without a module), rebuilt from this module's
    namespace: dict[str, Any] = {
        "__name__": __name__,
        "FN": FUNCTIONS[name],
        "eager_numpy": eager_numpy,
        "choose": _choose,
    }
    source = (
        f"def {fname}({signature}):\n    return {callee}({call})\n"
        f"def {fname}_usm({signature}):\n    return eager_numpy({key!r}, {packed})\n"
        f"def typer({signature}):\n    return choose({key!r}, {packed}, {fname}, {fname}_usm)\n"
    )
    exec(compile(source, f"<numba_ext dispatch {key}>", "exec"), namespace)
    dispatch = namespace[fname]
    overload(dispatch, prefer_literal=True)(namespace["typer"])
    NOT_REWRITTEN.add(dispatch)
    return dispatch


def refresh_contexts(typingctx: Any, targetctx: Any) -> None:
    """Have Numba's typing and target contexts see the overloads of the dispatch functions made
    since they last did (a context loads newly installed overloads only when refreshed)."""
    for ctx in (typingctx, targetctx):
        if _SEEN.get(ctx) != len(NOT_REWRITTEN):
            ctx.refresh()
            _SEEN[ctx] = len(NOT_REWRITTEN)


#: the dispatch functions made so far: the rewrite leaves the calls in them alone (they are the
#: calls as written, for NumPy arrays)
NOT_REWRITTEN: set = set()
#: context -> how many dispatch functions there were when it was last refreshed
_SEEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _holds(t: types.Type, usm: bool) -> bool:
    """Whether a value of type `t` is or holds (in tuples) a numba_ext array (`usm`) or a NumPy array."""
    if isinstance(t, types.Array):
        return isinstance(t, USMArrayType) == usm
    if isinstance(t, types.BaseTuple):
        return any(_holds(x, usm) for x in t.types)
    return False


def _usm_arrays(ts: tuple[types.Type, ...]) -> list[USMArrayType]:
    out: list[USMArrayType] = []
    for t in ts:
        if isinstance(t, USMArrayType):
            out.append(t)
        elif isinstance(t, types.BaseTuple):
            out.extend(_usm_arrays(tuple(t.types)))
    return out


def _choose(key: str, arg_types: tuple[types.Type, ...], host: Any, usm: Any) -> Any:
    """The overload's choice: the call as written without numba_ext arrays, the eager call with
    them (after the placement checks)."""
    if not any(_holds(t, usm=True) for t in arg_types):
        return host
    what = _what(key)
    if any(_holds(t, usm=False) for t in arg_types):
        raise ExecutionPlacementError(
            f"{what} mixes numba_ext arrays with NumPy arrays in jitted code; the queue of the NumPy data "
            "cannot be inferred (compute follows data). Convert them with numba_ext.asarray(x, sycl_queue=q) "
            "outside the jitted function"
        )
    devices = {t.device for t in _usm_arrays(arg_types)}
    if len(devices) > 1:
        raise ExecutionPlacementError(f"{what} combines arrays on different devices: {sorted(devices)}")
    return usm


def _what(key: str) -> str:
    name = key.split("|")[0]
    return f"ndarray{name}()" if name.startswith(".") else f"np.{name}()"


# -- result types ----------------------------------------------------------------------------------
#: the values tried for run-time scalars in the compile-time call, in order (an order of a norm
#: must be one NumPy knows, a count may need to be positive)
_SCALARS = {types.Integer: (0, 1, 2), types.Float: (0.5, 1.0, 2.0, np.inf), types.Complex: (0.5 + 0j,)}


def _probe_value(t: types.Type, n: int, alt: int = 0) -> Any:
    """A value of type `t` for the compile-time call: arrays of the dtype and rank with `n`
    elements along each axis (well-conditioned, increasing along vectors), the literal value of
    literals, and plain values of the scalar types (the `alt`-th of their candidates)."""
    if isinstance(t, types.Literal):
        return t.literal_value
    if isinstance(t, types.Array):
        dtype = numpy_support.as_dtype(t.dtype)
        if t.ndim == 0:
            return np.ones((), dtype)
        if t.ndim == 1:  # increasing; valid indices where integers
            return (np.arange(n) if dtype.kind in "iu" else np.arange(1, n + 1)).astype(dtype)
        square = 2 * np.eye(n) + np.ones((n, n))  # symmetric positive definite
        return np.broadcast_to(square, (n,) * t.ndim).astype(dtype)
    if isinstance(t, types.BaseTuple):
        values = [_probe_value(x, n, alt) for x in t.types]
        if all(isinstance(x, types.Integer) and not isinstance(x, types.Literal) for x in t.types):
            values = list(range(len(values)))  # axes, distinct
        return tuple(values)
    if isinstance(t, types.NoneType):
        return None
    if isinstance(t, types.Boolean):
        return False
    for kind, candidates in _SCALARS.items():
        if isinstance(t, kind):
            return candidates[min(alt, len(candidates) - 1)]
    raise UnsupportedError(f"an argument of type {t}")


def _form(value: Any) -> Any:
    """The kind of a result: ("array", dtype, ndim), ("scalar", dtype) or ("tuple", (kinds, ...))."""
    if isinstance(value, (tuple, list)):
        return ("tuple", tuple(_form(v) for v in value))
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return ("array", value.dtype.str, value.ndim)
    return ("scalar", np.asarray(value).dtype.str)


def _result_type(form: Any, like: USMArrayType, usm_type: str) -> types.Type:
    kind = form[0]
    if kind == "tuple":
        return types.Tuple(tuple(_result_type(f, like, usm_type) for f in form[1]))
    dtype = numpy_support.from_dtype(np.dtype(form[1]))
    if kind == "scalar":
        return dtype
    return like.copy(dtype=dtype, ndim=form[2], layout="C", readonly=False, usm_type=usm_type)


def _unliteral(t: types.Type) -> types.Type:
    if isinstance(t, types.Literal):
        return t.literal_type
    if isinstance(t, types.UniTuple):
        return types.UniTuple(_unliteral(t.dtype), t.count)
    if isinstance(t, types.BaseTuple):
        return types.Tuple(tuple(_unliteral(x) for x in t.types))
    return t


@functools.lru_cache(maxsize=1024)
def result_form(key: str, arg_types: tuple[types.Type, ...]) -> Any:
    """The kind of result (:func:`_form`) of the call form `key` for arguments of `arg_types`:
    NumPy's, found by the call on probe values."""
    fn, npos, kwnames = _site(key)
    # three elements along each axis (np.cross takes them), or more than a literal index needs
    sizes = sorted({3, max(3, 2 + max((abs(v) for v in _literal_ints(arg_types)), default=0))})
    tries = [(n, alt) for n in sizes for alt in range(max(len(v) for v in _SCALARS.values()))]
    for n, alt in tries:
        try:
            values = [_probe_value(t, n, alt) for t in arg_types]
        except UnsupportedError as e:
            what = _what(key)
            raise UnsupportedError(f"{what} of numba_ext arrays in jitted code does not take {e}") from None
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                probe = fn(*values[:npos], **dict(zip(kwnames, values[npos:])))
            break
        except Exception as e:
            if (n, alt) == tries[-1]:
                raise UnsupportedError(
                    f"{_what(key)} of numba_ext arrays in jitted code: NumPy refuses arguments of types "
                    f"({', '.join(map(str, arg_types))}): {e}"
                ) from None
    form = _form(probe)
    if _unsupported(form):
        raise UnsupportedError(f"{_what(key)} in jitted code gives a result jitted code cannot hold")
    return form


def _literal_ints(ts: Any) -> list[int]:
    out = []
    for t in ts:
        if isinstance(t, types.IntegerLiteral):
            out.append(int(t.literal_value))
        elif isinstance(t, types.BaseTuple):
            out.extend(_literal_ints(t.types))
    return out


def _unsupported(form: Any) -> bool:
    if form[0] == "tuple":
        return not form[1] or any(_unsupported(f) for f in form[1])
    return np.dtype(form[1]).kind not in "biufc"


@intrinsic(prefer_literal=True)
def eager_numpy(typingctx, key, args):
    """The call form `key` (a string literal: the name in FUNCTIONS, the positional count and the
    keyword names) of `args` (a tuple holding numba_ext arrays), computed by the eager library."""
    if not (isinstance(key, types.StringLiteral) and isinstance(args, types.BaseTuple)):
        return None
    arrays = _usm_arrays(tuple(args.types))
    if not arrays:
        return None
    form = result_form(key.literal_value, tuple(args.types))
    usm_type = coerce_usm_types([a.usm_type for a in arrays])
    ret = _result_type(form, arrays[0], usm_type)
    formal = _unliteral(args)
    sig = ret(key, formal)
    return sig, box_arguments(_call, (key.literal_value, form), ret)


# -- run time --------------------------------------------------------------------------------------
def _call(key: str, form: Any, args: tuple[Any, ...]) -> Any:
    """Called from compiled code, with the GIL held: the NumPy call (the eager library through the
    arrays' ``__array_function__``), its result made to match `form`."""
    fn, npos, kwnames = _site(key)
    result = fn(*args[:npos], **dict(zip(kwnames, args[npos:])))
    return _conform(result, form, key)


_dtype = functools.cache(np.dtype)


def _conform(value: Any, form: Any, key: str) -> Any:
    kind = form[0]
    if kind == "tuple":
        if not isinstance(value, (tuple, list)) or len(value) != len(form[1]):
            raise TypeError(
                f"{_what(key)} gave {type(value).__name__}, where a tuple of {len(form[1])} was typed"
            )
        return tuple(_conform(v, f, key) for v, f in zip(value, form[1]))
    dtype = _dtype(form[1])
    if kind == "scalar":
        if isinstance(value, ndarray):
            value = value.item()
        return dtype.type(value)
    if not isinstance(value, ndarray) or value.ndim != form[2]:
        raise TypeError(
            f"{_what(key)} gave {type(value).__name__} of {getattr(value, 'ndim', '?')} dimensions, where "
            f"a numba_ext array of {form[2]} was typed"
        )
    if value.dtype != dtype:
        value = value.astype(dtype)
    return value if value.flags.c_contiguous else value.copy()
