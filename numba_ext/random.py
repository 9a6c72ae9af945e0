"""Random numbers made on the device: ``numba_ext.random``.

A counter-based generator, Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
3", SC 2011): the `i`-th block of four 32-bit words is a pure function of the key (from the seed)
and the counter `i`, so every work-item computes its own block with no state shared between them,
and the same seed gives the same words on every device. A generator keeps only its key and how many
blocks it has used; each call takes the next blocks.

From the words:

* ``random``/``uniform``: float64 values from 53 random bits (two words), ``k / 2**53`` for ``k`` in
  ``[0, 2**53)``; float32 values from 24 bits. The same seed gives bit-identical uniforms on every
  device.
* ``standard_normal``/``normal``: the Box-Muller transform of two uniforms (so they agree between
  devices to the accuracy of their ``log``, ``sqrt``, ``cos`` and ``sin``).
* ``integers``: ``low + floor(w * (high - low) / 2**64)`` for a 64-bit random word ``w`` (Lemire's
  multiply, without rejection: a value's probability is off by at most ``(high - low) / 2**64``).

The numbers are not NumPy's (NumPy's generators are different algorithms); statistically they are
as good, and they never leave the device. ``default_rng(seed)`` gives a :class:`Generator` on a
queue; the module-level functions (``rand``, ``randn``, ``random``, ``uniform``, ``normal``,
``standard_normal``, ``randint``, ``permutation``, ``shuffle``, ``choice``, ``seed``) use one
generator per default device, as dpnp's do. Permutations and samples without replacement are the
stable sort order of 64-bit random keys.
``RandomState`` is the same generator with NumPy's legacy method names, for Dask's ``da.random``
under the ``numba_ext`` array backend.
"""

from __future__ import annotations

import math
import operator
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from .arrays import empty, ndarray
from .compiler.intrinsics import get_global_id
from .devices import DeviceArg, Queue, default_queue, resolve_queue
from .errors import UnsupportedError
from .kernels import kernel
from .kernels.kernel import Kernel

_np: Any = np  # NumPy's functions, untyped: on numba_ext arrays they run on the device
_MASK = np.uint64(0xFFFFFFFF)
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)  # Philox4x32's multipliers
_W0, _W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)  # its key increments (Weyl sequence)
_S32 = np.uint64(32)
_TWO_PI = 6.283185307179586
_ULP53 = 1.0 / 9007199254740992.0  # 2**-53: 53 random bits as a float64 in [0, 1)


# -- the kernels: work-item i computes block (counter + i) and writes its share of `out` ----------
def _philox_source() -> str:
    """The ten Philox4x32 rounds on x0..x3 with key (a, b), as kernel source lines."""
    return """
    x0 = (np.uint64(c_lo) + np.uint64(i)) & _MASK
    x1 = (np.uint64(c_hi) + ((np.uint64(c_lo) + np.uint64(i)) >> _S32)) & _MASK
    x2 = np.uint64(0)
    x3 = np.uint64(0)
    a = np.uint64(k0)
    b = np.uint64(k1)
    for _ in range(10):
        p0 = _M0 * x0
        p1 = _M1 * x2
        y0 = ((p1 >> _S32) ^ x1 ^ a) & _MASK
        y1 = p1 & _MASK
        y2 = ((p0 >> _S32) ^ x3 ^ b) & _MASK
        y3 = p0 & _MASK
        x0 = y0
        x1 = y1
        x2 = y2
        x3 = y3
        a = (a + _W0) & _MASK
        b = (b + _W1) & _MASK
"""


