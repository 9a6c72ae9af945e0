"""NumPy's discrete Fourier transforms (``np.fft``) of numba_ext arrays, on the arrays' queue.

The complex transform of one axis moves that axis last and transforms the rows of the
``(batch, n)`` matrix it makes by mixed-radix Stockham stages (self-sorting: no reordering pass),
one kernel each (``ir.fft``): ``n`` factored into radices up to :data:`_LARGEST_RADIX` (sixteens
first, thirty-twos on GPUs; odd primes grouped; primes up to :data:`_DIRECT` alone), each stage
the twiddle products and the radix's DFT (as code; the DFT matrix for primes above 16). Lengths
with a larger prime factor are Bluestein's chirp convolution, three power-of-two transforms of at
least ``2n - 1`` points. DFT matrices, twiddles and chirps
are computed on the host in float64 from exact integer phases (``j * k mod n``) and kept on the
device, per queue, length and dtype, in a small cache. The real transforms of even lengths
(``rfft``, ``ihfft``) are one complex transform of half the length (the pairs of real values read
as complex ones) and a combination of its two halves; odd lengths and the inverse ones
(``irfft``, ``hfft``) are the complex transform with the half spectrum cut or the Hermitian
spectrum completed;
the n-dimensional ones apply the one-axis transforms axis by axis, as NumPy's.

Dtypes as NumPy 2's: float32, float16 and complex64 are transformed in single precision
(complex64), other inputs in double; the inverse real transforms give the input's real dtype.
"""

from __future__ import annotations

import math
import operator
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..arrays import asarray, empty, ndarray, zeros
from ..arrays.reductions import tile_groups, whole_groups
from ..ir.fft import stockham_step_function
from ..ir.reductions import normalize_axis
from .compiled import kernel as _kernel
from .gather import _dense
from .manipulation import copy_into, roll

_np: Any = np  # NumPy's functions, untyped: on numba_ext arrays they dispatch to this library

#: the largest prime factor a stage takes as its radix (larger ones: Bluestein's algorithm)
_DIRECT = 64
#: the largest radix a stage's work-item takes whole (larger prime radices: one output each)
_LARGEST_RADIX = 16
#: the power-of-two radix of GPUs' stages (their registers hold a 32-point DFT: fewer passes over
#: memory); CPUs take sixteens
_GPU_POWER_RADIX = 32
#: device tables (DFT matrices, twiddles, chirps) kept, the least recently used dropped first
_TABLES_KEPT = 64
_tables: OrderedDict[tuple[Any, ...], ndarray] = OrderedDict()

_NORMS = (None, "backward", "ortho", "forward")


# -- tables ----------------------------------------------------------------------------------------
def _table(key: tuple[Any, ...], like: ndarray, make: Callable[[], np.ndarray]) -> ndarray:
    """The device copy of the host table `make()` (complex128, cast to `like`'s dtype) on `like`'s
    queue and USM type, cached under `key`."""
    full_key = (*key, like.dtype.str, like.sycl_queue, like.usm_type)
    table = _tables.get(full_key)
    if table is None:
        table = asarray(make().astype(like.dtype), sycl_queue=like.sycl_queue, usm_type=like.usm_type)
        _tables[full_key] = table
        while len(_tables) > _TABLES_KEPT:
            _tables.popitem(last=False)
    else:
        _tables.move_to_end(full_key)
    return table


def _roots(phase: np.ndarray, n: int, sign: int) -> np.ndarray:
    """``exp(sign * 2 pi i * phase / n)`` of integer phases (reduced modulo `n` first)."""
    angle = (2.0 * np.pi / n) * (phase % n).astype(np.float64)
    return np.cos(angle) + (1j * sign) * np.sin(angle)


def _dft_matrix(n: int, sign: int, like: ndarray) -> ndarray:
    """The symmetric ``n``-point DFT matrix ``W[j, k] = exp(sign 2 pi i j k / n)``."""
    k = np.arange(n, dtype=np.int64)
    return _table(("dft", n, sign), like, lambda: _roots(np.outer(k, k), n, sign))


