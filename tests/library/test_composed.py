"""NumPy functions composed from the library's operations (np.tril, np.tile, np.meshgrid, np.kron,
np.vander, np.diag, np.column_stack, np.append, np.ediff1d, np.select, np.digitize, np.nan_to_num,
np.trapezoid, np.sinc, np.angle, np.polyval, np.inner, np.vdot, np.cross) against NumPy on fresh
random inputs: values, dtypes and shapes, then NumPy's errors."""

import re

import numpy as np
import pytest

import numba_ext as nx

from ..checks import poison
from ..conftest import DEV


def _cases(rng):
    h = rng.standard_normal((4, 5))
    v = rng.standard_normal(6)
    c = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    ints = rng.integers(-5, 5, (4, 5))
    h3 = rng.standard_normal((2, 4, 3))
    special = h.copy()
    special[0, 0], special[1, 1], special[2, 2] = np.nan, np.inf, -np.inf
    cspecial = c.copy()
    cspecial[0, 0] = complex(np.nan, np.inf)
    bins_up, bins_down = np.array([-1.0, 0, 0.5, 2]), np.array([2.0, 0.5, 0, -1])
    return [
        ("tril", lambda A: np.tril(A, -1), h),
        ("triu", lambda A: np.triu(A, 2), h),
        ("tril of 1-d", np.tril, v),
        ("triu of 3-d", np.triu, h3),
        ("tile", lambda A: np.tile(A, (2, 1, 3)), h),
        ("tile int", lambda A: np.tile(A, 2), v),
        ("meshgrid", lambda A: np.meshgrid(A, A[:3]), v),
        ("meshgrid ij sparse", lambda A: np.meshgrid(A, A[:3], A[:2], indexing="ij", sparse=True), v),
        ("kron", lambda A: np.kron(A, A[:2, :3]), h),
        ("kron of ranks", lambda A: np.kron(A[0], A), h),
        ("vander", np.vander, v),
        ("vander increasing", lambda A: np.vander(A, 4, increasing=True), v),
        ("vander int", lambda A: np.vander(A[0]), ints),
        ("diag", lambda A: np.diag(A, -2), v),
        ("diagonal", lambda A: np.diag(A, 1), h),
        ("diagflat", lambda A: np.diagflat(A, 1), h[:2, :2]),
        ("column_stack", lambda A: np.column_stack([A[0], A[1], A[1] * 2]), h),
        ("append", lambda A: np.append(A, A[:2]), h),
        ("append axis", lambda A: np.append(A, A[:2], axis=0), h),
        ("append list", lambda A: np.append(A, [1.0, 2.0]), v),
        ("ediff1d", lambda A: np.ediff1d(A, to_begin=[-1.0], to_end=[5, 6]), h),
        ("ediff1d plain", np.ediff1d, v),
        ("select", lambda A: np.select([A > 0.5, A < -0.5], [A, A * 2], default=-9), h),
        ("digitize", lambda A: np.digitize(A, bins_up), np.concatenate([h.ravel(), bins_up])),
        (
            "digitize right",
            lambda A: np.digitize(A, bins_up, right=True),
            np.concatenate([h.ravel(), bins_up]),
        ),
        ("digitize decreasing", lambda A: np.digitize(A, bins_down), np.concatenate([h.ravel(), bins_up])),
        (
            "digitize decreasing right",
            lambda A: np.digitize(A, bins_down, right=True),
            np.concatenate([h.ravel(), bins_up]),
        ),
        ("nan_to_num", np.nan_to_num, special),
        ("nan_to_num values", lambda A: np.nan_to_num(A, nan=-1.0, posinf=9.0), special),
        ("nan_to_num complex", np.nan_to_num, cspecial),
        ("nan_to_num int", np.nan_to_num, ints),
        ("trapezoid", np.trapezoid, h),
        ("trapezoid x", lambda A: np.trapezoid(A, A[0], axis=1), h),
        ("trapezoid dx", lambda A: np.trapezoid(A, dx=0.5, axis=0), h),
        ("trapezoid 2-d x along axis 0", lambda A: np.trapezoid(A, A, axis=0), h),
        ("trapezoid 2-d x of 3-d y", lambda A: np.trapezoid(A, A[0], axis=-2), h3),
        ("sinc", np.sinc, np.concatenate([v, [0.0]])),
        ("angle", np.angle, c),
        ("angle deg", lambda A: np.angle(A, deg=True), h),
        ("polyval", lambda A: np.polyval([1.5, -2.0, 3.0], A), h),
        ("polyval of arrays", lambda A: np.polyval(A[0], A[1]), h),
        ("inner", lambda A: np.inner(A, A[:3]), h),
        ("inner of vectors", lambda A: np.inner(A[0], A[1]), h),
        ("vdot", lambda A: np.vdot(A, A), c),
        ("cross", lambda A: np.cross(A, A[::-1]), h3),
        ("cross axes", lambda A: np.cross(A, A.T, axisa=0, axisb=1, axisc=0), h3[0].T.copy()),
    ]