_BODIES = {
    # four words per block
    "words": """
    j = 4 * i
    if j < n:
        out[j] = np.uint32(x0)
    if j + 1 < n:
        out[j + 1] = np.uint32(x1)
    if j + 2 < n:
        out[j + 2] = np.uint32(x2)
    if j + 3 < n:
        out[j + 3] = np.uint32(x3)
""",
    # two float64 uniforms per block: 53 bits from two words each, low + scale * u
    "uniform64": """
    u0 = ((x0 >> np.uint64(5)) * np.uint64(67108864) + (x1 >> np.uint64(6))) * _ULP53
    u1 = ((x2 >> np.uint64(5)) * np.uint64(67108864) + (x3 >> np.uint64(6))) * _ULP53
    j = 2 * i
    if j < n:
        out[j] = low + scale * u0
    if j + 1 < n:
        out[j + 1] = low + scale * u1
""",
    # four float32 uniforms per block: 24 bits each
    "uniform32": """
    f = np.float32(5.9604645e-08)
    lo = np.float32(low)
    sc = np.float32(scale)
    j = 4 * i
    if j < n:
        out[j] = lo + sc * (np.float32(x0 >> np.uint64(8)) * f)
    if j + 1 < n:
        out[j + 1] = lo + sc * (np.float32(x1 >> np.uint64(8)) * f)
    if j + 2 < n:
        out[j + 2] = lo + sc * (np.float32(x2 >> np.uint64(8)) * f)
    if j + 3 < n:
        out[j + 3] = lo + sc * (np.float32(x3 >> np.uint64(8)) * f)
""",
    # two normals per block (Box-Muller on two float64 uniforms; 1 - u keeps the log finite)
    "normal64": """
    u0 = ((x0 >> np.uint64(5)) * np.uint64(67108864) + (x1 >> np.uint64(6))) * _ULP53
    u1 = ((x2 >> np.uint64(5)) * np.uint64(67108864) + (x3 >> np.uint64(6))) * _ULP53
    r = math.sqrt(-2.0 * math.log(1.0 - u0))
    t = _TWO_PI * u1
    j = 2 * i
    if j < n:
        out[j] = low + scale * (r * math.cos(t))
    if j + 1 < n:
        out[j + 1] = low + scale * (r * math.sin(t))
""",
    # four float32 normals per block (two Box-Muller pairs of 24-bit uniforms)
    "normal32": """
    f = np.float32(5.9604645e-08)
    r0 = math.sqrt(np.float32(-2.0) * math.log(np.float32(1.0) - np.float32(x0 >> np.uint64(8)) * f))
    t0 = np.float32(_TWO_PI) * (np.float32(x1 >> np.uint64(8)) * f)
    r1 = math.sqrt(np.float32(-2.0) * math.log(np.float32(1.0) - np.float32(x2 >> np.uint64(8)) * f))
    t1 = np.float32(_TWO_PI) * (np.float32(x3 >> np.uint64(8)) * f)
    j = 4 * i
    if j < n:
        out[j] = np.float32(low) + np.float32(scale) * (r0 * math.cos(t0))
    if j + 1 < n:
        out[j + 1] = np.float32(low) + np.float32(scale) * (r0 * math.sin(t0))
    if j + 2 < n:
        out[j + 2] = np.float32(low) + np.float32(scale) * (r1 * math.cos(t1))
    if j + 3 < n:
        out[j + 3] = np.float32(low) + np.float32(scale) * (r1 * math.sin(t1))
""",
    # two integers in [low, low + span) per block: the high 64 bits of w * span, w 64 random bits
    "integers": """
    j = 2 * i
    s_lo = span & _MASK
    s_hi = span >> _S32
    for h in range(2):
        w_hi = x0 if h == 0 else x2
        w_lo = x1 if h == 0 else x3
        ll = w_lo * s_lo
        hl = w_hi * s_lo
        lh = w_lo * s_hi
        hh = w_hi * s_hi
        cross = (ll >> _S32) + (hl & _MASK) + lh
        hi = (hl >> _S32) + (cross >> _S32) + hh
        if j + h < n:
            out[j + h] = low + np.int64(hi)
""",
}

#: values each block gives, per body
_PER_BLOCK = {"words": 4, "uniform64": 2, "uniform32": 4, "normal64": 2, "normal32": 4, "integers": 2}

