"""The case generator of the linalg family (see ``cases.py`` for the form of a case and the
profiles): ``np.linalg``'s functions of numba_ext arrays (NumPy's signatures) and
``numba_ext.linalg``'s (the array API's), on stacks of random and structured matrices (identity,
zero, diagonal, low rank, repeated eigenvalues, triangular, nearly singular, Hermitian, positive
definite, graded, Hilbert), scaled towards the ends of the dtype's range, sometimes with NaN or
infinite entries, in C, Fortran, strided, transposed or reversed layouts; with keyword arguments
right and wrong, inputs of the wrong rank, shape or dtype, and, now and then, the factorization form
(``numba_ext.decompositions``' ``_lu_form``, ``_eigh_form``, ``_svd_form``) forced to one the
device would not pick.

A matrix is a ``{"$": "matrix", ...}`` token that ``exec_linalg.py`` turns into values (the same
for the call and for NumPy's oracle)."""

from __future__ import annotations

from .cases import INF, JUNK, NAN
from .choosers import Chooser
from .values import OBJ, Enc, npscalar, tup

FLOATS = ["float64", "float32", "complex128", "complex64"]
#: dtypes NumPy's linalg computes in float64 (integers, bools) or refuses (float16)
ODD_QUICK = ["int64", "bool"]
ODD_FULL = ["int64", "int32", "bool", "uint8", "int8", "float16"]
#: the structures of a matrix (its last two axes); the first four need a square matrix
SQUARE_KINDS = ["hermitian", "spd", "psd", "repeated"]
KINDS = [
    "random",
    "random",
    "identity",
    "zero",
    "diagonal",
    "lowrank",
    "triangular",
    "nearly_singular",
    "graded",
    "ones",
    "hilbert",
    *SQUARE_KINDS,
]
HERMITIAN_KINDS = ["hermitian", "hermitian", "spd", "spd", "psd", "repeated", "diagonal", "identity", "zero"]
#: scale factors of the entries by the real dtype: near the ends of its range, whose squares leave it
SCALES = {"float64": [1e200, 1e90, 1e-90, 1e-200, 1e150], "float32": [1e30, 1e-30, 1e18, 1e-18]}
LAYOUTS_QUICK = ["C", "C", "C", "F", "step", "T"]
LAYOUTS_FULL = [*LAYOUTS_QUICK, "step_cols", "rev"]
FORMS = ["serial", "stepped", "group"]

#: functions whose matrices must be square (NumPy's LinAlgError otherwise)
SQUARE = {"det", "slogdet", "inv", "eigh", "eigvalsh", "cholesky", "solve", "matrix_power"}
#: functions whose matrices are usually Hermitian
HERMITIAN = {"eigh", "eigvalsh", "cholesky"}

UPLO: list[Enc] = ["L", "U", "L", "U", "l", "u", "X", "", None, 1]
BOOLS: list[Enc] = [True, False]
ODD_BOOLS: list[Enc] = [0, 1, None, "yes", npscalar("bool", True)]
MODES: list[Enc] = ["reduced", "complete", "reduced", "complete", "r", "raw"]
ODD_MODES: list[Enc] = ["full", "economic", "x", "", None, 1, "R"]
RCONDS: list[Enc] = [None, 1e-15, 1e-10, 1e-6, 0.01, 0.3, 0.0]
ODD_RCONDS: list[Enc] = [-1, -1.0, 2.0, "x", NAN, INF, npscalar("float32", 0.1), True, None]
MATRIX_ORDS: list[Enc] = [None, "fro", "nuc", 1, -1, 2, -2, INF, -INF]
VECTOR_ORDS: list[Enc] = [None, 1, 2, INF, -INF, 0, 3, 0.5, -1, -0.5]
ODD_ORDS: list[Enc] = ["x", 3, "fro", "nuc", NAN, 1.5, tup(2), None]
POWERS: list[Enc] = [0, 1, 2, 3, 5, 8, -1, -2, -3, 13, 31]
ODD_POWERS: list[Enc] = [
    2.0,
    2.5,
    "2",
    None,
    True,
    npscalar("int64", 3),
    npscalar("uint8", 2),
    2**40,
    -(2**40),
]

