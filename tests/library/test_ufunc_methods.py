"""``ufunc.reduce`` and ``ufunc.accumulate`` of numba_ext arrays (``np.add.reduce``,
``np.maximum.reduce``, ``np.multiply.accumulate``, ...) and NumPy functions built on them
(``np.ptp``) against NumPy on fresh random inputs, and the methods refused with an error that names
the ones taken."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import UnsupportedError

from ..checks import check, poison
from ..conftest import DEV

REDUCE = [np.add, np.multiply, np.maximum, np.minimum, np.logical_and, np.logical_or]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.bool_])
def test_reduce_and_accumulate(rng, dtype):
    h = (rng.standard_normal((4, 5, 3)) * 2).astype(dtype)
    x = nx.asarray(h, device=DEV)
    for ufunc in REDUCE:
        for kw in ({}, {"axis": None}, {"axis": 1, "keepdims": True}, {"axis": (0, 2)}, {"axis": -1}):
            poison(h.size, np.float64, dtype)
            check(ufunc.reduce(x, **kw), np.asarray(ufunc.reduce(h, **kw)), f"{ufunc.__name__} {kw}")
    if dtype != np.bool_:
        check(np.add.reduce(x, axis=1, dtype=np.float64), np.add.reduce(h, axis=1, dtype=np.float64), "dtype")
        check(np.maximum.reduce(x, dtype=np.float64), np.maximum.reduce(h, dtype=np.float64), "max dtype")
        for ufunc in (np.add, np.multiply):
            for axis in (0, 2):
                check(ufunc.accumulate(x, axis=axis), ufunc.accumulate(h, axis=axis), f"{ufunc.__name__}")
        check(np.ptp(x, axis=1), np.ptp(h, axis=1), "ptp")
        check(np.ptp(x), np.asarray(np.ptp(h)), "ptp of all")


def test_refused_methods_are_named(rng):
    x = nx.asarray(rng.standard_normal((3, 4)), device=DEV)
    with pytest.raises(UnsupportedError, match="np.subtract.reduce.*np.add.reduce"):
        np.subtract.reduce(x)
    with pytest.raises(UnsupportedError, match="np.maximum.accumulate.*np.add.accumulate"):
        np.maximum.accumulate(x)
    with pytest.raises(UnsupportedError, match="initial"):
        np.add.reduce(x, initial=1.0)
    with pytest.raises(ValueError, match="zero-size"):
        np.maximum.reduce(nx.zeros((0, 3), device=DEV))
