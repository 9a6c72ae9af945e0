"""np.fft's transforms of numba_ext arrays inside @numba_ext.jit and plain @numba.njit (the eager
library called from the compiled code), against NumPy on fresh random data: every transform, real
and complex dtypes of both precisions, results used in array expressions (the eager result may be a
view: the compiled code gets a C-contiguous array), on the argument's queue; NumPy's refusals are
typing errors."""

import numba
import numpy as np
import pytest

import numba_ext as nx
from numba_ext.compiler.eager_calls import FOURIER
from tests.checks import poison


def _data(rng, dtype, shape):
    h = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        h = h + 1j * rng.standard_normal(shape)
    return h.astype(dtype)


def _tol(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-11


@pytest.mark.parametrize("name", FOURIER)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "complex64"])
def test_every_transform(rng, name, dtype):
    fn = getattr(np.fft, name)
    jitted = nx.jit(lambda a: fn(a) * 2 + 1)
    shape = (6, 10) if name.endswith(("2", "n")) else (12,)
    h = _data(rng, dtype, shape)
    if name in ("rfft", "rfft2", "rfftn", "ihfft") and np.dtype(dtype).kind == "c":
        with pytest.raises(numba.core.errors.TypingError):
            jitted(nx.asarray(h))  # NumPy refuses complex input too
        with pytest.raises(TypeError):
            fn(h)
        return
    want = fn(h) * 2 + 1
    poison(want.size, want.dtype)
    x = nx.asarray(h)
    got = jitted(x)
    assert isinstance(got, nx.ndarray) and got.sycl_queue is x.sycl_queue
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(nx.asnumpy(got), want, rtol=_tol(dtype), atol=_tol(dtype) * scale)


def test_plain_njit_and_views(rng):
    """Plain @numba.njit code, a transform of a strided view, a 3-d transform, and the results'
    USM type (the argument's)."""

    @numba.njit
    def spectrum_power(a):
        s = np.fft.rfft(a)
        return (s.real * s.real + s.imag * s.imag).sum()

    h = rng.standard_normal(64)
    x = nx.asarray(h, usm_type="shared")
    spectrum = np.fft.rfft(h)
    np.testing.assert_allclose(spectrum_power(x), (np.abs(spectrum) ** 2).sum(), rtol=1e-12)
    cube = rng.standard_normal((4, 6, 8))
    got = nx.jit(lambda a: np.fft.fftshift(np.fft.fftn(a)))(nx.asarray(cube, usm_type="shared")[:, ::2])
    assert got.usm_type == "shared"
    np.testing.assert_allclose(
        nx.asnumpy(got), np.fft.fftshift(np.fft.fftn(cube[:, ::2])), rtol=1e-11, atol=1e-11
    )


def test_numpy_arrays_are_not_transformed_in_jitted_code():
    """Numba has no np.fft: NumPy arrays in plain jitted code get a typing error, not host results
    (numba_ext.jit refuses NumPy arguments outside an offload_to block anyway)."""
    with pytest.raises(numba.core.errors.TypingError):
        numba.njit(lambda a: np.fft.fft(a))(np.ones(8))