#: np.linalg's functions (NumPy's signatures) the family calls, with the keywords drawn for them
NUMPY_KW: dict[str, dict[str, list[Enc]]] = {
    "det": {},
    "slogdet": {},
    "inv": {},
    "eigh": {"UPLO": UPLO},
    "eigvalsh": {"UPLO": UPLO},
    "svd": {"full_matrices": BOOLS, "compute_uv": BOOLS, "hermitian": BOOLS},
    "svdvals": {},
    "qr": {"mode": MODES},
    "cholesky": {"upper": BOOLS},
    "solve": {},
    "lstsq": {"rcond": [*RCONDS, -1]},
    "pinv": {"rcond": RCONDS, "hermitian": BOOLS},
    "matrix_rank": {"tol": [None, 1e-8, 0.5, 2.0], "hermitian": BOOLS},
    "norm": {
        "ord": MATRIX_ORDS + VECTOR_ORDS,
        "axis": [None, None, -1, 0, tup(-2, -1), tup(-1, -2), tup(0, 1), tup(0, -1)],
        "keepdims": BOOLS,
    },
    "matrix_norm": {"ord": MATRIX_ORDS[1:], "keepdims": BOOLS},
    "vector_norm": {"ord": VECTOR_ORDS[1:], "axis": [None, -1, 0, tup(-2, -1), tup(0, 1)], "keepdims": BOOLS},
    "cond": {"p": MATRIX_ORDS},
    "matrix_power": {},
    "trace": {"offset": [0, 1, -1, 3], "dtype": [None, "float64", "complex128", "float32"]},
    "diagonal": {"offset": [0, 1, -2]},
}
#: numba_ext.linalg's functions (the array API's signatures)
ARRAY_API_KW: dict[str, dict[str, list[Enc]]] = {
    "det": {},
    "slogdet": {},
    "inv": {},
    "eigh": {},
    "eigvalsh": {},
    "svd": {"full_matrices": BOOLS},
    "svdvals": {},
    "qr": {"mode": ["reduced", "complete"]},
    "cholesky": {"upper": BOOLS},
    "solve": {},
    "pinv": {"rtol": [None, 1e-15, 1e-6, 0.01, 0.3]},
    "matrix_rank": {"rtol": [None, 1e-12, 1e-6, 0.01, 0.5]},
    "matrix_norm": {"ord": MATRIX_ORDS[1:], "keepdims": BOOLS},
    "vector_norm": {"ord": VECTOR_ORDS[1:], "axis": [None, -1, 0, tup(-2, -1), tup(0, 1)], "keepdims": BOOLS},
    "matrix_power": {},
    "trace": {"offset": [0, 1, -1], "dtype": [None, "float64", "complex128"]},
    "diagonal": {"offset": [0, 1, -2]},
}
#: the draw's weight of each function: the decompositions the most
WEIGHTS = {
    "eigh": 4,
    "eigvalsh": 2,
    "svd": 4,
    "svdvals": 2,
    "qr": 3,
    "cholesky": 2,
    "inv": 2,
    "solve": 3,
    "det": 2,
    "slogdet": 2,
    "pinv": 2,
    "matrix_rank": 2,
    "norm": 2,
    "matrix_norm": 1,
    "vector_norm": 1,
    "lstsq": 2,
    "cond": 1,
    "matrix_power": 2,
    "trace": 1,
    "diagonal": 1,
}
#: np.linalg's functions numba_ext does not offload: a TypeError that says so
UNSUPPORTED = ["eig", "eigvals", "tensorinv", "multi_dot"]


def _chance(c: Chooser, p: float) -> bool:
    """True with probability `p` (hypothesis's simplest draw: False)."""
    return c.integer(0, 49) >= round((1 - p) * 50)


def _order(c: Chooser, profile: str) -> int:
    top = 24 if profile == "quick" else 64
    small = c.choice([0, 1, 2, 3, 4, 5, 6, 7, 8]) if _chance(c, 0.6) else c.integer(0, top)
    return int(small)


