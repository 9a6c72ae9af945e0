"""The creation and conversion functions take their arguments by NumPy's rules: the same shapes,
dtypes, fill values, ``order=``, ``like=``, ``copy=`` and ``casting=`` give the same array (shape,
dtype, values, memory order) or an exception of the class NumPy raises (the class or a subclass:
numba_ext's own errors derive from the matching built-in one).

A table of argument sets is generated from candidate lists (a fixed seed picks a few hundred of
their combinations) and each set is given to NumPy's function and to numba_ext's. The one allowed
difference: a result dtype numba_ext arrays do not hold (strings, objects) is a TypeError."""

import itertools
import random
import warnings

import numpy as np
import pytest

import numba_ext as nx
from numba_ext.arrays import SUPPORTED_DTYPES

FP64 = nx.default_queue().device.has_fp64

SHAPES = [
    3,
    (2, 3),
    (),
    0,
    (0, 4),
    [2, 2],
    np.int64(4),
    np.uint8(2),
    np.array(3),
    np.array([2, 1]),
    range(3),
    "10",
    "",
    b"\x02\x03",
    True,
    (True, 2),
    2.0,
    (2.0,),
    None,
    -1,
    (3, -1),
    (0, -1),
    2**63,
    (2**62, 4),
    (0, 2**62, 4),
    (1,) * 65,
    {2: 3},
    [[2]],
    np.array([1.0]),
]
DTYPES = [None, "int32", np.uint8, "uint16", float, "float32", np.complex64, bool, "i8", ">i4", "U3", "foo"]
FILLS = [
    0,
    1,
    -1,
    300,
    2**70,
    1.5,
    -2.5,
    1 + 2j,
    True,
    [1, 2],
    [[1], [2]],
    np.arange(3),
    np.uint8(7),
    "abc",
    None,
]
ORDERS = ["C", "F", "c", "A", "K", None, 1, "X", b"F"]
LIKES = [None, np.zeros(1), [1], 1]
PROTOS = [
    np.arange(6.0).reshape(2, 3),
    np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3)),
    np.arange(4, dtype=np.uint8),
    np.zeros((2, 0, 3), bool),
]
LIKE_SHAPES = [None, (3, 2), 5, (2, 1, 3), "", -1, 2.0]
SOURCES = [
    np.arange(6.0).reshape(2, 3) / 2,
    np.asfortranarray(np.arange(-3, 3, dtype=np.int16).reshape(2, 3)),
    np.array([0.0, 2.0, 4.0, 254.0]),
]
CASTINGS = ["unsafe", "same_kind", "safe", "same_value", "equiv", "bogus", 1]
METHOD_ORDERS = ["C", "F", "A", "K", None, "f", b"c", 1, "X"]
NEW_SHAPES = [
    6,
    (3, 2),
    (-1,),
    (2, -1),
    (1, -1),
    (2, 2),
    (4,),
    "6",
    (6.0,),
    (True, 6),
    [3, 2],
    (-1, -1),
    (),
    (1, 6, 1),
]
OBJECTS = [
    [1, 2, 3],
    [[1.5, 2.0], [3.0, 4.0]],
    np.arange(6).reshape(2, 3),
    np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    7,
    [True, False],
    [300],
    [[1], [2, 3]],
    "abc",
]


def _sample(items, k, seed):
    items = list(items)
    return random.Random(seed).sample(items, min(k, len(items)))


