"""Black-Scholes call and put prices (dpbench ``black_scholes``).

dpbench uses erf for the normal CDF. NumPy has no erf (SciPy is not a dependency) and neither has
dpnp, so every variant uses the same tanh approximation (numba_ext.erf exists now, but changing only
its variants would compare different arithmetic):
Phi(x) = 0.5 + 0.5 * tanh(sqrt(2/pi) * (x + 0.044715 x^3)), written through w = x / sqrt(2).

Variants: ``numpy`` and ``numba_ext_jit`` run the same array-expression source (so do ``dpnp`` and
``cupy``, with ``np`` bound to their module); ``numba_parallel`` and ``numba_ext_prange`` run the same
prange loop (``numba_ext_prange`` allocates its results with ``numba_ext.empty`` inside the jitted
function, on the inputs' queue); ``numba_ext_kernel`` is an explicit ``@numba_ext.kernel`` with the
prange loop's body, one work-item per option, writing both results in one launch into arrays allocated
per call; ``numba_ext_kernel_item`` is that kernel in numba-dpex's item style (an ``Item`` argument,
launched with ``call_kernel`` over a ``Range``); ``numba_cuda`` is the same kernel body under
``numba.cuda.jit``. ``cupy_fused`` is that body in CUDA C++ as one ``cupy.ElementwiseKernel`` (call and
put in one pass, results allocated by CuPy per call); ``cupy_fuse`` is the NumPy source compiled by
``cupy.fuse`` (one kernel, CuPy's own fusion of the ufunc calls). The plain ``cupy`` variant runs one
kernel per ufunc call.

Preset M is 2^22 options, the size of the performance goals in RESULTS.md.
"""

import math

import numba
import numpy as np
from harness import Variant, backend_module, eager_variant, kapi, namespace_variant, nx, with_globals

from workloads.expressions import C1, C3, black_scholes

SIZES = {"S": {"n": 1 << 16}, "M": {"n": 1 << 22}, "L": {"n": 1 << 23}}
RATE, VOLATILITY = 0.1, 0.2


def make_inputs(rng, n):
    price = rng.uniform(10.0, 50.0, n)
    strike = rng.uniform(10.0, 50.0, n)
    t = rng.uniform(1.0, 2.0, n)
    return price, strike, t, RATE, VOLATILITY


reference = black_scholes


def BYTES(n):
    return 5 * 8 * n  # three float64 inputs, two outputs


empty = np.empty  # numba_ext_prange binds ``empty`` to numba_ext.empty (device memory, inputs' queue)


def _black_scholes_prange(price, strike, t, rate, volatility):
    n = price.shape[0]
    call = empty(n)
    put = empty(n)
    mr = -rate
    sig_sig_two = volatility * volatility * 2.0
    for i in numba.prange(n):
        a = math.log(price[i] / strike[i])
        b = t[i] * mr
        z = t[i] * sig_sig_two
        c = 0.25 * z
        y = 1.0 / math.sqrt(z)
        w1 = (a - b + c) * y
        w2 = (a - b - c) * y
        d1 = 0.5 + 0.5 * math.tanh(C1 * (w1 + C3 * w1 * w1 * w1))
        d2 = 0.5 + 0.5 * math.tanh(C1 * (w2 + C3 * w2 * w2 * w2))
        se = math.exp(b) * strike[i]
        call[i] = price[i] * d1 - se * d2
        put[i] = call[i] - price[i] + se
    return call, put


black_scholes_prange = numba.njit(parallel=True)(_black_scholes_prange)
black_scholes_nx_prange = nx.jit(with_globals(_black_scholes_prange, empty=nx.empty))


@nx.kernel
def _black_scholes_kernel(price, strike, t, rate, volatility, call, put):
    i = nx.get_global_id(0)
    mr = -rate
    sig_sig_two = volatility * volatility * 2.0
    a = math.log(price[i] / strike[i])
    b = t[i] * mr
    z = t[i] * sig_sig_two
    c = 0.25 * z
    y = 1.0 / math.sqrt(z)
    w1 = (a - b + c) * y
    w2 = (a - b - c) * y
    d1 = 0.5 + 0.5 * math.tanh(C1 * (w1 + C3 * w1 * w1 * w1))
    d2 = 0.5 + 0.5 * math.tanh(C1 * (w2 + C3 * w2 * w2 * w2))
    se = math.exp(b) * strike[i]
    cv = price[i] * d1 - se * d2
    call[i] = cv
    put[i] = cv - price[i] + se


def black_scholes_kernel(price, strike, t, rate, volatility, kern=_black_scholes_kernel):
    n, q = price.shape[0], price.sycl_queue
    call = nx.empty(n, dtype=price.dtype, sycl_queue=q)
    put = nx.empty(n, dtype=price.dtype, sycl_queue=q)
    kern[n](price, strike, t, rate, volatility, call, put)
    return call, put


# the same kernel and prange loop with every array access bounds-checked (the cost of the checks)
_black_scholes_kernel_bc = nx.kernel(boundscheck=True)(_black_scholes_kernel.py_func)
black_scholes_nx_prange_bc = nx.jit(with_globals(_black_scholes_prange, empty=nx.empty), boundscheck=True)


def black_scholes_kernel_bc(price, strike, t, rate, volatility):
    return black_scholes_kernel(price, strike, t, rate, volatility, _black_scholes_kernel_bc)


