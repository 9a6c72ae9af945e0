"""Bounds checking of kernel launches: the error-record array a bounds-checked kernel takes as its
hidden last argument (allocated per launch on the launch's queue, zeroed), and the ``IndexError``
raised after the launch when the kernel recorded an access out of bounds (the record's layout is
``ir.kernel_ir``'s)."""

from __future__ import annotations

from ..arrays.creation import asnumpy, zeros
from ..arrays.ndarray import ndarray  # the class (mypy, in an import cycle, may take the module)
from ..devices import Queue
from ..ir.kernel_ir import BOUNDS_RECORD_LEN, Function

_ACCESS = ("read", "write", "atomic")


def bounds_record(queue: Queue) -> ndarray:
    """A zeroed error record on `queue` (device memory) for one launch."""
    return zeros(BOUNDS_RECORD_LEN, dtype="int64", sycl_queue=queue)


def check_bounds_record(kernel_name: str, spec: Function, record: ndarray) -> None:
    """Raise IndexError where the launch recorded an access out of bounds."""
    flag, array, dim, index, extent, access, view, _ = (int(v) for v in asnumpy(record))
    if not flag:
        return
    decl = spec.arrays[array]
    what = {"global": "argument", "local": "local array", "private": "private array"}[decl.space]
    if index < 0:  # the index as written: it was wrapped once (index + extent)
        index -= extent
    through = "a view of " if view == 1 else ""  # an index into a view made in the kernel
    raise IndexError(
        f"kernel {kernel_name}: index {index} is out of bounds for axis {dim} with size {extent} "
        f"({_ACCESS[access]} of {through}{what} '{decl.name}'); the access was skipped "
        "(boundscheck=True or NUMBA_BOUNDSCHECK=1 checks every array access)"
    )
