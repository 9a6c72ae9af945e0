"""The NumPy sources that several variants of a workload share (NumPy itself, ``@numba_ext.jit``,
dpnp and CuPy with ``np`` bound to their module), in a module that imports only NumPy: a process can
load them without Numba (``first_call_probe.py`` measures a first call that way)."""

import math

import numpy as np

C1, C3 = 0.7978845608 * math.sqrt(2.0), 0.044715 * 2.0  # Phi in terms of w = x / sqrt(2)


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


def l2_norm(a):
    return np.sqrt(np.sum(np.square(a), axis=1))


def laplace(u):
    # a five-point stencil through slices (views): served from the source by @numba_ext.jit
    return u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]


def standardize(x):
    # reductions over every element feeding array expressions: served from the source
    d = x - np.mean(x)
    return d / np.sqrt(np.mean(d * d))
