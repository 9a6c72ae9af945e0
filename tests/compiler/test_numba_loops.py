"""The Numba-free copy of Numba's ufunc loop selection (``numba_ext.ir.numba_loops``, which types
array-expression functions compiled from their source) picks the loop Numba's typing picks, for every
ufunc and every combination of the real, complex and bool dtypes."""

import itertools

import numpy as np
from numba.np import numpy_support

from numba_ext.arrays.dtypes import SUPPORTED_DTYPES
from numba_ext.compiler.kernelspec import dtype_name
from numba_ext.ir.numba_loops import find_loop

#: every dtype numba_ext arrays hold but float16 (Numba has no float16 loops; its selection skips them)
DTYPES = [d.name for d in SUPPORTED_DTYPES if d != np.float16]
UFUNCS = sorted(
    (u for u in vars(np).values() if isinstance(u, np.ufunc) and u.nout == 1 and u.nin <= 2),
    key=lambda u: u.__name__,
)


def _numbas(ufunc, dts):
    loop = numpy_support.ufunc_find_matching_loop(
        ufunc, tuple(numpy_support.from_dtype(np.dtype(d)) for d in dts)
    )
    if loop is None:
        return None
    return [dtype_name(t) for t in loop.inputs], dtype_name(loop.outputs[0])


def test_every_ufunc_and_dtype_combination_takes_numbas_loop():
    checked = 0
    for ufunc in UFUNCS:
        for dts in itertools.product(DTYPES, repeat=ufunc.nin):
            assert find_loop(ufunc, list(dts)) == _numbas(ufunc, dts), (ufunc.__name__, dts)
            checked += 1
    assert checked > 5000


def test_where_numba_and_numpy_differ():
    """The cases that make the copy necessary: Numba's rule for mixed integer and floating operands
    and for scalars, which NumPy's promotion does not share."""
    assert find_loop(np.multiply, ["float32", "int64"]) == (["float32", "float32"], "float32")
    assert np.result_type(np.float32, np.int64) == np.float64
    assert find_loop(np.multiply, ["float32", "float64"]) == (["float64", "float64"], "float64")
    assert find_loop(np.sqrt, ["uint8"]) == (["float32"], "float32")
    assert find_loop(np.sqrt, ["int64"]) == (["float64"], "float64")
    assert find_loop(np.add, ["float16", "float16"]) == (["float32", "float32"], "float32")
    assert find_loop(np.add, ["int64", "uint64"]) == (["float64", "float64"], "float64")
