"""The case generator of the creation family (see ``cases.py`` for the form of a case and the
profiles): NumPy's creation functions with odd shapes, dtypes, fill values, orders and keywords."""

from __future__ import annotations

from .cases import BAD_DTYPES, INF, NAN, array, dtypes
from .choosers import Chooser
from .values import DEVICE, OBJ, OTHER_QUEUE, QUEUE, Enc, bytes_, cplx, npscalar, tup

#: shapes NumPy and numba_ext both refuse or both make cheaply: never a size between 4096 elements
#: and an impossible one (2**48 elements and more), which would really allocate
EXTENTS: list[Enc] = [
    0,
    1,
    2,
    3,
    5,
    7,
    -1,
    -5,
    2**48,
    2**62,
    2**63,
    2**64,
    2**70,
    npscalar("int64", 4),
    npscalar("uint8", 3),
    3.0,
    "10",
    None,
    True,
    npscalar("float64", 2.0),
]


def shape_arg(c: Chooser) -> Enc:
    form = c.integer(0, 3)
    if form == 0:
        return c.choice(EXTENTS)
    dims = [c.choice(EXTENTS) if c.boolean(0.3) else c.integer(0, 6) for _ in range(c.integer(0, 4))]
    if form == 3:
        return dims
    return tup(*dims)


def dtype_arg(c: Chooser, profile: str) -> Enc:
    return c.choice(
        [
            None,
            None,
            *dtypes(profile),
            *BAD_DTYPES,
            {"$": "type", "v": c.choice(["int", "float", "complex", "bool", "object", "str"])},
        ]
    )


def fill_arg(c: Chooser) -> Enc:
    return c.choice(
        [
            0,
            1,
            -3,
            2.5,
            NAN,
            INF,
            -INF,
            2**70,
            -(2**63),
            2**64 - 1,
            cplx(1, 2),
            True,
            "3",
            None,
            OBJ,
            npscalar("float32", 1.5),
            npscalar("int8", -2),
            npscalar("uint64", 7),
            [1, 2, 3, 4],
            [[1], [2], [3]],
            [1, 2],
            bytes_("a"),
        ]
    )


def _nx_only_kwargs(c: Chooser, fn: str) -> dict[str, Enc]:
    """The keywords NumPy does not have (device=, sycl_queue=, usm_type=): usually valid or absent."""
    kw: dict[str, Enc] = {}
    if c.boolean(0.3):
        kw["usm_type"] = c.choice(["device", "shared", "host", "junk", None, 3, "Device"])
    if c.boolean(0.2):
        kw["device"] = c.choice([DEVICE, QUEUE, "cpu", "opencl:cpu:0", "nope", 0, OBJ, None])
    if c.boolean(0.15):
        kw["sycl_queue"] = c.choice([QUEUE, OTHER_QUEUE, DEVICE, "cpu", OBJ, None])
    return kw


FUNCTIONS = [
    "empty",
    "zeros",
    "ones",
    "full",
    "arange",
    "linspace",
    "eye",
    "asarray",
    "empty_like",
    "zeros_like",
    "ones_like",
    "full_like",
]
NUMBERS: list[Enc] = [
    0,
    1,
    3,
    -2,
    2.5,
    -0.5,
    10,
    NAN,
    INF,
    10**20,
    1e300,
    "3",
    None,
    True,
    cplx(1, 1),
    npscalar("int8", 5),
]
OBJECTS: list[Enc] = [
    [1, 2, 3],
    [[1, 2], [3, 4]],
    [[1, 2], [3]],
    [1.5, NAN],
    [1, 2.5, cplx(0, 1)],
    [True, False],
    5,
    2.5,
    2**70,
    [2**70],
    [1, "a"],
    "abc",
    None,
    [],
    [[]],
    [None],
    OBJ,
    tup(1, 2),
    bytes_("ab"),
]
Args = tuple[list[Enc], dict[str, Enc]]


def _new(c: Chooser, fn: str, profile: str) -> Args:
    args = [shape_arg(c)] + ([fill_arg(c)] if fn == "full" else [])
    kw = {"dtype": dtype_arg(c, profile)}
    if c.boolean(0.4):
        kw["order"] = c.choice(["C", "F", "A", "K", "c", "f", "x", None, 1, ""])
    return args, kw


def _arange(c: Chooser, fn: str, profile: str) -> Args:
    args = [c.choice(NUMBERS) for _ in range(c.integer(1, 3))]
    if c.boolean(0.3):
        args.append(c.choice([1, -1, 0, 0.5, 1e-300, NAN]))
    return args, {"dtype": dtype_arg(c, profile)}


def _linspace(c: Chooser, fn: str, profile: str) -> Args:
    args = [c.choice([0, 1, -2.5, NAN, INF, cplx(1, 1), "1", None]) for _ in range(2)]
    args.append(c.choice([0, 1, 5, 50, -1, 2.0, 2**70, "5", None, True]))
    kw = {"dtype": dtype_arg(c, profile)}
    if c.boolean(0.3):
        kw["endpoint"] = c.choice([False, True, "no", None])
    return args, kw


def _eye(c: Chooser, fn: str, profile: str) -> Args:
    args = [c.choice([0, 1, 3, 4, -1, 2.0, "3", None, 2**64])]
    kw: dict[str, Enc] = {}
    if c.boolean(0.5):
        args.append(c.choice([None, 0, 2, 5, -1, 1.5]))
    if c.boolean(0.5):
        kw["k"] = c.choice([0, 1, -1, 3, -5, 100, 1.0, None, "1"])
    kw["dtype"] = dtype_arg(c, profile)
    return args, kw


def _asarray(c: Chooser, fn: str, profile: str) -> Args:
    args = [c.choice([*OBJECTS, array(c, profile), array(c, profile, "np")])]
    kw = {"dtype": dtype_arg(c, profile)}
    if c.boolean(0.3):
        kw["copy"] = c.choice([None, True, False])
    if c.boolean(0.3):
        kw["order"] = c.choice(["C", "F", "A", "K", "x", None])
    return args, kw


def _like(c: Chooser, fn: str, profile: str) -> Args:
    """The *_like forms: like a numba_ext array, a NumPy array or something array-like."""
    x = c.choice([array(c, profile), array(c, profile, "np"), [[1, 2], [3, 4]], 3, None, "ab", OBJ])
    args = [x] + ([fill_arg(c)] if fn == "full_like" else [])
    kw = {"dtype": dtype_arg(c, profile)}
    if c.boolean(0.3):
        kw["order"] = c.choice(["C", "F", "A", "K", "x", None])
    return args, kw


ARGUMENTS = {
    "empty": _new,
    "zeros": _new,
    "ones": _new,
    "full": _new,
    "arange": _arange,
    "linspace": _linspace,
    "eye": _eye,
    "asarray": _asarray,
}


def creation(c: Chooser, profile: str) -> Enc:
    fn = c.choice(FUNCTIONS)
    args, kw = ARGUMENTS.get(fn, _like)(c, fn, profile)
    if fn not in ("asarray", "linspace") and c.boolean(0.2) and "dtype" in kw:
        args.append(
            kw.pop("dtype")
        )  # dtype given positionally (the third argument of full: shape, fill, dtype)
    return {"fn": fn, "args": args, "kwargs": kw, "nx_kwargs": _nx_only_kwargs(c, fn)}