def _cases():
    """(label, NumPy's call, numba_ext's call) for every generated argument set."""
    cases = []
    for shape, dt, order, like in _sample(itertools.product(SHAPES, DTYPES, ORDERS, LIKES), 160, 1):
        for name in ("empty", "zeros", "ones"):
            kw = {"dtype": dt, "order": order, "like": like}
            cases.append((f"{name}({shape!r}, **{kw!r})", getattr(np, name), getattr(nx, name), (shape,), kw))
    for shape, fill, dt, order in _sample(itertools.product(SHAPES, FILLS, DTYPES, ORDERS), 220, 2):
        kw = {"dtype": dt, "order": order}
        cases.append((f"full({shape!r}, {fill!r}, **{kw!r})", np.full, nx.full, (shape, fill), kw))
    devs = [nx.asarray(p) for p in PROTOS]  # the same prototypes as numba_ext arrays (same layouts)
    for p, on_dev, shape, dt, order, fill in _sample(
        itertools.product(range(len(PROTOS)), [False, True], LIKE_SHAPES, DTYPES, ORDERS, FILLS[:9]), 140, 3
    ):
        kw = {"dtype": dt, "order": order, "shape": shape}
        proto = devs[p] if on_dev else PROTOS[p]
        label = f"*_like({'device ' if on_dev else ''}PROTOS[{p}], fill={fill!r}, **{kw!r})"
        cases.append(
            (
                "empty" + label,
                np.empty_like,
                lambda _, *a, x=proto, **k: nx.empty_like(x, *a, **k),
                (PROTOS[p],),
                kw,
            )
        )
        cases.append(
            (
                "full" + label,
                np.full_like,
                lambda _, *a, x=proto, **k: nx.full_like(x, *a, **k),
                (PROTOS[p], fill),
                kw,
            )
        )
    for obj, dt, order, copy in _sample(
        itertools.product(range(len(OBJECTS)), DTYPES, ORDERS, [None, True, "yes", 1]), 90, 4
    ):
        kw = {"dtype": dt, "order": order, "copy": copy}
        cases.append((f"asarray(OBJECTS[{obj}], **{kw!r})", np.asarray, nx.asarray, (OBJECTS[obj],), kw))
    for obj, dt, order, copy, ndmin in _sample(
        itertools.product(range(len(OBJECTS)), DTYPES, ORDERS, [None, True, "yes"], [0, 3, 65, 2.0, True]),
        90,
        11,
    ):
        kw = {"dtype": dt, "order": order, "copy": copy, "ndmin": ndmin}
        cases.append((f"array(OBJECTS[{obj}], **{kw!r})", np.array, nx.array, (OBJECTS[obj],), kw))
    cases += _sequence_cases()
    return cases


def _sequence_cases():
    cases = []
    for args, dt in _sample(
        itertools.product(
            [
                (5,),
                (0, 10, 3),
                (1.5, 4, 0.5),
                (0, 10, 0),
                (10, 0, -2),
                (2, 3, 1j),
                ("a",),
                (np.int8(4),),
                (-3,),
            ],
            DTYPES,
        ),
        40,
        5,
    ):
        cases.append((f"arange{args!r} dtype={dt!r}", np.arange, nx.arange, args, {"dtype": dt}))
    for args, dt, endpoint in _sample(
        itertools.product(
            [(0, 1, 5), (0, 1, 0), (0, 1, -1), (0, 1, 2.5), (2, 5, np.int64(4)), (1, 2, "3")],
            DTYPES,
            [True, False],
        ),
        30,
        6,
    ):
        kw = {"dtype": dt, "endpoint": endpoint}
        cases.append((f"linspace{args!r} **{kw!r}", np.linspace, nx.linspace, args, kw))
    for n, m, k, dt, order in _sample(
        itertools.product([3, 0, -1, 2.0, np.int32(2)], [None, 2, -1], [0, 1, -5, 1.0], DTYPES, ORDERS), 50, 7
    ):
        kw = {"M": m, "k": k, "dtype": dt, "order": order}
        cases.append((f"eye({n!r}, **{kw!r})", np.eye, nx.eye, (n,), kw))
    for n, dt in _sample(itertools.product([3, 0, -2, 2.5, np.uint16(2)], DTYPES), 15, 8):
        cases.append((f"identity({n!r}, dtype={dt!r})", np.identity, nx.identity, (n,), {"dtype": dt}))
    return cases


def _method_cases():
    """(label, source index, method, args, kwargs) for astype and reshape of numba_ext arrays."""
    cases = []
    for s, dt, order, casting, copy in _sample(
        itertools.product(range(len(SOURCES)), DTYPES[1:], METHOD_ORDERS, CASTINGS, [True, False]), 140, 9
    ):
        if casting == "same_value" and dt == ">i4":
            continue  # NumPy 2.4 skips the same_value check when casting to a byte-swapped dtype
        kw = {"order": order, "casting": casting, "copy": copy}
        cases.append((f"SOURCES[{s}].astype({dt!r}, **{kw!r})", s, "astype", (dt,), kw))
    for s, shape, order, copy in _sample(
        itertools.product(range(len(SOURCES)), NEW_SHAPES, METHOD_ORDERS, [None, False, True, "no"]), 140, 10
    ):
        args = shape if isinstance(shape, tuple) else (shape,)
        kw = {"order": order, "copy": copy}
        cases.append((f"SOURCES[{s}].reshape(*{args!r}, **{kw!r})", s, "reshape", args, kw))
    return cases