_kernels_lock = threading.Lock()
_kernels: dict[str, Kernel] = {}


_PARAMS = {"words": "", "integers": ", low, span"}


def _kernel(body: str) -> Kernel:
    """The kernel of one body, written out from the Philox rounds and the body (made once per
    process; the kernel API compiles it once per device)."""
    with _kernels_lock:
        k = _kernels.get(body)
        if k is None:
            params = "out, n, c_lo, c_hi, k0, k1" + _PARAMS.get(body, ", low, scale")
            source = (
                f"def philox_{body}({params}):\n    i = get_global_id(0)" + _philox_source() + _BODIES[body]
            )
            namespace: dict[str, Any] = {
                "np": np,
                "math": math,
                "get_global_id": get_global_id,
                "_MASK": _MASK,
                "_M0": _M0,
                "_M1": _M1,
                "_W0": _W0,
                "_W1": _W1,
                "_S32": _S32,
                "_TWO_PI": _TWO_PI,
                "_ULP53": _ULP53,
            }
            exec(compile(source, f"<numba_ext.random: philox_{body}>", "exec"), namespace)
            k = _kernels[body] = kernel(namespace[f"philox_{body}"])
        return k


# -- generators ------------------------------------------------------------------------------------
def _key(seed: Any) -> tuple[int, int]:
    """The 64-bit Philox key of a seed: None (fresh entropy), an int >= 0, a sequence of them or an
    array of unsigned ints (as Dask passes), through NumPy's SeedSequence."""
    if isinstance(seed, ndarray):
        raise TypeError("a seed must be an int, a sequence of ints or None, not a numba_ext array")
    if isinstance(seed, (bool, np.bool_)) or isinstance(seed, float):
        raise TypeError(f"a seed must be an int, a sequence of ints or None, got {seed!r}")
    words = np.random.SeedSequence(seed).generate_state(2, np.uint32)
    return int(words[0]), int(words[1])


def _size(size: Any) -> tuple[int, ...] | None:
    if size is None:
        return None
    if isinstance(size, (int, np.integer)) and not isinstance(size, (bool, np.bool_)):
        size = (size,)
    try:
        shape = tuple(operator.index(d) for d in size)
    except TypeError:
        raise TypeError(f"size must be None, an int or a tuple of ints, got {size!r}") from None
    if any(d < 0 for d in shape):
        raise ValueError(f"negative dimensions are not allowed: size={size!r}")
    return shape


