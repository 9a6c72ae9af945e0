"""float16 arrays in ``@numba_ext.kernel``: reading and writing elements (contiguous and strided),
arithmetic, comparisons, math functions, casts to and from other dtypes, float16 scalar arguments,
local memory of float16 and the clear refusal of atomics on float16. Numba types arithmetic on
float16 elements in float32 (an element converts exactly), so a kernel's float16 result is the
float32 computation rounded once to half when stored: the references compute the same way."""

import math

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import UnsupportedError

from ..checks import halves, poison, same_ulps

pytestmark = pytest.mark.needs_fp16

N = 128
F16, F32 = np.float16, np.float32


@nx.kernel
def arith(a, b, s, out, flags):
    i = nx.get_global_id(0)
    x = a[i]
    y = b[i]
    out[i] = x * y + x / (y * y + s) - 0.5
    flags[i] = x < y


def test_arithmetic_and_scalar_argument(rng):
    ha, hb = halves(rng, N), halves(rng, N)
    poison(N, "float16", "bool")
    out, flags = nx.empty(N, dtype=F16), nx.empty(N, dtype=np.bool_)
    s = F16(0.3)
    arith[nx.Range(N)](nx.asarray(ha), nx.asarray(hb), s, out, flags)
    a, b, s32 = ha.astype(F32), hb.astype(F32), F32(s)
    # Numba computes the literal 0.5's subtraction in float64 (a float32 value minus a float64 one);
    # on PTX a float32 a * b + c may be fused into an FMA before the rounding to half: an ulp apart
    same_ulps(out, (((a * b + a / (b * b + s32)).astype(np.float64)) - 0.5).astype(F16), ulps=1)
    same_ulps(flags, ha < hb)


@nx.kernel
def math_fns(a, out):
    i = nx.get_global_id(0)
    x = a[i]
    out[i, 0] = math.sqrt(x)
    out[i, 1] = math.exp(x)
    out[i, 2] = math.log(x)
    out[i, 3] = math.sin(x)
    out[i, 4] = math.cos(x)
    out[i, 5] = abs(x - 2)
    out[i, 6] = np.tanh(x)


def test_math(rng):
    h = rng.uniform(0.05, 5, N).astype(F16)
    poison(N * 7, "float16")
    out = nx.empty((N, 7), dtype=F16)
    math_fns[nx.Range(N)](nx.asarray(h), out)
    x = h.astype(np.float64)
    want = np.stack(
        [np.sqrt(x), np.exp(x), np.log(x), np.sin(x), np.cos(x), np.abs(x - 2), np.tanh(x)], axis=1
    )
    got = nx.asnumpy(out)
    assert got.dtype == F16
    # computed in float32 or float64 (math's functions on a float32 value), rounded once to half
    spacing = np.abs(np.spacing(want.astype(F16))).astype(np.float64)
    assert np.all(np.abs(got - want) <= spacing), np.max(np.abs(got - want) / spacing)


@nx.kernel
def convert(a, wide, narrow):
    i = nx.get_global_id(0)
    wide[i] = a[i]  # float16 -> float64: exact
    narrow[i] = wide[i] * 3.0  # float64 -> float16: rounded once


def test_casts(rng):
    h = halves(rng, N)
    poison(N, "float64", "float16")
    wide, narrow = nx.empty(N, dtype=np.float64), nx.empty(N, dtype=F16)
    convert[nx.Range(N)](nx.asarray(h), wide, narrow)
    same_ulps(wide, h.astype(np.float64))
    same_ulps(narrow, (h.astype(np.float64) * 3.0).astype(F16))


@nx.kernel
def strided_copy(a, out):
    i, j = nx.get_global_id(0), nx.get_global_id(1)
    out[i, j] = a[i, j] + a[j, i]


def test_strided_views(rng):
    h = halves(rng, 16 * 18).reshape(16, 18)
    v = nx.asarray(h)[::2, 1::2]  # 8 x 9, both dimensions strided
    poison(64, "float16")
    out = nx.empty((8, 8), dtype=F16)
    strided_copy[nx.Range(8, 8)](v, out)
    hv = h[::2, 1::2].astype(F32)
    same_ulps(out, (hv[:8, :8] + hv[:8, :8].T).astype(F16))


@nx.kernel
def reverse_in_groups(a, out):
    i = nx.get_global_id(0)
    k = nx.get_local_id(0)
    tile = nx.local.array(16, np.float16)
    tile[k] = a[i]
    nx.barrier()
    out[i] = tile[15 - k] * np.float16(2)


def test_local_memory(rng):
    h = halves(rng, N)
    poison(N, "float16")
    out = nx.empty(N, dtype=F16)
    reverse_in_groups[nx.NdRange(nx.Range(N), nx.Range(16))](nx.asarray(h), out)
    same_ulps(out, (h.reshape(-1, 16)[:, ::-1].reshape(-1).astype(F32) * 2).astype(F16))


@nx.kernel
def accumulate(a, total):
    i = nx.get_global_id(0)
    nx.atomic.add(total, 0, a[i])


def test_atomics_on_float16_are_refused(rng):
    with pytest.raises(UnsupportedError, match="atomic add is not supported on float16"):
        accumulate[nx.Range(N)](nx.asarray(halves(rng, N)), nx.zeros(1, dtype=F16))
