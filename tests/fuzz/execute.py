"""The child's side of a case: the objects its tokens name, and the dispatch to the family's
executor, which returns (outcome, detail). An exception escaping an executor is a bug of the fuzz
harness, reported as such (never counted as the library's)."""

from __future__ import annotations

import os
import time
import traceback
from typing import Any

import numpy as np

import numba_ext as nx

from .classify import CORRECT, RAW
from .values import Enc

_other_queue: list[nx.Queue] = []


def other_queue() -> nx.Queue:
    """A queue on the default device in a context of its own (made once)."""
    if not _other_queue:
        dev = nx.default_queue().device
        _other_queue.append(nx.Queue(dev, context=nx.Context(dev)))
    return _other_queue[0]


def host_values(dtype: str, shape: list[int], seed: int, special: bool) -> np.ndarray:
    """Deterministic values of a case's array: small integers (division by zero included), floats
    ~ N(0, 3) with NaN, infinities and -0.0 sprinkled in when `special` (real dtypes only)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dt == np.bool_:
        flat = rng.random(n) < 0.5
    elif dt.kind == "u":
        flat = rng.integers(0, 10, n).astype(dt)
    elif dt.kind == "i":
        flat = rng.integers(-5, 6, n).astype(dt)
    else:
        flat = (rng.standard_normal(n) * 3).astype(dt)
        if dt.kind == "c":
            flat = flat + 1j * (rng.standard_normal(n) * 3).astype(dt)
        if special and n and dt.kind == "f":  # complex products and quotients of inf and NaN: naive, not C99
            flat[rng.integers(0, n, 3)] = rng.choice([np.nan, np.inf, -np.inf, -0.0], 3)
    return flat.reshape(shape)


def make_array(token: Enc, want: str) -> Any:
    """The array a token names: the numba_ext array ("nx" tokens, for the call under test) or its
    NumPy copy (`want="np"`, for the oracle); "np" tokens are NumPy arrays either way."""
    shape, layout = list(token["shape"]), token["layout"]
    full = [shape[0] * 2, *shape[1:]] if layout == "step" else shape
    host = host_values(token["dtype"], full, token["seed"], token["special"])
    if layout == "F":
        host = np.asfortranarray(host)
    arr = nx.asarray(host) if token["kind"] == "nx" and want == "nx" else host
    return arr[::2] if layout == "step" else arr


def env(want: str) -> dict[str, Any]:
    """The token handlers of ``values.decode``; `want`: "nx" (the call) or "np" (the oracle)."""
    return {
        "queue": lambda t, e: nx.default_queue(),
        "device": lambda t, e: nx.default_queue().device,
        "context": lambda t, e: nx.default_queue().context,
        "other_queue": lambda t, e: other_queue(),
        "array": lambda t, e: make_array(t, want),
        "type": lambda t, e: {
            "int": int,
            "float": float,
            "complex": complex,
            "bool": bool,
            "object": object,
            "str": str,
        }[t["v"]],
    }


def run(family: str, case: Any) -> tuple[str, str]:
    from .exec_compiled import run_eager, run_jit, run_launch
    from .exec_data import run_creation, run_interface, run_selector
    from .exec_linalg import run_linalg

    executors = {
        "selectors": run_selector,
        "interfaces": run_interface,
        "creation": run_creation,
        "launches": run_launch,
        "jit": run_jit,
        "eager": run_eager,
        "linalg": run_linalg,
    }
    if family == "_selftest":  # the harness's own test: a case that crashes, hangs or passes
        return _selftest(case)
    try:
        return executors[family](case)
    except Exception:  # a bug of the harness (an executor must catch what the library raises)
        return RAW, "fuzz harness error:\n" + traceback.format_exc()[-2000:]


def _selftest(case: str) -> tuple[str, str]:
    if case == "crash":
        os.abort()
    if case == "hang":
        time.sleep(3600)
    return CORRECT, f"pid {os.getpid()}"