@nx.kernel
def _black_scholes_item(item: kapi.Item, price, strike, t, rate, volatility, call, put):
    i = item.get_id(0)
    mr = -rate
    sig_sig_two = volatility * volatility * 2.0
    a = math.log(price[i] / strike[i])
    b = t[i] * mr
    z = t[i] * sig_sig_two
    c = 0.25 * z
    y = 1.0 / math.sqrt(z)
    w1 = (a - b + c) * y
    w2 = (a - b - c) * y
    d1 = 0.5 + 0.5 * math.tanh(C1 * (w1 + C3 * w1 * w1 * w1))
    d2 = 0.5 + 0.5 * math.tanh(C1 * (w2 + C3 * w2 * w2 * w2))
    se = math.exp(b) * strike[i]
    cv = price[i] * d1 - se * d2
    call[i] = cv
    put[i] = cv - price[i] + se


def black_scholes_kernel_item(price, strike, t, rate, volatility):
    n, q = price.shape[0], price.sycl_queue
    call = nx.empty(n, dtype=price.dtype, sycl_queue=q)
    put = nx.empty(n, dtype=price.dtype, sycl_queue=q)
    nx.call_kernel(_black_scholes_item, kapi.Range(n), price, strike, t, rate, volatility, call, put)
    return call, put


def make_cuda(*args):
    cuda = backend_module("numba_cuda")

    @cuda.jit
    def kern(price, strike, t, rate, volatility, call, put):
        i = cuda.grid(1)
        if i >= price.shape[0]:
            return
        mr = -rate
        sig_sig_two = volatility * volatility * 2.0
        a = math.log(price[i] / strike[i])
        b = t[i] * mr
        z = t[i] * sig_sig_two
        c = 0.25 * z
        y = 1.0 / math.sqrt(z)
        w1 = (a - b + c) * y
        w2 = (a - b - c) * y
        d1 = 0.5 + 0.5 * math.tanh(C1 * (w1 + C3 * w1 * w1 * w1))
        d2 = 0.5 + 0.5 * math.tanh(C1 * (w2 + C3 * w2 * w2 * w2))
        se = math.exp(b) * strike[i]
        cv = price[i] * d1 - se * d2
        call[i] = cv
        put[i] = cv - price[i] + se

    def run(price, strike, t, rate, volatility):
        n = price.shape[0]
        call, put = cuda.device_array(n), cuda.device_array(n)
        kern[(n + 255) // 256, 256](price, strike, t, rate, volatility, call, put)
        return call, put

    return run


# The kernel body for cupy.ElementwiseKernel: the same arithmetic, in the same order, as the kernels above.
_CUPY_BODY = f"""
const double mr = -rate;
const double sig_sig_two = volatility * volatility * 2.0;
const double a = log(price / strike);
const double b = t * mr;
const double z = t * sig_sig_two;
const double c = 0.25 * z;
const double y = 1.0 / sqrt(z);
const double w1 = (a - b + c) * y;
const double w2 = (a - b - c) * y;
const double d1 = 0.5 + 0.5 * tanh({C1!r} * (w1 + {C3!r} * w1 * w1 * w1));
const double d2 = 0.5 + 0.5 * tanh({C1!r} * (w2 + {C3!r} * w2 * w2 * w2));
const double se = exp(b) * strike;
const double cv = price * d1 - se * d2;
call = cv;
put = cv - price + se;
"""


def make_cupy_fused(*args):
    cp = backend_module("cupy")
    kern = cp.ElementwiseKernel(
        "float64 price, float64 strike, float64 t, float64 rate, float64 volatility",
        "float64 call, float64 put",
        _CUPY_BODY,
        "numba_ext_bench_black_scholes",
    )

    def run(price, strike, t, rate, volatility):
        return kern(price, strike, t, rate, volatility)  # (call, put), allocated by CuPy

    return run


def make_cupy_fuse(*args):
    cp = backend_module("cupy")
    return cp.fuse(kernel_name="numba_ext_bench_black_scholes_fuse")(with_globals(black_scholes, np=cp))


VARIANTS = [
    Variant("numpy", black_scholes),
    eager_variant(black_scholes),
    Variant("numba_parallel", black_scholes_prange),
    Variant("numba_ext_jit", nx.jit(black_scholes), backend="numba_ext"),
    Variant("numba_ext_prange", black_scholes_nx_prange, backend="numba_ext"),
    Variant("numba_ext_kernel", black_scholes_kernel, backend="numba_ext"),
    Variant(
        "numba_ext_kernel_item",
        black_scholes_kernel_item,
        backend="numba_ext",
        note="the numba_ext_kernel body in item style: call_kernel over a Range",
    ),
    Variant(
        "numba_ext_prange_bc",
        black_scholes_nx_prange_bc,
        backend="numba_ext",
        note="numba_ext_prange with boundscheck=True",
    ),
    Variant(
        "numba_ext_kernel_bc",
        black_scholes_kernel_bc,
        backend="numba_ext",
        note="numba_ext_kernel with boundscheck=True",
    ),
    namespace_variant("dpnp", black_scholes, "dpnp"),
    namespace_variant("cupy", black_scholes, "cupy"),
    Variant(
        "cupy_fused",
        backend="cupy",
        make=make_cupy_fused,
        note="one cupy.ElementwiseKernel: the kernel body in CUDA C++, call and put in one pass",
    ),
    Variant(
        "cupy_fuse",
        backend="cupy",
        make=make_cupy_fuse,
        note="the NumPy source under cupy.fuse (np = cupy): one fused kernel",
    ),
    Variant(
        "numba_cuda",
        backend="numba_cuda",
        make=make_cuda,
        note="the kernel body under numba.cuda.jit, 256 threads per block",
    ),
]
