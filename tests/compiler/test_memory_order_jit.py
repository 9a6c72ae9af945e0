"""numba_ext.jit functions and numba_ext.kernel kernels on F-ordered, transposed, strided and
reversed arrays give NumPy's values: array expressions, prange loops, reductions (whole and along an
axis), outputs of either order, and sequential element access where the host can address memory."""

import numpy as np
import pytest
from numba import prange

import numba_ext as nx

from ..checks import tol

LAYOUTS = ["C", "F", "T", "strided", "F strided", "reversed"]


def layout_view(h, name):
    """(numba_ext view, the same NumPy view) of h (2-D) in layout `name`."""
    x_c, x_f = nx.asarray(h), nx.asarray(np.asfortranarray(h))
    return {
        "C": (x_c, h),
        "F": (x_f, h),
        "T": (nx.asarray(np.ascontiguousarray(h.T)).T, h),
        "strided": (x_c[::2, 1::2], h[::2, 1::2]),
        "F strided": (x_f[1:, ::3], h[1:, ::3]),
        "reversed": (x_c[::-1, ::-2], h[::-1, ::-2]),
    }[name]


def close(got, want, dtype, scale=None):
    """`got` within the tolerances of `dtype` of `want`; sums pass `scale`, the sum of the magnitudes
    they add, since a sum that cancels keeps the rounding errors of its large terms whatever the
    order of additions (NumPy's pairwise order differs from a device's)."""
    r, a = tol(dtype)
    if scale is None:
        scale = np.abs(want).max(initial=0)
    got, want = np.asarray(got), np.asarray(want)
    err = np.abs(got.astype(np.float64) - want) - r * 10 * np.abs(want)
    bound = a * np.maximum(1.0, scale)
    assert np.all(err <= bound), f"{got} != {want}: errors {err} beyond {bound}"


@nx.jit
def expression(x, y):
    return np.sin(x) * y + 2.0 * x - y


@nx.jit
def prange_fill(x, out):
    for i in prange(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = x[i, j] * (i + 1) - j


@nx.jit
def reductions(x):
    return x.sum(), np.max(x), x.argmin(), np.argmax(x), x.mean()


@nx.jit
def axis_sums(x):
    return x.sum(axis=0), np.max(x, axis=1)


@nx.kernel
def weigh(x, out):
    i = nx.get_global_id(0)
    j = nx.get_global_id(1)
    out[i, j] = x[i, j] * 3.0 + i - 2 * j


@pytest.mark.parametrize(
    "layout, dtype", [(name, ("float64", "float32")[k % 2]) for k, name in enumerate(LAYOUTS)]
)
def test_jit_and_kernels_on_every_layout(rng, layout, dtype):
    h = rng.standard_normal((9, 13)).astype(dtype)
    g = rng.standard_normal((9, 13)).astype(dtype)
    x, hx = layout_view(h, layout)
    y, hy = layout_view(g, layout)
    i, j = np.indices(hx.shape)

    close(nx.asnumpy(expression(x, y)), np.sin(hx) * hy + 2.0 * hx - hy, dtype)
    close(nx.asnumpy(expression(x, y.copy())), np.sin(hx) * hy + 2.0 * hx - hy, dtype)  # mixed layouts

    for order in ("C", "F"):
        out = nx.full(hx.shape, np.nan, dtype, order=order)
        prange_fill(x, out)
        close(nx.asnumpy(out), hx * (i + 1) - j, dtype)
        out = nx.full(hx.shape, np.nan, dtype, order=order)
        weigh[nx.Range(*hx.shape)](x, out)
        close(nx.asnumpy(out), hx * 3.0 + i - 2 * j, dtype)
    out_view = nx.full((hx.shape[0] * 2, hx.shape[1]), np.nan, dtype, order="F")[::2]  # a strided output
    weigh[nx.Range(*hx.shape)](x, out_view)
    close(nx.asnumpy(out_view), hx * 3.0 + i - 2 * j, dtype)

    s, mx, amin, amax, mean = reductions(x)
    magnitude = np.abs(hx)
    close(
        np.array([s, mx, mean]),
        np.array([hx.sum(), hx.max(), hx.mean()]),
        dtype,
        scale=np.array([magnitude.sum(), magnitude.max(), magnitude.mean()]),
    )
    assert (amin, amax) == (hx.argmin(), hx.argmax())  # flat indices in C order, as NumPy's
    a0, a1 = axis_sums(x)
    close(nx.asnumpy(a0), hx.sum(axis=0), dtype, scale=magnitude.sum(axis=0))
    close(nx.asnumpy(a1), hx.max(axis=1), dtype)

    # the eager forms of the same reductions
    close(
        np.array([float(x.sum()), float(x.max())]),
        np.array([hx.sum(), hx.max()]),
        dtype,
        scale=np.array([magnitude.sum(), magnitude.max()]),
    )
    assert (int(x.argmin()), int(np.argmax(x))) == (hx.argmin(), hx.argmax())
    close(nx.asnumpy(x.sum(axis=0)), hx.sum(axis=0), dtype, scale=magnitude.sum(axis=0))
    close(nx.asnumpy(x.min(axis=1)), hx.min(axis=1), dtype)


@nx.jit
def weighted_total(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            s += x[i, j] * (i + 1) * (j + 2)
    return s


@nx.jit
def element(x, i, j):
    return x[i, j]


@pytest.mark.needs_host_access
@pytest.mark.parametrize("layout", LAYOUTS)
def test_sequential_access_on_every_layout(rng, layout):
    h = rng.standard_normal((7, 10))
    x, hx = layout_view(h, layout)
    i, j = np.indices(hx.shape)
    terms = hx * (i + 1) * (j + 2)
    assert weighted_total(x) == pytest.approx(terms.sum(), rel=1e-12, abs=1e-13 * np.abs(terms).sum())
    a, b = int(rng.integers(0, hx.shape[0])), int(rng.integers(0, hx.shape[1]))
    assert element(x, a, b) == hx[a, b]
