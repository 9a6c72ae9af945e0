"""Kernel arguments: scalars, USM types and strided views, NumPy arrays under offload_to, and the
strides of contiguous arrays (computed from the shape) against those of views (read from the
arguments)."""

import numpy as np
import pytest

import numba_ext as nx

from ..checks import fp_tol
from ..conftest import DEV
from .conftest import axpy


# -- arguments -------------------------------------------------------------------------------------
@nx.kernel
def mixed_args(x, out, s, k, flag):
    i = nx.get_global_id(0)
    v = x[i] * s + k
    if flag:
        v = -v
    out[i] = v


@pytest.mark.parametrize("usm_type", ["device", "shared", "host"])
def test_scalars_usm_types_and_strided_views(rng, usm_type):
    h = rng.standard_normal((6, 10))
    x = nx.asarray(h, usm_type=usm_type)
    out = nx.empty(5, usm_type=usm_type)
    mixed_args[5](x[1, ::2], out, 1.5, 3, True)  # a strided view
    np.testing.assert_allclose(nx.asnumpy(out), -(h[1, ::2] * 1.5 + 3), **fp_tol())
    mixed_args[5](x[::-1, 3][:5], out, 2.0, -1, False)  # negative strides
    np.testing.assert_allclose(nx.asnumpy(out), h[::-1, 3][:5] * 2.0 - 1, **fp_tol())


def test_numpy_arrays_under_offload_to(rng):
    hx, hy = rng.standard_normal(64), rng.standard_normal(64)
    y = hy.copy()
    with pytest.raises(nx.ExecutionPlacementError, match="offload_to"):
        axpy[64](2.0, hx, y)
    with nx.offload_to(DEV):
        axpy[64](2.0, hx, y)
    np.testing.assert_allclose(y, 2.0 * hx + hy, **fp_tol())  # written back
    with nx.offload_to(DEV), pytest.raises(nx.ExecutionPlacementError, match="cannot be mixed"):
        axpy[64](2.0, hx, nx.asarray(hy))


@nx.kernel
def scale_2d(x, out):
    i = nx.get_global_id(0)
    j = nx.get_global_id(1)
    out[i, j] = x[i, j] * 3.0 + i - 2 * j


@pytest.mark.parametrize(
    "view", ["whole", "rows", "one_element", "one_row", "transposed", "strided", "negative"]
)
def test_contiguous_arrays_use_computed_strides_views_their_own(rng, view):
    # C-contiguous arrays (by their Numba type) index with strides computed from the shape; every
    # other layout reads its stride arguments; size-1 dimensions may carry any stride
    h = rng.standard_normal((7, 6))
    x = nx.asarray(h, device=DEV)
    sel = {
        "whole": np.s_[:, :],
        "rows": np.s_[2:5],
        "one_element": np.s_[2:3, 1:2],
        "one_row": np.s_[4:5, :],
        "transposed": None,
        "strided": np.s_[:, ::2],
        "negative": np.s_[::-1, ::-1],
    }[view]
    xv, hv = (x.T, h.T) if sel is None else (x[sel], h[sel])
    out = nx.full(hv.shape, np.nan, device=DEV)
    scale_2d[nx.Range(*hv.shape)](xv, out)
    i, j = np.indices(hv.shape)
    # PTX contracts x * 3 + i into one FMA: a rounding apart where the sum cancels near 0
    np.testing.assert_allclose(nx.asnumpy(out), hv * 3.0 + i - 2 * j, **fp_tol())
    layout = xv._numba_type_.layout
    assert layout == ("C" if view in ("whole", "rows", "one_element", "one_row") else layout)
    contiguous = [a.contiguous for a in scale_2d._compiled_for((xv, out)).spec.arrays]
    assert contiguous == [layout == "C", True]
