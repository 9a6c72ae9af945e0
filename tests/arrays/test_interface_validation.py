"""``numba_ext.asarray`` checks a ``__sycl_usm_array_interface__`` before wrapping its memory: every
malformed field is an ArrayInterfaceError (a TypeError and a ValueError) naming the field and its
value; the data pointer must lie in an allocation of the queue's context (asked of the runtime, never
read) and the whole view (offset, shape, strides) inside that allocation. The cases that would read
foreign memory if accepted run in a child process, so that a crash fails them instead of killing the
test run. Well-formed interfaces of numba_ext's own arrays and views wrap the memory without a copy."""

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.errors import ArrayInterfaceError, NumbaExtError

ROOT = Path(__file__).resolve().parents[2]


class _Exporter:
    def __init__(self, iface, keep=None):
        self.__sycl_usm_array_interface__ = iface
        self._keep = keep  # the array whose memory the interface describes


def _interface(rng, shape=(3, 4), usm_type="device", queue=None):
    h = rng.standard_normal(shape).astype(np.float32)
    x = nx.asarray(h, usm_type=usm_type, sycl_queue=queue)
    return h, x, dict(x.__sycl_usm_array_interface__)


def _changed(iface, **fields):
    d = dict(iface)
    for k, v in fields.items():
        if v is KeyError:
            del d[k]
        else:
            d[k] = v
    return d


def _assert_named(err, text):
    assert text in str(err), str(err)
    assert "__sycl_usm_array_interface__" in str(err), str(err)
    assert isinstance(err, NumbaExtError) and isinstance(err, TypeError) and isinstance(err, ValueError)


# -- fields of the wrong type or value: refused before the runtime is asked about the pointer --------

FIELDS = [
    # (field, value, text the message must contain)
    ("version", 99, "version=99"),
    ("version", "1", "version='1'"),
    ("version", None, "version=None"),
    ("version", 1.0, "version=1.0"),
    ("version", True, "version=True"),
    ("version", KeyError, "'version'"),
    ("data", KeyError, "'data'"),
    ("shape", KeyError, "'shape'"),
    ("typestr", KeyError, "'typestr'"),
    ("syclobj", KeyError, "'syclobj'"),
    ("typestr", ">f4", "typestr='>f4'"),
    ("typestr", "<m8[s]", "typestr='<m8[s]'"),  # timedelta arrays are not supported
    ("typestr", "<U4", "typestr='<U4'"),
    ("typestr", "|O", "typestr='|O'"),
    ("typestr", "nonsense", "typestr='nonsense'"),
    ("typestr", np.float32, "typestr=<class 'numpy.float32'>"),
    ("typestr", None, "typestr=None"),
    ("shape", (3, -4), "shape=(3, -4)"),
    ("shape", (3, 4.0), "shape=(3, 4.0)"),
    ("shape", "34", "shape='34'"),
    ("shape", None, "shape=None"),
    ("shape", 12, "shape=12"),
    ("shape", (True, 4), "shape=(True, 4)"),
    ("shape", (3, np.bool_(True)), "shape=(3, "),
    ("strides", (1,), "strides=(1,)"),
    ("strides", (4, 1, 1), "strides=(4, 1, 1)"),
    ("strides", (4.0, 1.0), "strides=(4.0, 1.0)"),
    ("strides", (4, "1"), "strides=(4, '1')"),
    ("strides", (True, 1), "strides=(True, 1)"),
    ("strides", "41", "strides='41'"),
    ("offset", 1.5, "offset=1.5"),
    ("offset", "1", "offset='1'"),
    ("offset", False, "offset=False"),
    ("data", 12345, "data=12345"),
    ("data", "0x1000", "data='0x1000'"),
    ("data", None, "data=None"),
    ("data", (12345,), "data=(12345,)"),
    ("data", (12345, False, 0), "data=(12345, False, 0)"),
    ("data", (-8, False), "data=(-8, False)"),
    ("data", (1.5, False), "data=(1.5, False)"),
    ("data", (True, False), "data=(True, False)"),
    ("data", (4096, "no"), "data=(4096, 'no')"),
    ("data", (4096, 0), "data=(4096, 0)"),
    ("data", (4096, None), "data=(4096, None)"),
    ("syclobj", None, "syclobj=None"),
    ("syclobj", "opencl:cpu:0", "syclobj='opencl:cpu:0'"),
    ("syclobj", 0, "syclobj=0"),
    ("syclobj", object, "syclobj=<class 'object'>"),
]


