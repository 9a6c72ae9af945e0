"""Device functions (``@numba_ext.func``) and Numba's typed IR of kernel code.

A device function is callable from kernels and other device functions and is inlined where it is
called; typing a call types the function's body for the call's argument types. Called from host
jitted code (``numba_ext.jit``, ``numba.njit``) outside a kernel, it is compiled for the host as a
plain jitted function of the call's argument types and called there."""

from __future__ import annotations

from typing import Any

from numba.core import compiler, typed_passes, types
from numba.core.errors import TypingError
from numba.core.imputils import lower_builtin
from numba.core.registry import cpu_target
from numba.core.typing.templates import AbstractTemplate, signature
from numba.extending import typeof_impl

from .._pickling import pickle_reduce
from ..errors import KernelTypingError
from . import kernel_typing  # noqa: F401  (registers the typing of the kernel API's functions)
from .signatures import Signature, describe, match_signature


def typed_ir(py_func: Any, argtys: tuple) -> tuple:
    """Numba's typed IR of `py_func` for `argtys`: (func_ir, typemap, calltypes, return type)."""
    func_ir = compiler.run_frontend(py_func, inline_closures=True)
    typingctx, targetctx = cpu_target.typing_context, cpu_target.target_context
    typingctx.refresh()
    res = typed_passes.type_inference_stage(typingctx, targetctx, func_ir, argtys, None)
    return func_ir, res.typemap, res.calltypes, res.return_type


class DeviceFunction:
    """A function callable from kernels (and other device functions); inlined where it is called.
    With `signatures` (``@numba_ext.func(sig)``), typed for those at once and called only with
    arguments that convert to one of them."""

    def __init__(
        self, py_func: Any, signatures: list[Signature] | None = None, boundscheck: bool | None = None
    ) -> None:
        self.py_func = py_func
        #: True: the kernels that call it check their array accesses (unless theirs says otherwise)
        self.boundscheck = boundscheck
        self.__name__ = py_func.__name__
        self.signatures = signatures
        for sig in signatures or ():
            try:
                typed_ir(py_func, sig)
            except Exception as e:
                raise KernelTypingError(
                    f"device function {self.__name__} could not be typed for ({describe([sig])}):\n{e}"
                ) from None
        lower_builtin(self, types.VarArg(types.Any))(self._lower_host_call)

    def formal_types(self, args: tuple) -> tuple:
        """The argument types a call with `args` is typed for: its own, or the signature they match."""
        if self.signatures is None:
            return tuple(args)
        sig = match_signature(self.signatures, args, allow_unsafe=True)
        if sig is None:
            raise TypingError(
                f"device function {self.__name__} has no signature for arguments "
                f"({', '.join(map(str, args))}); its signatures: {describe(self.signatures)}"
            )
        return sig

    def _lower_host_call(self, context, builder, sig, args):
        """A call from host jitted code: the function compiled for the host for `sig` (Numba's
        nopython mode, as for a plain jitted function) and called."""
        return context.compile_internal(builder, self.py_func, sig, args)

    def __call__(self, *args: Any) -> Any:
        raise RuntimeError(
            f"device function {self.__name__} can only be called from a kernel or from jitted code "
            "(numba_ext.jit, numba.njit), not from Python"
        )

    def __repr__(self) -> str:
        return f"<numba_ext.func {self.py_func.__qualname__}>"

    def __reduce__(self) -> tuple[Any, ...]:
        """By reference when its module holds it under its name, else the Python function, the
        signatures and the bounds-check setting (see ``numba_ext._pickling``)."""
        rebuild = (DeviceFunction, (self.py_func, self.signatures, self.boundscheck))
        return pickle_reduce(self, self.py_func, rebuild)


@typeof_impl.register(DeviceFunction)
def _typeof_device_function(val: DeviceFunction, c: Any) -> types.Function:
    """One Numba type per device function: typing may ask more than once (a module attribute,
    ``helpers.f(x)``, is typed at each pass), and two types of one function would not unify."""
    cached = val.__dict__.get("_numba_function_type")
    if cached is None:
        cached = val.__dict__["_numba_function_type"] = _function_type(val)
    return cached


def _function_type(val: DeviceFunction) -> types.Function:
    class DeviceFunctionTemplate(AbstractTemplate):
        key = val

        def generic(self, args, kws):
            if kws:
                return None
            formal = val.formal_types(tuple(args))
            _, _, _, restype = typed_ir(val.py_func, formal)
            return signature(restype, *formal)

    return types.Function(DeviceFunctionTemplate)
