"""Complex values in offloaded code: what the kernel IR says about ``complex64`` and ``complex128``.

Complex values cross into Rust as their own dtypes; code generation (``rust/src/codegen/complex.rs``)
lowers every operation to real arithmetic on the (real, imaginary) pair, NumPy's memory layout. This
module holds the few facts the Python translators need: which dtypes are complex, the dtype an
operation yields (``abs``, ``real`` and ``imag`` of a complex value are real), and the operations
that are defined on complex values, so anything else is refused with a clear message before Rust
sees it."""

from __future__ import annotations

import cmath
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UnsupportedError
from .kernel_ir import BinaryInst, CastInst, Imm, Operand, UnaryInst

COMPLEX_COMPONENT = {"complex64": "float32", "complex128": "float64"}

# unary and binary operations (kernel IR names) lowered for complex operands
COMPLEX_UNARY = frozenset(
    (
        *("neg", "rint", "abs", "real", "imag", "conj"),
        *("sqrt", "exp", "expm1", "log", "log1p", "log2", "log10"),
        *("sin", "cos", "tan", "arcsin", "arccos", "arctan"),
        *("sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh"),
    )
)
COMPLEX_BINARY = frozenset(("add", "sub", "mul", "div", "pow", "eq", "ne"))

# ufuncs (NumPy names) computed by the kernel IR operation of the same meaning
COMPLEX_UFUNC_OPS = {"conjugate": ("unary", "conj"), "conj": ("unary", "conj")}


def cast_constant(v: bool | int | float | complex, to: str) -> bool | int | float | complex:
    """A constant converted to dtype `to` with NumPy's casting: reals gain a zero imaginary part,
    complex values keep their real part as a real type (and are true where either part is)."""
    if is_complex(to):
        return complex(v)
    if to == "bool":
        return v != 0
    re = v.real
    return float(re) if to.startswith("float") else int(re)


def is_complex(dtype: str) -> bool:
    return dtype in COMPLEX_COMPONENT


def component(dtype: str) -> str:
    """The dtype of one part of a complex dtype (the dtype itself for real dtypes)."""
    return COMPLEX_COMPONENT.get(dtype, dtype)


def unary_result(op: str, dtype: str) -> str:
    """The dtype the kernel IR's unary `op` yields for an operand of `dtype`; refuses the
    operations not defined on complex values."""
    if is_complex(dtype):
        if op not in COMPLEX_UNARY:
            raise UnsupportedError(f"np.{op} of {dtype} values cannot be offloaded yet")
        return component(dtype) if op in ("abs", "real", "imag") else dtype
    return dtype


def check_binary(op: str, dtype: str) -> None:
    """Refuse a binary operation the kernel IR does not define on complex values."""
    if is_complex(dtype) and op not in COMPLEX_BINARY:
        raise UnsupportedError(
            f"operation {op!r} on {dtype} values cannot be offloaded yet "
            f"(complex values support + - * / ** == != and abs, rint, sqrt, exp, expm1, log, log1p, "
            f"log2, log10, the trigonometric and hyperbolic functions and their inverses, conj)"
        )


def scalar_slots(value: complex | float | np.number, dtype: np.dtype) -> list[int]:
    """The two launch slots of a complex scalar argument: the bits of its real and imaginary parts
    in the component dtype (kernels take a complex scalar as two arguments)."""
    c = complex(value)
    parts = np.array([c.real, c.imag], dtype=component(dtype.name))
    return [int(b) for b in parts.view(np.dtype(f"u{parts.itemsize}"))]


def check_reduction(redop: str, dtype: str) -> None:
    """Refuse a device reduction of complex values other than a sum: partial results combine with
    one float atomic per component, which is exact only for addition."""
    if is_complex(dtype) and redop not in ("add", "sub"):
        what = {"mul": "products"}.get(redop, f"{redop!r} reductions")
        raise UnsupportedError(
            f"{what} of {dtype} values over a whole array or a prange loop cannot be offloaded yet "
            f"(sums and means can, and products along an axis: x.prod(axis=k)); compute them on "
            f"the host with numba_ext.asnumpy(x)"
        )


