"""NumPy ufuncs that are several kernel-IR nodes rather than one operation (``np.sign``, ``np.isnan``,
``np.fmax``, ``np.logaddexp``, ``np.spacing``, ``np.lcm``, ...), with NumPy's results for NaN,
infinities and signed zeros. ``spec_builder.SpecBuilder.apply_ufunc`` calls :func:`compose` once it
has cast the operands to the ufunc loop's input dtypes."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from .kernel_ir import Binary, Select, Unary

if TYPE_CHECKING:
    from .spec_builder import SpecBuilder

_INF = math.inf


def _is_float(dt: str) -> bool:
    return dt in ("float32", "float64")


def _num(b: SpecBuilder, dt: str, v: int) -> int:
    """The constant `v` in dtype `dt` (a float for float dtypes)."""
    return b.const(dt, float(v) if _is_float(dt) else v)


_PART = {"complex64": "float32", "complex128": "float64"}


def _parts(b: SpecBuilder, x: int, dt: str) -> tuple[int, int, str]:
    """The real and imaginary parts of a complex `x`, and their dtype."""
    part = _PART[dt]
    return b.node(Unary(part, "real", x)), b.node(Unary(part, "imag", x)), part


def _isnan(b: SpecBuilder, x: int, dt: str) -> int:
    if dt in _PART:  # either part NaN: z != z
        return b.node(Binary("bool", "ne", x, x))
    if not _is_float(dt):
        return b.const("bool", False)
    return b.node(Binary("bool", "ne", x, x))


def _isinf(b: SpecBuilder, x: int, dt: str) -> int:
    if dt in _PART:  # either part infinite
        re, im, part = _parts(b, x, dt)
        return b.node(Binary("bool", "or", _isinf(b, re, part), _isinf(b, im, part)))
    if not _is_float(dt):
        return b.const("bool", False)
    return b.node(Binary("bool", "eq", b.node(Unary(dt, "abs", x)), b.const(dt, _INF)))


def _isfinite(b: SpecBuilder, x: int, dt: str) -> int:
    if dt in _PART:  # both parts finite
        re, im, part = _parts(b, x, dt)
        return b.node(Binary("bool", "and", _isfinite(b, re, part), _isfinite(b, im, part)))
    if not _is_float(dt):
        return b.const("bool", True)
    return b.node(Binary("bool", "lt", b.node(Unary(dt, "abs", x)), b.const(dt, _INF)))


def _signbit(b: SpecBuilder, x: int, dt: str) -> int:
    # copysign reads the sign bit, also of NaN and -0.0
    one = b.node(Binary(dt, "copysign", b.const(dt, 1.0), x))
    return b.node(Binary("bool", "lt", one, b.const(dt, 0.0)))


def _sign(b: SpecBuilder, x: int, dt: str) -> int:
    """1, -1 or 0 by the sign of `x`; NaN stays NaN and both zeros give +0.0 (NumPy's sign)."""
    zero = _num(b, dt, 0)
    pos = b.node(Binary("bool", "gt", x, zero))
    if dt.startswith("uint") or dt == "bool":
        return b.node(Select(dt, pos, _num(b, dt, 1), zero))
    neg = b.node(Binary("bool", "lt", x, zero))
    rest = zero
    if _is_float(dt):  # neither > 0 nor < 0: a zero (-> +0.0) or NaN (-> itself)
        rest = b.node(Select(dt, b.node(Binary("bool", "eq", x, zero)), zero, x))
    return b.node(Select(dt, pos, _num(b, dt, 1), b.node(Select(dt, neg, _num(b, dt, -1), rest))))


def _complex_sign(b: SpecBuilder, x: int, dt: str) -> int:
    """NumPy 2's sign of a complex `x`: ``x / |x|`` (0 for 0, NaN for NaN); an infinite part gives
    its sign (NaN where both parts are infinite)."""
    re, im, part = _parts(b, x, dt)
    mag = b.node(Unary(part, "abs", x))
    zero, nan = b.const(part, 0.0), b.const(part, math.nan)
    huge = _isinf(b, mag, part)
    re_inf, im_inf = _isinf(b, re, part), _isinf(b, im, part)

    def one_part(p: int, p_inf: int, other_inf: int) -> int:
        at_inf = b.node(Select(part, p_inf, b.node(Select(part, other_inf, nan, _sign(b, p, part))), zero))
        finite = b.node(Binary(part, "div", p, mag))
        scaled = b.node(Select(part, huge, at_inf, finite))
        return b.node(Select(part, b.node(Binary("bool", "eq", mag, zero)), zero, scaled))

    return _complex(b, one_part(re, re_inf, im_inf), one_part(im, im_inf, re_inf), dt)


def _complex(b: SpecBuilder, re: int, im: int, dt: str) -> int:
    """The complex value of dtype `dt` with parts `re` and `im` (of its part dtype)."""
    part = _PART[dt]
    re_c, im_c = b.cast(re, part, dt), b.cast(im, part, dt)
    return b.node(Binary(dt, "add", re_c, b.node(Binary(dt, "mul", im_c, b.const(dt, 1j)))))


def _reciprocal(b: SpecBuilder, x: int, dt: str) -> int:
    # integers: 1 / x truncated (0 for |x| > 1); NumPy's result for 0 is undefined, ours is 0
    return b.node(Binary(dt, "div", _num(b, dt, 1), x))


def _scale(factor: float) -> Callable[[SpecBuilder, int, str], int]:
    def op(b: SpecBuilder, x: int, dt: str) -> int:
        return b.node(Binary(dt, "mul", x, b.const(dt, factor)))

    return op


def _spacing(b: SpecBuilder, x: int, dt: str) -> int:
    """The distance to the next value away from zero (negative for negative `x`; +tiny for both
    zeros; NaN for infinities), as NumPy's spacing."""
    neg = b.node(Binary("bool", "lt", x, b.const(dt, 0.0)))
    away = b.node(Select(dt, neg, b.const(dt, -_INF), b.const(dt, _INF)))
    return b.node(Binary(dt, "sub", b.node(Binary(dt, "nextafter", x, away)), x))


def _fminmax(op: str) -> Callable[[SpecBuilder, int, int, str], int]:
    """np.fmax / np.fmin: NaN only where both operands are NaN."""

    def compose(b: SpecBuilder, x: int, y: int, dt: str) -> int:
        m = b.node(Binary(dt, op, x, y))
        if not _is_float(dt):
            return m
        m = b.node(Select(dt, _isnan(b, x, dt), y, m))
        return b.node(Select(dt, _isnan(b, y, dt), x, m))

    return compose


def _logaddexp(base2: bool) -> Callable[[SpecBuilder, int, int, str], int]:
    """log(exp(x) + exp(y)) (or in base 2) as NumPy computes it: max(x, y) + log1p(exp(-|x - y|)),
    and x + log(2) where x == y (which keeps infinities)."""
    exp = "exp2" if base2 else "exp"

    def compose(b: SpecBuilder, x: int, y: int, dt: str) -> int:
        d = b.node(Unary(dt, "abs", b.node(Binary(dt, "sub", x, y))))
        t = b.node(Unary(dt, "log1p", b.node(Unary(dt, exp, b.node(Unary(dt, "neg", d))))))
        if base2:
            t = b.node(Binary(dt, "mul", t, b.const(dt, 1.0 / math.log(2.0))))
        res = b.node(Binary(dt, "add", b.node(Binary(dt, "max", x, y)), t))
        same = b.node(Binary(dt, "add", x, b.const(dt, 1.0 if base2 else math.log(2.0))))
        return b.node(Select(dt, b.node(Binary("bool", "eq", x, y)), same, res))

    return compose


def _lcm(b: SpecBuilder, x: int, y: int, dt: str) -> int:
    # |x| / gcd(x, y) * |y|; the integer division gives 0 for gcd 0 (both operands 0)
    g = b.node(Binary(dt, "gcd", x, y))
    ax, ay = b.node(Unary(dt, "abs", x)), b.node(Unary(dt, "abs", y))
    return b.node(Binary(dt, "mul", b.node(Binary(dt, "div", ax, g)), ay))


def _ldexp(b: SpecBuilder, x: int, n: int, dt: str, n_dt: str) -> int:
    # the exponent travels in the float dtype (the Rust side clamps it into a 32-bit int)
    return b.node(Binary(dt, "ldexp", x, b.cast(n, n_dt, dt)))


#: ufunc name -> composition of one operand (node, loop dtype) -> node
UNARY: dict[str, Callable[[SpecBuilder, int, str], int]] = {
    "isnan": _isnan,
    "isinf": _isinf,
    "isfinite": _isfinite,
    "signbit": _signbit,
    "sign": _sign,
    "reciprocal": _reciprocal,
    "degrees": _scale(180.0 / math.pi),
    "rad2deg": _scale(180.0 / math.pi),
    "radians": _scale(math.pi / 180.0),
    "deg2rad": _scale(math.pi / 180.0),
    "spacing": _spacing,
}

#: ufunc name -> composition of two operands of one loop dtype -> node
BINARY: dict[str, Callable[[SpecBuilder, int, int, str], int]] = {
    "fmax": _fminmax("max"),
    "fmin": _fminmax("min"),
    "logaddexp": _logaddexp(False),
    "logaddexp2": _logaddexp(True),
    "lcm": _lcm,
}


def compose(b: SpecBuilder, name: str, args: list[int], in_dts: list[str], out_dt: str) -> int | None:
    """The node computing ufunc `name` on `args` (already of the loop's dtypes `in_dts`), of dtype
    `out_dt`; None when `name` is not composed here."""
    if name == "sign" and in_dts[0] in _PART:
        return b.cast(_complex_sign(b, args[0], in_dts[0]), in_dts[0], out_dt)
    if name in UNARY:
        return b.cast(UNARY[name](b, args[0], in_dts[0]), _result_dtype(name, in_dts[0]), out_dt)
    if name in BINARY:
        return b.cast(BINARY[name](b, args[0], args[1], in_dts[0]), in_dts[0], out_dt)
    if name == "ldexp":
        return _ldexp(b, args[0], args[1], in_dts[0], in_dts[1])
    return None


def _result_dtype(name: str, dt: str) -> str:
    return "bool" if name in ("isnan", "isinf", "isfinite", "signbit") else dt