def _dtype(c: Chooser, profile: str, odd: bool) -> str:
    if odd:
        return c.choice(ODD_QUICK if profile == "quick" else ODD_FULL)
    return c.choice(FLOATS)


def matrix(
    c: Chooser,
    profile: str,
    shape: list[int],
    dtype: str,
    kinds: list[str] = KINDS,
    host: bool = False,
    special: bool = True,
) -> Enc:
    """A matrix token: a stack of `shape` (the structure applies to the last two axes) of `dtype`,
    a numba_ext array (or, with `host`, a NumPy array), of a drawn structure, scale, layout and
    seed, sometimes with NaN or infinite entries."""
    kind = c.choice(kinds)
    real = {"complex128": "float64", "complex64": "float32"}.get(dtype, dtype)
    scale: float = 1.0
    if real in SCALES and _chance(c, 0.15):
        scale = c.choice(SCALES[real])
    layouts = LAYOUTS_QUICK if profile == "quick" else LAYOUTS_FULL
    return {
        "$": "matrix",
        "host": host,
        "kind": kind,
        "dtype": dtype,
        "shape": shape,
        "layout": c.choice(layouts) if len(shape) >= 2 else c.choice(["C", "step"]),
        "scale": scale,
        "rank": c.integer(0, 8),
        "special": c.choice(["nan", "inf", "-inf", "nan"]) if special and _chance(c, 0.06) else None,
        "seed": c.integer(0, 2**31),
    }


def _batch(c: Chooser) -> list[int]:
    return [c.choice([1, 2, 3, 4, 0, 1, 2]) for _ in range(c.choice([0, 0, 1, 1, 2]))]


def _form(c: Chooser, profile: str) -> Enc:
    """The factorization forms forced for the call (None: the device's own)."""
    if not _chance(c, 0.3):
        return None
    one = c.choice(FORMS)
    form: dict[str, Enc] = {
        k: (one if _chance(c, 0.6) else c.choice([*FORMS, None])) for k in ("lu", "eigh", "svd")
    }
    form["gpu_like"] = _chance(c, 0.3)  # no serial devices: the largest magnitudes by a work-group
    if profile == "full" and _chance(c, 0.2):
        form["ql_log_sweeps"] = c.choice([1, 2])  # the stepped QL method logs a sweep or two a pass
    return form


def _b_operand(c: Chooser, profile: str, fn: str, batch: list[int], n: int, dtype: str) -> Enc:
    """The right-hand side of solve or lstsq: a vector, a matrix of k columns, a stack that
    broadcasts (or does not), of the rows `n` (or of a wrong count)."""
    rows = n if not _chance(c, 0.08) else c.choice([n + 1, max(n - 1, 0), 0])
    bdt = dtype if not _chance(c, 0.3) else c.choice([*FLOATS, "int64", "int32"])
    k = c.choice([1, 2, 3, 0, 4])
    form = c.integer(0, 5)
    if fn == "lstsq" or form <= 1:
        shape = [rows] if fn == "lstsq" and _chance(c, 0.5) or form == 0 else [rows, k]
    elif form == 2:
        shape = [*batch, rows, k]
    elif form == 3:
        shape = [*batch[1:], rows, k] if batch else [2, rows, k]  # broadcasts against the stack
    elif form == 4:
        shape = [1, *batch, rows, k] if _chance(c, 0.5) else [*([1] * len(batch)), rows, k]
    else:
        shape = [c.choice([5, 3]), *batch, rows, k] if _chance(c, 0.5) else [*batch, rows]
    host = _chance(c, 0.05)
    b = matrix(c, profile, shape, bdt, ["random", "random", "zero", "ones", "lowrank"], host, special=False)
    if _chance(c, 0.03):
        return c.choice([None, "x", OBJ, 1.5, [1.0, 2.0]])
    return b


