"""Case values as JSON: plain JSON for ints, floats (NaN and infinities included), strings, None,
bools, lists and string-keyed dicts; ``{"$": ...}`` tokens for the rest (tuples, NumPy scalars,
bytes, an ``object()``, the default queue and device, a queue in another context). Cases travel to
the child process and to the file of failing cases in this form; ``decode`` runs in the child."""

from __future__ import annotations

from typing import Any

# a token: a dict with the key "$"
Enc = Any


def tup(*items: Enc) -> Enc:
    return {"$": "tuple", "v": list(items)}


def npscalar(dtype: str, v: Enc) -> Enc:
    return {"$": "np", "t": dtype, "v": v}


def cplx(re: float, im: float) -> Enc:
    return {"$": "complex", "re": re, "im": im}


def bytes_(s: str) -> Enc:
    return {"$": "bytes", "v": s}


OBJ: Enc = {"$": "object"}
QUEUE: Enc = {"$": "queue"}
DEVICE: Enc = {"$": "device"}
CONTEXT: Enc = {"$": "context"}
OTHER_QUEUE: Enc = {"$": "other_queue"}  # a queue on the default device in a new context


def decode(v: Enc, env: dict[str, Any]) -> Any:
    """The Python value of `v`. `env` maps the other tokens' names ("queue", "device", "array",
    ...) to functions of the token and `env` that make their objects (in the child)."""
    if isinstance(v, list):
        return [decode(x, env) for x in v]
    if not isinstance(v, dict):
        return v
    kind = v.get("$")
    if kind is None:
        return {k: decode(x, env) for k, x in v.items()}
    if kind == "tuple":
        return tuple(decode(x, env) for x in v["v"])
    if kind == "np":
        import numpy as np  # the child imports NumPy anyway; the generators need not

        return np.dtype(v["t"]).type(decode(v["v"], env))
    if kind == "complex":
        return complex(v["re"], v["im"])
    if kind == "bytes":
        return v["v"].encode("utf-8", "surrogatepass")
    if kind == "object":
        return object()
    return env[kind](v, env)
