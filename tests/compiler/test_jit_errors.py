"""Clear errors from @numba_ext.jit: shapes that do not broadcast, NumPy arrays mixed with numba_ext
arrays, unsupported expressions (named with their line), foreign or uninitialised objects, cache=True."""

import numba
import numpy as np
import pytest

import numba_ext


def test_shape_mismatch_is_a_clear_error(rng):
    f = numba_ext.jit(lambda a, b: a + b)
    with pytest.raises(ValueError, match="broadcast"):
        f(numba_ext.asarray(rng.standard_normal(5)), numba_ext.asarray(rng.standard_normal(6)))


def test_mixing_numpy_and_usm_arrays_is_a_compile_error(rng):
    f = numba_ext.jit(lambda a, b: a + b)
    with pytest.raises(Exception, match="mixes a numba_ext array with a NumPy array"):
        f(numba_ext.asarray(rng.standard_normal(5)), rng.standard_normal(5))


def test_unsupported_expression_names_construct_and_line(rng):
    f = numba_ext.jit(lambda a: np.exp2(a))  # complex exp2: not offloaded
    with pytest.raises(numba_ext.UnsupportedError, match=r"exp2 of complex128.*line"):
        f(numba_ext.asarray(rng.standard_normal(5) + 1j * rng.standard_normal(5)))


def test_freed_or_foreign_objects_do_not_crash():
    f = numba_ext.jit(lambda a: a * 2.0)
    with pytest.raises(numba.core.errors.TypingError, match="pyobject"):
        f(object())
    bogus = numba_ext.ndarray.__new__(numba_ext.ndarray)  # never initialised
    with pytest.raises(AttributeError, match="without a descriptor"):
        f(bogus)


def test_disk_caching_without_a_source_file_is_refused_clearly():
    # a function typed at a prompt has no source file, so Numba's cache has no place for it
    at_prompt = eval(compile("lambda a: a + 1.0", "<prompt>", "eval"))
    with pytest.raises(numba_ext.UnsupportedError, match="cache=True is not possible here"):
        numba_ext.jit(at_prompt, cache=True)
    with pytest.raises(numba_ext.UnsupportedError, match="cache=True is not possible here"):
        numba_ext.kernel(cache=True)(at_prompt)


def test_python_int_beyond_64_bits_is_an_unsupported_error(rng):
    """Numba has no type for such an int (its own error is a TypingError or, once an int64 overload
    exists, an OverflowError); numba_ext names the argument. Ints within 64 bits still run."""

    @numba_ext.jit
    def scaled_sum(x, s):
        return (x * s).sum()

    h = rng.standard_normal(7)
    x = numba_ext.asarray(h)
    for big in (2**70, -(2**70)):
        with pytest.raises(
            numba_ext.UnsupportedError, match=r"argument 's' is the integer -?\d+, beyond 64 bits"
        ):
            scaled_sum(x, big)
    np.testing.assert_allclose(scaled_sum(x, 3), (h * 3).sum(), rtol=1e-12)
    with pytest.raises(numba_ext.UnsupportedError, match="beyond 64 bits"):  # after an overload exists too
        scaled_sum(x, 2**70)
