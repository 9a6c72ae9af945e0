"""Atomic read-modify-write on array elements inside kernels: ``numba_ext.atomic.add(array, index,
value)`` and friends return the old value. int32, int64, float32 and float64 (floats through a
compare-and-swap loop, so every device supports them)."""

from .kernel_api import _device_only

add = _device_only("atomic.add")
sub = _device_only("atomic.sub")
min = _device_only("atomic.min")
max = _device_only("atomic.max")
exchange = _device_only("atomic.exchange")
compare_exchange = _device_only("atomic.compare_exchange")

OPS = {
    add: "add",
    sub: "sub",
    min: "min",
    max: "max",
    exchange: "exchange",
    compare_exchange: "compare_exchange",
}
