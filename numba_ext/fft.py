"""The array API's fast Fourier transform extension (``numba_ext.fft``) on numba_ext arrays: the
one-dimensional, n-dimensional, real and Hermitian transforms, the sample frequencies and the
shifts, all computed on the arrays' queue by the eager library's transforms (``np.fft`` of
numba_ext arrays, ``numba_ext.library.fft``), with the array API's signatures and defaults.

May import: ``numba_ext.array_api`` and the layers below it.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import array_api as xp
from .arrays import arange, ndarray
from .arrays.dtypes import default_float
from .library import fft as _fft

_np: Any = np  # NumPy's functions, untyped: on numba_ext arrays they dispatch to the eager library


def _axes(s: Sequence[int] | None, axes: Sequence[int] | None) -> Sequence[int] | None:
    """The array API's n-dimensional axes: all of them when None and no `s`, the last ``len(s)``
    when `s` is given alone."""
    if axes is None and s is not None:
        return list(range(-len(s), 0))
    return axes


def fft(x: ndarray, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> ndarray:
    """The one-dimensional DFT of `x` along `axis`, cut or padded with zeros to `n` points."""
    return _fft.fft(xp._array("fft.fft", x), n, axis, norm)


def ifft(x: ndarray, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> ndarray:
    """The one-dimensional inverse DFT of `x` along `axis`."""
    return _fft.ifft(xp._array("fft.ifft", x), n, axis, norm)


def fftn(
    x: ndarray,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str = "backward",
) -> ndarray:
    """The n-dimensional DFT over `axes` (all by default) with lengths `s`."""
    return _fft.fftn(xp._array("fft.fftn", x), s, _axes(s, axes), norm)


def ifftn(
    x: ndarray,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str = "backward",
) -> ndarray:
    """The n-dimensional inverse DFT over `axes`."""
    return _fft.ifftn(xp._array("fft.ifftn", x), s, _axes(s, axes), norm)


def rfft(x: ndarray, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> ndarray:
    """The non-negative frequencies of the DFT of the real `x` along `axis`."""
    return _fft.rfft(xp._array("fft.rfft", x), n, axis, norm)


def irfft(x: ndarray, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> ndarray:
    """The real signal of `n` points (default ``2 (m - 1)``) of the half spectrum `x`."""
    return _fft.irfft(xp._array("fft.irfft", x), n, axis, norm)


def rfftn(
    x: ndarray,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str = "backward",
) -> ndarray:
    """The n-dimensional DFT of the real `x`, the last axis halved."""
    return _fft.rfftn(xp._array("fft.rfftn", x), s, _axes(s, axes), norm)


def irfftn(
    x: ndarray,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str = "backward",
) -> ndarray:
    """The inverse of :func:`rfftn`: a real array (the last length ``2 (m - 1)`` by default)."""
    return _fft.irfftn(xp._array("fft.irfftn", x), s, _axes(s, axes), norm)


def hfft(x: ndarray, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> ndarray:
    """The real spectrum of a signal with Hermitian symmetry, given by its first half `x`."""
    return _fft.hfft(xp._array("fft.hfft", x), n, axis, norm)


def ihfft(x: ndarray, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> ndarray:
    """The inverse of :func:`hfft`: half the Hermitian spectrum of the real `x`."""
    return _fft.ihfft(xp._array("fft.ihfft", x), n, axis, norm)


def _frequencies(fn: str, n: int, d: float, dtype: Any, device: Any, half: bool) -> ndarray:
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"numba_ext.fft.{fn}(): n must be a positive integer, not {n}")
    count = n // 2 + 1 if half else n
    k = arange(count, dtype=np.int64, device=device)
    dtype = np.dtype(dtype) if dtype is not None else default_float(k.sycl_queue)
    if dtype.kind != "f":
        raise TypeError(f"numba_ext.fft.{fn}(): dtype must be a real floating-point dtype, not {dtype}")
    if not half:
        k = _np.where(_np.less(k, (n + 1) // 2), k, _np.subtract(k, n))  # 0, 1, ..., -(n // 2), ..., -1
    result: ndarray = _np.multiply(_np.astype(k, dtype), dtype.type(1.0 / (n * d)))
    return result


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> ndarray:
    """The sample frequencies of a DFT of `n` points with sample spacing `d`: ``[0, 1, ...,
    -(n // 2), ..., -1] / (n d)``, on `device` in `dtype` (default: the device's default float)."""
    return _frequencies("fftfreq", n, d, dtype, device, False)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> ndarray:
    """The non-negative sample frequencies of :func:`rfft` of `n` points: ``[0, ..., n // 2] / (n d)``."""
    return _frequencies("rfftfreq", n, d, dtype, device, True)


def fftshift(x: ndarray, /, *, axes: int | Sequence[int] | None = None) -> ndarray:
    """The zero frequency moved to the middle of `axes` (all by default)."""
    return _fft.fftshift(xp._array("fft.fftshift", x), axes)


def ifftshift(x: ndarray, /, *, axes: int | Sequence[int] | None = None) -> ndarray:
    """The inverse of :func:`fftshift`."""
    return _fft.ifftshift(xp._array("fft.ifftshift", x), axes)


__all__ = [
    "fft",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfftn",
    "rfft",
    "rfftfreq",
    "rfftn",
]
