"""The case generators of the families that compile device code: launches, jit arguments and eager
operations (see ``cases.py`` for the form of a case and the profiles)."""

from __future__ import annotations

from typing import Any

from .cases import JUNK, NAN, SHAPES, array
from .choosers import Chooser
from .values import OBJ, QUEUE, Enc, bytes_, cplx, npscalar, tup

# -- launches ---------------------------------------------------------------------------------------
GOOD_EXTENTS = [0, 1, 2, 3, 4, 5, 8, 16, 64]
#: bad or odd extents; the huge ones are bad in any combination with an extent above 1 (more than
#: 2**63 - 1 work-items), so a launch the rules accept never runs for hours
ODD_EXTENTS: list[Enc] = [
    -1,
    -8,
    2**63,
    2**64,
    2**70,
    4.0,
    4.5,
    NAN,
    "8",
    None,
    True,
    False,
    npscalar("int64", 4),
    npscalar("uint8", 2),
    npscalar("float32", 4.0),
    [4],
    tup(),
]


def _extent(c: Chooser) -> Enc:
    return c.choice(ODD_EXTENTS) if c.boolean(0.15) else c.choice(GOOD_EXTENTS)


def _dims(c: Chooser) -> Enc:
    n = c.choice([1, 1, 2, 3, 0, 4])
    dims = [_extent(c) for _ in range(n)]
    form = c.integer(0, 4)
    if form == 0 and n == 1:
        return dims[0]
    if form == 1:
        return dims
    if form == 2:
        return {"$": "Range", "v": dims}
    return tup(*dims)


def _local_for(c: Chooser, g: Enc) -> Enc:
    """Usually a local range that divides `g` (or one of the same rank that does not)."""
    gd = (
        g["v"]
        if isinstance(g, dict) and g.get("$") in ("tuple", "Range")
        else g
        if isinstance(g, list)
        else [g]
    )
    out = []
    for d in gd:
        if type(d) is int and d > 0 and c.boolean(0.8):
            out.append(c.choice([k for k in (1, 2, 4, 8, d) if d % k == 0]))
        else:
            out.append(_extent(c) if c.boolean(0.5) else c.choice([1, 3, 5, 8192, 2**31, 0]))
    return tup(*out) if len(out) != 1 or c.boolean(0.5) else out[0]


def launch(c: Chooser, profile: str) -> Enc:
    form = c.integer(0, 5)
    g = _dims(c)
    if form <= 1:
        cfg: Enc = g
    elif form == 2:
        cfg = {"$": "NdRange", "g": g, "l": _local_for(c, g)}
    elif form == 3:
        cfg = tup(g, _local_for(c, g))
    elif form == 4:
        # three items, the last not an extent: no such form (with a third extent, two ints and a
        # local size such as 2**31 would be a valid 3-D range too big to run)
        cfg = tup(g, _local_for(c, g), c.choice([None, "1", 1.0]))
    else:
        cfg = c.choice([*JUNK, {"$": "Range", "v": []}, {"$": "NdRange", "g": 8, "l": tup(2, 2)}])
    return {
        "cfg": cfg,
        "spelling": c.choice(["getitem", "getitem", "call_kernel"]),
        "dtype": c.choice(["int64", "int32", "float64"] if profile == "full" else ["int64"]),
    }


# -- jit arguments ----------------------------------------------------------------------------------
JIT_FUNCTIONS = {"add": 2, "mul_sum": 2, "neg": 1, "where_pos": 1, "row_sum": 2}
JIT_SHAPES = [[], [1], [5], [4], [3, 4], [1, 4], [3, 1]]


def _jit_arg(c: Chooser, profile: str) -> Enc:
    form = c.integer(0, 9)
    if form <= 4:
        return array(c, profile, shapes=JIT_SHAPES if profile == "full" else [[5], [3, 4]], compiled=True)
    if form == 5:
        return array(c, profile, "np", shapes=[[5], [4]], compiled=True)
    if form <= 7:
        return c.choice([2, -3, 2.5, True, cplx(1, 2), 2**70, npscalar("float32", 1.5), npscalar("int8", 3)])
    return c.choice([None, "s", [1, 2], tup(1, 2), OBJ, QUEUE, bytes_("x"), NAN])


def jit_call(c: Chooser, profile: str) -> Enc:
    fn = c.choice(list(JIT_FUNCTIONS))
    n = JIT_FUNCTIONS[fn] if c.boolean(0.9) else c.choice([0, 1, 3])
    return {"fn": fn, "args": [_jit_arg(c, profile) for _ in range(n)]}


