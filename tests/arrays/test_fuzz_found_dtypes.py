"""A NumPy dtype numba_ext arrays cannot hold is an UnsupportedError (a TypeError), the fuzzer found a
bare TypeError there; what is no dtype at all stays NumPy's TypeError."""

import numpy as np
import pytest

import numba_ext as nx


@pytest.mark.parametrize("dtype", ["U5", "O", "M8[s]", "V8", "S3", object, str, np.longdouble])
def test_numpy_dtype_numba_ext_cannot_hold(dtype):
    if np.dtype(dtype) == np.float64:  # long double is double on some platforms
        pytest.skip("np.longdouble is float64 here")
    np.empty(3, dtype=dtype)  # NumPy makes these
    for make in (lambda: nx.empty(3, dtype=dtype), lambda: nx.zeros((2, 2), dtype=dtype)):
        with pytest.raises(nx.UnsupportedError, match="unsupported dtype"):
            make()


@pytest.mark.parametrize("dtype", ["xyz", 5, "float1024"])
def test_no_dtype_at_all(dtype):
    with pytest.raises(TypeError):
        np.empty(3, dtype=dtype)
    with pytest.raises(TypeError, match=str(dtype)) as e:  # NumPy's message, naming the value
        nx.empty(3, dtype=dtype)
    assert not isinstance(e.value, nx.UnsupportedError)
