"""The kernel IR's classes (numba_ext/ir/kernel_ir.py) behave as ``@dataclass(frozen=True, slots=True)``
makes them: each is compared with a real dataclass of the same fields, defaults and docstring
(construction, errors, repr, equality, hashing, frozenness, pickling, copying, ``dataclasses``
functions and pattern matching)."""

import ast
import copy
import dataclasses
import inspect
import pickle
import weakref
from typing import ClassVar

import pytest

from numba_ext.ir import kernel_ir as kir

CLASSES = [
    v
    for v in vars(kir).values()
    if isinstance(v, type) and v.__module__ == kir.__name__ and hasattr(v, "tag")
]
_DOCSTRINGS = {
    node.name: ast.get_docstring(node, clean=False)
    for node in ast.parse(inspect.getsource(kir)).body
    if isinstance(node, ast.ClassDef)
}


def _reference(cls):
    """The class the dataclass decorator makes from `cls`'s source."""
    ns = {
        "__annotations__": dict(cls.__annotations__),
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": _DOCSTRINGS[cls.__name__],
        "tag": cls.tag,
    }
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            ns[f.name] = f.default
    return dataclasses.dataclass(frozen=True, slots=True)(type(cls.__name__, (), ns))


REFERENCES = {cls: _reference(cls) for cls in CLASSES}


def _args(cls):
    return [f"v{i}" for i in range(len(cls.__match_args__))]


def test_every_class_is_covered():
    assert len(CLASSES) == 35
    assert {kir.Function, kir.KernelSpec, kir.Atomic, kir.Return, kir.Local} <= set(CLASSES)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_class_attributes_match_dataclass(cls):
    ref = REFERENCES[cls]
    assert dataclasses.is_dataclass(cls)
    assert cls.__doc__ == ref.__doc__
    assert cls.__match_args__ == ref.__match_args__
    assert cls.__slots__ == ref.__slots__
    assert cls.__qualname__ == ref.__qualname__ and cls.__module__ == ref.__module__
    assert repr(cls.__dataclass_fields__) == repr(ref.__dataclass_fields__)
    assert repr(dataclasses.fields(cls)) == repr(dataclasses.fields(ref))
    assert "tag" not in cls.__match_args__ and isinstance(cls.tag, str)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_objects_match_dataclass(cls):
    ref = REFERENCES[cls]
    args = _args(cls)
    obj, expected = cls(*args), ref(*args)
    assert repr(obj) == repr(expected)
    assert hash(obj) == hash(expected)
    assert obj.__getstate__() == expected.__getstate__()
    assert dataclasses.astuple(obj) == dataclasses.astuple(expected)
    assert dataclasses.asdict(obj) == dataclasses.asdict(expected)
    assert not hasattr(obj, "__dict__")
    with pytest.raises(TypeError):
        weakref.ref(obj)
    assert cls(**dict(zip(cls.__match_args__, args))) == obj
    if args:
        assert cls(*args[:-1], **{cls.__match_args__[-1]: args[-1]}) == obj
        assert dataclasses.replace(obj, **{cls.__match_args__[0]: "other"}) != obj


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_constructor_errors_match_dataclass(cls):
    ref = REFERENCES[cls]
    args = _args(cls)
    calls = [
        ((*args, "extra"), {}),
        ((), {"tag": "x"}),
        ((*args,), {"nonsense": 1}),
    ]
    if args:
        calls += [((), {}), ((args[0],), {cls.__match_args__[0]: args[0]})]
    for a, kw in calls:
        with pytest.raises(TypeError) as got:
            cls(*a, **kw)
        with pytest.raises(TypeError) as want:
            ref(*a, **kw)
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_frozen_like_dataclass(cls):
    obj = cls(*_args(cls))
    for name in (*cls.__match_args__, "tag", "unknown"):
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot assign to field '{name}'"):
            setattr(obj, name, 1)
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot delete field '{name}'"):
            delattr(obj, name)
    assert obj == cls(*_args(cls))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_pickle_and_copy(cls):
    obj = cls(*_args(cls))
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(obj, protocol))
        assert type(back) is cls and back == obj and repr(back) == repr(obj)
    assert copy.copy(obj) == obj and copy.deepcopy(obj) == obj


