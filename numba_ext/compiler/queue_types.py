"""``numba_ext.Queue`` and ``numba_ext.Device`` in jitted code, and the placement attributes of arrays.

* ``QueueType(device)``: a queue on `device` (filter string), so code is specialised per device, as
  for arrays. Its value is the queue's handle (the address arrays record in their ``queue`` field).
  Unboxing registers the queue object (rust/src/python/queues.rs), so a queue passed in and returned
  comes back as the same object; a queue read from an array comes back as the object its arrays carry.
* ``DeviceType(filter_string)``: a device, known at compile time. Its value is the Python object it
  was unboxed from (borrowed, null for devices read from arrays or queues), so a device passed in
  comes back as the same object; others are boxed by filter string (an equal object).
* Array attributes: ``a.sycl_queue`` (the array's queue), ``a.device``, ``a.usm_type`` (a compile-time
  string, so ``numba_ext.empty(a.shape, usm_type=a.usm_type)`` works), and ``q.sycl_device`` /
  ``q.device``, ``d.filter_string``. ``dtype``, ``shape``, ``strides``, ``flags``, ``T``... are Numba's.
"""

from __future__ import annotations

from numba.core import cgutils, types
from numba.core.datamodel import models
from numba.core.imputils import lower_cast, lower_getattr
from numba.core.typing.templates import AttributeTemplate, infer_getattr
from numba.extending import NativeValue, box, register_model, typeof_impl, unbox

from ..devices import Device, Queue, device_by_filter, remember_device
from .host_abi import I8P, declare
from .types import USMArrayType


class QueueType(types.Type):
    """A ``numba_ext.Queue`` on the device with filter string `device`."""

    def __init__(self, device: str):
        self.device = device
        super().__init__(name=f"Queue({device})")

    @property
    def key(self):
        return self.device


class DeviceType(types.Type):
    """A ``numba_ext.Device`` (its filter string is part of the type)."""

    def __init__(self, filter_string: str):
        self.filter_string = filter_string
        super().__init__(name=f"Device({filter_string})")

    @property
    def key(self):
        return self.filter_string


register_model(QueueType)(models.OpaqueModel)
register_model(DeviceType)(models.OpaqueModel)


@typeof_impl.register(Queue)
def _typeof_queue(val, c):
    return QueueType(remember_device(val.sycl_device).filter_string)


@typeof_impl.register(Device)
def _typeof_device(val, c):
    return DeviceType(remember_device(val).filter_string)


@unbox(QueueType)
def _unbox_queue(typ, obj, c):
    fn = declare(c.builder, "nx_queue_unbox", I8P, [I8P])
    handle = c.builder.call(fn, [c.builder.bitcast(obj, I8P)])
    return NativeValue(handle, is_error=cgutils.is_null(c.builder, handle))


@box(QueueType)
def _box_queue(typ, val, c):
    fn = declare(c.builder, "nx_queue_box", I8P, [I8P])
    return c.builder.bitcast(c.builder.call(fn, [val]), c.pyapi.pyobj)


@unbox(DeviceType)
def _unbox_device(typ, obj, c):
    return NativeValue(c.builder.bitcast(obj, I8P))  # borrowed: the caller keeps the argument alive


@box(DeviceType)
def _box_device(typ, val, c):
    """The object the device was unboxed from, else the device with the type's filter string."""
    slot = cgutils.alloca_once(c.builder, c.pyapi.pyobj)
    with c.builder.if_else(cgutils.is_null(c.builder, val)) as (made_here, from_argument):
        with made_here:
            fn = c.pyapi.unserialize(c.pyapi.serialize_object(device_by_filter))
            fs = c.pyapi.unserialize(c.pyapi.serialize_object(typ.filter_string))
            c.builder.store(c.pyapi.call_function_objargs(fn, [fs]), slot)
            c.pyapi.decref(fs)
            c.pyapi.decref(fn)
        with from_argument:
            obj = c.builder.bitcast(val, c.pyapi.pyobj)
            c.pyapi.incref(obj)
            c.builder.store(obj, slot)
    return c.builder.load(slot)


@lower_cast(DeviceType, DeviceType)
def _cast_device(context, builder, fromty, toty, val):
    return val


# -- attributes ----------------------------------------------------------------------------------------
@infer_getattr
class _USMArrayPlacement(AttributeTemplate):
    key = USMArrayType

    def resolve_sycl_queue(self, ary):
        return QueueType(ary.device)

    def resolve_device(self, ary):
        return DeviceType(ary.device)

    def resolve_usm_type(self, ary):
        return types.literal(ary.usm_type)


@infer_getattr
class _QueueAttributes(AttributeTemplate):
    key = QueueType

    def resolve_sycl_device(self, q):
        return DeviceType(q.device)

    resolve_device = resolve_sycl_device


@infer_getattr
class _DeviceAttributes(AttributeTemplate):
    key = DeviceType

    def resolve_filter_string(self, d):
        return types.literal(d.filter_string)


@lower_getattr(USMArrayType, "sycl_queue")
def _array_queue(context, builder, typ, value):
    return builder.bitcast(context.make_array(typ)(context, builder, value=value).queue, I8P)


@lower_getattr(USMArrayType, "device")
@lower_getattr(QueueType, "sycl_device")
@lower_getattr(QueueType, "device")
def _made_here_device(context, builder, typ, value):
    return I8P(None)  # boxed by filter string


@lower_getattr(USMArrayType, "usm_type")
@lower_getattr(DeviceType, "filter_string")
def _literal_attribute(context, builder, typ, value):
    return context.get_dummy_value()  # a StringLiteral: the value is in the type
