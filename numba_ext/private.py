"""``numba_ext.private.array(shape, dtype)``: per-work-item memory inside kernels."""

from .kernel_api import _device_only

array = _device_only("private.array")