def test_equality_and_hashing():
    load = kir.Load("float64", 1)
    assert load == kir.Load("float64", 1) and hash(load) == hash(kir.Load("float64", 1))
    assert load != kir.Load("float64", 2) and load != kir.Load("float32", 1)
    # the same fields in another class, or a tuple of them, are different values
    assert load != kir.ScalarArg("float64", 1) and load != ("float64", 1)
    assert load.__eq__(("float64", 1)) is NotImplemented
    assert kir.Return() == kir.Return() and hash(kir.Return()) == hash(())
    assert len({load, kir.Load("float64", 1), kir.ScalarArg("float64", 1)}) == 2
    # fields compare as tuples do, as in dataclasses: an identical NaN is equal, another is not
    nan, ref = kir.Const("float64", float("nan")), REFERENCES[kir.Const]("float64", float("nan"))
    assert nan == nan and nan != kir.Const("float64", float("nan"))
    assert ref == ref and ref != REFERENCES[kir.Const]("float64", float("nan"))
    spec = kir.KernelSpec("k", 1, (kir.ArrayParam("a", "float64", 1, True),), (load,))
    assert {spec: 1}[kir.KernelSpec("k", 1, (kir.ArrayParam("a", "float64", 1, True),), (load,))] == 1


def test_defaults_and_keywords():
    decl = kir.ArrayDecl("a", "float64", 1, "global")
    assert decl.shape == () and decl.contiguous is False
    assert kir.ArrayDecl(name="a", dtype="float64", ndim=1, space="global", contiguous=True).contiguous
    atomic = kir.Atomic(None, "add", 0, (kir.Local(1),), kir.Imm("int64", 1), order="seq_cst")
    assert (atomic.cmp, atomic.order, atomic.scope) == (None, "seq_cst", "device")
    f = kir.Function("f", (), (), (), ())
    assert f.bounds is None and f.version == kir.KERNEL_IR_VERSION
    assert kir.KernelSpec("k", 1, (), ()).version == kir.KERNEL_IR_VERSION
    assert repr(f) == "Function(name='f', locals=(), arrays=(), params=(), blocks=(), bounds=None, version=5)"
    assert dataclasses.replace(f, bounds=0) == kir.Function("f", (), (), (), (), 0)


def test_pattern_matching():
    match kir.Binary("float64", "add", 1, 2):
        case kir.Binary(dt, "add", lhs=x, rhs=y):
            assert (dt, x, y) == ("float64", 1, 2)
        case _:
            pytest.fail("no match")


def test_recursive_repr():
    items: list = []
    c = kir.Const("float64", items)
    items.append(c)
    assert repr(c) == "Const(dtype='float64', value=[...])"


def test_definition_errors_match_dataclass():
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @kir._frozen
        class _Order:
            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(ValueError, match="mutable default <class 'list'> for field a is not allowed"):

        @kir._frozen
        class _Mutable:
            a: list = []


def test_evaluated_annotations():
    """Classes whose annotations are objects (no postponed evaluation) get dataclasses' docstring and
    class variables too."""

    class Plain:
        tag: ClassVar[str] = "plain"
        a: int
        b: tuple[int, ...] = ()

    ns = {k: v for k, v in vars(Plain).items() if k not in ("__dict__", "__weakref__")}
    ref = dataclasses.dataclass(frozen=True, slots=True)(type("Plain", (), ns))
    new = kir._frozen(type("Plain", (), ns))
    assert new.__doc__ == ref.__doc__ == "Plain(a: int, b: tuple[int, ...] = ())"
    assert new.__match_args__ == ("a", "b") and new.tag == "plain"
    assert repr(new.__dataclass_fields__) == repr(ref.__dataclass_fields__)