# -- eager operations -------------------------------------------------------------------------------
BINARY = [
    "add",
    "subtract",
    "multiply",
    "true_divide",
    "floor_divide",
    "remainder",
    "power",
    "minimum",
    "maximum",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
    "less",
    "equal",
    "greater_equal",
    "logical_and",
    "arctan2",
    "hypot",
    "fmod",
    "copysign",
]
UNARY = [
    "negative",
    "absolute",
    "sqrt",
    "exp",
    "log",
    "sin",
    "floor",
    "invert",
    "logical_not",
    "square",
    "sign",
    "isnan",
    "isinf",
    "isfinite",
    "arcsin",
    "tanh",
    "expm1",
    "conjugate",
    "reciprocal",
    "rint",
]
REDUCTIONS = ["sum", "prod", "min", "max", "mean", "argmin", "argmax", "any", "all"]
QUICK_BINARY = ["add", "multiply", "true_divide", "floor_divide", "power", "less", "bitwise_and", "maximum"]
QUICK_UNARY = ["negative", "sqrt", "absolute", "invert"]
QUICK_REDUCTIONS = ["sum", "max", "argmin"]


def _operand(c: Chooser, profile: str) -> Enc:
    form = c.integer(0, 9)
    shapes = SHAPES if profile == "full" else [[], [4], [3, 4], [3, 1]]
    if form <= 5:
        return array(c, profile, shapes=shapes, compiled=True)
    if form <= 7:
        return c.choice(
            [
                0,
                2,
                -3,
                2.5,
                -0.0,
                NAN,
                True,
                cplx(1, 2),
                2**70,
                -(2**63),
                255,
                npscalar("float32", 1.5),
                npscalar("int8", -3),
                npscalar("uint8", 200),
                npscalar("bool", True),
            ]
        )
    if form == 8:
        return array(c, profile, "np", shapes=[[4], [3, 4]], compiled=True)
    return c.choice([None, "s", [1, 2, 3, 4], tup(1, 2), OBJ, bytes_("x")])


#: NumPy functions the eager library computes, with the keywords drawn for them
QUANTILE_METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "hazen", "weibull", "inverted_cdf"]
FUNCTIONS: dict[str, dict[str, list[Any]]] = {
    "var": {"axis": [None, 0, -1, tup(0, 1)], "ddof": [0, 1, 5], "keepdims": [True, False]},
    "std": {"axis": [None, 1, tup(0, -1)], "ddof": [0, 1]},
    "round": {"decimals": [0, 1, 3, -1]},
    "diff": {"n": [0, 1, 2, -1], "axis": [0, -1, 2]},
    "roll": {"shift": [1, -3, 7, tup(1, 2)], "axis": [None, 0, -1, tup(0, 1)]},
    "trace": {"offset": [0, 1, -1]},
    "count_nonzero": {"axis": [None, 0, -1]},
    "ravel": {"order": ["C", "F", "A"]},
    "squeeze": {"axis": [None, 0, 1]},
    "flipud": {},
    "rot90": {"k": [1, 2, -1]},
    "atleast_2d": {},
    "concatenate": {"axis": [0, 1, -1, None]},
    "stack": {"axis": [0, 1, -1]},
    "isclose": {"rtol": [1e-5, 0.5], "equal_nan": [True, False]},
    "array_equal": {"equal_nan": [True, False]},
    "sort": {"axis": [None, 0, -1, 2], "kind": ["stable", None]},
    "argsort": {"axis": [None, 0, -1, 1.0]},
    "searchsorted": {"side": ["left", "right", "middle"]},
    "take": {"axis": [None, 0, -1, 3], "mode": ["raise", "wrap", "clip"]},
    "take_along_axis": {"axis": [None, 0, -1]},
    "nonzero": {},
    "flatnonzero": {},
    "argwhere": {},
    "extract": {},
    "repeat": {"axis": [None, 0, -1]},
    "mask": {},
    "add_at": {},
    "unique": {"equal_nan": [True, False]},
    "nansum": {"axis": [None, 0, -1, tup(0, 1)], "keepdims": [True, False]},
    "nanmean": {"axis": [None, 0, -1]},
    "nanmax": {"axis": [None, 1, -1], "keepdims": [True, False]},
    "nanmin": {"axis": [None, 0]},
    "nanvar": {"axis": [None, 0, -1], "ddof": [0, 1, 4]},
    "nanstd": {"axis": [None, -1]},
    "nanprod": {"axis": [None, 0]},
    "nancumsum": {"axis": [None, 0, -1]},
    "nanargmax": {"axis": [None, 0, -1]},
    "tensordot": {"axes": [0, 1, 2, 3, -1, tup(tup(0), tup(0)), tup(tup(0, 1), tup(1, 0))]},
    "median": {"axis": [None, 0, -1, tup(0, 1)], "keepdims": [True, False]},
    "quantile": {
        "q": [0.0, 0.37, 1.0, tup(0.1, 0.9), 1.5],
        "axis": [None, 0, -1],
        "method": QUANTILE_METHODS,
    },
    "nanmedian": {"axis": [None, 0, -1], "keepdims": [True, False]},
    "nanpercentile": {"q": [50, tup(5, 95)], "axis": [None, -1], "method": QUANTILE_METHODS},
    "average": {"axis": [None, 0, -1], "returned": [True, False]},
    "ptp": {"axis": [None, 0, -1]},
    "einsum": {"form": ["sum", "trace", "transpose", "outer", "contract"]},
    "interp": {"left": [None, -1.5], "right": [None, 7]},
    "digitize": {"right": [True, False]},
    "tril": {"k": [0, 1, -2]},
    "tile": {"reps": [2, tup(2, 1), tup(1, 0, 2)]},
    "nan_to_num": {"nan": [0.0, -3.0], "posinf": [None, 9.0]},
    "sinc": {},
    "angle": {"deg": [True, False]},
    "assign_int": {},
    "fft": {"n": [None, 1, 5, 8, 0], "axis": [-1, 0, 2], "norm": [None, "ortho", "forward", "bogus"]},
    "ifft": {"n": [None, 3, 16], "norm": [None, "backward", "forward"]},
    "rfft": {"n": [None, 2, 7], "axis": [-1, 0]},
    "irfft": {"n": [None, 1, 6], "axis": [-1, 0]},
    "fftn": {"axes": [None, tup(0), tup(-1, 0)], "norm": [None, "ortho"]},
    "fftshift": {"axes": [None, 0, tup(-1)]},
    "convolve": {"mode": ["full", "same", "valid", "middle", 1]},
    "correlate": {"mode": ["full", "same", "valid"]},
    "gradient": {"edge_order": [1, 2, 3], "axis": [None, 0, -1, tup(0, 1)]},
}


