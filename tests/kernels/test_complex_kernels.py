"""complex64 and complex128 in ``@numba_ext.kernel``: reading and writing complex elements (contiguous
and strided), arithmetic, ``abs``, ``.real`` / ``.imag``, ``conjugate()``, the ``cmath`` functions,
``complex(re, im)``, complex constants, local memory, device functions and complex atomic adds.
Results are checked against NumPy on fresh random complex inputs with poisoned outputs; complex
scalar arguments are refused with a clear error."""

import cmath

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import KernelArgumentError

from ..checks import check, crand, poison

N = 128


def _tol(cdt):
    return 2e-5 if cdt == "complex64" else 1e-12


@nx.func
def _rotate(z):
    return z * 1j


@nx.kernel
def arith(a, b, out, mag):
    i = nx.get_global_id(0)
    x = a[i]
    y = b[i]
    out[i] = x * y + x / y - _rotate(x.conjugate()) + (2.0 - 0.5j)
    mag[i] = abs(y) + x.real * y.imag


def test_arithmetic(rng, cdt):
    ha, hb = crand(rng, cdt, N), crand(rng, cdt, N)
    real = np.dtype(cdt).type(0).real.dtype
    poison(N, cdt, real)
    out, mag = nx.empty(N, dtype=cdt), nx.empty(N, dtype=real)
    arith[nx.Range(N)](nx.asarray(ha), nx.asarray(hb), out, mag)
    r = _tol(cdt)
    # Numba types the literal 2.0-0.5j as complex128; the store casts back to the array's dtype
    check(out, (ha * hb + ha / hb - ha.conjugate() * 1j + (2.0 - 0.5j)).astype(cdt), "out", rtol=r, atol=r)
    check(mag, (np.abs(hb) + ha.real * hb.imag).astype(real), "mag", rtol=r, atol=r)


@nx.kernel
def math_fns(a, out):
    i = nx.get_global_id(0)
    z = a[i]
    out[i, 0] = cmath.exp(z)
    out[i, 1] = cmath.log(z)
    out[i, 2] = cmath.sqrt(z)
    out[i, 3] = cmath.sin(z)
    out[i, 4] = cmath.cos(z)
    out[i, 5] = complex(z.imag, z.real)
    out[i, 6] = np.exp(z) * np.conj(z)


def test_math_functions(rng, cdt):
    ha = crand(rng, cdt, N)
    out = nx.empty((N, 7), dtype=cdt)
    math_fns[nx.Range(N)](nx.asarray(ha), out)
    want = np.stack(
        [
            np.exp(ha),
            np.log(ha),
            np.sqrt(ha),
            np.sin(ha),
            np.cos(ha),
            ha.imag + 1j * ha.real,
            np.exp(ha) * ha.conj(),
        ],
        axis=1,
    ).astype(cdt)
    r = _tol(cdt) * 10
    check(out, want, "cmath", rtol=r, atol=r)


def _strided_and_local(dtype):
    @nx.kernel
    def strided_and_local(a, out):
        i = nx.get_global_id(0)
        lid = nx.get_local_id(0)
        tile = nx.local.array(16, dtype)
        tile[lid] = a[i, 1]
        nx.barrier(nx.LOCAL_MEM_FENCE)
        out[i] = tile[15 - lid] - a[i, 0]

    return strided_and_local


STRIDED_AND_LOCAL = {
    "complex64": _strided_and_local(np.complex64),
    "complex128": _strided_and_local(np.complex128),
}


def test_strided_views_and_local_memory(rng, cdt):
    h = crand(rng, cdt, 3 * N).reshape(N, 3)
    out = nx.empty(N, dtype=cdt)
    a = nx.asarray(h)[:, ::2]  # strided complex view
    STRIDED_AND_LOCAL[cdt][nx.NdRange((N,), (16,))](a, out)
    hv = h[:, ::2]
    want = hv[:, 1].reshape(-1, 16)[:, ::-1].reshape(-1) - hv[:, 0]
    check(out, want, "strided/local")


@nx.kernel
def atomic_sum(a, acc):
    i = nx.get_global_id(0)
    nx.atomic.add(acc, 0, a[i] * 2)


def test_atomic_add(rng, cdt):
    ha = crand(rng, cdt, N)
    acc = nx.asarray(np.array([1 + 1j], dtype=cdt))
    atomic_sum[nx.Range(N)](nx.asarray(ha), acc)
    np.testing.assert_allclose(
        nx.asnumpy(acc)[0], 1 + 1j + (ha * 2).sum(), rtol=1e-4 if cdt == "complex64" else 1e-11
    )


@nx.kernel
def scaled(a, s, out):
    i = nx.get_global_id(0)
    out[i] = a[i] * s


def test_complex_scalar_arguments_are_refused(rng, cdt):
    """Kernels take complex arrays, not complex scalars (pass a one-element array instead)."""
    out = nx.empty(N, dtype=cdt)
    a = nx.asarray(crand(rng, cdt, N))
    for s in (np.dtype(cdt).type(1 + 2j), 1 + 2j):
        with pytest.raises(KernelArgumentError, match=f"argument 's' has type {type(s).__name__}"):
            scaled[nx.Range(N)](a, s, out)


@nx.func
def _conjugated(x):
    return x.conjugate() * x.real


@nx.kernel
def real_parts(a, out, s):
    i = nx.get_global_id(0)
    x = a[i]
    out[i, 0] = x.real
    out[i, 1] = x.imag + s.imag
    out[i, 2] = x.conjugate() - s.conjugate()
    out[i, 3] = _conjugated(x)


@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "int64"])
def test_real_values_parts_and_conjugate(rng, dt):
    """As in Numba, ``.real``, ``.imag`` and ``.conjugate()`` of a real value are the value, zero
    and the value (so one kernel serves real and complex data)."""
    h = (rng.standard_normal(N) * 50).astype(dt)
    poison(4 * N, dt)
    out = nx.empty((N, 4), dtype=dt)
    s = np.dtype(dt).type(3)
    real_parts[nx.Range(N)](nx.asarray(h), out, s)
    want = np.stack([h.real, h.imag + s.imag, h.conjugate() - s, h * h.real], axis=1)
    check(out, want.astype(dt), "parts")
