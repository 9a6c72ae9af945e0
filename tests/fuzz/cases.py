"""The case generators of the six families, in plain Python over a ``Chooser`` (hypothesis in the
tests, a seeded ``random.Random`` in ``scripts/fuzz_run.py``). A case is JSON (``values.py``); the
child process decodes and runs it (``execute.py``).

``profile="quick"`` (the tests) draws from small pools of dtypes, shapes and operations, so the
compiling families reuse their compiled programs and a few thousand cases fit ``make test``;
``profile="full"`` (the long run) draws from all of them."""

from __future__ import annotations

import math

from .choosers import Chooser
from .values import CONTEXT, DEVICE, OBJ, OTHER_QUEUE, QUEUE, Enc, bytes_, npscalar, tup

NAN, INF = float("nan"), float("inf")
#: values of the wrong kind for almost any argument
JUNK: list[Enc] = [None, OBJ, "x", "", bytes_("ab"), [], tup(), {}, 1.5, NAN, INF, -1, 2**70, True, 3.0]
DTYPES_QUICK = ["float64", "float32", "int64", "int32", "bool"]
DTYPES_FULL = [
    *DTYPES_QUICK,
    *("int8", "int16", "uint8", "uint16", "uint32", "uint64", "complex64", "complex128"),
]
BAD_DTYPES: list[Enc] = ["U5", "O", "M8[s]", "V8", "xyz", 5, ">f8", "float128", "S3", "f2"]
SHAPES: list[list[int]] = [[], [0], [1], [5], [4], [3, 4], [3, 1], [1, 4], [2, 3, 4], [2, 0]]


def dtypes(profile: str) -> list[str]:
    return DTYPES_QUICK if profile == "quick" else DTYPES_FULL


#: the dtypes of the compiling families in the quick profile: each new dtype combination compiles
COMPILED_QUICK = ["float64", "int64", "bool"]


def array(
    c: Chooser, profile: str, kind: str = "nx", shapes: list[list[int]] = SHAPES, compiled: bool = False
) -> Enc:
    """An array token: a numba_ext ("nx") or NumPy ("np") array of a drawn dtype, shape and layout
    (C, F, or every other element along the first axis), values from a drawn seed."""
    shape = c.choice(shapes)
    layout = c.choice(["C", "C", "F", "step"]) if shape else "C"
    pool = COMPILED_QUICK if compiled and profile == "quick" else dtypes(profile)
    return {
        "$": "array",
        "kind": kind,
        "dtype": c.choice(pool),
        "shape": shape,
        "layout": layout,
        "seed": c.integer(0, 2**31),
        "special": c.boolean(0.2),
    }


# -- selectors --------------------------------------------------------------------------------------
SEL_BACKENDS = ["opencl", "OpenCL", "level_zero", "cuda", "host", "*", ""]
SEL_TYPES = ["cpu", "gpu", "accelerator", "fpga", "host", "CPU", " cpu", "*", ""]
SEL_INDICES = ["0", "1", "99", "-1", "x", "00", "2147483648", "18446744073709551616", "0.1"]


def selector(c: Chooser, profile: str) -> Enc:
    form = c.integer(0, 5)
    if form == 0:
        parts = [c.choice(SEL_BACKENDS), c.choice(SEL_TYPES), c.choice(SEL_INDICES)]
        sel: Enc = ":".join(parts[c.integer(0, 2) : c.integer(1, 3)])
    elif form == 1:
        sel = c.choice(
            [
                "",
                "cpu",
                "gpu",
                "opencl",
                "opencl:cpu",
                "opencl:cpu:0",
                "opencl:gpu:0",
                "opencl:0",
                "cpu:0",
                "cpu,gpu",
                "!cpu",
                ":",
                "::",
                "opencl::0",
                "opencl:cpu:",
                "a" * 300,
            ]
        )
    elif form == 2:
        sel = c.text(16)
    elif form == 3:
        sel = c.choice([0, 1, -1, 2**64, None, True, 1.0, NAN, [], ["cpu"], tup("cpu"), bytes_("cpu")])
    else:
        sel = c.choice([DEVICE, QUEUE, CONTEXT, OBJ, OTHER_QUEUE, None, "cpu"])
    return {"api": c.choice(["Device", "Queue", "empty_device", "empty_queue"]), "sel": sel}