# -- the complex transform of rows -----------------------------------------------------------------
def _radices(n: int, power: int = 16) -> list[int] | None:
    """The radices of the Stockham stages of a length-`n` transform (their product `n`): `power`
    (a power of two) as often as it divides `n`, then the rest of the power of two, then the odd
    prime factors grouped into radices up to :data:`_LARGEST_RADIX` (primes up to :data:`_DIRECT`
    alone); None when a prime factor is larger (Bluestein's algorithm)."""
    radices: list[int] = []
    while n % power == 0:
        radices.append(power)
        n //= power
    if n % 2 == 0:
        power = n & -n
        radices.append(power)
        n //= power
    primes: list[int] = []
    p = 3
    while p * p <= n:
        while n % p == 0:
            primes.append(p)
            n //= p
        p += 2
    if n > 1:
        primes.append(n)
    if primes and primes[-1] > _DIRECT:
        return None
    group = 1
    for p in primes:  # ascending: small primes share a radix
        if group * p > _LARGEST_RADIX:
            radices.append(group)
            group = 1
        group *= p
    if group > 1:
        radices.append(group)
    return [r for r in radices if r > 1]


def _stage(x: ndarray, r: int, done: int, sign: int) -> ndarray:
    """One Stockham stage of radix `r` after stages of `done` points (``ir.fft``), a new matrix."""
    n = x.shape[1]
    out = empty(x.shape, dtype=x.dtype, sycl_queue=x.sycl_queue, usm_type=x.usm_type)
    queue = x._queue
    device = queue.device
    dtype = x.dtype.name
    twiddled, gathered = done > 1, r <= _LARGEST_RADIX or r & (r - 1) == 0  # powers of two: code
    kernel = _kernel(
        ("stockham", dtype, r, twiddled, gathered, sign if gathered else 0),
        lambda: stockham_step_function(dtype, r, twiddled, gathered, sign),
        device,
    )
    slots = _dense(x._data_ptr, x.shape)
    if not gathered:  # the DFT matrix (gathered stages have it as code)
        slots += _dense(_dft_matrix(r, sign, x)._data_ptr, (r, r))
    if twiddled:
        t = _table(
            ("stage", r, done, sign),
            x,
            lambda: _roots(
                np.outer(np.arange(r, dtype=np.int64), np.arange(done, dtype=np.int64)), r * done, sign
            ),
        )
        slots += _dense(t._data_ptr, t.shape)
    slots += _dense(out._data_ptr, out.shape)
    work_items, local = whole_groups(x.shape[0] * (n // r if gathered else n), device)
    kernel.launch_nd(queue, slots, [work_items], local, wait=False)
    return out


def _rows(x: ndarray, sign: int) -> ndarray:
    """The unnormalised DFT (``sign`` -1: forward, +1: inverse) of each row of the C-contiguous
    complex matrix `x` ``(batch, n)``, as a new C-contiguous matrix: Stockham stages (no
    reordering pass), or Bluestein's algorithm for a prime factor above :data:`_DIRECT`."""
    n = x.shape[1]
    if n == 1:
        return x.copy()
    radices = _radices(n, _GPU_POWER_RADIX if tile_groups(x.sycl_queue.device) else 16)
    if radices is None:
        return _bluestein(x, sign)
    done = 1
    for r in radices:
        x = _stage(x, r, done, sign)
        done *= r
    return x


def _bluestein(x: ndarray, sign: int) -> ndarray:
    """The rows' DFT as Bluestein's chirp convolution: ``X[k] = w[k] * sum_j (x[j] w[j]) conj(w[k -
    j])`` with ``w[k] = exp(sign i pi k^2 / n)``, the convolution through power-of-two transforms."""
    batch, n = x.shape
    size = 1 << (2 * n - 2).bit_length()  # at least 2n - 1
    k = np.arange(n, dtype=np.int64)

    def chirp() -> np.ndarray:
        return _roots(k * k, 2 * n, sign)

    def kernel_spectrum() -> np.ndarray:
        b = np.zeros(size, dtype=np.complex128)
        w = np.conj(chirp())
        b[:n] = w
        b[size - n + 1 :] = w[1:][::-1]
        return np.fft.fft(b) / size  # the inverse transform's 1/size folded in

    w = _table(("chirp", n, sign), x, chirp)
    padded = zeros((batch, size), dtype=x.dtype, sycl_queue=x.sycl_queue, usm_type=x.usm_type)
    padded[:, :n] = _np.multiply(x, w)
    spectrum = _np.multiply(_rows(padded, -1), _table(("bluestein", n, sign, size), x, kernel_spectrum))
    result: ndarray = _np.multiply(_rows(spectrum, 1)[:, :n], w)
    return result


# -- one axis --------------------------------------------------------------------------------------
def _check_norm(norm: Any) -> None:
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def _swap_direction(norm: Any) -> str:
    """The norm of the transform in the other direction with the same scaling (hfft, ihfft)."""
    _check_norm(norm)
    return {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}[norm]


def _scale(norm: Any, n: int, inverse: bool) -> float:
    _check_norm(norm)
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if (norm == "forward") != inverse:  # forward-normalised forward, or backward-normalised inverse
        return 1.0 / n
    return 1.0


def _source(a: Any, what: str) -> ndarray:
    if not isinstance(a, ndarray):
        raise TypeError(f"np.fft.{what} of numba_ext arrays takes a numba_ext array, not {type(a).__name__}")
    return a


def _complex_dtype(dtype: np.dtype) -> np.dtype:
    """The complex dtype NumPy's transforms compute in for inputs of `dtype`."""
    if dtype.kind == "c":
        return dtype
    return np.dtype(np.complex64 if dtype in (np.float16, np.float32) else np.complex128)


def _real_dtype(dtype: np.dtype) -> np.dtype:
    """The real dtype of NumPy's inverse real transforms of inputs of `dtype`."""
    if dtype.kind == "c":
        return np.dtype(dtype.char.lower())
    return dtype if dtype.kind == "f" else np.dtype(np.float64)


def _points(n: Any, length: int) -> int:
    n = length if n is None else operator.index(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def _fit(a: ndarray, n: int) -> ndarray:
    """`a` cut or padded with zeros to `n` elements along its last axis."""
    length = a.shape[-1]
    if n <= length:
        return a[..., :n]
    padded = zeros(a.shape[:-1] + (n,), dtype=a.dtype, sycl_queue=a.sycl_queue, usm_type=a.usm_type)
    padded[..., :length] = a
    return padded


def _c2c_last(a: ndarray, n: int, inverse: bool, norm: Any) -> ndarray:
    """The complex transform of `a`'s last axis cut or padded to `n` points (`a` complex)."""
    a = _fit(a, n)
    outer = a.shape[:-1]
    batch = math.prod(outer)
    if batch == 0:
        return empty(outer + (n,), dtype=a.dtype, sycl_queue=a.sycl_queue, usm_type=a.usm_type)
    rows = a.reshape(batch, n)
    if not rows.flags.c_contiguous:
        rows = rows.copy()
    y = _rows(rows, 1 if inverse else -1)
    scale = _scale(norm, n, inverse)
    if scale != 1.0:
        y = _np.multiply(y, scale)
    return y.reshape(outer + (n,))


def _into(result: ndarray, out: Any) -> ndarray:
    """`result`, or `out` with `result` written into it when given (NumPy's ``out=``)."""
    if out is None:
        return result
    if not isinstance(out, ndarray) or out.shape != result.shape:
        raise ValueError(
            f"output array has wrong shape: the transform has shape {result.shape}, out "
            f"{getattr(out, 'shape', type(out).__name__)}"
        )
    copy_into(out, result)
    return out


def _finish(result: ndarray, axis: int, out: Any) -> ndarray:
    """`result` (the transformed axis last) with that axis moved back to `axis` (into `out`)."""
    return _into(_np.moveaxis(result, -1, axis), out)


def _complex_transform(a: Any, n: Any, axis: Any, norm: Any, out: Any, inverse: bool, what: str) -> ndarray:
    a = _source(a, what)
    _check_norm(norm)
    axis = normalize_axis(operator.index(axis), a.ndim)
    n = _points(n, a.shape[axis])
    moved = _np.moveaxis(a, axis, -1)
    cdt = _complex_dtype(a.dtype)
    if moved.dtype != cdt:
        moved = _np.astype(moved, cdt)
    return _finish(_c2c_last(moved, n, inverse, norm), axis, out)


def fft(a: Any, n: Any = None, axis: Any = -1, norm: Any = None, out: Any = None) -> ndarray:
    """np.fft.fft: the one-dimensional DFT along `axis` (cut or padded with zeros to `n`)."""
    return _complex_transform(a, n, axis, norm, out, False, "fft")


def ifft(a: Any, n: Any = None, axis: Any = -1, norm: Any = None, out: Any = None) -> ndarray:
    """np.fft.ifft: the one-dimensional inverse DFT along `axis`."""
    return _complex_transform(a, n, axis, norm, out, True, "ifft")


def rfft(a: Any, n: Any = None, axis: Any = -1, norm: Any = None, out: Any = None) -> ndarray:
    """np.fft.rfft: the non-negative frequencies (``n // 2 + 1``) of the DFT of real input."""
    a = _source(a, "rfft")
    if a.dtype.kind == "c":
        raise TypeError(f"np.fft.rfft takes real input, not {a.dtype} (use np.fft.fft for complex input)")
    _check_norm(norm)
    axis = normalize_axis(operator.index(axis), a.ndim)
    n = _points(n, a.shape[axis])
    cdt = _complex_dtype(a.dtype)
    moved = _np.moveaxis(a, axis, -1)
    if n % 2 == 0:
        real = np.dtype(cdt.char.lower())
        return _finish(
            _rfft_even(moved if moved.dtype == real else _np.astype(moved, real), n, norm), axis, out
        )
    half = _c2c_last(_np.astype(moved, cdt), n, False, norm)[..., : n // 2 + 1].copy()
    return _finish(half, axis, out)


def _rfft_even(a: ndarray, n: int, norm: Any) -> ndarray:
    """The half spectrum of the real `a`'s last axis cut or padded to the even `n`, by one complex
    transform of half the length: the rows read as ``z[k] = x[2k] + i x[2k + 1]`` (a view), ``Z``
    their transform, then ``X[k] = A[k] Z[k] + B[k] conj(Z[n/2 - k])`` with ``A = (1 - i w) / 2``,
    ``B = (1 + i w) / 2``, ``w[k] = exp(-2 pi i k / n)`` (``Z[n/2] = Z[0]``)."""
    a = _fit(a, n)
    outer = a.shape[:-1]
    batch, half = math.prod(outer), n // 2
    cdt = np.dtype(np.complex64 if a.dtype == np.float32 else np.complex128)
    if batch == 0:
        return empty(outer + (half + 1,), dtype=cdt, sycl_queue=a.sycl_queue, usm_type=a.usm_type)
    rows = a.reshape(batch, n)
    if not rows.flags.c_contiguous:
        rows = rows.copy()
    spectrum = _rows(rows.view(cdt), -1)
    extended = _np.concatenate([spectrum, spectrum[:, :1]], axis=-1)  # Z[0 .. n/2]
    mirrored = _np.conjugate(extended[:, ::-1])  # conj(Z[n/2 - k])

    def weights(sign: int) -> np.ndarray:
        return (1 + sign * 1j * _roots(np.arange(half + 1, dtype=np.int64), n, -1)) / 2

    a_k = _table(("rfft a", n), extended, lambda: weights(-1))
    b_k = _table(("rfft b", n), extended, lambda: weights(1))
    result = _np.add(_np.multiply(extended, a_k), _np.multiply(mirrored, b_k))
    scale = _scale(norm, n, False)
    if scale != 1.0:
        result = _np.multiply(result, scale)
    shaped: ndarray = result.reshape(outer + (half + 1,))
    return shaped


def irfft(a: Any, n: Any = None, axis: Any = -1, norm: Any = None, out: Any = None) -> ndarray:
    """np.fft.irfft: the real signal of `n` points (default ``2 (m - 1)``) whose non-negative
    frequencies are `a`'s (cut or padded to ``n // 2 + 1``), the Hermitian spectrum completed."""
    a = _source(a, "irfft")
    _check_norm(norm)
    axis = normalize_axis(operator.index(axis), a.ndim)
    n = _points(n, 2 * (a.shape[axis] - 1))
    real = _real_dtype(a.dtype)
    moved = _np.moveaxis(a, axis, -1)
    cdt = _complex_dtype(a.dtype)
    if moved.dtype != cdt:
        moved = _np.astype(moved, cdt)
    half = _fit(moved, n // 2 + 1)
    # X[k] = conj(X[n - k]) for k > n // 2
    tail = _np.conjugate(half[..., 1 : n - n // 2][..., ::-1])
    spectrum = _np.concatenate([half, tail], axis=-1)
    signal = _c2c_last(spectrum, n, True, norm).real
    if signal.dtype != real:
        signal = _np.astype(signal, real)
    return _finish(signal, axis, out)


def hfft(a: Any, n: Any = None, axis: Any = -1, norm: Any = None, out: Any = None) -> ndarray:
    """np.fft.hfft: the real spectrum of a signal with Hermitian symmetry given by its first half."""
    a = _source(a, "hfft")
    conj = _np.conjugate(a) if a.dtype.kind == "c" else a
    return irfft(conj, n, axis, _swap_direction(norm), out)


def ihfft(a: Any, n: Any = None, axis: Any = -1, norm: Any = None, out: Any = None) -> ndarray:
    """np.fft.ihfft: the inverse of :func:`hfft` (real input, half the Hermitian spectrum)."""
    return _into(_np.conjugate(rfft(a, n, axis, _swap_direction(norm))), out)


# -- n dimensions ----------------------------------------------------------------------------------
def _cook(a: ndarray, s: Any, axes: Any, inverse_real: bool = False) -> tuple[list[int], list[int]]:
    """NumPy's lengths and axes of the n-dimensional transforms: `s` defaults to the axes' lengths
    (for the inverse real transform the last one ``2 (m - 1)``), -1 in `s` means the whole axis,
    `axes` defaults to the last ``len(s)``."""
    shapeless = s is None
    if axes is not None:
        axes = [operator.index(ax) for ax in axes]
    if s is None:
        s = list(a.shape) if axes is None else [a.shape[normalize_axis(ax, a.ndim)] for ax in axes]
    else:
        s = list(s)
        if axes is None:
            warnings.warn(
                "`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy 2.0). In a future "
                "version of NumPy, this will raise an error and `s[i]` will correspond to the size along "
                "the transformed axis specified by `axes[i]`. To retain current behaviour, pass a sequence "
                "[0, ..., k-1] to `axes` for an array of dimension k.",
                DeprecationWarning,
                stacklevel=4,
            )
    if axes is None:
        axes = list(range(-len(s), 0))
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    axes = [normalize_axis(ax, a.ndim) for ax in axes]
    if inverse_real and shapeless:
        s[-1] = (a.shape[axes[-1]] - 1) * 2
    s = [a.shape[ax] if k is None or k == -1 else operator.index(k) for k, ax in zip(s, axes)]
    return s, axes


def _complex_nd(a: Any, s: Any, axes: Any, norm: Any, out: Any, inverse: bool, what: str) -> ndarray:
    a = _source(a, what)
    s, axes = _cook(a, s, axes)
    result = a  # no axis: the input as it is, as NumPy returns it
    for k, ax in reversed(list(zip(s, axes))):
        result = _complex_transform(result, k, ax, norm, None, inverse, what)
    return _into(result, out)


def fftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None, out: Any = None) -> ndarray:
    """np.fft.fftn: the DFT over `axes` (default all, or the last ``len(s)``)."""
    return _complex_nd(a, s, axes, norm, out, False, "fftn")


def ifftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None, out: Any = None) -> ndarray:
    """np.fft.ifftn: the inverse DFT over `axes`."""
    return _complex_nd(a, s, axes, norm, out, True, "ifftn")


def fft2(a: Any, s: Any = None, axes: Sequence[int] = (-2, -1), norm: Any = None, out: Any = None) -> ndarray:
    """np.fft.fft2: :func:`fftn` over the last two axes."""
    return _complex_nd(a, s, axes, norm, out, False, "fft2")


def ifft2(
    a: Any, s: Any = None, axes: Sequence[int] = (-2, -1), norm: Any = None, out: Any = None
) -> ndarray:
    """np.fft.ifft2: :func:`ifftn` over the last two axes."""
    return _complex_nd(a, s, axes, norm, out, True, "ifft2")


def rfftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None, out: Any = None) -> ndarray:
    """np.fft.rfftn: :func:`rfft` over the last of `axes`, then :func:`fft` over the others."""
    a = _source(a, "rfftn")
    s, axes = _cook(a, s, axes)
    if not axes:
        raise IndexError("np.fft.rfftn needs at least one axis to transform")
    result = rfft(a, s[-1], axes[-1], norm)
    for k, ax in reversed(list(zip(s[:-1], axes[:-1]))):
        result = fft(result, k, ax, norm)
    return _into(result, out)


def irfftn(a: Any, s: Any = None, axes: Any = None, norm: Any = None, out: Any = None) -> ndarray:
    """np.fft.irfftn: :func:`ifft` over all of `axes` but the last, then :func:`irfft` over it."""
    a = _source(a, "irfftn")
    s, axes = _cook(a, s, axes, inverse_real=True)
    if not axes:
        raise IndexError("np.fft.irfftn needs at least one axis to transform")
    result = a
    for k, ax in zip(s[:-1], axes[:-1]):
        result = ifft(result, k, ax, norm)
    result = irfft(result, s[-1], axes[-1], norm)
    return _into(result, out)


def rfft2(
    a: Any, s: Any = None, axes: Sequence[int] = (-2, -1), norm: Any = None, out: Any = None
) -> ndarray:
    """np.fft.rfft2: :func:`rfftn` over the last two axes."""
    return rfftn(a, s, axes, norm, out)


def irfft2(
    a: Any, s: Any = None, axes: Sequence[int] = (-2, -1), norm: Any = None, out: Any = None
) -> ndarray:
    """np.fft.irfft2: :func:`irfftn` over the last two axes."""
    return irfftn(a, s, axes, norm, out)


# -- shifts ----------------------------------------------------------------------------------------
def _shift(x: Any, axes: Any, sign: int, what: str) -> ndarray:
    x = _source(x, what)
    if axes is None and x.ndim == 0:
        raise ValueError(f"np.fft.{what} of a 0-d array: there is no axis to shift")
    if axes is None:
        axes = tuple(range(x.ndim))
        shift: Any = [sign * (n // 2) for n in x.shape]
    elif isinstance(axes, (int, np.integer)):
        shift = sign * (x.shape[normalize_axis(operator.index(axes), x.ndim)] // 2)
    else:
        axes = tuple(axes)
        shift = [sign * (x.shape[normalize_axis(operator.index(ax), x.ndim)] // 2) for ax in axes]
    if isinstance(axes, tuple) and not axes:
        return x.copy()
    return roll(x, shift, axes)


def fftshift(x: Any, axes: Any = None) -> ndarray:
    """np.fft.fftshift: the zero frequency moved to the middle of `axes` (default all)."""
    return _shift(x, axes, 1, "fftshift")


def ifftshift(x: Any, axes: Any = None) -> ndarray:
    """np.fft.ifftshift: the inverse of :func:`fftshift`."""
    return _shift(x, axes, -1, "ifftshift")


#: np.fft's functions on numba_ext arrays (for ``__array_function__``)
FFT_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    getattr(np.fft, f.__name__): f
    for f in (
        fft,
        ifft,
        rfft,
        irfft,
        hfft,
        ihfft,
        fftn,
        ifftn,
        fft2,
        ifft2,
        rfftn,
        irfftn,
        rfft2,
        irfft2,
        fftshift,
        ifftshift,
    )
}
