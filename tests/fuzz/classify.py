"""The one classifier of fuzz outcomes.

Every case ends in exactly one of ``OUTCOMES``:

- ``correct``: the call returned what the oracle (NumPy, Numba's CPU result or the case's own
  model) gives, or raised where NumPy raises, with an exception of NumPy's kind;
- ``clean error``: a numba_ext error (``numba_ext.errors``) where the oracle has a result (a
  documented refusal: an unsupported dtype, placement, a launch limit), a plain ``TypeError`` or
  ``ValueError`` where NumPy refuses the input too but with the other class (with several bad
  arguments, each library may check another one first), or one of the built-in
  classes the case allows for an argument NumPy does not have (``TypeError``/``ValueError`` for a
  selector or an interface field);
- ``wrong``: a result that differs from the oracle's, or a result where the oracle refuses the input
  (bad input silently accepted);
- ``raw internal error``: any other exception. That covers the classes that betray a bug
  (``RAW_CLASSES``: ``KeyError``, ``AttributeError``, ``ZeroDivisionError``, ``IndexError``,
  ``AssertionError``, ``UnboundLocalError``, ``NameError``, ``RecursionError``, ...) unless NumPy
  raises that very class for the input, numba_ext's own "please report" errors (``CodegenError``,
  ``KernelSpecError``, ``BuildError``: code generation or the driver failed on code numba_ext made),
  and exceptions of classes neither NumPy nor ``numba_ext.errors`` would raise here (Numba's
  ``TypingError``, a bare ``TypeError`` where NumPy gives a result);
- ``crash`` / ``hang``: the child process died (signal, abort) or did not answer within the case's
  time limit; the parent records these (``harness.py``).
"""

from __future__ import annotations

from typing import Any

CORRECT = "correct"
CLEAN = "clean error"
WRONG = "wrong"
RAW = "raw internal error"
CRASH = "crash"
HANG = "hang"
OUTCOMES = (CORRECT, CLEAN, CRASH, HANG, WRONG, RAW)
#: the outcomes a fuzz test accepts
GOOD = (CORRECT, CLEAN)

RAW_CLASSES: tuple[type[BaseException], ...] = (
    KeyError,
    AttributeError,
    ZeroDivisionError,
    IndexError,
    AssertionError,
    UnboundLocalError,
    NameError,
    RecursionError,
    NotImplementedError,
    SystemError,
    UnicodeError,
)
#: the built-in classes that say what kind of mistake an input is; an exception matches NumPy's when
#: both derive from the same one of these
KINDS: tuple[type[BaseException], ...] = (TypeError, ValueError, IndexError, OverflowError, MemoryError)


def _kinds(exc_type: type[BaseException]) -> set[type[BaseException]]:
    return {k for k in KINDS if issubclass(exc_type, k)}


def classify_error(
    exc: BaseException,
    reference: type[BaseException] | None = None,
    allowed: tuple[type[BaseException], ...] = (),
) -> str:
    """The outcome of a call that raised `exc`, where the oracle (NumPy, or Numba on the CPU) raised
    `reference` for the same input (None: the oracle gives a result, or the input has no NumPy
    counterpart) and the case accepts the built-in classes `allowed` for arguments NumPy does not
    have."""
    from numba_ext import errors  # the child has it loaded; the parent never calls this

    if isinstance(exc, (errors.CodegenError, errors.KernelSpecError, errors.BuildError)):
        return RAW
    if reference is not None:
        if isinstance(exc, reference):
            return CORRECT
        if not isinstance(exc, RAW_CLASSES) and _kinds(type(exc)) & _kinds(reference):
            return CORRECT
        if type(exc) in (TypeError, ValueError):  # refused as NumPy refuses, another argument first
            return CLEAN
    if isinstance(exc, errors.NumbaExtError):
        return CLEAN
    if isinstance(exc, RAW_CLASSES):
        return RAW
    if allowed and isinstance(exc, allowed):
        return CLEAN
    return RAW


def brief(value: Any) -> str:
    """A short description of a returned value (its repr may itself fail on a broken array)."""
    try:
        return repr(value)[:200]
    except Exception as e:
        shape = getattr(value, "shape", "?")
        return f"a {type(value).__name__} of shape {shape} whose repr raises {e!r:.100}"


def describe(exc: BaseException) -> str:
    return f"{type(exc).__module__}.{type(exc).__qualname__}: {str(exc)[:300]}"


def compare(got: Any, want: Any, rtol: float | None = None, atol: float | None = None) -> str | None:
    """None when NumPy array `got` equals `want` (dtype in native byte order, shape, values: floats
    within the dtype's tolerance, NaN where NaN; a complex element that is not finite where NumPy's
    is not), else what differs."""
    import numpy as np

    got, want = np.asarray(got), np.asarray(want)
    if not want.dtype.isnative:  # numba_ext arrays hold native-order data (documented): same values
        want = want.astype(want.dtype.newbyteorder("="))
    if got.dtype != want.dtype:
        return f"dtype {got.dtype}, expected {want.dtype}"
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if want.dtype.kind in "fc":
        r, a = _tol(want.dtype)
        ok = np.isclose(
            got, want, rtol=r if rtol is None else rtol, atol=a if atol is None else atol, equal_nan=True
        )
        if want.dtype.kind == "c":  # complex infinities and NaN do not follow C99 Annex G (documented)
            ok |= ~np.isfinite(want) & ~np.isfinite(got)
        bad = ~ok
    elif want.dtype == object:  # NumPy's object loop: each side's own `object()` stands for the same

        def key(v: Any) -> Any:
            return "<object>" if type(v) is object else v

        bad = np.asarray(np.frompyfunc(lambda g, w: key(g) != key(w), 2, 1)(got, want)).astype(bool)
    else:
        bad = got != want
    if np.any(bad):
        i = tuple(int(j) for j in np.argwhere(bad)[0]) if got.ndim else ()
        return f"{int(np.sum(bad))} of {got.size} elements differ, e.g. at {i}: {got[i]!r} != {want[i]!r}"
    return None


def _tol(dtype: Any) -> tuple[float, float]:
    import numpy as np

    dt = np.dtype(dtype)
    if dt == np.float16:
        return (2e-3, 1e-4)
    return (1e-5, 1e-6) if dt in (np.float32, np.complex64) else (1e-12, 1e-14)
