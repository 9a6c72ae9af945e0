"""``numba_ext.asarray`` checks a ``__sycl_usm_array_interface__`` field by field before wrapping its
memory: every malformed field is an ArrayInterfaceError (a TypeError and a ValueError) naming the
field and its value; well-formed ones wrap the memory without a copy."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import ArrayInterfaceError, NumbaExtError


class _Exporter:
    def __init__(self, iface, keep=None):
        self.__sycl_usm_array_interface__ = iface
        self._keep = keep  # the array whose memory the interface describes


def _interface(rng, shape=(3, 4)):
    h = rng.standard_normal(shape)
    x = nx.asarray(h)
    return h, x, dict(x.__sycl_usm_array_interface__)


def _changed(iface, **fields):
    d = dict(iface)
    for k, v in fields.items():
        if v is KeyError:
            del d[k]
        else:
            d[k] = v
    return d


def test_valid_interfaces_wrap_without_copy(rng):
    h, x, iface = _interface(rng)
    y = nx.asarray(_Exporter(iface, x))
    assert y._data_ptr == x._data_ptr
    np.testing.assert_array_equal(nx.asnumpy(y), h)
    # a strided view with an offset, strides in elements
    v = x[1:, ::-2]
    w = nx.asarray(_Exporter(dict(v.__sycl_usm_array_interface__), x))
    np.testing.assert_array_equal(nx.asnumpy(w), h[1:, ::-2])
    # explicit strides, offset omitted or None
    z = nx.asarray(_Exporter(_changed(iface, strides=(4, 1), offset=None), x))
    np.testing.assert_array_equal(nx.asnumpy(z), h)
    e = nx.asarray(_Exporter(_changed(iface, shape=(0,), strides=None, data=(0, False)), x))
    assert e.shape == (0,)


BAD = [
    # (field, value, text the message must contain)
    ("version", 99, "version=99"),
    ("version", "1", "version='1'"),
    ("version", KeyError, "'version'"),
    ("data", KeyError, "'data'"),
    ("shape", KeyError, "'shape'"),
    ("typestr", KeyError, "'typestr'"),
    ("syclobj", KeyError, "'syclobj'"),
    ("typestr", ">f8", "typestr='>f8'"),
    ("typestr", "<m8[s]", "typestr='<m8[s]'"),  # timedelta arrays are not supported
    ("typestr", "nonsense", "typestr='nonsense'"),
    ("typestr", np.float64, "typestr=<class 'numpy.float64'>"),
    ("shape", (3, -4), "shape=(3, -4)"),
    ("shape", (3, 4.0), "shape=(3, 4.0)"),
    ("shape", "34", "shape='34'"),
    ("shape", (True, 4), "shape=(True, 4)"),
    ("strides", (1,), "strides=(1,)"),
    ("strides", (4, 1, 1), "strides=(4, 1, 1)"),
    ("strides", (32.0, 8.0), "strides=(32.0, 8.0)"),
    ("strides", (-4, 1), "strides=(-4, 1)"),  # would read before the allocation
    ("offset", -1, "offset=-1"),
    ("offset", 1.5, "offset=1.5"),
    ("data", 12345, "data=12345"),
    ("data", (12345,), "data=(12345,)"),
    ("data", (-8, False), "data=(-8, False)"),
    ("data", (0, False), "data=(0, False)"),
    ("data", (1.5, False), "data=(1.5, False)"),
    ("data", (4096, "no"), "data=(4096, 'no')"),
    ("syclobj", None, "syclobj=None"),
    ("syclobj", "opencl:cpu:0", "syclobj='opencl:cpu:0'"),
]


@pytest.mark.parametrize("field,value,text", BAD, ids=[f"{f}={v!r}" for f, v, _ in BAD])
def test_every_bad_field_is_named(rng, field, value, text):
    _, x, iface = _interface(rng)
    with pytest.raises(ArrayInterfaceError) as e:
        nx.asarray(_Exporter(_changed(iface, **{field: value}), x))
    assert text in str(e.value), str(e.value)
    assert "__sycl_usm_array_interface__" in str(e.value)
    assert isinstance(e.value, NumbaExtError) and isinstance(e.value, TypeError)
    assert isinstance(e.value, ValueError)


def test_not_a_dict(rng):
    with pytest.raises(ArrayInterfaceError, match=r"must be a dict, got list \[1, 2\]"):
        nx.asarray(_Exporter([1, 2]))


def test_version_99_rejected_even_when_the_rest_is_valid(rng):
    h, x, iface = _interface(rng)
    with pytest.raises(ValueError, match="version=99"):
        nx.asarray(_Exporter(_changed(iface, version=99), x))
    np.testing.assert_array_equal(nx.asnumpy(nx.asarray(_Exporter(iface, x))), h)  # unchanged: fine
