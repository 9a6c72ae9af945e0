"""``np.searchsorted``, ``np.bincount`` and ``np.histogram`` of numba_ext arrays in jitted code: device
loops on the arrays' queue (``numba_ext.jit`` helpers, closures over compile-time constants, one per
kind of call), through the overloads of the dispatch functions of ``numpy_calls``.

* searchsorted: one work-item per value, a binary search in the sorted array (NaN sorts last, as in
  NumPy).
* bincount: the values are cut into blocks; one work-item per block counts its block into its own
  row of partial counts, then one work-item per bin adds the rows up in block order (no atomics, so
  weighted sums are reproducible). The partial rows are bounded to about ``PARTIAL_LIMIT`` elements:
  with many bins there are fewer blocks.
* histogram: one work-item per value finds its bin (NumPy's arithmetic for equal bins, a binary
  search for given edges; the last bin includes its right edge), then the counting of bincount.

Reading the extremes (bincount's length, histogram's default range) and checking that edges
increase are device reductions whose scalar results come back to the host."""

from __future__ import annotations

import functools

import numpy as np
from numba import prange
from numba.core import types
from numba.extending import overload
from numba.np import numpy_support

from .. import arrays
from ..errors import ExecutionPlacementError, UnsupportedError
from .jit_function import JitFunction, jit
from .numpy_calls import (
    host_bincount,
    host_histogram,
    host_searchsorted,
    nx_bincount,
    nx_histogram,
    nx_searchsorted,
)
from .reduction_parts import inline
from .types import USMArrayType

BLOCKS = 4096  # the most blocks bincount counts in parallel
PARTIAL_LIMIT = 1 << 22  # elements of bincount's partial rows (blocks x bins), unless one row is larger


# -- searching -------------------------------------------------------------------------------------
@inline
def _before(p, x):
    """p sorts before x (NaN sorts after every number, as in NumPy)."""
    return (p < x) | ((x != x) & (p == p))


@inline
def _left(p, x):
    return _before(p, x)


@inline
def _right(p, x):
    return not _before(x, p)


@functools.cache
def _position(side: str):
    """pos(a, x): np.searchsorted(a, x, side) for one value, a binary search in `a` (sorted)."""
    goes_right = _right if side == "right" else _left

    @inline
    def pos(a, x):
        lo = 0
        hi = a.shape[0]
        while lo < hi:
            mid = (lo + hi) // 2
            if goes_right(a[mid], x):
                lo = mid + 1
            else:
                hi = mid
        return lo

    return pos


@functools.cache
def search_function(side: str, usm_type: str) -> JitFunction:
    """np.searchsorted(a, v, side) of a 1-D `a` and an array `v`: int64 positions, v's shape."""
    pos = _position(side)

    def search(a, v):
        m = v.size
        flat = np.ascontiguousarray(v).reshape(m)
        out = arrays.empty(m, np.int64, usm_type=usm_type)
        for i in prange(m):
            out[i] = pos(a, flat[i])
        return out.reshape(v.shape)

    return jit(search)


@functools.cache
def search_scalar_function(side: str) -> JitFunction:
    """np.searchsorted(a, x, side) of a 1-D `a` and a scalar `x`: the position, found on the device
    (a one-work-item reduction, whose result comes back to the host)."""
    pos = _position(side)

    def search(a, x):
        r = 0
        for _ in prange(1):
            r += pos(a, x)
        return r

    return jit(search)


# -- counting --------------------------------------------------------------------------------------
@inline
def _one(w, i):
    return 1


@inline
def _weight(w, i):
    return w[i]


