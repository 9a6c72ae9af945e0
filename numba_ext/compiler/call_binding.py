"""Binding a call's positional and keyword arguments to a jitted function's parameters, as Numba's
dispatchers do: omitted parameters with defaults are passed as Numba's ``OmittedArg`` (typed
``types.Omitted(default)``, a compile-time constant), ``*args`` values follow the positional
parameters, and keyword-only parameters are passed positionally at the end (Numba's typing folds
them back by name). Bad calls raise TypeError with Python's own messages."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from numba.core.dispatcher import OmittedArg

from ..errors import UnsupportedError

_P = inspect.Parameter


class CallBinder:
    """The parameters of one function and how calls bind to them (see the module documentation)."""

    def __init__(self, py_func: Callable[..., Any]) -> None:
        self.name = py_func.__qualname__  # as Python names functions in its call errors
        params = list(inspect.signature(py_func).parameters.values())
        self.positional = [p for p in params if p.kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)]
        self.keyword_only = [p for p in params if p.kind == _P.KEYWORD_ONLY]
        self.star = next((p.name for p in params if p.kind == _P.VAR_POSITIONAL), None)
        if any(p.kind == _P.VAR_KEYWORD for p in params):
            raise UnsupportedError(
                f"{self.name}(): **{params[-1].name} parameters are not supported (Numba compiles "
                "positional, default, *args and keyword-only parameters)"
            )
        if self.star is not None and self.keyword_only:
            raise UnsupportedError(
                f"{self.name}(): keyword-only parameters after *{self.star} are not supported (Numba "
                "passes *args last); give them defaults before *args or drop *args"
            )
        #: whether every parameter is positional without a default (the fast path's overload cache)
        self.plain = (
            not self.keyword_only and self.star is None and all(p.default is _P.empty for p in params)
        )
        # (name, default or _P.empty) of the parameters a keyword may name, for the quick bind
        self._quick = (
            [(p.name, p.default) for p in self.positional + self.keyword_only]
            if all(p.kind != _P.POSITIONAL_ONLY for p in self.positional)
            else None
        )

    def names(self, nargs: int) -> list[str]:
        """Parameter names for `nargs` bound values (``args[i]`` for ``*args`` values)."""
        names = [p.name for p in self.positional]
        nstar = nargs - len(names) - len(self.keyword_only)
        names += [f"{self.star}[{i}]" for i in range(max(nstar, 0))]
        return names + [p.name for p in self.keyword_only]

    def bind(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> list[Any]:
        """The values of a call in parameter order (see the module documentation)."""
        quick = self._quick
        if quick is not None and len(args) <= len(self.positional):
            # every parameter after the positional arguments by keyword or default, each keyword used
            out = list(args)
            used = 0
            for name, default in quick[len(args) :]:
                v = kwargs.get(name, _P.empty)
                if v is not _P.empty:
                    used += 1
                    out.append(v)
                elif default is not _P.empty:
                    out.append(OmittedArg(default))
                else:
                    break
            else:
                if used == len(kwargs):
                    return out
        return self._bind_checked(args, kwargs)

    def _bind_checked(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> list[Any]:
        kwargs = dict(kwargs)
        out: list[Any] = []
        missing = []
        for i, p in enumerate(self.positional):
            if i < len(args):
                if p.kind == _P.POSITIONAL_OR_KEYWORD and p.name in kwargs:
                    raise TypeError(f"{self.name}() got multiple values for argument {p.name!r}")
                out.append(args[i])
            elif p.kind == _P.POSITIONAL_OR_KEYWORD and p.name in kwargs:
                out.append(kwargs.pop(p.name))
            elif p.default is not _P.empty:
                out.append(OmittedArg(p.default))
            else:
                missing.append(p.name)
        self._check_leftover_keywords(kwargs)
        if len(args) > len(self.positional):
            if self.star is None:
                raise TypeError(self._too_many(len(args), sum(p.name in kwargs for p in self.keyword_only)))
            out.extend(args[len(self.positional) :])
        if missing:
            raise TypeError(_missing(self.name, missing, "positional"))
        missing = []
        for p in self.keyword_only:
            if p.name in kwargs:
                out.append(kwargs.pop(p.name))
            elif p.default is not _P.empty:
                out.append(OmittedArg(p.default))
            else:
                missing.append(p.name)
        if missing:
            raise TypeError(_missing(self.name, missing, "keyword-only"))
        return out

    def _check_leftover_keywords(self, kwargs: dict[str, Any]) -> None:
        known = {p.name for p in self.keyword_only}
        unknown = [k for k in kwargs if k not in known]
        if not unknown:
            return
        posonly = [
            k for k in unknown if any(p.name == k and p.kind == _P.POSITIONAL_ONLY for p in self.positional)
        ]
        if posonly:
            raise TypeError(
                f"{self.name}() got some positional-only arguments passed as keyword arguments: "
                f"{', '.join(repr(k) for k in posonly)}"
            )
        raise TypeError(f"{self.name}() got an unexpected keyword argument {unknown[0]!r}")

    def _too_many(self, given: int, kwonly_given: int) -> str:
        most = len(self.positional)
        least = sum(1 for p in self.positional if p.default is _P.empty)
        takes = f"from {least} to {most}" if least != most else str(most)
        plural = "" if most == 1 and least == most else "s"
        was = "was" if given == 1 and not kwonly_given else "were"
        note = ""
        if kwonly_given:
            s, ks = ("" if given == 1 else "s"), ("" if kwonly_given == 1 else "s")
            note = f" positional argument{s} (and {kwonly_given} keyword-only argument{ks})"
        return f"{self.name}() takes {takes} positional argument{plural} but {given}{note} {was} given"


def _missing(name: str, names: list[str], kind: str) -> str:
    """Python's message for missing arguments: ``f() missing 2 required positional arguments: 'a'
    and 'b'``."""
    quoted = [repr(n) for n in names]
    if len(quoted) == 1:
        listed = quoted[0]
    elif len(quoted) == 2:
        listed = f"{quoted[0]} and {quoted[1]}"
    else:
        listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    s = "" if len(names) == 1 else "s"
    return f"{name}() missing {len(names)} required {kind} argument{s}: {listed}"