def _builtin(exc_type):
    """NumPy's exception class, or the built-in one its private classes derive from
    (numpy's _ArrayMemoryError is a MemoryError)."""
    if exc_type.__module__ == "builtins":
        return exc_type
    return next(c for c in exc_type.__mro__ if c.__module__ == "builtins")


def _run(call, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's ComplexWarning and cast warnings, on both sides
        # what a NumPy deprecates (``None`` as a shape before NumPy 2.3) raises: numba_ext follows
        # the rules of the newest NumPy, which refuses it
        warnings.simplefilter("error", DeprecationWarning)
        try:
            return call(*args, **kwargs), None
        except Exception as e:  # the exception is the result under test
            return None, e


def _single(dt):
    return np.dtype(np.float32 if dt.kind == "f" else np.complex64)


def _mismatch(want, np_exc, got, nx_exc):
    """Why numba_ext's outcome differs from NumPy's, or None where they agree."""
    if isinstance(np_exc, DeprecationWarning):
        return None if nx_exc is not None else f"NumPy deprecates it ({np_exc}); numba_ext returns"
    if np_exc is not None:
        if nx_exc is None:
            return f"NumPy raises {type(np_exc).__name__}({np_exc}); numba_ext returns {got!r:.80}"
        if not isinstance(nx_exc, _builtin(type(np_exc))):
            return (
                f"NumPy raises {type(np_exc).__name__}({np_exc}); numba_ext {type(nx_exc).__name__}({nx_exc})"
            )
        return None
    want_dt = want.dtype.newbyteorder("=")  # numba_ext arrays hold native byte order
    if want_dt not in SUPPORTED_DTYPES or (not FP64 and want_dt.char in "dD"):
        if isinstance(nx_exc, TypeError) or (got is not None and got.dtype == _single(want_dt)):
            return None
    if nx_exc is not None:
        return f"NumPy returns {want_dt}{want.shape}; numba_ext raises {type(nx_exc).__name__}({nx_exc})"
    if not isinstance(got, nx.ndarray):
        return f"numba_ext returns {type(got).__name__}, not an array"
    if (got.shape, got.dtype) != (want.shape, want_dt):
        return f"NumPy returns {want_dt}{want.shape}; numba_ext {got.dtype}{got.shape}"
    layout = (got.flags.c_contiguous, got.flags.f_contiguous)
    if layout != (want.flags.c_contiguous, want.flags.f_contiguous):
        return (
            f"layout (C, F contiguous) {layout}, NumPy's {want.flags.c_contiguous, want.flags.f_contiguous}"
        )
    return None


def _values_differ(got, want, fresh):
    if fresh:  # empty and empty_like: no values to compare
        return False
    host = nx.asnumpy(got)
    return not np.array_equal(host, want.astype(host.dtype), equal_nan=host.dtype.kind in "fc")


def test_table_of_argument_sets_follows_numpy():
    cases = _cases()
    assert len(cases) > 600
    failures, outcomes = [], {"returned": 0, "raised": 0}
    for label, np_fn, nx_fn, args, kwargs in cases:
        want, np_exc = _run(np_fn, args, kwargs)
        got, nx_exc = _run(nx_fn, args, kwargs)
        outcomes["raised" if np_exc else "returned"] += 1
        why = _mismatch(want, np_exc, got, nx_exc)
        if why is None and np_exc is None and nx_exc is None:
            why = "values differ" if _values_differ(got, want, "empty" in label) else None
        if why:
            failures.append(f"{label}: {why}")
    assert not failures, f"{len(failures)} of {len(cases)} cases differ:\n" + "\n".join(failures[:40])
    assert min(outcomes.values()) > 200, outcomes  # the table exercises both results and errors


def test_table_of_method_argument_sets_follows_numpy():
    sources = [nx.asarray(h) for h in SOURCES]
    assert [s.flags.f_contiguous for s in sources] == [h.flags.f_contiguous for h in SOURCES]
    cases = _method_cases()
    assert len(cases) > 200
    failures, outcomes = [], {"returned": 0, "raised": 0}
    for label, s, method, args, kwargs in cases:
        want, np_exc = _run(getattr(SOURCES[s], method), args, kwargs)
        got, nx_exc = _run(getattr(sources[s], method), args, kwargs)
        outcomes["raised" if np_exc else "returned"] += 1
        why = _mismatch(want, np_exc, got, nx_exc)
        if why is None and np_exc is None and nx_exc is None:
            why = "values differ" if _values_differ(got, want, False) else None
        if why:
            failures.append(f"{label}: {why}")
    assert not failures, f"{len(failures)} of {len(cases)} cases differ:\n" + "\n".join(failures[:40])
    assert min(outcomes.values()) > 40, outcomes  # both results and errors (NumPy 2.1: 54 results)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.empty("10"),
        lambda m: m.empty(True),
        lambda m: m.zeros((2, 2.0)),
        lambda m: m.full((4, 18), [1, 2], dtype="uint16"),
        lambda m: m.full(0, 300, dtype="uint8"),
        lambda m: m.full((0,), -1, dtype=np.uint8),
        lambda m: m.full((0, 4), [1, 2], dtype="int32"),
        lambda m: m.ones(2**63),
        lambda m: m.empty((2**62, 4)),
        lambda m: m.empty(3, order="K"),
        lambda m: m.zeros(3, order=0),
        lambda m: m.ones(3, like=[1]),
        lambda m: m.full_like(np.zeros(2, np.uint8), 256),
        lambda m: m.empty_like(np.zeros(2), shape=(2, -1)),
        lambda m: m.asarray([1], copy="yes"),
        lambda m: m.arange(0, 10, 0),
        lambda m: m.eye(2, order="A"),
    ],
)
def test_bad_arguments_raise_numpys_exception_class(call):
    with pytest.raises(Exception) as want:
        call(np)
    with pytest.raises(_builtin(want.type)):
        call(nx)