@functools.cache
def count_function(weighted: bool, out_dtype: str, usm_type: str) -> JitFunction:
    """count(idx, w, nbins): for each bin k < nbins, the number (or the sum of the weights w[i]) of
    the positions i with idx[i] == k; other values of idx are not counted. Blocks of idx are
    counted in parallel into partial rows, which are then added up per bin in block order."""
    out_t, take = getattr(np, out_dtype), _weight if weighted else _one
    blocks, limit = BLOCKS, PARTIAL_LIMIT

    def count(idx, w, nbins):
        n = idx.shape[0]
        nb = max(1, min(blocks, limit // max(nbins, 1), n))
        chunk = max(1, (n + nb - 1) // nb)
        nb = max(1, (n + chunk - 1) // chunk)
        part = arrays.empty((nb, nbins), out_t, usm_type=usm_type)
        for b in prange(nb):
            for k in range(nbins):
                part[b, k] = 0
            for i in range(b * chunk, min(n, b * chunk + chunk)):
                k = np.int64(idx[i])
                if (k >= 0) & (k < nbins):
                    part[b, k] += take(w, i)
        out = arrays.empty(nbins, out_t, usm_type=usm_type)
        for k in prange(nbins):
            s = out_t(0)
            for b in range(nb):
                s += part[b, k]
            out[k] = s
        return out

    return jit(count)


@functools.cache
def bincount_function(weighted: bool, usm_type: str) -> JitFunction:
    """np.bincount(x, weights, minlength) of a 1-D integer array: NumPy's checks, the length from the
    device's maximum, then `count_function`."""
    count = count_function(weighted, "float64" if weighted else "int64", usm_type)._dispatcher

    def bincount(x, w, minlength):
        n = x.shape[0]
        if minlength < 0:
            raise ValueError("'minlength' must not be negative")
        if weighted and w.shape[0] != n:
            raise ValueError("The weights and list don't have the same length.")
        nbins = minlength
        if n > 0:
            if np.min(x) < 0:
                raise ValueError("'list' argument must have no negative elements")
            nbins = max(nbins, np.int64(np.max(x)) + 1)
        return count(x, w, nbins)

    return jit(bincount)


# -- histograms ------------------------------------------------------------------------------------
@functools.cache
def uniform_histogram_function(edge_dtype: str, given_range: bool, usm_type: str) -> JitFunction:
    """np.histogram(a, bins, range) with `bins` an int: `bins` equal bins over `range` (given, or
    the extremes of `a`), NumPy's index arithmetic and its corrections at the edges."""
    edge_t = getattr(np, edge_dtype)
    count = count_function(False, "int64", usm_type)._dispatcher

    def histogram(a, bins, lo, hi):
        if bins < 1:
            raise ValueError("`bins` must be positive, when an integer")
        v = np.ascontiguousarray(a).reshape(a.size)
        n = v.shape[0]
        first, last = edge_t(lo), edge_t(hi)
        if not given_range and n > 0:
            first, last = edge_t(np.min(v)), edge_t(np.max(v))
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError("autodetected range is not finite")
        if first == last:
            first, last = first - edge_t(0.5), last + edge_t(0.5)
        edges = arrays.empty(bins + 1, edge_t, usm_type=usm_type)
        nbins = edge_t(bins)
        step = edge_t((last - first) / nbins)
        for i in prange(bins + 1):
            edges[i] = last if i == bins else edge_t(i) * step + first
        idx = arrays.empty(n, np.int64, usm_type=usm_type)
        width = last - first
        for i in prange(n):
            x = edge_t(v[i])
            k = -1
            if (x >= first) & (x <= last):
                k = np.int64((x - first) / width * nbins)
                k = min(k, bins - 1)
                if x < edges[k]:
                    k -= 1
                elif (k != bins - 1) & (x >= edges[k + 1]):
                    k += 1
            idx[i] = k
        return count(idx, idx, bins), edges

    return jit(histogram)


@functools.cache
def edges_histogram_function(usm_type: str) -> JitFunction:
    """np.histogram(a, bins) with `bins` a 1-D array of increasing edges: a binary search per value;
    the last bin includes its right edge."""
    count = count_function(False, "int64", usm_type)._dispatcher
    pos = _position("right")

    def histogram(a, edges):
        nb = edges.shape[0] - 1
        if nb < 1:
            raise ValueError("`bins` must have at least two edges")
        if np.any(edges[1:] < edges[:-1]):
            raise ValueError("`bins` must increase monotonically, when an array")
        v = np.ascontiguousarray(a).reshape(a.size)
        n = v.shape[0]
        idx = arrays.empty(n, np.int64, usm_type=usm_type)
        for i in prange(n):
            x = v[i]
            k = pos(edges, x) - 1
            if x == edges[nb]:
                k = nb - 1
            idx[i] = k
        return count(idx, idx, nb), edges

    return jit(histogram)


# -- the overloads ---------------------------------------------------------------------------------
def _check_same_device(what, *ts):
    arrays_ = [t for t in ts if isinstance(t, types.Array)]
    if any(not isinstance(t, USMArrayType) for t in arrays_):
        raise ExecutionPlacementError(
            f"np.{what} mixes numba_ext arrays with NumPy arrays; the queue of the NumPy data cannot be "
            "inferred (compute follows data). Convert them with numba_ext.asarray(x, sycl_queue=q)"
        )
    if len({t.device for t in arrays_}) > 1:
        raise ExecutionPlacementError(f"np.{what} combines arrays on different devices")


def _usm(*ts):
    return any(isinstance(t, USMArrayType) for t in ts)


def _literal(t):
    return t.literal_value if isinstance(t, types.Literal) else None


@overload(nx_searchsorted, prefer_literal=True)
def _ov_searchsorted(a, v, side):
    if not _usm(a, v):
        return host_searchsorted
    _check_same_device("searchsorted", a, v)
    s = _literal(side)
    if s not in ("left", "right"):
        raise UnsupportedError(
            f"np.searchsorted on numba_ext arrays needs side='left' or 'right', got {side}"
        )
    if not (isinstance(a, USMArrayType) and a.ndim == 1):
        raise UnsupportedError(f"np.searchsorted needs a 1-D numba_ext array to search in, got {a}")
    if isinstance(v, USMArrayType):
        h = search_function(s, v.usm_type)._dispatcher
        return lambda a, v, side: h(a, v)
    if isinstance(v, (types.Number, types.Boolean)):
        hs = search_scalar_function(s)._dispatcher
        return lambda a, v, side: hs(a, v)
    raise UnsupportedError(f"np.searchsorted on numba_ext arrays takes an array or a scalar value, got {v}")


def _is_none(t):
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


@overload(nx_bincount)
def _ov_bincount(x, weights, minlength):
    if not _usm(x, weights):
        return host_bincount
    _check_same_device("bincount", x, weights)
    if not (isinstance(x, USMArrayType) and x.ndim == 1):
        raise UnsupportedError(f"np.bincount needs a 1-D numba_ext array of integers, got {x}")
    if not isinstance(x.dtype, (types.Integer, types.Boolean)) or x.dtype == types.uint64:
        raise UnsupportedError(
            f"np.bincount cannot cast {x.dtype} safely to int64 (NumPy raises TypeError): pass integers"
        )
    if not isinstance(minlength, types.Integer):
        raise UnsupportedError(f"np.bincount's minlength must be an integer, got {minlength}")
    weighted = not _is_none(weights)
    if weighted and not (isinstance(weights, USMArrayType) and weights.ndim == 1):
        raise UnsupportedError(f"np.bincount's weights must be a 1-D numba_ext array, got {weights}")
    h = bincount_function(weighted, x.usm_type)._dispatcher
    if isinstance(x.dtype, types.Boolean):
        if weighted:
            return lambda x, weights, minlength: h(x.astype(np.int64), weights, minlength)
        return lambda x, weights, minlength: h(x.astype(np.int64), x, minlength)
    if weighted:
        return lambda x, weights, minlength: h(x, weights, minlength)
    return lambda x, weights, minlength: h(x, x, minlength)


@overload(nx_histogram)
def _ov_histogram(a, bins, range):
    if not _usm(a, bins):
        return host_histogram
    _check_same_device("histogram", a, bins)
    if not isinstance(a, USMArrayType) or isinstance(a.dtype, types.Complex):
        raise UnsupportedError(f"np.histogram needs a numba_ext array of real numbers, got {a}")
    if isinstance(bins, USMArrayType) and bins.ndim == 1:
        if not _is_none(range):
            raise UnsupportedError(
                "np.histogram with an array of edges takes no range= (as NumPy ignores it)"
            )
        h = edges_histogram_function(a.usm_type)._dispatcher
        return lambda a, bins, range: h(a, bins)
    if not isinstance(bins, types.Integer):
        raise UnsupportedError(
            f"np.histogram on numba_ext arrays takes bins as an integer or a 1-D numba_ext array, got {bins}"
        )
    edge = np.result_type(numpy_support.as_dtype(a.dtype), 0.0).name
    if _is_none(range):
        hu = uniform_histogram_function(edge, False, a.usm_type)._dispatcher
        return lambda a, bins, range: hu(a, bins, 0.0, 1.0)
    if not (isinstance(range, types.BaseTuple) and len(range) == 2):
        raise UnsupportedError(f"np.histogram's range must be a (min, max) pair, got {range}")
    hr = uniform_histogram_function(edge, True, a.usm_type)._dispatcher
    return lambda a, bins, range: hr(a, bins, range[0], range[1])