def test_composed_functions_against_numpy(rng):
    for name, f, h in _cases(rng):
        poison(h.size, h.dtype)
        want = f(h)
        got = f(nx.asarray(h, device=DEV))
        wants = want if isinstance(want, (tuple, list)) else (want,)
        gots = got if isinstance(got, (tuple, list)) else (got,)
        assert len(gots) == len(wants), name
        for g, w in zip(gots, wants):
            assert isinstance(g, nx.ndarray), name
            host, w = nx.asnumpy(g), np.asarray(w)
            assert host.dtype == w.dtype and host.shape == w.shape, (
                name,
                host.dtype,
                w.dtype,
                host.shape,
                w.shape,
            )
            np.testing.assert_allclose(host, w, rtol=1e-12, atol=1e-12, err_msg=name)


def test_nan_to_num_in_place_and_errors(rng):
    h = rng.standard_normal(8)
    h[2] = np.nan
    x = nx.asarray(h, device=DEV)
    assert np.nan_to_num(x, copy=False) is x
    np.testing.assert_array_equal(nx.asnumpy(x), np.nan_to_num(h))
    with pytest.raises(ValueError, match="monotonically"):
        np.digitize(x, np.array([0.0, 2.0, 1.0]))
    with pytest.raises(ValueError, match="same length"):
        np.select([x > 0], [x, x])
    with pytest.raises(TypeError, match="boolean ndarray"):
        np.select([x], [x])
    with pytest.raises(TypeError, match="same_kind"):
        np.ediff1d(nx.asarray(np.arange(4), device=DEV), to_end=[0.5])
    with pytest.raises(ValueError, match="dimension must be 3"):
        np.cross(x[:2], x[:2])
    with pytest.raises(ValueError, match="Valid values for `indexing`"):
        np.meshgrid(x, indexing="yx")
    with pytest.raises(nx.ExecutionPlacementError):
        other = nx.Queue(x.sycl_queue.device, context=nx.Context(x.sycl_queue.device))
        np.kron(x, nx.asarray(h, sycl_queue=other))


def test_host_and_scalar_operands_against_numpy(rng):
    """Python and NumPy scalars, lists and NumPy arrays beside numba_ext operands, on either side: NumPy's
    values and dtypes (NumPy takes ``np.asarray`` of these operands, so a Python scalar is an array
    of its default dtype, not a weak scalar), and NumPy's errors for 0-d operands."""
    small = rng.integers(-50, 50, (2, 3)).astype(np.int8)
    f4 = rng.standard_normal(6).astype(np.float32)
    up = np.sort(rng.standard_normal(5))
    xp, fp = np.sort(rng.standard_normal(8)), rng.standard_normal(8)
    at = rng.standard_normal(7) * 2
    k, s = int(rng.integers(2, 9)), float(rng.standard_normal())
    cases = [  # (name, function, operands, positions of the operands put on the device)
        ("kron int8 and an int", np.kron, (small, k), {0}),
        ("kron a float and float32", np.kron, (s, f4), {1}),
        ("kron a list and int8", np.kron, (small[0].tolist(), small), {1}),
        ("kron a NumPy scalar and float32", np.kron, (f4, np.float32(s)), {0}),
        ("append an int to int8", np.append, (small, k), {0}),
        ("append int8 to an int", np.append, (k, small), {1}),
        ("append int8 to a NumPy scalar", np.append, (np.int8(k), small), {1}),
        ("append float32 to a list", np.append, (up.tolist(), f4), {1}),
        ("append a NumPy array on axis 0", lambda a, b: np.append(a, b, axis=0), (small, small[::-1]), {0}),
        ("digitize a float", np.digitize, (s, up), {1}),
        ("digitize a NumPy scalar", np.digitize, (np.float32(s), up[::-1]), {1}),
        ("digitize a list", np.digitize, (at.tolist(), up), {1}),
        ("digitize int8 in a list", lambda a, b: np.digitize(a, b, right=True), (small, [-9, 0, k]), {0}),
        ("interp a float", np.interp, (s, xp, fp.tolist()), {1}),
        (
            "interp a NumPy scalar",
            lambda a, b, c: np.interp(a, b, c, left=k),
            (np.float32(s), xp, fp),
            {1, 2},
        ),
        ("interp a list", np.interp, (at.tolist(), xp, fp), {2}),
        ("interp int8 in lists", np.interp, (small, [-40, 0, 40], [1, -k, 2]), {0}),
        ("trapezoid over a list", np.trapezoid, (f4, np.cumsum(np.abs(f4)).tolist()), {0}),
        ("polyval of an int", np.polyval, (small[0], k), {0}),
        ("polyval of a list", np.polyval, (f4[:3], at.tolist()), {0}),
    ]
    for name, f, operands, on in cases:
        want = np.asarray(f(*operands))
        got = f(*(nx.asarray(v, device=DEV) if i in on else v for i, v in enumerate(operands)))
        assert isinstance(got, nx.ndarray), name
        host = nx.asnumpy(got)
        assert (host.dtype, host.shape) == (want.dtype, want.shape), (name, host.dtype, want.dtype)
        np.testing.assert_allclose(host, want, rtol=1e-12, atol=1e-12, err_msg=name)
    d = nx.asarray(up, device=DEV)
    for f, rest in [(np.digitize, (s,)), (np.interp, (s, s)), (np.interp, (up, k)), (np.trapezoid, (s,))]:
        with pytest.raises(ValueError) as numpy_error:
            f(up, *rest)
        with pytest.raises(ValueError, match=re.escape(str(numpy_error.value))):
            f(d, *rest)
    other = nx.Queue(d.sycl_queue.device, context=nx.Context(d.sycl_queue.device))
    with pytest.raises(nx.ExecutionPlacementError, match="'xp' on .*'fp' on"):
        np.interp(s, d, nx.asarray(up, sycl_queue=other))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "complex128"])