def test_creation_results_follow_numpy(rng):
    """Arguments NumPy takes and numba_ext once read differently: bytes are a shape (of character
    codes), a fill value broadcasts (never repeats), a byte-swapped dtype gives native data."""
    v = rng.integers(-100, 100, 3)
    for make in (
        lambda m: m.full(b"\x02\x03", v[0]),
        lambda m: m.full((4, 3), v, dtype="int16"),
        lambda m: m.full((3, 2), v[:, None] if m is np else nx.asarray(v[:, None]), order="F"),
        lambda m: m.full((2, 3), v.astype(">i4"), dtype=">i4"),
        lambda m: m.zeros_like(np.asfortranarray(np.ones((2, 3))), shape=(3, 2)),
        lambda m: m.eye(3, 4, 1, order="F"),
        lambda m: m.identity(3, dtype=np.int8),
        lambda m: m.arange(stop=int(v[1]) % 7 + 1),
    ):
        want, got = make(np), make(nx)
        assert got.shape == want.shape and got.dtype == want.dtype.newbyteorder("=")
        assert (got.flags.c_contiguous, got.flags.f_contiguous) == (
            want.flags.c_contiguous,
            want.flags.f_contiguous,
        )
        np.testing.assert_array_equal(nx.asnumpy(got), want)


def test_full_fill_value_from_a_numba_ext_array(rng):
    v = rng.standard_normal(4).astype(np.float32)
    got = nx.full((3, 4), nx.asarray(v))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(nx.asnumpy(got), np.full((3, 4), v))
    with pytest.raises(ValueError, match="broadcast"):
        nx.full((3, 5), nx.asarray(v))


def test_reshape_copies_where_numpy_copies(rng):
    h = rng.standard_normal((4, 6))
    x = nx.asarray(h)
    for order in ("C", "F", "A"):
        for src, hsrc in ((x.T, h.T), (x[:, ::2], h[:, ::2])):
            np.testing.assert_array_equal(
                nx.asnumpy(src.reshape(-1, order=order)), hsrc.reshape(-1, order=order)
            )
    v = x.reshape(3, 8, copy=None)
    assert v._data_ptr == x._data_ptr  # a view where one is possible
    c = x.reshape(3, 8, copy=True)
    assert c._data_ptr != x._data_ptr
    np.testing.assert_array_equal(nx.asnumpy(c), h.reshape(3, 8))
    with pytest.raises(ValueError, match="copy"):
        x.T.reshape(24, copy=False)


def test_asarray_copy_false_of_host_data_is_a_value_error():
    """NumPy can wrap a host array without a copy; numba_ext must copy it into USM memory, so
    ``copy=False`` is an ExecutionPlacementError (a ValueError, as NumPy's for a copy that cannot be
    avoided)."""
    h = np.arange(4)
    assert np.asarray(h, copy=False) is h
    with pytest.raises(nx.ExecutionPlacementError, match=r"copy=False\) of a ndarray: host data") as e:
        nx.asarray(h, copy=False)
    assert isinstance(e.value, ValueError)