@pytest.mark.parametrize("field,value,text", FIELDS, ids=[f"{f}={v!r}" for f, v, _ in FIELDS])
def test_every_bad_field_is_named(rng, field, value, text):
    _, x, iface = _interface(rng)
    with pytest.raises(ArrayInterfaceError) as e:
        nx.asarray(_Exporter(_changed(iface, **{field: value}), x))
    _assert_named(e.value, text)


def test_syclobj_device_or_failing_property_is_named(rng):
    _, x, iface = _interface(rng)
    dev = x.sycl_queue.device
    with pytest.raises(ArrayInterfaceError) as e:
        nx.asarray(_Exporter(_changed(iface, syclobj=dev), x))
    _assert_named(e.value, f"syclobj={dev!r}")

    class Broken:
        @property
        def sycl_queue(self):
            raise RuntimeError("no queue here")

    with pytest.raises(ArrayInterfaceError) as e:
        nx.asarray(_Exporter(_changed(iface, syclobj=Broken()), x))
    _assert_named(e.value, "whose sycl_queue raised RuntimeError: no queue here")


@pytest.mark.parametrize("iface", [[1, 2], None, "iface", 7, (("version", 1),)], ids=repr)
def test_interface_that_is_not_a_dict(iface):
    with pytest.raises(ArrayInterfaceError) as e:
        nx.asarray(_Exporter(iface))
    _assert_named(e.value, f"must be a dict, got {type(iface).__name__} {iface!r}")


def test_version_99_rejected_even_when_the_rest_is_valid(rng):
    h, x, iface = _interface(rng)
    with pytest.raises(ValueError, match="version=99"):
        nx.asarray(_Exporter(_changed(iface, version=99), x))
    np.testing.assert_array_equal(nx.asnumpy(nx.asarray(_Exporter(iface, x))), h)  # unchanged: fine


# -- memory: pointers and views outside an allocation of the queue's context (in a child process) ----


def _memory_cases():
    """name -> (make the interface from the test's arrays, text the message must contain); None for
    the text: the interface is valid (an empty array needs no memory) and must give an empty array."""
    big = 2**64 - 1
    return {
        "data_pointer_2**64-1": (lambda a: _changed(a.iface, data=(big, False)), f"data=({big}, False)"),
        "data_pointer_12345678": (
            lambda a: _changed(a.iface, data=(12345678, False)),
            "data=(12345678, False)",
        ),
        "data_pointer_2**64": (lambda a: _changed(a.iface, data=(2**64, False)), f"data=({2**64}, False)"),
        "data_pointer_null": (lambda a: _changed(a.iface, data=(0, False)), "data=(0, False)"),
        "data_host_memory": (lambda a: _changed(a.iface, data=(a.host.ctypes.data, False)), "data=("),
        "data_one_past_the_end": (lambda a: _changed(a.iface, data=(a.ptr + a.x.nbytes, False)), "data=("),
        "data_of_another_context": (lambda a: _changed(a.iface, data=(a.other_ptr, False)), "data=("),
        "data_of_another_context_syclobj_context": (
            lambda a: _changed(a.iface, data=(a.other_ptr, False), syclobj=a.x.sycl_queue.context),
            "data=(",
        ),
        "offset_past_the_end_by_one_element": (lambda a: _changed(a.iface, offset=1), "offset=1"),
        "offset_one_element_before_the_base": (lambda a: _changed(a.iface, offset=-1), "offset=-1"),
        "data_past_the_end_by_one_element": (
            lambda a: _changed(a.iface, data=(a.ptr + a.x.itemsize, False)),
            "4 bytes past its end",
        ),
        "shape_past_the_end": (lambda a: _changed(a.iface, shape=(4, 4)), "shape=(4, 4)"),
        "shape_huge": (lambda a: _changed(a.iface, shape=(2**62, 2**62)), f"shape=({2**62}, {2**62})"),
        "zero_strides_over_too_many_elements": (
            lambda a: _changed(a.iface, shape=(2**40, 2**40), strides=(0, 0)),
            f"shape=({2**40}, {2**40}) and strides=(0, 0)",
        ),
        "empty_with_too_many_elements": (
            lambda a: _changed(a.iface, shape=(0, 2**70), data=(0, False)),
            f"shape=(0, {2**70})",
        ),
        "strides_in_bytes": (lambda a: _changed(a.iface, strides=(16, 4)), "strides=(16, 4)"),
        "strides_past_the_end": (lambda a: _changed(a.iface, strides=(5, 1)), "strides=(5, 1)"),
        "negative_strides_before_the_base": (lambda a: _changed(a.iface, strides=(-4, 1)), "strides=(-4, 1)"),
        "negative_inner_stride_one_element_before_the_base": (
            lambda a: _changed(a.iface, strides=(4, -1), offset=2),
            "4 bytes before its start",
        ),
        "empty_with_a_bad_pointer": (lambda a: _changed(a.iface, shape=(0, 4), data=(12345678, False)), None),
    }


