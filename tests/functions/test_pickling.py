"""Pickling of ``numba_ext.jit`` functions, kernels and device functions: by reference when their
module holds them under their name (the same object back), else rebuilt from the Python function and
options, which cloudpickle carries by value, to another process too."""

import pickle
import subprocess
import sys
import textwrap

import cloudpickle
import numpy as np
import pytest

import numba_ext

from ..checks import fp_tol
from ..conftest import require_device_in_child_process
from . import _pickle_targets as targets

_CHILD = textwrap.dedent(
    """
    import pickle
    import sys

    import numpy as np

    import numba_ext

    with open(sys.argv[1], "rb") as f:
        what, obj, inputs, want, again = pickle.load(f)
    assert "tests" not in sys.modules  # the code came by value, not from the test package
    assert pickle.loads(again) is obj  # another pickle of the same object: the same rebuilt one
    args = [numba_ext.asarray(v) if isinstance(v, np.ndarray) else v for v in inputs]
    if what == "kernel":
        out = numba_ext.empty_like(args[0])
        obj[len(inputs[0])](args[0], out, *args[1:])
    else:
        out = obj(*args)
    np.testing.assert_allclose(numba_ext.asnumpy(out), want, rtol=1e-12, atol=1e-14)
    print("ok", type(obj).__name__)
    """
)


def _in_child(tmp_path, payload: bytes) -> str:
    require_device_in_child_process()
    (tmp_path / "payload.pkl").write_bytes(payload)
    (tmp_path / "child.py").write_text(_CHILD)
    out = subprocess.run(
        [sys.executable, str(tmp_path / "child.py"), str(tmp_path / "payload.pkl")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
def test_module_level_objects_pickle_by_reference(rng, dumps):
    for obj in (targets.axpy_gauss, targets.twice_plus, targets.twice):
        data = dumps(obj)
        assert len(data) < 200  # a name, not the code
        assert pickle.loads(data) is obj

    a, x, y = rng.standard_normal(), rng.standard_normal(257), rng.standard_normal(257)
    f = pickle.loads(dumps(targets.axpy_gauss))
    got = numba_ext.asnumpy(f(a, numba_ext.asarray(x), numba_ext.asarray(y)))
    np.testing.assert_allclose(got, a * x + np.exp(-y * y), **fp_tol())

    k = pickle.loads(dumps(targets.twice_plus))
    src, shift = rng.standard_normal(131), rng.standard_normal()
    dst = numba_ext.empty_like(numba_ext.asarray(src))
    k[131](numba_ext.asarray(src), dst, shift)
    np.testing.assert_allclose(numba_ext.asnumpy(dst), src * 2.0 + shift, **fp_tol())


def _rebuilt_fresh(data: bytes):
    """`data` unpickled as a process that has not seen its objects would (by-value tokens unknown)."""
    from numba_ext import _pickling

    saved = dict(_pickling._object_of)
    _pickling._object_of.clear()
    try:
        return pickle.loads(data)
    finally:
        _pickling._object_of.update(saved)


def _local_jit(scale):
    @numba_ext.jit(cache=True)
    def scaled_hypot(x, y):
        return np.sqrt(x * x + y * y) * scale  # `scale`: a closure variable

    return scaled_hypot


def _local_kernel():
    @numba_ext.func
    def cube(v):
        return v * v * v

    @numba_ext.kernel(boundscheck=True)
    def cube_minus(src, dst, shift):
        i = numba_ext.get_global_id(0)
        dst[i] = cube(src[i]) - shift

    return cube_minus


def test_a_local_jitted_function_goes_by_value_through_cloudpickle(rng, tmp_path):
    scale = rng.uniform(0.5, 2.0)
    f = _local_jit(scale)
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(f)  # the standard pickler cannot carry a local function
    data = cloudpickle.dumps(f)
    assert cloudpickle.loads(data) is f  # in the process that pickled it: the object itself
    g = _rebuilt_fresh(data)
    assert g is not f and type(g) is type(f) and g._options == {"cache": True}
    x, y = rng.standard_normal(300), rng.standard_normal(300)
    want = np.sqrt(x * x + y * y) * scale
    got = numba_ext.asnumpy(g(numba_ext.asarray(x), numba_ext.asarray(y)))
    np.testing.assert_allclose(got, want, **fp_tol())
    payload = cloudpickle.dumps(("jit", f, (x, y), want, cloudpickle.dumps(f)))
    assert "ok JitFunction" in _in_child(tmp_path, payload)


def test_a_cached_function_without_a_source_file_unpickles_without_the_disk_cache(rng):
    # cloudpickle may give a function sent by value a file name that is no file (a Dask worker):
    # cache=True then keeps the caches in memory and of device programs, where a function defined
    # so directly is refused (Numba's disk cache needs the source file)
    from numba_ext.compiler import jit_function as compiled
    from numba_ext.functions import jit_function as served

    ns: dict = {}
    exec(compile("def twice_plus(x):\n    return x * 2.0 + 1.0\n", "<dynamic-code>", "exec"), {}, ns)
    h = rng.standard_normal(50)
    for rebuild in (served._rebuild, compiled._rebuild):
        g = rebuild(ns["twice_plus"], {"cache": True})
        assert g._options == {"cache": True}  # pickled again as given
        np.testing.assert_allclose(numba_ext.asnumpy(g(numba_ext.asarray(h))), h * 2.0 + 1.0, **fp_tol())
    with pytest.raises(numba_ext.UnsupportedError, match="cache=True is not possible here"):
        numba_ext.jit(ns["twice_plus"], cache=True)


def test_a_local_kernel_goes_by_value_through_cloudpickle(rng, tmp_path):
    k = _local_kernel()
    data = cloudpickle.dumps(k)
    assert cloudpickle.loads(data) is k
    k2 = _rebuilt_fresh(data)
    assert k2 is not k and k2._boundscheck is True
    src, shift = rng.standard_normal(77), rng.standard_normal()
    want = src**3 - shift
    dst = numba_ext.empty_like(numba_ext.asarray(src))
    k2[77](numba_ext.asarray(src), dst, shift)
    np.testing.assert_allclose(numba_ext.asnumpy(dst), want, **fp_tol())
    payload = cloudpickle.dumps(("kernel", k, (src, shift), want, cloudpickle.dumps(k)))
    assert "ok Kernel" in _in_child(tmp_path, payload)
