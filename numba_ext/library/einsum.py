"""``np.einsum`` of numba_ext arrays on their device, from the library's operations.

The subscripts are parsed as NumPy parses them (``"ij,jk->ik"``, an implicit output of the labels
used once in alphabetical order, ``...`` for broadcast dimensions, labels of one operand repeated
for its diagonal). Each operand is cast to NumPy's result dtype, its repeated labels taken as
diagonals (views) and the labels no other operand and not the output names summed out; then the
operands are contracted two at a time, left to right: the labels both share and a later operand or
the output needs are batch dimensions, those only they share are summed over, as one matrix
product of the transposed and reshaped operands (a product of stacks, ``np.matmul``, over the
batch); the last operand is summed over the labels the
output lacks and transposed to the output's order. ``out=`` is refused; ``optimize`` is accepted
and the order stays left to right.
"""

from __future__ import annotations

import math
import string
from typing import Any

import numpy as np

from ..arrays import ndarray
from ..errors import ExecutionPlacementError, UnsupportedError
from ..placement import execution_queue
from .reductions import dot

_np: Any = np  # NumPy's functions, untyped: on numba_ext arrays they dispatch to this library

#: the labels ``...`` dimensions get (never letters, which the subscripts use)
_ELLIPSIS_LABELS = "".join(chr(c) for c in range(0x3B1, 0x3B1 + 32))


def _parse(subscripts: str, operands: list[ndarray]) -> tuple[list[str], str]:
    """Each operand's labels (one per dimension, ``...`` expanded) and the output's."""
    text = subscripts.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(operands):
        raise ValueError(
            "more operands provided to einstein sum function than specified in the subscripts string"
            if len(operands) > len(inputs)
            else "fewer operands provided to einstein sum function than specified in the subscripts string"
        )
    for part in [*inputs, rhs]:
        bad = [c for c in part.replace("...", "") if c not in string.ascii_letters]
        if bad:
            raise ValueError(
                f"invalid subscript '{bad[0]}' in einstein sum subscripts string, subscripts must be letters"
            )
    widest = 0
    labels: list[str] = []
    for spec, x in zip(inputs, operands):
        if "..." in spec:
            named = len(spec) - 3
            extra = x.ndim - named
            if extra < 0:
                raise ValueError(
                    f"operand has more dimensions than subscripts given in einstein sum ({spec!r})"
                )
            widest = max(widest, extra)
            spec = spec.replace("...", _ELLIPSIS_LABELS[:extra][::-1])
        if len(spec) != x.ndim:
            raise ValueError(
                f"operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis "
                f"provided to broadcast the extra dimensions ({spec!r} for {x.ndim} dimensions)"
            )
        labels.append(spec)
    broadcast = _ELLIPSIS_LABELS[:widest][::-1]
    if arrow:
        out = rhs.replace("...", broadcast)
        for c in out:
            if out.count(c) > 1:
                raise ValueError(
                    f"einstein sum subscripts string includes output subscript '{c}' multiple times"
                )
            if not any(c in spec for spec in labels):
                raise ValueError(
                    f"einstein sum subscripts string included output subscript '{c}' which never appeared "
                    "in an input"
                )
    else:
        counts: dict[str, int] = {}
        for spec in labels:
            for c in spec:
                counts[c] = counts.get(c, 0) + 1
        out = broadcast + "".join(
            sorted(c for c, k in counts.items() if k == 1 and c in string.ascii_letters)
        )
    return labels, out


def _diagonals(x: ndarray, spec: str) -> tuple[ndarray, str]:
    """`x` with each label repeated in `spec` taken once: the diagonal over those axes (last)."""
    while True:
        repeated = next((c for c in spec if spec.count(c) > 1), None)
        if repeated is None:
            return x, spec
        first = spec.index(repeated)
        second = spec.index(repeated, first + 1)
        if x.shape[first] != x.shape[second]:
            raise ValueError(
                f"dimensions in operand for collapsing index '{repeated}' don't match ({x.shape[first]} != "
                f"{x.shape[second]})"
            )
        x = _np.diagonal(x, axis1=first, axis2=second)
        spec = spec[:first] + spec[first + 1 : second] + spec[second + 1 :] + repeated