def linalg(c: Chooser, profile: str) -> Enc:
    quick = profile == "quick"
    api = "array_api" if _chance(c, 0.3) else "numpy"
    table = NUMPY_KW if api == "numpy" else ARRAY_API_KW
    if api == "numpy" and not quick and _chance(c, 0.02):
        fn = c.choice(UNSUPPORTED)
        a = matrix(c, profile, [3, 3], c.choice(FLOATS))
        args: list[Enc] = [[a, a]] if fn == "multi_dot" else [a]
        return {"api": api, "fn": fn, "args": args, "kwargs": {}, "form": None}
    names = [name for name in table for _ in range(WEIGHTS[name])]
    fn = c.choice(names)
    junk = _chance(c, 0.12)
    what = c.choice(["rank", "dtype", "square", "kwarg", "unknown_kw", "operand"]) if junk else ""

    # the matrix: its stack, order(s) and dtype
    batch = _batch(c)
    n = _order(c, profile)
    m = n if fn in SQUARE or _chance(c, 0.35) else _order(c, profile)
    if fn == "lstsq":
        batch = []
    if what == "square":
        m = n + c.choice([1, -1, 2]) if n > 0 else 1
    shape = [*batch, m, n]
    if what == "rank":
        shape = c.choice([[n], [], [0], [m]]) if fn != "lstsq" else [*c.choice([[2], [1, 2]]), m, n]
    dtype = _dtype(c, profile, what == "dtype")
    kinds = (
        HERMITIAN_KINDS
        if fn in HERMITIAN or (fn in ("pinv", "matrix_rank", "svd") and _chance(c, 0.2))
        else KINDS
    )
    if fn == "cholesky" and not _chance(c, 0.3):
        kinds = ["spd"]
    a = matrix(c, profile, shape, dtype, kinds)
    args = [a]
    if api == "array_api" and what == "operand":
        args = [c.choice([None, [[1.0, 2.0], [3.0, 4.0]], 2.5, "x", {**a, "host": True}])]

    # the other operands
    if fn in ("solve", "lstsq"):
        args.append(_b_operand(c, profile, fn, batch, m, dtype))
    if fn == "matrix_power":
        args.append(c.choice(ODD_POWERS) if what == "operand" else c.choice(POWERS))

    # keywords
    kw: dict[str, Enc] = {}
    for key, values in table[fn].items():
        if _chance(c, 0.6):
            kw[key] = c.choice(values)
    if api == "numpy" and fn in ("pinv", "matrix_rank") and _chance(c, 0.3):  # NumPy 2's rtol
        kw["rtol"] = c.choice([None, 1e-12, 1e-6, 0.2])
    if fn in ("pinv", "matrix_rank") and _chance(c, 0.1):  # a tolerance per matrix of the stack
        key = "rtol" if api == "array_api" or _chance(c, 0.5) else ("rcond" if fn == "pinv" else "tol")
        host = api == "numpy" and _chance(c, 0.5)
        kw[key] = {"$": "tolerances", "shape": batch, "seed": c.integer(0, 2**31), "host": host}
    if what == "kwarg":
        key = c.choice([*table[fn], "x"]) if table[fn] else "x"
        odd = {
            "UPLO": UPLO,
            "full_matrices": ODD_BOOLS,
            "compute_uv": ODD_BOOLS,
            "hermitian": ODD_BOOLS,
            "upper": ODD_BOOLS,
            "keepdims": ODD_BOOLS,
            "mode": ODD_MODES,
            "rcond": ODD_RCONDS,
            "rtol": ODD_RCONDS,
            "tol": ODD_RCONDS,
            "ord": ODD_ORDS,
            "p": ODD_ORDS,
            "axis": [2, -3, tup(0, 0), tup(0, 1, 2), 1.5, "0", None, tup()],
            "offset": [1.5, "1", None, 2**70],
            "dtype": ["int32", "bool", "U3", "xyz", None],
        }.get(key, JUNK)
        kw[key] = c.choice(odd)
    if what == "unknown_kw":
        kw[c.choice(["bogus", "axis", "out", "overwrite_a"])] = c.choice([1, None, True])
    return {"api": api, "fn": fn, "args": args, "kwargs": kw, "form": _form(c, profile)}
