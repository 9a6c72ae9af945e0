"""@numba_ext.jit over elementwise expressions: one fused kernel per expression on the queue inferred
from the arguments, checked against NumPy (and Numba's typing) on every shape, view, broadcast and
scalar argument; the accuracy of tanh."""

import numba
import numpy as np
import pytest

import numba_ext

from ..checks import check
from ..conftest import DEV, check_device_binary
from .conftest import slice_expr

EXPRS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "div": (lambda a, b: a / b, lambda a, b: a / b),
    "scalars": (lambda a, b: 2.5 * a - b / 3.0 + 1, lambda a, b: 2.5 * a - b / 3.0 + 1),
    "sqrt": (lambda a, b: np.sqrt(a) + b, lambda a, b: np.sqrt(a) + b),
    "exp": (lambda a, b: np.exp(a) * b, lambda a, b: np.exp(a) * b),
    "log": (lambda a, b: np.log(a) - b, lambda a, b: np.log(a) - b),
    "sin_cos": (lambda a, b: np.sin(a) * np.cos(b), lambda a, b: np.sin(a) * np.cos(b)),
    "nested": (
        lambda a, b: np.exp(-(a - b) * (a - b)) / np.sqrt(a + b) + np.log(a) * np.sin(b),
        lambda a, b: np.exp(-(a - b) * (a - b)) / np.sqrt(a + b) + np.log(a) * np.sin(b),
    ),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(EXPRS))
def test_elementwise_matches_numpy(rng, dtype, name, queue, tmp_path):
    fn, ref = EXPRS[name]
    jf = numba_ext.jit(fn)
    ha = rng.uniform(0.5, 2.0, 1001).astype(dtype)
    hb = rng.uniform(0.5, 2.0, 1001).astype(dtype)
    a, b = numba_ext.asarray(ha, sycl_queue=queue), numba_ext.asarray(hb, sycl_queue=queue)
    out = jf(a, b)
    assert isinstance(out, numba_ext.ndarray)
    assert out.sycl_queue is queue  # computation followed the data
    expected = ref(ha, hb)
    assert out.dtype == numba.njit(ref)(ha, hb).dtype  # Numba's typing of the same expression
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(numba_ext.asnumpy(out), expected, rtol=tol, atol=tol)
    kernels = jf.inspect_kernels(a, b)
    assert len(kernels) == 1  # the whole expression is one kernel
    check_device_binary(kernels[0].format, kernels[0].binary, tmp_path)


def test_slice_one_kernel_and_ir(rng):
    ha, hb = rng.uniform(0.1, 3, 500), rng.standard_normal(500)
    a, b = numba_ext.asarray(ha), numba_ext.asarray(hb)
    out = slice_expr(a, b)
    # atol: results near 0 cancel, and a fused multiply-add (GPUs) rounds once where NumPy rounds twice
    np.testing.assert_allclose(numba_ext.asnumpy(out), np.sqrt(ha) * hb + 1.0, rtol=1e-13, atol=1e-15)
    (k,) = slice_expr.inspect_kernels(a, b)
    if k.format == "spirv":
        assert "_Z4sqrtd" in k.llvm_ir and "spir_kernel" in k.llvm_ir
    else:
        assert "@__nv_sqrt(double" in k.llvm_ir and "ptx_kernel" in k.llvm_ir
    # the launch goes through the C ABI, not Python
    host_ir = slice_expr.inspect_llvm(a, b)
    assert "@nx_launch" in host_ir and "@nx_usm_alloc" in host_ir


@pytest.mark.parametrize("shape", [(7, 9), (2, 3, 4), (0,), (1,)])
def test_nd_and_edge_shapes(rng, shape):
    ha, hb = rng.standard_normal(shape), rng.standard_normal(shape)
    out = numba_ext.jit(lambda a, b: a * b - a)(numba_ext.asarray(ha), numba_ext.asarray(hb))
    assert out.shape == shape
    np.testing.assert_allclose(numba_ext.asnumpy(out), ha * hb - ha, rtol=1e-13, atol=1e-14)


def test_strided_views(rng):
    ha, hb = rng.standard_normal((8, 10)), rng.standard_normal((10, 8))
    a, b = numba_ext.asarray(ha), numba_ext.asarray(hb)
    f = numba_ext.jit(lambda x, y: x + 2.0 * y)
    out = f(a[:, ::-1], b.T)
    np.testing.assert_allclose(numba_ext.asnumpy(out), ha[:, ::-1] + 2.0 * hb.T, rtol=1e-13, atol=1e-14)
    out = f(a[::2, 1::3], b.T[::2, 1::3])
    np.testing.assert_allclose(
        numba_ext.asnumpy(out), ha[::2, 1::3] + 2.0 * hb.T[::2, 1::3], rtol=1e-13, atol=1e-14
    )


def test_scalar_arguments_are_runtime_values(rng):
    ha = rng.standard_normal(100)
    a = numba_ext.asarray(ha)
    f = numba_ext.jit(lambda x, s, t: x * s + t)
    for s, t in [(2.0, 1.0), (-0.5, 3.0), (3, 4)]:
        # x * s + t may be one FMA on PTX: a rounding apart where the sum cancels near 0
        check(f(a, s, t), ha * s + t, f"s={s}, t={t}", rtol=1e-13, atol=1e-14)
    assert len(f.signatures) == 2  # float and int scalars; new values do not recompile


def test_shape_size_ndim_inside_jit(rng):
    a = numba_ext.asarray(rng.standard_normal((3, 4, 5)))

    @numba_ext.jit
    def attrs(x):
        return x.shape, x.size, x.ndim, x.shape[1] * 2

    assert attrs(a) == ((3, 4, 5), 60, 3, 8)


