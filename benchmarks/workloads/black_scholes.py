"""Black-Scholes call and put prices (dpbench ``black_scholes``).

dpbench uses erf for the normal CDF. NumPy has no erf (SciPy is not a dependency) and neither has
dpnp, so every variant uses the same tanh approximation (numba_ext.erf exists now, but changing only
its variants would compare different arithmetic):
Phi(x) = 0.5 + 0.5 * tanh(sqrt(2/pi) * (x + 0.044715 x^3)), written through w = x / sqrt(2).

Variants: ``numpy`` and ``numba_ext_jit`` run the same array-expression source (so do ``dpnp`` and
``cupy``, with ``np`` bound to their module); ``numba_parallel`` and ``numba_ext_prange`` run the same
prange loop (``numba_ext_prange`` allocates its results with ``numba_ext.empty`` inside the jitted
function, on the inputs' queue); ``numba_ext_kernel`` is an explicit ``@numba_ext.kernel`` with the
prange loop's body, one work-item per option, writing both results in one launch into arrays
allocated per call; ``numba_cuda`` is the same kernel body under ``numba.cuda.jit``.

Preset M is 2^22 options, the size of the performance goals in RESULTS.md.
"""

import math

import numba
import numpy as np

from harness import Variant, backend_module, namespace_variant, nx, with_globals

SIZES = {"S": {"n": 1 << 16}, "M": {"n": 1 << 22}, "L": {"n": 1 << 23}}
RATE, VOLATILITY = 0.1, 0.2
C1, C3 = 0.7978845608 * math.sqrt(2.0), 0.044715 * 2.0  # Phi in terms of w = x / sqrt(2)


def make_inputs(rng, n):
    price = rng.uniform(10.0, 50.0, n)
    strike = rng.uniform(10.0, 50.0, n)
    t = rng.uniform(1.0, 2.0, n)
    return price, strike, t, RATE, VOLATILITY


def black_scholes(price, strike, t, rate, volatility):
    # array expressions only: the same source serves NumPy and @numba_ext.jit
    mr = -rate
    sig_sig_two = volatility * volatility * 2.0
    a = np.log(price / strike)
    b = t * mr
    z = t * sig_sig_two
    c = 0.25 * z
    y = 1.0 / np.sqrt(z)
    w1 = (a - b + c) * y
    w2 = (a - b - c) * y
    d1 = 0.5 + 0.5 * np.tanh(C1 * (w1 + C3 * w1 * w1 * w1))
    d2 = 0.5 + 0.5 * np.tanh(C1 * (w2 + C3 * w2 * w2 * w2))
    se = np.exp(b) * strike
    call = price * d1 - se * d2
    put = call - price + se
    return call, put


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


def black_scholes_kernel(price, strike, t, rate, volatility):
    n, q = price.shape[0], price.sycl_queue
    call = nx.empty(n, dtype=price.dtype, sycl_queue=q)
    put = nx.empty(n, dtype=price.dtype, sycl_queue=q)
    _black_scholes_kernel[n](price, strike, t, rate, volatility, call, put)
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


VARIANTS = [
    Variant("numpy", black_scholes),
    Variant("numba_parallel", black_scholes_prange),
    Variant("numba_ext_jit", nx.jit(black_scholes), backend="numba_ext"),
    Variant("numba_ext_prange", black_scholes_nx_prange, backend="numba_ext"),
    Variant("numba_ext_kernel", black_scholes_kernel, backend="numba_ext"),
    namespace_variant("dpnp", black_scholes, "dpnp"),
    namespace_variant("cupy", black_scholes, "cupy"),
    Variant("numba_cuda", backend="numba_cuda", make=make_cuda,
            note="the kernel body under numba.cuda.jit, 256 threads per block"),
]