class Generator:
    """Random numbers on one queue (a Philox4x32-10 stream): ``default_rng(seed, device=...)``.
    Methods take NumPy's ``Generator`` arguments; results are numba_ext arrays on the generator's
    queue (a 0-d array when ``size`` is None)."""

    def __init__(
        self,
        seed: Any = None,
        *,
        device: DeviceArg = None,
        sycl_queue: Queue | None = None,
        usm_type: str = "device",
    ) -> None:
        self._key = _key(seed)
        self._queue = resolve_queue(device, sycl_queue) or default_queue()
        self._usm_type = usm_type
        self._blocks = 0  # blocks used so far: the next call starts at this counter
        self._lock = threading.Lock()

    @property
    def sycl_queue(self) -> Queue:
        return self._queue

    def __repr__(self) -> str:
        return f"numba_ext.random.Generator(Philox4x32-10) on {self._queue.device.filter_string}"

    def _fill(self, body: str, shape: tuple[int, ...] | None, dtype: Any, *extra: Any) -> ndarray:
        out = empty(
            () if shape is None else shape, dtype=dtype, sycl_queue=self._queue, usm_type=self._usm_type
        )
        n = out.size
        blocks = -(-n // _PER_BLOCK[body])
        with self._lock:
            start = self._blocks
            self._blocks += blocks
        if start + blocks >= 1 << 64:
            raise OverflowError("this generator's 2**64 blocks are used up; make another with a new seed")
        if blocks:
            flat = out.reshape(-1)
            _kernel(body)[blocks](flat, n, start & 0xFFFFFFFF, start >> 32, *self._key, *extra)
        return out

    def _float_dtype(self, dtype: Any) -> np.dtype:
        dt = np.dtype(dtype)
        if dt not in (np.float32, np.float64):
            raise TypeError(f"Unsupported dtype {dt.name!r} for random numbers; use float32 or float64")
        if dt == np.float64 and not self._queue.device.has_fp64:
            raise UnsupportedError(
                f"{self._queue.device.filter_string} has no float64; ask for dtype=numba_ext.float32"
            )
        return dt

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> ndarray:
        """Uniform values in [0, 1)."""
        return self.uniform(0.0, 1.0, size, dtype=dtype, out=out)

    def uniform(
        self,
        low: float = 0.0,
        high: float = 1.0,
        size: Any = None,
        *,
        dtype: Any = np.float64,
        out: Any = None,
    ) -> ndarray:
        """Uniform values in [low, high)."""
        if out is not None:
            raise UnsupportedError("out= is not supported by numba_ext.random; use the returned array")
        dt = self._float_dtype(dtype)
        low, high = _scalar("low", low), _scalar("high", high)
        if not math.isfinite(high - low):
            raise OverflowError(f"high - low is not finite: low={low!r}, high={high!r}")
        return self._fill("uniform64" if dt == np.float64 else "uniform32", _size(size), dt, low, high - low)

    def standard_normal(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> ndarray:
        """Normal values with mean 0 and standard deviation 1."""
        return self.normal(0.0, 1.0, size, dtype=dtype, out=out)

    def normal(
        self,
        loc: float = 0.0,
        scale: float = 1.0,
        size: Any = None,
        *,
        dtype: Any = np.float64,
        out: Any = None,
    ) -> ndarray:
        """Normal values with mean `loc` and standard deviation `scale` (>= 0)."""
        if out is not None:
            raise UnsupportedError("out= is not supported by numba_ext.random; use the returned array")
        dt = self._float_dtype(dtype)
        loc, scale = _scalar("loc", loc), _scalar("scale", scale)
        if scale < 0:
            raise ValueError("scale < 0")
        return self._fill("normal64" if dt == np.float64 else "normal32", _size(size), dt, loc, scale)

    def integers(
        self,
        low: int,
        high: int | None = None,
        size: Any = None,
        dtype: Any = np.int64,
        endpoint: bool = False,
    ) -> ndarray:
        """Integers in [low, high) (or [low, high] with `endpoint`; [0, low) when `high` is None)."""
        dt = np.dtype(dtype)
        if dt.kind not in "iu":
            raise TypeError(f"Unsupported dtype {dt.name!r} for integers")
        if high is None:
            low, high = 0, low
        low, high = operator.index(low), operator.index(high)
        if endpoint:
            high += 1
        if high <= low:
            raise ValueError(f"low >= high: low={low}, high={high - int(endpoint)}")
        info = np.iinfo(dt)
        if low < info.min or high - 1 > info.max:
            raise ValueError(f"the range [{low}, {high}) does not fit {dt.name}")
        if low < -(1 << 63) or high - 1 >= 1 << 63:
            raise ValueError(f"numba_ext.random draws integers within int64's range, not [{low}, {high})")
        values = self._fill("integers", _size(size), np.int64, np.int64(low), np.uint64(high - low))
        return values if dt == np.int64 else values.astype(dt)

    # -- permutations, shuffles and sampling: sorts of random keys on the device ----------------------
    def permutation(self, x: int | ndarray, axis: int = 0) -> ndarray:
        """A random permutation of ``range(x)`` (int64), or a copy of array `x` with its elements
        along `axis` permuted: the stable sort order of 64-bit random keys."""
        if isinstance(x, ndarray):
            order = self._order(x.shape[axis] if x.ndim else _too_few_dims("permutation"))
            taken: ndarray = _np.take(x, order, axis=axis)
            return taken
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
            raise TypeError(f"permutation() takes an int or a numba_ext array, got {type(x).__name__}")
        return self._order(int(x))

    def shuffle(self, x: ndarray, axis: int = 0) -> None:
        """Permute `x`'s elements along `axis` in place."""
        if not isinstance(x, ndarray):
            raise TypeError(f"shuffle() takes a numba_ext array, got {type(x).__name__}")
        if x.ndim == 0:
            _too_few_dims("shuffle")
        x[...] = self.permutation(x, axis=axis)

    def choice(
        self,
        a: int | ndarray,
        size: Any = None,
        replace: bool = True,
        p: Any = None,
        axis: int = 0,
        shuffle: bool = True,
    ) -> ndarray:
        """`size` samples of ``range(a)`` or of array `a`'s elements along `axis`, with or
        without replacement (uniform weights: ``p`` is not supported)."""
        if p is not None:
            raise UnsupportedError(
                "choice(p=...) is not on the device; numba_ext.random draws uniform samples"
            )
        if isinstance(a, ndarray):
            if a.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not a 0-d array")
            n = a.shape[axis]
        else:
            if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
                raise TypeError(f"choice() takes an int or a numba_ext array, got {type(a).__name__}")
            n = int(a)
            if n < 0:
                raise ValueError("a must be a positive integer unless no samples are taken")
        shape = _size(size)
        count = 1 if shape is None else math.prod(shape)
        if count and n == 0:
            raise ValueError("a cannot be empty unless no samples are taken")
        if replace:
            picks = self.integers(0, max(n, 1), shape if shape is not None else None)
        else:
            if count > n:
                raise ValueError("Cannot take a larger sample than population when replace is False")
            picks = self._order(n)[:count].reshape(() if shape is None else shape)
        if isinstance(a, ndarray):
            chosen: ndarray = _np.take(a, picks, axis=axis)
            return chosen
        return picks

    def _order(self, n: int) -> ndarray:
        keys = self.integers(-(1 << 63), (1 << 63) - 1, n)
        order: ndarray = _np.argsort(keys, kind="stable")
        return order


def _too_few_dims(what: str) -> int:
    raise ValueError(f"{what}() of a 0-d array: it has no axis to permute")


def _scalar(name: str, v: Any) -> float:
    if isinstance(v, (ndarray, np.ndarray)) and np.ndim(v) != 0 or isinstance(v, (list, tuple)):
        raise UnsupportedError(f"{name}= must be a number for numba_ext.random, not an array")
    try:
        return float(v)
    except (TypeError, ValueError):
        raise TypeError(f"{name}= must be a number, got {v!r}") from None


def default_rng(
    seed: Any = None, *, device: DeviceArg = None, sycl_queue: Queue | None = None, usm_type: str = "device"
) -> Generator:
    """A :class:`Generator` on `device`/`sycl_queue` (the default queue if neither is given)."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed, device=device, sycl_queue=sycl_queue, usm_type=usm_type)


class RandomState:
    """NumPy's legacy ``RandomState`` names on a :class:`Generator` of the default queue (Dask's
    ``da.random`` makes one per block from a seed array under the ``numba_ext`` array backend)."""

    def __init__(self, seed: Any = None) -> None:
        self._rng = Generator(seed)

    def seed(self, seed: Any = None) -> None:
        self._rng = Generator(seed, sycl_queue=self._rng.sycl_queue)

    def random_sample(self, size: Any = None) -> ndarray:
        return self._rng.random(size)

    random = random_sample

    def rand(self, *shape: int) -> ndarray:
        return self._rng.random(shape or None)

    def randn(self, *shape: int) -> ndarray:
        return self._rng.standard_normal(shape or None)

    def uniform(self, low: float = 0.0, high: float = 1.0, size: Any = None) -> ndarray:
        return self._rng.uniform(low, high, size)

    def standard_normal(self, size: Any = None) -> ndarray:
        return self._rng.standard_normal(size)

    def normal(self, loc: float = 0.0, scale: float = 1.0, size: Any = None) -> ndarray:
        return self._rng.normal(loc, scale, size)

    def randint(self, low: int, high: int | None = None, size: Any = None, dtype: Any = np.int64) -> ndarray:
        return self._rng.integers(low, high, size, dtype=dtype)

    def permutation(self, x: int | ndarray) -> ndarray:
        return self._rng.permutation(x)

    def shuffle(self, x: ndarray) -> None:
        self._rng.shuffle(x)

    def choice(self, a: int | ndarray, size: Any = None, replace: bool = True, p: Any = None) -> ndarray:
        return self._rng.choice(a, size, replace, p)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise UnsupportedError(
            f"RandomState.{name} is not on the device; numba_ext.random has random_sample, rand, randn, "
            "uniform, standard_normal, normal, randint, permutation, shuffle and choice"
        )


# -- the module-level functions: one generator per default device ---------------------------------
_global_lock = threading.Lock()
_global: dict[Any, Generator] = {}


def _rng() -> Generator:
    q = default_queue()
    with _global_lock:
        g = _global.get(q.device)
        if g is None:
            g = _global[q.device] = Generator(sycl_queue=q)
        return g


def seed(seed: Any = None) -> None:
    """Seed the default device's module-level generator."""
    q = default_queue()
    with _global_lock:
        _global[q.device] = Generator(seed, sycl_queue=q)


def random(size: Any = None) -> ndarray:
    """Uniform float64 values in [0, 1) on the default device."""
    return _rng().random(size)


random_sample = random


def rand(*shape: int) -> ndarray:
    """Uniform values in [0, 1) of shape `shape` on the default device."""
    return _rng().random(shape or None)


def randn(*shape: int) -> ndarray:
    """Standard normal values of shape `shape` on the default device."""
    return _rng().standard_normal(shape or None)


def uniform(low: float = 0.0, high: float = 1.0, size: Any = None) -> ndarray:
    return _rng().uniform(low, high, size)


def normal(loc: float = 0.0, scale: float = 1.0, size: Any = None) -> ndarray:
    return _rng().normal(loc, scale, size)


def standard_normal(size: Any = None) -> ndarray:
    return _rng().standard_normal(size)


def randint(low: int, high: int | None = None, size: Any = None, dtype: Any = np.int64) -> ndarray:
    """Integers in [low, high) ([0, low) when `high` is None) on the default device."""
    return _rng().integers(low, high, size, dtype=dtype)


def permutation(x: int | ndarray) -> ndarray:
    """A random permutation of ``range(x)``, or a permuted copy of array `x` (along axis 0)."""
    return _rng().permutation(x)


def shuffle(x: ndarray) -> None:
    """Permute array `x` along axis 0 in place."""
    _rng().shuffle(x)


def choice(a: int | ndarray, size: Any = None, replace: bool = True, p: Any = None) -> ndarray:
    """Samples of ``range(a)`` or of array `a`'s elements, with or without replacement."""
    return _rng().choice(a, size, replace, p)


def philox_words(key: Sequence[int], counter: int, n: int, *, device: DeviceArg = None) -> ndarray:
    """The raw stream: `n` 32-bit words of blocks `counter`, `counter + 1`, ... under `key` (two
    32-bit words), on `device` (for tests against published Philox4x32-10 values)."""
    q = resolve_queue(device) or default_queue()
    out = empty((n,), dtype=np.uint32, sycl_queue=q)
    blocks = -(-n // 4)
    if blocks:
        _kernel("words")[blocks](out, n, counter & 0xFFFFFFFF, counter >> 32, int(key[0]), int(key[1]))
    return out


__all__ = [
    "Generator",
    "RandomState",
    "choice",
    "default_rng",
    "normal",
    "permutation",
    "philox_words",
    "rand",
    "randint",
    "randn",
    "random",
    "random_sample",
    "seed",
    "shuffle",
    "standard_normal",
    "uniform",
]