def check_ordered(op: str, dtype: object) -> None:
    """Refuse the reductions that order values (min, max, argmin, argmax) on complex data."""
    dt = np.dtype(dtype)  # type: ignore[call-overload]
    if dt.kind == "c" and op in ("min", "max", "argmin", "argmax"):
        name = dt.name
        raise UnsupportedError(
            f"np.{op} of {name} values cannot be offloaded yet (NumPy orders complex values "
            "lexicographically); reduce x.real and x.imag, or copy to the host with numba_ext.asnumpy(x)"
        )


# -- complex values in kernels and prange bodies (the control-flow form) -----------------------------
CMATH = {
    cmath.sqrt: "sqrt",
    cmath.exp: "exp",
    cmath.log: "log",
    cmath.sin: "sin",
    cmath.cos: "cos",
    cmath.sinh: "sinh",
    cmath.cosh: "cosh",
    cmath.tan: "tan",
    cmath.tanh: "tanh",
    cmath.asin: "arcsin",
    cmath.acos: "arccos",
    cmath.atan: "arctan",
    cmath.asinh: "arcsinh",
    cmath.acosh: "arccosh",
    cmath.atanh: "arctanh",
    cmath.log10: "log10",
}


@dataclass(frozen=True)
class ConjugateMethod:
    """The bound method ``z.conjugate`` / ``z.conj`` of a number `value` (called next)."""

    value: Operand


def translate_call(tr: Any, fn: Any, target: Any, ops: list[Operand], res: str | None) -> bool:
    """Calls on complex values in kernels: the ``cmath`` functions of ``CMATH``, ``z.conjugate()``
    and ``complex(re, im)``; False for other calls. `tr` is the kernel translator, `ops` the
    arguments' operands and `res` the result dtype."""
    if isinstance(fn, ConjugateMethod) and not ops and res is not None and not is_complex(res):
        tr.assign_scalar(target, fn.value)  # a real value's conjugate is itself, as Numba's
        return True
    if fn in (np.real, np.imag) and len(ops) == 1 and res is not None:
        _part(tr, target, "real" if fn is np.real else "imag", ops[0], res)
        return True
    if res is None or not is_complex(res):
        return False
    if isinstance(fn, ConjugateMethod) and not ops:
        src = fn.value
        op = "conj"
    elif fn in CMATH and len(ops) == 1:
        src, op = tr.cast(ops[0], res), CMATH[fn]
    elif fn is complex and 1 <= len(ops) <= 2:
        tr.assign_scalar(target, _make_complex(tr, ops, res))
        return True
    else:
        return False
    tmp, tmp_op = tr.new_value(unary_result(op, tr.fb.dtype_of(src)))
    tr.emit(UnaryInst(tmp, op, src))
    tr.assign_scalar(target, tmp_op)
    return True


def _part(tr: Any, target: Any, part: str, src: Operand, res: str) -> None:
    """``np.real(x)`` / ``np.imag(x)`` of a scalar: the part of a complex value; a real value is its
    own real part and has a zero imaginary part, as NumPy's."""
    if is_complex(tr.fb.dtype_of(src)):
        tmp, tmp_op = tr.new_value(unary_result(part, tr.fb.dtype_of(src)))
        tr.emit(UnaryInst(tmp, part, src))
        tr.assign_scalar(target, tmp_op)
    else:
        tr.assign_scalar(target, src if part == "real" else Imm(res, 0))


def _make_complex(tr: Any, ops: list[Operand], res: str) -> Operand:
    """``complex(re, im)`` as ``re + im * 1j`` in dtype `res` (exact for finite parts)."""
    re, re_op = tr.new_value(res)
    tr.emit(CastInst(re, ops[0]))
    if len(ops) == 1:
        return re_op
    im, im_op = tr.new_value(res)
    tr.emit(CastInst(im, ops[1]))
    rot, rot_op = tr.new_value(res)
    tr.emit(BinaryInst(rot, "mul", im_op, Imm(res, 1j)))
    out, out_op = tr.new_value(res)
    tr.emit(BinaryInst(out, "add", re_op, rot_op))
    return out_op