@pytest.mark.parametrize(
    "shapes",
    [((4, 5), (5,), (4, 1)), ((3, 1, 6), (1, 4, 1), (6,)), ((7,), (1,), ()), ((2, 3), (2, 3), (2, 3))],
)
def test_broadcasting(rng, shapes):
    f = numba_ext.jit(lambda a, b, c: a * b + c - 1.0)
    hs = [rng.standard_normal(s) for s in shapes]
    out = f(*[numba_ext.asarray(h) for h in hs])
    want = hs[0] * hs[1] + hs[2] - 1.0
    # a * b + c may be one FMA on PTX: a rounding apart where the sum cancels near 0
    check(out, want, str(shapes), rtol=1e-13, atol=1e-14)


def test_zero_d_arrays(rng):
    f = numba_ext.jit(lambda a, b: a * b + 1.0)
    a, b = numba_ext.asarray(np.float64(2.5)), numba_ext.asarray(np.float64(-1.5))
    if a.device.memory_backend == "buffer":
        # Numba computes this on the host (a scalar result), which buffer memory cannot serve
        with pytest.raises(numba_ext.UnsupportedError, match="(?s)operator 'mul'.*cannot address.*line"):
            f(a, b)
        return
    out = f(a, b)
    # as in NumPy (and Numba), arithmetic on 0-d arrays gives a scalar
    assert float(out) == 2.5 * -1.5 + 1.0 == np.float64(2.5) * np.float64(-1.5) + 1.0


def _ulps(got, ref):
    return np.abs(got - ref) / np.spacing(np.abs(ref).astype(ref.dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tanh_accuracy_and_special_values(rng, dtype):
    # tanh on SPIR-V is an expm1 expansion (faster than the Intel CPU runtime's tanh): within a few
    # ulp everywhere, with NaN, +-0.0, +-inf and the saturation point right
    dt = np.dtype(dtype)
    special = np.array(
        [
            0.0,
            -0.0,
            1e-30,
            -1e-30,
            5e-324 if dt == np.float64 else 1e-45,
            0.5,
            -0.5,
            8.99,
            9.01,
            19.0,
            19.6,
            -19.6,
            30.0,
            -30.0,
            710.0,
            -710.0,
            np.inf,
            -np.inf,
            np.nan,
        ],
        dtype=dt,
    )
    x = np.concatenate(
        [special, (rng.standard_normal(4096) * 4).astype(dt), (rng.standard_normal(1024) * 1e-4).astype(dt)]
    )
    jf = numba_ext.jit(lambda a: np.tanh(a))
    got = numba_ext.asnumpy(jf(numba_ext.asarray(x, device=DEV)))
    ref = np.tanh(x)
    assert got.dtype == dt
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    ok = ~np.isnan(ref)
    assert np.array_equal(np.signbit(got[ok]), np.signbit(ref[ok]))  # -0.0 stays -0.0
    assert np.max(_ulps(got[ok], ref[ok])) <= 4

    @numba.njit(parallel=True)
    def loop(a, out):
        for i in numba.prange(a.shape[0]):
            out[i] = np.tanh(a[i])

    xd = numba_ext.asarray(x, device=DEV)
    out = numba_ext.full(x.shape, 7.0, dtype=dt, device=DEV)
    loop(xd, out)
    got = numba_ext.asnumpy(out)
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    assert np.max(_ulps(got[ok], ref[ok])) <= 4


@pytest.mark.parametrize("src", ["float32", "float64"])
@pytest.mark.parametrize("dst", ["uint8", "uint16", "uint32", "uint64"])
def test_negative_floats_made_unsigned_wrap_as_numpy(rng, src, dst):
    """A float made an unsigned integer converts through a signed 64-bit integer, as NumPy does: a
    negative value wraps (-1.0 is the type's largest value), on every device and on both paths (a
    plain unsigned conversion leaves negative values undefined, and devices differ on them)."""
    values = [-1.0, -2.5, -129.0, -70000.5, 0.0, 3.7, 255.9, 256.0, 65535.0]
    if dst == "uint64":  # NumPy calls values beyond 32 bits invalid for the smaller types
        values += [4e9, 2.0**40, -(2.0**40)]
    h = np.array(values + list(rng.uniform(-300.0, 300.0, 50)), dtype=src)
    want = h.astype(dst)
    to = getattr(np, dst)

    def convert(x):
        return x.astype(to)

    def negate_then_convert(x):
        return (-x).astype(to)

    a = numba_ext.asarray(h)
    for f, w in ((convert, want), (negate_then_convert, (-h).astype(dst))):
        for jf in (numba_ext.jit(f), numba_ext.compiler.jit(f)):
            got = numba_ext.asnumpy(jf(a))
            assert got.dtype == np.dtype(dst)
            np.testing.assert_array_equal(got, w)

    @numba_ext.kernel
    def store(x, out):
        i = numba_ext.get_global_id(0)
        out[i] = x[i]

    out = numba_ext.asarray(np.full(h.size, 7, dtype=dst))
    store[h.size](a, out)
    np.testing.assert_array_equal(numba_ext.asnumpy(out), want)
    if dst == "uint64":  # from 2**63 up, an unsigned conversion
        big = np.array([2.0**63, 1.5 * 2.0**63, 2.0**64 - 2.0**40], dtype=src)
        got = numba_ext.asnumpy(numba_ext.jit(convert)(numba_ext.asarray(big)))
        np.testing.assert_array_equal(got, big.astype(dst))