class _Arrays:
    """The arrays the memory cases describe (kept alive while a case runs)."""

    def __init__(self, rng):
        self.h = rng.standard_normal((3, 4)).astype(np.float32)
        self.x = nx.asarray(self.h)
        self.iface = dict(self.x.__sycl_usm_array_interface__)
        self.ptr = self.iface["data"][0]
        self.host = np.zeros(64)

    @functools.cached_property
    def other_ptr(self):
        """The data pointer of a copy in another context (made only for the cases that use it)."""
        q = self.x.sycl_queue
        q2 = nx.Queue(q.device.filter_string, context=nx.Context(q.device))
        self.other = nx.asarray(self.h, sycl_queue=q2)
        return self.other.__sycl_usm_array_interface__["data"][0]


def _run_memory_case(name, rng):
    make, _ = _memory_cases()[name]
    a = _Arrays(rng)
    try:
        y = nx.asarray(_Exporter(make(a), a.x))
    except Exception as e:
        return {
            "name": name,
            "cls": type(e).__name__,
            "msg": str(e),
            "type_and_value_error": isinstance(e, TypeError) and isinstance(e, ValueError),
        }
    got = nx.asnumpy(y)  # an accepted interface is read: a wrong acceptance shows here
    return {"name": name, "accepted": True, "shape": list(got.shape), "ptr_kept": y._data_ptr == a.ptr}


def _child_main():
    """Run every memory case in this (child) process and print one JSON line per case."""
    rng = np.random.default_rng(int(os.environ["NX_TEST_SEED"]))
    try:
        dev = nx.default_queue().device.filter_string
    except Exception as e:  # the device is held by the parent process (one process at a time)
        print(json.dumps({"unavailable": f"{type(e).__name__}: {e}"}), flush=True)
        return
    if dev != os.environ["NX_TEST_DEVICE"]:
        print(json.dumps({"unavailable": f"the child process sees {dev}"}), flush=True)
        return
    for name in _memory_cases():
        print(json.dumps(_run_memory_case(name, rng)), flush=True)


@pytest.fixture(scope="module")
def memory_results():
    """Results of the memory cases, from a child process. Where the device cannot be opened by a
    second process (NVIDIA's driver gives a GPU to one process at a time), they run in this one."""
    seed = int.from_bytes(os.urandom(4), "little")
    env = dict(os.environ, NX_TEST_SEED=str(seed), NX_TEST_DEVICE=nx.default_queue().device.filter_string)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    code = "from tests.arrays.test_interface_validation import _child_main; _child_main()"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    lines = [json.loads(s) for s in r.stdout.splitlines() if s.startswith("{")]
    if lines and "unavailable" in lines[0]:
        rng = np.random.default_rng(seed)
        return {n: _run_memory_case(n, rng) for n in _memory_cases()}, "in process: " + lines[0][
            "unavailable"
        ]
    where = f"child process (seed {seed}) exited with {r.returncode}; stderr: {r.stderr[-2000:]}"
    return {d["name"]: d for d in lines}, where


@pytest.mark.parametrize("name", list(_memory_cases()))
def test_memory_outside_the_allocation_is_refused(memory_results, name):
    results, where = memory_results
    assert name in results, f"no result for {name}: the {where}"
    res = results[name]
    _, text = _memory_cases()[name]
    if text is None:
        assert res.get("accepted") and res["shape"] == [0, 4] and not res["ptr_kept"], res
        return
    assert not res.get("accepted"), f"{name} was accepted and read: {res}"
    assert res["cls"] == "ArrayInterfaceError" and res["type_and_value_error"], res
    assert text in res["msg"] and "__sycl_usm_array_interface__" in res["msg"], res["msg"]
    assert "nothing was read" in res["msg"] or "NumPy cannot describe" in res["msg"], res["msg"]


# -- valid interfaces: numba_ext's own arrays and views round-trip without a copy --------------------

