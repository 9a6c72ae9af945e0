"""Cases the eager fuzzer found in NumPy functions of numba_ext arrays, each now NumPy's behaviour."""

import numpy as np
import pytest

import numba_ext


@pytest.mark.parametrize("indices", [[0, -1, 2, 1], [-3], [5, 0]])
def test_take_with_an_empty_result_still_checks_its_indices(indices):
    # the other axis has no elements, so nothing is gathered, but NumPy visits the indices
    host = np.zeros((2, 0), dtype=bool)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 2") as want:
        np.take(host, indices, axis=0)
    with pytest.raises(IndexError) as got:
        np.take(numba_ext.asarray(host), indices, axis=0)
    assert str(got.value) == str(want.value)
    assert np.take(numba_ext.asarray(host), [1, -2], axis=0).shape == (2, 0)
    # with nothing before the axis, NumPy visits no index at all
    assert np.take(numba_ext.zeros((0, 2)), [7], axis=1).shape == (0, 1)


@pytest.mark.parametrize("axes", [0, -1, -3])
def test_tensordot_with_no_summed_axes_is_the_outer_product(rng, axes):
    h = rng.standard_normal((2, 3))
    got = np.tensordot(numba_ext.asarray(h), numba_ext.asarray(h), axes=axes)
    np.testing.assert_allclose(numba_ext.asnumpy(got), np.tensordot(h, h, axes=axes), rtol=1e-12)
    with pytest.raises(ValueError, match="axes must be >= 0"):
        numba_ext.tensordot(numba_ext.asarray(h), numba_ext.asarray(h), axes=-1)


def test_average_with_no_result_element_divides_by_zero_as_numpy():
    # NumPy's count of elements per result element is a.size / result.size, here 0 / 0
    with pytest.raises(ZeroDivisionError):
        np.average(np.zeros((2, 0), dtype=np.int64), axis=0)
    with pytest.raises(ZeroDivisionError):
        np.average(numba_ext.zeros((2, 0), dtype=np.int64), axis=0)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = np.average(numba_ext.zeros((0, 2)), axis=0)  # no element per result element: NaN
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        want = np.average(np.zeros((0, 2)), axis=0)
    np.testing.assert_array_equal(numba_ext.asnumpy(got), want)


@pytest.mark.parametrize("fn", [np.tril, np.triu])
def test_triangles_of_zero_dimensional_arrays_are_refused(fn):
    with pytest.raises(TypeError):
        fn(np.array(3))
    with pytest.raises(TypeError, match="at least one dimension"):
        fn(numba_ext.asarray(np.array(3)))


def test_fourier_and_correlation_of_0d_arrays_as_numpy():
    x = np.array(5.0, dtype=np.float32)
    got = np.fft.fftn(numba_ext.asarray(x))  # no axis to transform: the input as it is
    assert got.dtype == np.fft.fftn(x).dtype == np.float32 and float(got) == 5.0
    for shift in (np.fft.fftshift, np.fft.ifftshift):
        with pytest.raises(ValueError):
            shift(x)
        with pytest.raises(ValueError, match="0-d"):
            shift(numba_ext.asarray(x))
    with pytest.raises(ValueError, match="object of too small depth"):
        np.correlate(x, x, "same")
    with pytest.raises(ValueError, match="object of too small depth"):
        np.correlate(numba_ext.asarray(x), numba_ext.asarray(x), "same")
    conv = np.convolve(numba_ext.asarray(x), numba_ext.asarray(x))  # np.convolve takes 0-d ones
    np.testing.assert_array_equal(numba_ext.asnumpy(conv), np.convolve(x, x))
    for fn in (np.fft.rfftn, np.fft.irfftn):
        with pytest.raises(IndexError):
            fn(np.ones(3), axes=())
        with pytest.raises(IndexError):
            fn(numba_ext.asarray(np.ones(3)), axes=())


def test_fourier_transforms_of_infinities_are_non_finite_where_numpy_s_are():
    h = np.array([[1.0, np.inf, 2.0, -3.0], [0.5, 1.0, -np.inf, np.nan], [1.0, 2.0, 3.0, 4.0]])
    for fn in (np.fft.fft, np.fft.rfft, np.fft.irfft):
        got = numba_ext.asnumpy(fn(numba_ext.asarray(h)))
        with np.errstate(invalid="ignore"):
            want = fn(h)
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
        np.testing.assert_allclose(got[np.isfinite(want)], want[np.isfinite(want)], rtol=1e-12, atol=1e-14)
