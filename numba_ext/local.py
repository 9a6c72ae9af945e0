"""``numba_ext.local.array(shape, dtype)``: work-group shared memory inside kernels."""

from .kernel_api import _device_only

array = _device_only("local.array")