# -- interfaces -------------------------------------------------------------------------------------
def _ints_like(c: Chooser, base: list[int], bad: list[Enc]) -> Enc:
    form = c.integer(0, 6)
    if form == 0:
        return tup(*base)
    if form == 1:
        return list(base)
    if form == 2:  # one extent or stride changed by a little
        out = list(base) or [1]
        i = c.integer(0, len(out) - 1)
        out[i] += c.choice([-2, -1, 1, 2, 7])
        return tup(*out)
    if form == 3:  # another rank
        return tup(*[c.integer(-1, 6) for _ in range(c.integer(0, 4))])
    if form == 4:
        return tup(
            *[c.choice([0, 1, 2, 5, -1, 2**31, 2**63, 2**64, 1.0, "1", None, True]) for _ in base or [0]]
        )
    if form == 5:
        return tup(*reversed(base))
    return c.choice(bad)


TYPESTRS: list[Enc] = [
    "<f8",
    "<f4",
    "<i4",
    "|b1",
    "|u1",
    "<c16",
    ">f8",
    ">i4",
    "<f3",
    "xyz",
    "",
    "<U4",
    "|O",
    "<M8[s]",
    "|V8",
    "f8",
    "<f2",
    "=f8",
    8,
    None,
    bytes_("<f8"),
]
BAD_DATA: list[Enc] = [
    tup(0, False),
    tup(-1, False),
    tup(2**64, False),
    tup(None, False),
    tup("0", False),
    [0],
    tup(),
    tup(1, 2, 3),
    None,
    "ptr",
    {"$": "ptr_list"},
    {"$": "ptr_bool"},
    {"$": "ptr_float"},
]


def _data_field(c: Chooser) -> Enc:
    """The data field: the source's pointer moved by a few bytes (read-only or not), or junk."""
    moved = {"$": "ptr", "delta": c.choice([0, 1, 4, -8, 8, 64, 4096, -4096]), "ro": c.choice([False, True])}
    bad_ro = {"$": "ptr", "delta": 0, "ro": c.choice([None, 1, "no", 0])}
    return c.choice([moved, bad_ro, *BAD_DATA])


def _mutate(c: Chooser, mut: dict[str, Enc], field: str, shape: list[int], strides: list[int]) -> None:
    """Remove or replace one field of the interface (or add an extra key)."""
    if c.boolean(0.15) and field != "extra":
        mut[field] = "__del__"
    elif field == "version":
        mut[field] = c.choice([0, 2, "1", 1.0, None, True, npscalar("int64", 1), 2**64])
    elif field == "data":
        mut[field] = _data_field(c)
    elif field == "shape":
        mut[field] = _ints_like(c, shape, [None, "3", 3, 3.0, [[3]]])
    elif field == "strides":
        mut[field] = _ints_like(c, strides, [None, None, "1", 1, 0.5])
    elif field == "typestr":
        mut[field] = c.choice(TYPESTRS)
    elif field == "offset":
        mut[field] = c.choice([0, 1, 2, 5, -1, 2**62, 2**64, 1.0, "1", None, True, npscalar("int32", 1)])
    elif field == "syclobj":
        mut[field] = c.choice([QUEUE, OTHER_QUEUE, CONTEXT, DEVICE, "cpu", "opencl:cpu:0", None, OBJ, 0])
    else:
        mut[c.choice(["extra", "mask", "descr", "__class__"])] = c.choice(JUNK)


def interface(c: Chooser, profile: str) -> Enc:
    """A real array and mutations of its ``__sycl_usm_array_interface__`` (each field kept, removed
    or replaced; the data pointer moved by a few bytes)."""
    shape = c.choice([[6], [3, 4], [2, 3, 2], [1], [0], [5, 1]])
    dtype = c.choice(dtypes(profile))
    strides = [math.prod(shape[i + 1 :]) for i in range(len(shape))]
    mut: dict[str, Enc] = {}
    n = c.integer(0, 3)
    for _ in range(n):
        field = c.choice(["version", "data", "shape", "strides", "typestr", "offset", "syclobj", "extra"])
        _mutate(c, mut, field, shape, strides)
    whole = c.choice([None] * 12 + [None, "iface", [], tup(), 0, OBJ, {"$": "iface_items"}])
    usm_type = c.choice([None] * 8 + ["shared", "host", "junk", 3])
    return {
        "dtype": dtype,
        "shape": shape,
        "mut": mut,
        "whole": whole,
        "usm_type": usm_type,
        "seed": c.integer(0, 2**31),
    }
