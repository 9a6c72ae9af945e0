"""``ndarray.flags``: the memory layout of a numba_ext array, read as NumPy's ``flagsobj`` and as
dpctl's ``Flags`` are read (``a.flags.c_contiguous``, ``a.flags.writable``, ``a.flags['F']``).

Owns: ``Flags`` and the layout rules the arrays layer shares (``layout_order``: the order NumPy's
``order='K'`` keeps)."""

from __future__ import annotations

import numpy as np

# NumPy's flag names and their one-letter forms (``a.flags['C']``), and dpctl's extra names
_KEYS = {
    "C_CONTIGUOUS": "c_contiguous",
    "C": "c_contiguous",
    "CONTIGUOUS": "c_contiguous",
    "F_CONTIGUOUS": "f_contiguous",
    "F": "f_contiguous",
    "FORTRAN": "f_contiguous",
    "WRITEABLE": "writeable",
    "W": "writeable",
    "WRITABLE": "writeable",
    "ALIGNED": "aligned",
    "A": "aligned",
    "OWNDATA": "owndata",
    "O": "owndata",
    "WRITEBACKIFCOPY": "writebackifcopy",
    "X": "writebackifcopy",
    "FNC": "fnc",
    "FORC": "forc",
    "BEHAVED": "behaved",
    "B": "behaved",
    "CARRAY": "carray",
    "CA": "carray",
    "FARRAY": "farray",
    "FA": "farray",
}


class Flags:
    """The layout flags of one array (a snapshot: arrays never change layout). NumPy's attribute
    and item names work (``c_contiguous``, ``f_contiguous``, ``writeable``, ``aligned``, ``owndata``,
    ``flags['C_CONTIGUOUS']``, ``flags['F']``, ...), and dpctl's (``writable``, ``fc``, ``forc``,
    ``fnc``, ``contiguous``). ``owndata`` is False: the memory belongs to a USM allocation, never
    to the array object."""

    __slots__ = ("c_contiguous", "f_contiguous", "writeable", "aligned")
    c_contiguous: bool
    f_contiguous: bool
    writeable: bool
    aligned: bool

    def __init__(self, desc: np.ndarray) -> None:
        f = desc.flags
        for name in self.__slots__:
            object.__setattr__(self, name, bool(getattr(f, name)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(
            f"numba_ext array flags are read-only ({name}); make a copy with another layout instead "
            "(x.copy(order='F'), numba_ext.asarray(x, order='C'))"
        )

    owndata = property(lambda self: False)
    writebackifcopy = property(lambda self: False)
    writable = property(lambda self: self.writeable)  # dpctl's spelling
    fc = property(lambda self: self.c_contiguous and self.f_contiguous)
    forc = property(lambda self: self.c_contiguous or self.f_contiguous)
    fnc = property(lambda self: self.f_contiguous and not self.c_contiguous)
    contiguous = forc
    behaved = property(lambda self: self.aligned and self.writeable)
    carray = property(lambda self: self.behaved and self.c_contiguous)
    farray = property(lambda self: self.behaved and self.f_contiguous and not self.c_contiguous)

    def __getitem__(self, key: str) -> bool:
        name = _KEYS.get(key.upper()) if isinstance(key, str) else None
        if name is None:
            raise KeyError(f"unknown flag {key!r}")
        return bool(getattr(self, name))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Flags):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        names = ("C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "WRITEABLE", "ALIGNED", "WRITEBACKIFCOPY")
        return "\n".join(f"  {n} : {self[n]}" for n in names)


def layout_order(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...]:
    """The axes of an array from the largest stride to the smallest (NumPy's ``order='K'``: the
    layout a copy keeps); axes of length 1 and ties keep their place. The identity for C-contiguous
    arrays, reversed for F-contiguous ones."""
    axes = [i for i, n in enumerate(shape) if n != 1]
    ranked = sorted(axes, key=lambda i: -abs(strides[i]))  # stable: ties keep their order
    it = iter(ranked)
    return tuple(next(it) if n != 1 else i for i, n in enumerate(shape))
