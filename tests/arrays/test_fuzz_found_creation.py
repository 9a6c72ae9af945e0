"""Creation and interface cases the long fuzzing run found: ``arange`` with an explicit ``None``
start, a huge ``full`` whose fill value does not fit, an unsupported dtype with an out-of-range fill,
and an empty interface whose data pointer leaves its allocation."""

import numpy as np
import pytest

import numba_ext as nx


@pytest.mark.parametrize(
    "args, kwargs",
    [((None, 5), {}), ((None, np.int8(5)), {"dtype": "uint32"}), ((None, -0.5, 0), {"dtype": "uint16"})],
)
def test_arange_with_a_none_start_is_numpys_type_error(args, kwargs):
    with pytest.raises(TypeError) as want:
        np.arange(*args, **kwargs)
    with pytest.raises(TypeError) as got:
        nx.arange(*args, **kwargs)
    assert str(got.value) == str(want.value)


def test_arange_stop_keyword_and_single_argument():
    n = int(np.random.default_rng().integers(3, 40))
    assert np.array_equal(nx.asnumpy(nx.arange(stop=n)), np.arange(stop=n))
    assert np.array_equal(nx.asnumpy(nx.arange(n)), np.arange(n))
    with pytest.raises(TypeError, match="requires stop"):
        nx.arange()


def test_huge_full_is_a_memory_error_before_the_fill_is_converted():
    shape, fill = (4, 3, 2**48, 1), 2**70  # 27 PB; the fill does not fit uint64 either
    with pytest.raises(MemoryError):
        np.full(shape, fill, dtype="uint64")
    with pytest.raises(MemoryError):
        nx.full(shape, fill, dtype="uint64")
    # a fill out of range for an array that fits is NumPy's OverflowError
    with pytest.raises(OverflowError):
        np.full(3, 2**70, dtype="uint64")
    with pytest.raises(OverflowError):
        nx.full(3, 2**70, dtype="uint64")


def test_unsupported_dtype_is_refused_before_the_fill():
    with pytest.raises(nx.UnsupportedError, match="datetime64"):
        nx.full((3, 2**48), 2**70, dtype="M8[s]")


def test_empty_interface_view_keeps_its_pointer_in_the_allocation():
    src = nx.asarray(np.arange(6, dtype=np.int32))
    iface = dict(src.__sycl_usm_array_interface__)

    class Foreign:
        pass

    for offset, ok in ((-1, False), (0, True), (6, True), (10**6, False)):
        obj = Foreign()
        obj.__sycl_usm_array_interface__ = {**iface, "shape": (0,), "offset": offset}
        if ok:
            got = nx.asarray(obj)
            assert got.shape == (0,) and got.dtype == np.int32
        else:
            with pytest.raises(nx.ArrayInterfaceError, match="offset"):
                nx.asarray(obj)


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_ordering_an_empty_array_with_none_is_numpys_empty_result(op):
    compare = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}[op]
    for host in (np.array([], dtype=np.int32), np.zeros((0, 3))):
        x = nx.asarray(host)
        for a, b in ((x, None), (None, x)):
            want = compare(*(host if v is x else v for v in (a, b)))
            got = eval(f"a {op} b")
            assert isinstance(got, nx.ndarray) and got.shape == want.shape and got.dtype == np.bool_
    x = nx.asarray(np.arange(3))
    with pytest.raises(TypeError):
        eval(f"x {op} None")
    with pytest.raises(TypeError):
        eval(f"nx.zeros(0) {op} 'a'")
