"""Eager elementwise operations, ``np.where``, ``np.clip``, conversions, the direct reductions,
products and scans (of real, bool and complex data) build their kernels from the kernel IR: a new
process that only runs them never imports Numba, and computes NumPy's values. The operations that
call jitted helpers (``np.where`` of complex values)
import the compiler layer on their first call and still compute NumPy's values after the Numba-free
ones ran."""

import os
import subprocess
import sys

from ..functions._children import kernels_compiled_in_child, numba_free_child

_CHECK = """
rng = np.random.default_rng({seed})
h = rng.standard_normal((7, 5))
g = rng.standard_normal((1, 5)).astype(np.float32)
i = rng.integers(-9, 9, (7, 5)).astype(np.int32)
e = rng.standard_normal(11).astype(np.float16)
x, y, k = (numba_ext.asarray(v) for v in (h, g, i))
close = np.testing.assert_allclose
close(numba_ext.asnumpy(x + y), h + g, rtol=1e-6)  # float64 with float32, broadcast
close(numba_ext.asnumpy(np.sqrt(np.abs(x)) * 2.5 - 1), np.sqrt(np.abs(h)) * 2.5 - 1, rtol=1e-12)
np.testing.assert_array_equal(numba_ext.asnumpy(k // 3 + (k > 0)), i // 3 + (i > 0))
np.testing.assert_array_equal(numba_ext.asnumpy(x.T < 0.25), h.T < 0.25)
got = x[::2] * k[::2]
assert got.dtype == (h[::2] * i[::2]).dtype
close(numba_ext.asnumpy(got), h[::2] * i[::2], rtol=1e-12)
if numba_ext.default_queue().device.has_aspect_fp16:  # NumPy's float16 loops (not on every GPU)
    f = numba_ext.asarray(e)
    half = f + f * np.float16(0.5)
    assert half.dtype == np.float16
    np.testing.assert_array_equal(numba_ext.asnumpy(half), e + e * np.float16(0.5))
close(numba_ext.asnumpy(x.astype(np.float32)), h.astype(np.float32))
close(float(x.sum()), h.sum(), rtol=1e-12)
close(numba_ext.asnumpy(x.mean(axis=0)), h.mean(axis=0), rtol=1e-12)
assert int(k.max()) == i.max() and int(k.min()) == i.min()
np.testing.assert_array_equal(numba_ext.asnumpy(k.sum(axis=1)), i.sum(axis=1))
np.testing.assert_array_equal(numba_ext.asnumpy(np.where(x > 0, x, y)), np.where(h > 0, h, g))
np.testing.assert_array_equal(numba_ext.asnumpy(np.clip(k, -3, 4)), np.clip(i, -3, 4))
assert bool((k > 0).any()) == (i > 0).any() and bool(x.all()) == h.all()
close(numba_ext.asnumpy(x @ x.T), h @ h.T, rtol=1e-12)
assert int(k.argmin()) == int(i.argmin())
np.testing.assert_array_equal(numba_ext.asnumpy(x.argmax(axis=0)), h.argmax(axis=0))
np.testing.assert_array_equal(numba_ext.asnumpy(np.cumsum(k.T)), np.cumsum(i.T))
close(numba_ext.asnumpy(np.cumprod(x[::2])), np.cumprod(h[::2]), rtol=1e-12)
c = h[:, :2] + 1j * h[:, 2:4]
z = numba_ext.asarray(c)
close(complex(z.sum()), c.sum(), rtol=1e-12)
close(numba_ext.asnumpy(z.mean(axis=1)), c.mean(axis=1), rtol=1e-12)
close(numba_ext.asnumpy(z.T.prod(axis=0)), c.T.prod(axis=0), rtol=1e-12)
close(numba_ext.asnumpy(np.cumsum(z)), np.cumsum(c), rtol=1e-12)
close(numba_ext.asnumpy(np.cumprod(z, axis=0)), np.cumprod(c, axis=0), rtol=1e-12)
"""

_LATER = """
close(numba_ext.asnumpy(np.where(z.real > 0, z, 0)), np.where(c.real > 0, c, 0), rtol=1e-12)
assert "numba" in sys.modules
"""


def test_eager_operations_never_import_numba(tmp_path):
    report = '\nprint("generated", numba_ext._core.program_cache_info()["code_misses"])'
    child = numba_free_child(tmp_path, "unused", "", _CHECK.format(seed=11) + report)
    assert kernels_compiled_in_child(child, tmp_path / "cache") > 0
    # a second process takes every kernel's device code from the disk: nothing generated
    env = {**os.environ, "NUMBA_EXT_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, str(child)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "generated 0\n" in out.stdout, out.stdout


def test_helpers_import_the_compiler_after_numba_free_operations(tmp_path):
    child = tmp_path / "child.py"
    imports = "import sys\nimport numpy as np\nimport numba_ext\n"
    child.write_text(imports + _CHECK.format(seed=12) + _LATER + "print(0)\n")
    assert kernels_compiled_in_child(child, tmp_path / "cache") == 0