def test_gradient(dtype):
    """np.gradient: central differences inside, one-sided edges of order 1 and 2, uniform and
    non-uniform spacings (host or device coordinates), chosen axes, against NumPy's."""
    rng = np.random.default_rng()
    h = (rng.standard_normal((5, 7)) * 3).astype(dtype)
    if np.dtype(dtype).kind == "c":
        h = h + 1j * rng.standard_normal((5, 7))
    x = nx.asarray(h, device=DEV)
    coords = np.cumsum(rng.random(7) + 0.1)
    rows = np.arange(5) * 3  # integer coordinates, uniform
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-12, "atol": 1e-12}

    def same(got, want):
        if isinstance(want, tuple):
            assert isinstance(got, tuple) and len(got) == len(want)
            for g, w in zip(got, want):
                same(g, w)
            return
        host = nx.asnumpy(got)
        assert host.dtype == want.dtype and host.shape == want.shape, (host.dtype, want.dtype)
        np.testing.assert_allclose(host, want, **tol)

    for order in (1, 2):
        same(np.gradient(x, edge_order=order), np.gradient(h, edge_order=order))
        same(np.gradient(x, 0.5, edge_order=order), np.gradient(h, 0.5, edge_order=order))
        same(np.gradient(x, 2.0, coords, edge_order=order), np.gradient(h, 2.0, coords, edge_order=order))
        got = np.gradient(x, rows, nx.asarray(coords, device=DEV), edge_order=order)
        same(got, np.gradient(h, rows, coords, edge_order=order))
        same(
            np.gradient(x, coords, axis=1, edge_order=order), np.gradient(h, coords, axis=1, edge_order=order)
        )
        same(np.gradient(x, axis=(1, 0), edge_order=order), np.gradient(h, axis=(1, 0), edge_order=order))
        same(np.gradient(x[0], edge_order=order), np.gradient(h[0], edge_order=order))


def test_gradient_errors():
    for call, error in [
        (lambda m: np.gradient(m(np.ones(1))), "too small"),
        (lambda m: np.gradient(m(np.ones(2)), edge_order=2), "too small"),
        (lambda m: np.gradient(m(np.ones(4)), edge_order=3), "greater than 2"),
        (lambda m: np.gradient(m(np.ones(4)), np.ones((2, 2))), "scalars or 1d"),
        (lambda m: np.gradient(m(np.ones(4)), np.ones(3)), "must match the length"),
    ]:
        with pytest.raises(ValueError, match=error):
            call(np.asarray)
        with pytest.raises(ValueError, match=error):
            call(lambda h: nx.asarray(h, device=DEV))
    with pytest.raises(TypeError, match="invalid number of arguments"):
        np.gradient(nx.ones((3, 3), device=DEV), 1.0, 2.0, 3.0)
