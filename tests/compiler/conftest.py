"""Helpers shared by the compiler tests: a jitted expression used by several jit tests, the plain-Numba
reference of the property tests, and poisoned result blocks."""

import numba
import numpy as np
import pytest
from numba.core import types as nbtypes
from numba.extending import overload
from numba.np import numpy_support

import numba_ext


@numba_ext.jit
def slice_expr(a, b):
    return np.sqrt(a) * b + 1.0


# -- the plain-Numba reference of the property tests ----------------------------------------------------
# np.where types Python scalars as NumPy 2 does (``np.where(c, float32_array, 2)`` is float32), where
# plain Numba makes them int64 / float64: the reference computes np.where with NumPy 2's result dtype
# (``np2_where`` below), everything else with Numba's own typing.
def np2_where(c, a, b):
    return np.where(c, a, b)


def _weak(t):
    """An operand for np.result_type with NumPy 2's rules: arrays by dtype, scalars as weak Python
    scalars of their kind."""
    if isinstance(t, nbtypes.Array):
        return np.empty(0, numpy_support.as_dtype(t.dtype))
    t = getattr(t, "literal_type", t)
    return False if isinstance(t, nbtypes.Boolean) else 0 if isinstance(t, nbtypes.Integer) else 0.0


@overload(np2_where)
def _ov_np2_where(c, a, b):
    result = np.result_type(_weak(a), _weak(b)).type
    return lambda c, a, b: np.where(c, a, b).astype(result)


def materialize(x):
    """A copy of an array in the reference (see test_properties_typed_dtypes.py: _materialized)."""
    return x


@overload(materialize)
def _ov_materialize(x):
    return (lambda x: x.copy()) if isinstance(x, nbtypes.Array) else (lambda x: x)


def numba_reference(src: str):
    """The plain-Numba reference of a function's source, with NumPy 2's np.where result dtype."""
    ns: dict = {"np": np, "np2_where": np2_where, "materialize": materialize}
    exec(src.replace("np.where(", "np2_where("), ns)
    return numba.njit(ns["f"])


# -- poisoned results ----------------------------------------------------------------------------------
def poison_result(shape, dtype, usm_type="device", queue=None):
    """Leave a freed block of the result's size filled with garbage: the next allocation of that
    size reuses it, so an element a kernel forgets to write cannot look right by accident."""
    dtype = np.dtype(dtype)
    fill = {"b": True, "i": -7, "u": 7, "f": np.nan}[dtype.kind]
    p = numba_ext.full(shape, fill, dtype=dtype, usm_type=usm_type, sycl_queue=queue)
    del p


@pytest.fixture
def eager_calls(monkeypatch):
    """The calls compiled code makes into the eager library (``compiler.eager_calls``), recorded as
    (operation, argument shapes)."""
    from numba_ext.arrays import hooks

    calls = []
    for name in ("reduce", "dot"):
        real = getattr(hooks.operations, name)

        def record(*args, _name=name, _real=real, **kwargs):
            calls.append((_name, tuple(getattr(a, "shape", a) for a in args)))
            return _real(*args, **kwargs)

        monkeypatch.setattr(hooks.operations, name, record)
    return calls