def _function_case(c: Chooser, profile: str) -> Enc:
    """A NumPy function of the eager library: one array, or (concatenate, stack, isclose,
    array_equal, searchsorted, take, extract, the mask) that array with another made from it."""
    name = c.choice(sorted(FUNCTIONS))
    kw: dict[str, Enc] = {k: c.choice(vs) for k, vs in FUNCTIONS[name].items() if c.boolean(0.5)}
    shapes = SHAPES if profile != "quick" else [[4], [3, 4], [0], []]
    return {
        "kind": "function",
        "name": name,
        "args": [array(c, profile, shapes=shapes, compiled=True)],
        "kwargs": kw,
    }


def eager(c: Chooser, profile: str) -> Enc:
    quick = profile == "quick"
    kind = c.choice(["binary", "binary", "unary", "reduction", "matmul", "operator", "scan", "function"])
    if kind in ("binary", "operator"):
        name = c.choice(QUICK_BINARY if quick else BINARY)
        return {"kind": kind, "name": name, "args": [_operand(c, profile), _operand(c, profile)]}
    if kind == "unary":
        return {
            "kind": kind,
            "name": c.choice(QUICK_UNARY if quick else UNARY),
            "args": [_operand(c, profile)],
        }
    if kind == "matmul":
        shapes = [[4], [3, 4], [4, 3], [4, 4], [2, 3, 4], [2, 4, 3], [1, 4, 4], [], [0]]
        return {
            "kind": kind,
            "name": "matmul",
            "args": [array(c, profile, shapes=shapes, compiled=True) for _ in range(2)],
        }
    if kind == "function":
        return _function_case(c, profile)
    if kind == "scan":
        scan_kw: dict[str, Enc] = {}
        if c.boolean(0.2):
            scan_kw["axis"] = c.choice([None, 0, 1, -1, 1.0])
        shapes = SHAPES if not quick else [[4], [3, 4], [0], []]
        x = array(c, profile, shapes=shapes, compiled=True)
        return {"kind": kind, "name": c.choice(["cumsum", "cumprod"]), "args": [x], "kwargs": scan_kw}
    name = c.choice(QUICK_REDUCTIONS if quick else REDUCTIONS)
    kw: dict[str, Enc] = {}
    if c.boolean(0.6):
        kw["axis"] = c.choice([None, 0, 1, -1, 2, -3, tup(0, 1), tup(), tup(0, 0), 1.0, "0", True])
    if c.boolean(0.3):
        kw["keepdims"] = c.choice([True, False])
    if name in ("sum", "prod", "mean") and c.boolean(0.3):
        kw["dtype"] = c.choice(["float32", "float64", "int64", "int8", "complex128", "bool", "U3", None])
    x = array(c, profile, shapes=SHAPES if not quick else [[4], [3, 4], [0], []], compiled=True)
    return {"kind": kind, "name": name, "args": [x], "kwargs": kw}