def _sum_out(x: ndarray, spec: str, keep: set[str]) -> tuple[ndarray, str]:
    """`x` summed over its labels outside `keep`."""
    axes = tuple(i for i, c in enumerate(spec) if c not in keep)
    if not axes:
        return x, spec
    summed: ndarray = _np.sum(x, axis=axes, dtype=x.dtype)  # einsum keeps its dtype
    return summed, "".join(c for c in spec if c in keep)


def _sizes(specs: list[str], arrays: list[ndarray]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for spec, x in zip(specs, arrays):
        for c, n in zip(spec, x.shape):
            seen = sizes.get(c, 1)
            if seen not in (1, n) and n != 1:
                raise ValueError(
                    f"operands could not be broadcast together: subscript '{c}' has sizes {seen} and {n}"
                )
            sizes[c] = n if seen == 1 else seen  # a size of one broadcasts (to zero too)
    return sizes


def _contract(a: ndarray, sa: str, b: ndarray, sb: str, keep: set[str]) -> tuple[ndarray, str]:
    """The product of `a` and `b` summed over the labels they share that `keep` lacks."""
    sizes = _sizes([sa, sb], [a, b])
    batch = [c for c in sa if c in sb and c in keep]
    summed = [c for c in sa if c in sb and c not in keep]
    left = [c for c in sa if c not in sb]
    right = [c for c in sb if c not in sa]

    def arranged(x: ndarray, spec: str, order: list[str]) -> ndarray:
        moved = x.transpose([spec.index(c) for c in order])
        result: ndarray = _np.broadcast_to(moved, tuple(sizes[c] for c in order))
        return result

    nb, nl, nk, nr = (math.prod(sizes[c] for c in group) for group in (batch, left, summed, right))
    lhs = arranged(a, sa, batch + left + summed).reshape(nb, nl, nk)
    rhs = arranged(b, sb, batch + summed + right).reshape(nb, nk, nr)
    product = dot(lhs[0], rhs[0]).reshape(1, nl, nr) if nb == 1 else _np.matmul(lhs, rhs)
    spec = "".join(batch + left + right)
    return product.reshape(tuple(sizes[c] for c in spec)), spec


def einsum(
    *args: Any,
    out: Any = None,
    dtype: Any = None,
    order: Any = "K",
    casting: Any = "safe",
    optimize: Any = False,
) -> ndarray:
    """np.einsum on the device (see the module)."""
    if out is not None:
        raise UnsupportedError(
            "np.einsum(out=) of numba_ext arrays is not supported; use the array it returns"
        )
    if not args or not isinstance(args[0], str):
        raise UnsupportedError(
            "np.einsum of numba_ext arrays takes its subscripts as a string (np.einsum('ij,jk->ik', a, b))"
        )
    subscripts, operands = args[0], list(args[1:])
    for i, x in enumerate(operands):
        if not isinstance(x, ndarray):
            raise ExecutionPlacementError(
                f"np.einsum: operand {i} is host data ({type(x).__name__}) among numba_ext arrays: its queue "
                "cannot be inferred (compute follows data). Convert it first with "
                "numba_ext.asarray(x, sycl_queue=q)"
            )
    execution_queue([(f"operand {i}", x) for i, x in enumerate(operands)])  # equivalent queues
    dummies = [np.zeros((1,) * x.ndim, x.dtype) for x in operands]
    # NumPy's checks of the subscripts, casting and dtype, and its result dtype
    result_dtype = np.einsum(subscripts, *dummies, dtype=dtype, casting=casting).dtype
    specs, output = _parse(subscripts, operands)
    arrays = [_np.astype(x, result_dtype, copy=False) for x in operands]
    pending = []
    for i, (x, spec) in enumerate(zip(arrays, specs)):
        x, spec = _diagonals(x, spec)
        needed = set(output).union(*(specs[j] for j in range(len(specs)) if j != i))
        pending.append(_sum_out(x, spec, needed))
    x, spec = pending[0]
    for k in range(1, len(pending)):
        keep = set(output).union(*(s for _, s in pending[k + 1 :]))
        x, spec = _contract(x, spec, *pending[k], keep)
    x, spec = _sum_out(x, spec, set(output))
    result: ndarray = x.transpose([spec.index(c) for c in output]) if spec != output else x
    return result[...] if any(result is o for o in operands) else result  # a view, as NumPy's


EINSUM_FUNCTIONS = {np.einsum: einsum}