VIEWS = {
    "whole": lambda x: x,
    "rows_and_reversed_columns": lambda x: x[1:, ::-2],
    "transpose": lambda x: x.T,
    "reversed_both": lambda x: x[::-1, ::-1],
    "reversed_transpose": lambda x: x.T[::-1],
    "row": lambda x: x[2],
    "block": lambda x: x[1:3, 1:4],
    "last_element_0d": lambda x: x[-1, -1],
    "new_axis": lambda x: x[:, None, ::3],
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("usm_type", ["device", "shared", "host"])
def test_own_views_round_trip_without_copy(rng, view, usm_type):
    h, x, _ = _interface(rng, (4, 6), usm_type)
    v = VIEWS[view](x)
    w = nx.asarray(_Exporter(dict(v.__sycl_usm_array_interface__), x))
    np.testing.assert_array_equal(nx.asnumpy(w), VIEWS[view](h))
    assert w.shape == v.shape and w.strides == v.strides and w._data_ptr == v._data_ptr
    assert w.usm_type == usm_type and w.sycl_queue == x.sycl_queue  # the type the runtime reports


def test_writes_through_a_wrapped_view_reach_the_original(rng):
    h, x, _ = _interface(rng, (4, 6))
    w = nx.asarray(_Exporter(dict(x[::-1, 1::2].__sycl_usm_array_interface__), x))
    new = rng.standard_normal(w.shape).astype(np.float32)
    w[...] = new
    h[::-1, 1::2] = new
    np.testing.assert_array_equal(nx.asnumpy(x), h)


def test_explicit_strides_and_views_at_the_allocation_edges(rng):
    h, x, iface = _interface(rng)
    ptr, n = iface["data"][0], x.size
    cases = [
        (dict(strides=(4, 1), offset=None), h),
        (dict(shape=(n,), strides=(-1,), offset=n - 1), h.ravel()[::-1]),  # ends exactly at the base
        (dict(shape=(n,), strides=None, data=(ptr + x.nbytes - n * 4, False)), h.ravel()),
        (dict(shape=(1,), strides=None, data=(ptr + x.nbytes - 4, False)), h.ravel()[-1:]),  # last element
        (dict(shape=(3, 2), strides=(-4, -2), offset=n - 1), h[::-1, ::-2]),
        (dict(shape=(4, 3), strides=(1, 4), offset=np.int64(0)), h.T),
        (dict(shape=(n - 1,), strides=None, offset=-1, data=(ptr + 4, False)), h.ravel()[:-1]),
    ]
    for fields, want in cases:
        w = nx.asarray(_Exporter(_changed(iface, **fields), x))
        np.testing.assert_array_equal(nx.asnumpy(w), want, err_msg=str(fields))


def test_reversed_result_of_compiled_code_round_trips(rng):
    # such an array knows only its data pointer (its last element in memory): its interface and
    # those of its views still describe the allocation from its start, with non-negative offsets
    h = rng.standard_normal(10).astype(np.float32)
    r = nx.jit(lambda a: a[::-1])(nx.asarray(h))
    for v, want in [(r, h[::-1]), (r[::-1], h), (r[2:7:2], h[::-1][2:7:2])]:
        iface = v.__sycl_usm_array_interface__
        assert iface["offset"] >= 0, iface
        w = nx.asarray(_Exporter(dict(iface), v))
        np.testing.assert_array_equal(nx.asnumpy(w), want)
        assert w._data_ptr == v._data_ptr


def test_syclobj_context_or_an_object_giving_a_queue(rng):
    h, x, iface = _interface(rng)
    q = x.sycl_queue
    for syclobj in (q.context, x):
        w = nx.asarray(_Exporter(_changed(iface, syclobj=syclobj), x))
        np.testing.assert_array_equal(nx.asnumpy(w), h)
        assert w.sycl_queue.equivalent(q) and w._data_ptr == x._data_ptr
    q2 = nx.Queue(q.device.filter_string, context=nx.Context(q.device))  # memory of another context
    h2, x2, iface2 = _interface(rng, queue=q2)
    for syclobj in (q2, q2.context):
        w = nx.asarray(_Exporter(_changed(iface2, syclobj=syclobj), x2))
        np.testing.assert_array_equal(nx.asnumpy(w), h2)
        assert w.sycl_queue.context == q2.context and w._data_ptr == x2._data_ptr


def test_read_only_flag_is_kept(rng):
    h, x, iface = _interface(rng)
    w = nx.asarray(_Exporter(_changed(iface, data=(iface["data"][0], True)), x))
    assert not w.flags.writeable
    np.testing.assert_array_equal(nx.asnumpy(w), h)


def test_empty_arrays(rng):
    _, x, iface = _interface(rng)
    shared = nx.asarray(_Exporter(_changed(iface, shape=(0, 4), strides=None), x))
    assert shared.shape == (0, 4) and shared._data_ptr == x._data_ptr  # a pointer in an allocation: kept
    for data in [(0, False), (12345678, True)]:  # no allocation: the empty array gets its own memory
        e = nx.asarray(_Exporter(_changed(iface, shape=(4, 0), strides=(-3, 7), data=data), x))
        assert e.shape == (4, 0) and e._data_ptr not in (0, 12345678)
        assert nx.asnumpy(e).shape == (4, 0)
