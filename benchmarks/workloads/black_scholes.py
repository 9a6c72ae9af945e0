"""Black-Scholes call and put prices (dpbench ``black_scholes``).

dpbench uses erf for the normal CDF; NumPy has no erf (SciPy is not a dependency) and numba_ext
cannot offload it yet, so every variant uses the same tanh approximation,
Phi(x) = 0.5 + 0.5 * tanh(sqrt(2/pi) * (x + 0.044715 x^3)), written through w = x / sqrt(2).

``numba_ext_kernel`` is an explicit ``@numba_ext.kernel`` with the prange loop's body, one work-item
per option, writing both results in one launch into arrays allocated per call.
"""

import math

import numba
import numpy as np

import numba_ext
import numba_ext as nx
from harness import Variant

SIZES = {"S": {"n": 1 << 16}, "M": {"n": 1 << 20}, "L": {"n": 1 << 23}}
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


@numba.njit(parallel=True)
def black_scholes_prange(price, strike, t, rate, volatility):
    n = price.shape[0]
    call = np.empty(n)
    put = np.empty(n)
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


VARIANTS = [
    Variant("numpy", black_scholes),
    Variant("numba_parallel", black_scholes_prange),
    Variant("numba_ext_jit", numba_ext.jit(black_scholes), device=True),
    Variant("numba_ext_kernel", black_scholes_kernel, device=True),
]
