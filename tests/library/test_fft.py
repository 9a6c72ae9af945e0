"""Discrete Fourier transforms of numba_ext arrays (np.fft of device arrays and the array API's
numba_ext.fft) against NumPy's on fresh random inputs: every length class of the recursion (direct
DFT matrices, mixed radices, large primes through Bluestein's algorithm), every function, axis, norm
and length, the dtypes NumPy 2 gives, the n-dimensional forms, the shifts and frequencies, and
NumPy's errors. The results stay on the input's queue with its USM type."""

import warnings

import numpy as np
import pytest

import numba_ext as nx

from ..checks import poison
from ..conftest import DEV

# direct (<= 64), radix 16 / 8 / 5 / 3 / 17..64 recursions, primes and prime factors > 64 (Bluestein)
LENGTHS = [1, 2, 3, 7, 16, 64, 65, 97, 128, 360, 1000, 1009, 2018, 2187, 4096, 67 * 71]


def _complex(rng, shape, dtype=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _close(got, want, rtol):
    got = nx.asnumpy(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    err = float(np.abs(got - want).max(initial=0.0)) / scale
    assert err <= rtol, f"relative error {err:.3g} > {rtol:.3g}"


@pytest.mark.parametrize("n", LENGTHS)
def test_complex_lengths(n):
    rng = np.random.default_rng()
    X = _complex(rng, (3, n))
    x = nx.asarray(X, device=DEV)
    poison(3 * n, np.complex128)
    _close(np.fft.fft(x), np.fft.fft(X), 1e-13)
    _close(np.fft.ifft(x), np.fft.ifft(X), 1e-13)
    X32 = X.astype(np.complex64)
    _close(np.fft.fft(nx.asarray(X32, device=DEV)), np.fft.fft(X32), 2e-5)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_one_axis_forms(name):
    rng = np.random.default_rng()
    X = _complex(rng, (4, 6, 10))
    A = X.real.copy() if name in ("rfft", "ihfft") else X
    a = nx.asarray(A, device=DEV)
    fn = getattr(np.fft, name)
    for axis in (0, 1, -1):
        for norm in (None, "backward", "ortho", "forward"):
            for n in (None, 1, 5, 12):
                if n == 1 and name in ("irfft", "hfft"):
                    continue  # NumPy and we both allow it, but n=1 of a half spectrum is degenerate
                _close(fn(a, n=n, axis=axis, norm=norm), fn(A, n=n, axis=axis, norm=norm), 1e-13)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"])
def test_n_dimensions(name):
    rng = np.random.default_rng()
    X = _complex(rng, (4, 6, 10))
    A = X.real.copy() if name.startswith("rfft") else X
    a = nx.asarray(A, device=DEV)
    fn = getattr(np.fft, name)
    cases = [((5, 7), (2, 0)), ((4, -1), (0, 1)), (None, (1, 2)), ((3, 8), (-1, -2))]
    if not name.endswith("2"):
        cases += [(None, None), (None, (0, 2)), ((2, 3, 4), (0, 1, 2))]
    for s, axes in cases:
        kw = {} if axes is None else {"axes": axes}
        _close(fn(a, s=s, **kw), fn(A, s=s, **kw), 1e-12)
    if name.endswith("2"):
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        want = fn(A, s=(4, 6))
    with pytest.warns(DeprecationWarning, match="axes"):
        got = fn(a, s=(4, 6))  # NumPy 2 deprecates s without axes and takes the last len(s)
    _close(got, want, 1e-12)


@pytest.mark.parametrize(
    "dtype",
    [
        pytest.param("float16", marks=pytest.mark.needs_fp16),
        "float32",
        "float64",
        "int8",
        "int64",
        "bool",
        "complex64",
    ],
)
def test_dtypes(dtype):
    rng = np.random.default_rng()
    A = (rng.standard_normal((5, 8)) * 3).astype(dtype)
    if dtype == "complex64":
        A = A + (1j * rng.standard_normal((5, 8))).astype(dtype)
    a = nx.asarray(A, device=DEV)
    single = dtype in ("float16", "float32", "complex64")
    names = ["fft", "ifft", "irfft", "hfft"] + ([] if dtype == "complex64" else ["rfft", "ihfft"])
    for name in names:
        want = getattr(np.fft, name)(A)
        rtol = 2e-3 if dtype == "float16" and want.dtype == np.float16 else (2e-5 if single else 1e-13)
        _close(getattr(np.fft, name)(a), want, rtol)


def test_out_and_placement():
    rng = np.random.default_rng()
    X = _complex(rng, (6, 20))
    x = nx.asarray(X, device=DEV, usm_type="shared")
    out = nx.full((6, 20), complex(np.nan, np.nan), device=DEV)
    got = np.fft.fft(x, axis=0, out=out)
    assert got is out
    _close(out, np.fft.fft(X, axis=0), 1e-13)
    r = np.fft.rfftn(x.real)
    assert r.usm_type == "shared" and r.sycl_queue == x.sycl_queue
    assert np.fft.fft(x).usm_type == "shared"
    empty = np.fft.fft(nx.zeros((0, 8), dtype=complex, device=DEV))
    assert empty.shape == (0, 8) and empty.dtype == np.complex128


def test_shifts():
    rng = np.random.default_rng()
    A = rng.standard_normal((5, 6, 7))
    a = nx.asarray(A, device=DEV)
    for axes in (None, 0, 1, -1, (0, 2), (2, 1, 0), ()):
        np.testing.assert_array_equal(
            nx.asnumpy(np.fft.fftshift(a, axes=axes)), np.fft.fftshift(A, axes=axes)
        )
        np.testing.assert_array_equal(
            nx.asnumpy(np.fft.ifftshift(a, axes=axes)), np.fft.ifftshift(A, axes=axes)
        )
    np.testing.assert_array_equal(nx.asnumpy(nx.fft.fftshift(a, axes=1)), np.fft.fftshift(A, axes=1))


def test_array_api_namespace():
    rng = np.random.default_rng()
    X = _complex(rng, (6, 9))
    x = nx.asarray(X, device=DEV)
    _close(nx.fft.fft(x, n=12, axis=0, norm="ortho"), np.fft.fft(X, n=12, axis=0, norm="ortho"), 1e-13)
    _close(nx.fft.ifftn(x, s=(4, 5)), np.fft.ifftn(X, s=(4, 5), axes=(0, 1)), 1e-13)
    _close(nx.fft.fftn(x), np.fft.fftn(X), 1e-13)
    _close(nx.fft.rfftn(x.real, axes=(0,)), np.fft.rfftn(X.real, axes=(0,)), 1e-13)
    _close(nx.fft.irfftn(x), np.fft.irfftn(X), 1e-13)
    _close(nx.fft.hfft(x, n=10), np.fft.hfft(X, n=10), 1e-13)
    _close(nx.fft.ihfft(x.real, axis=0), np.fft.ihfft(X.real, axis=0), 1e-13)
    for n in (1, 2, 7, 8):
        for d in (1.0, 0.25):
            _close(nx.fft.fftfreq(n, d=d, device=DEV), np.fft.fftfreq(n, d=d), 1e-15)
            _close(nx.fft.rfftfreq(n, d=d, device=DEV), np.fft.rfftfreq(n, d=d), 1e-15)
    f32 = nx.fft.fftfreq(9, d=0.5, dtype=nx.float32, device=DEV)
    _close(f32, np.fft.fftfreq(9, d=0.5).astype(np.float32), 1e-7)
    with pytest.raises(TypeError, match="numba_ext.ndarray"):
        nx.fft.fft(X)
    with pytest.raises(ValueError, match="positive"):
        nx.fft.fftfreq(0, device=DEV)


def test_errors():
    x = nx.asarray(np.ones((3, 4), dtype=complex), device=DEV)
    with pytest.raises(ValueError, match="Invalid norm value"):
        np.fft.fft(x, norm="none")
    with pytest.raises(ValueError, match=r"Invalid number of FFT data points \(0\)"):
        np.fft.fft(x, n=0)
    with pytest.raises(ValueError, match=r"Invalid number of FFT data points \(0\)"):
        np.fft.fft(nx.zeros((3, 0), device=DEV))
    with pytest.raises(TypeError, match="real input"):
        np.fft.rfft(x)
    with pytest.raises(IndexError):
        np.fft.fft(x, axis=2)
    with pytest.raises(ValueError, match="Shape and axes have different lengths"):
        np.fft.fftn(x, s=(2, 2), axes=(0,))
    with pytest.raises(ValueError, match="wrong shape"):
        np.fft.fft(x, out=nx.zeros((3, 5), dtype=complex, device=DEV))
