"""Pickling of jitted functions, kernels and device functions.

An object its module holds under its Python function's qualified name (the usual decorated
module-level function) pickles by reference: unpickling imports that module and looks the name up,
so in the same process it gives back the very same object, compiled code included. Any other (a
function defined inside another, or in ``__main__``, or in a module registered with
``cloudpickle.register_pickle_by_value``) pickles as its Python function and options, rebuilt on
unpickling: a pickler that serializes functions by value (cloudpickle, which Dask uses) carries it
to another process, which compiles it again there.

A by-value pickle carries a token naming the object it was made from: every pickle of one object
unpickles, in a given process, to one rebuilt object (the original itself in the process that made
it), so its compiled code is reused. A Dask worker receives the same function with every task and
compiles it once.
"""

from __future__ import annotations

import importlib
import sys
import threading
import uuid
import weakref
from collections.abc import Callable
from typing import Any


def load(module_name: str, qualname: str) -> Any:
    """The object a by-reference pickle names."""
    target: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def _by_value(module_name: str) -> bool:
    """Whether cloudpickle (when loaded) was told to pickle this module's functions by value."""
    cloudpickle = sys.modules.get("cloudpickle")
    listed = getattr(cloudpickle, "list_registry_pickle_by_value", None)
    if listed is None:
        return False
    names = listed()
    parts = module_name.split(".")
    return any(".".join(parts[:i]) in names for i in range(1, len(parts) + 1))


def reference(obj: object, py_func: Any) -> tuple[str, str] | None:
    """(module, qualified name) where `obj` is what that name holds in its (loaded) module, else None."""
    module_name = getattr(py_func, "__module__", None)
    qualname = getattr(py_func, "__qualname__", None)
    if not isinstance(module_name, str) or not isinstance(qualname, str) or "<locals>" in qualname:
        return None
    if module_name == "__main__" or _by_value(module_name):
        return None  # by value: another process has no such module, or is to get the code itself
    target: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        target = getattr(target, part, None)
    return (module_name, qualname) if target is obj else None


_tokens_lock = threading.Lock()
_token_of: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_object_of: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()


def _token(obj: object) -> str:
    """The token of `obj`'s by-value pickles (made on its first one, kept while it lives)."""
    with _tokens_lock:
        token = _token_of.get(obj)
        if token is None:
            token = _token_of[obj] = uuid.uuid4().hex
            _object_of[token] = obj
        return token


def rebuild_once(token: str, build: Callable[..., Any], *args: Any) -> Any:
    """Unpickling by value: the object this process already has for `token`, else ``build(*args)``
    remembered under it."""
    with _tokens_lock:
        obj = _object_of.get(token)
        if obj is not None:
            return obj
    built = build(*args)
    with _tokens_lock:
        obj = _object_of.get(token)
        if obj is None:  # another thread may have rebuilt it meanwhile: keep the first
            obj = _object_of[token] = built
            _token_of[obj] = token
        return obj


def pickle_reduce(obj: object, py_func: Any, rebuild: tuple[Any, ...]) -> tuple[Any, ...]:
    """``obj.__reduce__()``: by reference when `obj` is reachable by its name, else `rebuild` (a
    callable and its arguments), once per process for each object pickled (``rebuild_once``)."""
    ref = reference(obj, py_func)
    if ref is not None:
        return (load, ref)
    build, args = rebuild
    return (rebuild_once, (_token(obj), build, *args))
