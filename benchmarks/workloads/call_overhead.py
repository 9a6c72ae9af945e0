"""Call overhead: ``a + b`` on 16 elements, cached calls. Each timed sample makes ``CALLS`` calls
(then synchronises once); times are per call. Every variant except ``bare_launch`` allocates its result
per call.

* ``numpy``, ``numba_njit`` (a cached ``@numba.njit`` call on NumPy arrays): host references;
* ``numba_ext_jit``: the cached ``@numba_ext.jit`` call (compute-follows-data check, typing of the
  arguments, allocation of the result, launch, wait): the overhead goal's subject;
* ``numba_ext_jit_source``: the same function served from its source (a call of the common case
  runs in the extension's native runner; a Python wrapper keeps the harness from making the switch to
  Numba's code, which the function makes itself only at its ``NUMBA_EXT_HOT_CALLS``-th call);
* ``numba_ext_jit_source_strided``: the same on strided views (every other element of arrays twice
  as long, the same values): the native runner passes their strides to the kernel for that layout;
* ``bare_launch``: "bare launch (Python->Rust enqueue+wait)": the very kernel ``numba_ext_jit``
  compiled, launched through ``kernel.launch(queue, slots)`` (the Rust extension sets the arguments,
  enqueues and waits, GIL released) into one output allocated once: no checks, no typing, no allocation.
  This is the floor the goal compares with;
* ``numba_ext_prange``: the same sum as a prange loop under ``@numba_ext.jit`` (result from
  ``numba_ext.empty``);
* ``numba_ext_eager``: ``a + b`` on numba_ext arrays outside any jit function (eager kernel);
* ``numba_njit_on_usm``: plain ``@numba.njit`` on numba_ext arrays (the offload rewrite runs in the
  default pipeline);
* ``dpnp``: dpnp's ``a + b`` on the same OpenCL CPU device (``setup_dpnp_env.sh``);
* ``cupy``, ``numba_cuda`` (a kernel into ``cuda.device_array``): NVIDIA GPUs.
"""

import numba
import numpy as np
from harness import Variant, backend_module, nx

SIZES = {preset: {"n": 16} for preset in ("S", "M", "L")}
CALLS = 1000


def make_inputs(rng, n):
    return rng.random(n), rng.random(n)


def add(a, b):
    return a + b


reference = add


def _add_prange(a, b):
    out = nx.empty(a.shape[0])
    for i in numba.prange(a.shape[0]):
        out[i] = a[i] + b[i]
    return out


add_jit = nx.jit(add)


def make_source(a, b):
    """A function of its own, served from its source for the whole run."""
    f = nx.jit(add)

    def source(a, b):
        return f(a, b)

    return source


def make_source_strided(a, b):
    """As ``make_source``, called with strided views holding the same values as `a` and `b`."""
    f = nx.jit(add)
    wide = [nx.asarray(np.repeat(nx.asnumpy(x), 2), sycl_queue=x.sycl_queue) for x in (a, b)]
    va, vb = (w[::2] for w in wide)

    def source_strided(a, b):
        return f(va, vb)

    return source_strided


def make_bare_launch(a, b):
    """Compile through the jit function, take its one kernel and launch it directly."""
    add_jit(a, b)
    kernels = add_jit.inspect_kernels(a, b)
    if len(kernels) != 1:
        raise RuntimeError(f"expected one kernel for a + b, got {len(kernels)}")
    k, n = kernels[0], a.shape[0]
    out = nx.empty(n, dtype=a.dtype, sycl_queue=a.sycl_queue)
    q = a.sycl_queue
    slots = [a._data_ptr, b._data_ptr, out._data_ptr, n, n]  # inputs, output, shape, element count
    if k.num_slots != len(slots):
        raise RuntimeError(f"kernel has {k.num_slots} slots, expected {len(slots)}")

    def bare_launch(a, b):
        k.launch(q, slots)
        return out

    return bare_launch


def make_cuda(*args):
    cuda = backend_module("numba_cuda")

    @cuda.jit
    def kern(a, b, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i] + b[i]

    def run(a, b):
        out = cuda.device_array(a.shape[0])
        kern[1, 32](a, b, out)
        return out

    return run


VARIANTS = [
    Variant("numpy", add),
    Variant("numba_njit", numba.njit(add)),
    Variant("numba_ext_jit", add_jit, backend="numba_ext"),
    Variant(
        "numba_ext_jit_source",
        backend="numba_ext",
        make=make_source,
        note="numba_ext.jit served from the source (native runner), through a Python wrapper",
    ),
    Variant(
        "numba_ext_jit_source_strided",
        backend="numba_ext",
        make=make_source_strided,
        note="numba_ext.jit served from the source on strided views (native runner)",
    ),
    Variant(
        "bare_launch",
        backend="numba_ext",
        make=make_bare_launch,
        note="bare launch (Python->Rust enqueue+wait): numba_ext_jit's kernel via kernel.launch, "
        "output allocated once",
    ),
    Variant("numba_ext_prange", nx.jit(_add_prange), backend="numba_ext"),
    Variant("numba_ext_eager", add, backend="numba_ext", note="eager a + b on numba_ext arrays (no jit)"),
    Variant(
        "numba_njit_on_usm", numba.njit(add), backend="numba_ext", note="plain numba.njit on numba_ext arrays"
    ),
    Variant("dpnp", add, backend="dpnp", note="dpnp a + b"),
    Variant("cupy", add, backend="cupy", note="cupy a + b"),
    Variant(
        "numba_cuda",
        backend="numba_cuda",
        make=make_cuda,
        note="numba.cuda.jit kernel into a fresh cuda.device_array per call",
    ),
]
